import MeridianGeometry
import MeridianTiles
import Synchronization

/// A tiling run's tiles into an MBTiles file (`MBTilesWriter`: built out of sight, block by
/// block, resumable), for the tiler's threads: the writer (a SQLite connection) is used by
/// one of them at a time, inside its mutex.
public final class MBTilesSink: TileSink, Sendable {
    /// The tiles' image format, recorded in the file's metadata.
    public let format: TileFormat
    /// The MBTiles file being written.
    public let path: String
    /// Blocks an interrupted run of the same identity completed, with their tile counts (empty for a new file).
    public let completedBlocks: [MapTile: Int]
    private let file: Mutex<MBTilesWriter>

    /// Opens the partial file for the run `identity`: a new one, or with `resume` an interrupted
    /// run's of the same identity (else a usage error, before anything is written).
    public init(path: String, format: TileFormat, resume: Bool, identity: TilingRunIdentity) throws {
        self.format = format
        self.path = path
        let writer = try MBTilesWriter(path: path, resume: resume, run: identity.fields.map { ($0.name, $0.value) }) { recorded in
            let recordedIdentity = recorded.map { TilingRunIdentity(fields: $0.map { TilingRunIdentity.Field(name: $0.name, value: $0.value) }) }
            try identity.checkResuming(recordedIdentity, output: path)
        }
        completedBlocks = writer.completedBlocks
        file = Mutex(writer)
    }

    /// A stored tile's bytes, or nil.
    public func existingTile(_ tile: MapTile) throws -> [UInt8]? {
        try file.withLock { try $0.existingTile(tile) }
    }

    /// Removes the partial file and its journal.
    public func discard() {
        file.withLock { $0.discard() }
    }

    /// Stores one encoded tile in the partial file.
    public func write(_ tile: MapTile, data: [UInt8]) throws {
        try file.withLock { try $0.write(tile, data: data) }
    }

    /// Records the block as completed in the partial file, so a resumed run keeps its tiles.
    public func markCompleted(block: MapTile, tiles: Int) throws {
        try file.withLock { try $0.markCompleted(block: block, tiles: tiles) }
    }

    /// The lowest and highest zoom levels that hold a tile, or nil.
    public func zoomsWithTiles() throws -> ClosedRange<Int>? {
        try file.withLock { try $0.zoomsWithTiles() }
    }

    /// Copies every tile of shard `index`'s own MBTiles file into this one.
    public func adoptShard(_ index: Int, of workspace: ShardWorkspace) throws {
        try file.withLock { try $0.copyTiles(from: workspace.mbtiles(index)) }
    }

    /// Writes the MBTiles metadata table and moves the finished file into place.
    public func finish(metadata m: TileSetMetadata) throws {
        let metadata = MBTilesMetadata(name: m.name, description: m.description, format: m.format == .jpeg ? "jpg" : m.format.rawValue,
                                       bounds: m.bounds, center: m.center, minZoom: m.minZoom, maxZoom: m.maxZoom)
        try file.withLock { try $0.finish(metadata: metadata) }
    }
}
