import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
import Synchronization

/// A tiling run's image tiles into a PMTiles 3 archive (`PMTilesWriter`: spilled, then laid out
/// by Hilbert id at the end), for the tiler's threads. An archive is written in one go: it
/// cannot be resumed (a folder or MBTiles can); shards of a run write MBTiles parts, which the
/// joining takes into the archive.
public final class PMTilesSink: TileSink, Sendable {
    /// The archive being written.
    public let path: String
    private let format: TileFormat
    private let archive: Mutex<PMTilesWriter>
    private let zooms = Mutex<ClosedRange<Int>?>(nil)

    /// A new archive at `path` of `format` tiles; with `replacing`, it replaces a regular file at `path`.
    public init(path: String, format: TileFormat, replacing: Bool = false) throws {
        self.path = path
        self.format = format
        archive = Mutex(try PMTilesWriter(path: path, format: format, tilesGzipped: format == .mvt, replacing: replacing))
    }

    /// Nothing to resume: an archive is written whole.
    public var completedBlocks: [MapTile: Int] { [:] }

    /// No tile is read back from an archive being written.
    public func existingTile(_ tile: MapTile) throws -> [UInt8]? { nil }

    /// Nothing to remove: the archive is only written by `finish`, and its spill goes with the sink.
    public func discard() {}

    /// Spills one encoded tile (a vector tile gzipped, as PMTiles stores them).
    public func write(_ tile: MapTile, data: [UInt8]) throws {
        try store(tile, format == .mvt ? try Gzip.compress(data) : data)
    }

    /// Spills a tile as the archive stores it.
    private func store(_ tile: MapTile, _ stored: [UInt8]) throws {
        try archive.withLock { try $0.write(tile, stored) }
        zooms.withLock { $0 = $0.map { min($0.lowerBound, tile.zoom)...max($0.upperBound, tile.zoom) } ?? tile.zoom...tile.zoom }
    }

    /// Nothing to record: an interrupted archive is started again.
    public func markCompleted(block: MapTile, tiles: [MapTile]) throws {}

    /// Nothing to record: an interrupted archive is started again.
    public func markCompleted(levelOf mark: MapTile, tiles: Int) throws {}

    /// The archive (it records no blocks).
    public func location(ofCompleted block: MapTile) -> SourceLocation { SourceLocation(file: path) }

    /// The archive.
    public func evidence(sample: MapTile?) -> [String] { [path] }

    /// The zoom levels that got a tile.
    public func zoomsWithTiles() throws -> ClosedRange<Int>? { zooms.withLock { $0 } }

    /// None: an archive written in one go is never resumed, so no state claims its tiles.
    public func storedTileCount(zoom: Int, where counted: @Sendable (MapTile) -> Bool) throws -> Int { 0 }

    /// Lays out the archive with its metadata and moves it into place.
    public func finish(metadata m: TileSetMetadata) throws {
        let json = "{\"name\":\(jsonString(m.name)),\"description\":\(jsonString(m.description)),\"type\":\"overlay\","
            + "\"format\":\"\(m.format.fileExtension)\""
            + (m.format == .mvt ? ",\"vector_layers\":\(m.vectorLayersJSON ?? "[]")" + (m.tileStatsJSON.map { ",\"tilestats\":\($0)" } ?? "") + "}"
                : ",\"tileSize\":\"\(m.tileSize)\"}")
        try archive.withLock { try $0.finish(metadataJSON: json, bounds: m.bounds, zooms: m.minZoom...m.maxZoom) }
    }

    /// Takes in every tile of shard `index`'s own MBTiles part (stored as an archive stores
    /// them: vector tiles gzipped), once it has shown to be that shard's part.
    public func adoptShard(_ index: Int, of workspace: ShardWorkspace, identity: TilingRunIdentity, belongs: @Sendable (MapTile) -> Bool) throws -> Int {
        var taken = 0
        try MBTilesWriter.forEachTile(ofPart: workspace.mbtiles(index), run: identity.fields.map { ($0.name, $0.value) },
                                      format: format.fileExtension, belongs: belongs) {
            try store($0, $1)
            taken += 1
        }
        return taken
    }
}
