import MeridianCore
import MeridianFormats
import MeridianGeometry
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
    /// Bytes stored since the last commit (taken inside `file`'s lock).
    private let uncommittedBytes = Mutex(0)
    /// How many bytes of tiles are committed at a time without a block's mark, or nil (a raster
    /// run's blocks are small and commit with their mark).
    private let checkpointBytes: Int?
    /// Whether the file is one shard's part of a run split across machines, which keeps the
    /// run's identity when finished, for `--finish` to check.
    private let isShardPart: Bool
    /// The partial file and its journal when a signal removes them (a tile set written in one
    /// go, which no run resumes); empty when they are kept for resuming.
    private let removedOnSignal: [String]

    /// Opens the partial file for the run `identity`: a new one, or with `resume` an interrupted
    /// run's of the same identity (else a usage error, before anything is written). A shard's
    /// part (`isShardPart`) keeps the identity when finished. With `checkpointBytes`, tiles are
    /// committed each time that many bytes have been stored (for runs whose blocks are large).
    /// With `removeOnSignal`, a signal that ends the process removes the partial file (a tile
    /// set that is not resumed). With `replacing`, the finished file replaces a regular file at `path`.
    public init(path: String, format: TileFormat, resume: Bool, identity: TilingRunIdentity, isShardPart: Bool = false,
                checkpointBytes: Int? = nil, removeOnSignal: Bool = false, replacing: Bool = false) throws {
        self.checkpointBytes = checkpointBytes
        self.format = format
        self.path = path
        self.isShardPart = isShardPart
        let writer = try MBTilesWriter(path: path, resume: resume, run: identity.fields.map { ($0.name, $0.value) }, replacing: replacing) { recorded in
            let recordedIdentity = recorded.map { TilingRunIdentity(fields: $0.map { TilingRunIdentity.Field(name: $0.name, value: $0.value) }) }
            try identity.checkResuming(recordedIdentity, output: path)
        }
        completedBlocks = writer.completedBlocks
        removedOnSignal = removeOnSignal ? writer.leftovers : []
        for leftover in removedOnSignal { TemporaryFiles.removeOnSignal(leftover) }
        file = Mutex(writer)
    }

    /// A stored tile's bytes, or nil.
    public func existingTile(_ tile: MapTile) throws -> [UInt8]? {
        try file.withLock { try $0.existingTile(tile) }
    }

    /// Removes the partial file and its journal.
    public func discard() {
        file.withLock { $0.discard() }
        for leftover in removedOnSignal { TemporaryFiles.forget(leftover) }
    }

    /// Stores one encoded tile in the partial file (a vector tile gzipped, as MBTiles stores them).
    public func write(_ tile: MapTile, data: [UInt8]) throws {
        let stored = format == .mvt ? try Gzip.compress(data) : data
        try file.withLock { writer in
            try writer.write(tile, data: stored)
            guard let checkpointBytes else { return }
            // A level-by-level run's blocks are whole levels: its tiles are committed every few
            // megabytes (unmarked: an unfinished level is made again, the same tiles).
            let due = uncommittedBytes.withLock {
                $0 += stored.count
                guard $0 >= checkpointBytes else { return false }
                $0 = 0
                return true
            }
            if due { try writer.commit() }
        }
    }

    /// Records the block as completed in the partial file, in the transaction of its tiles, so
    /// a resumed run keeps its tiles.
    public func markCompleted(block: MapTile, tiles: [MapTile]) throws {
        try file.withLock { try $0.markCompleted(block: block, tiles: tiles.count) }
    }

    /// Records the level as completed (as the block `mark`, with its count of tiles) in the
    /// partial file, in the transaction of its tiles.
    public func markCompleted(levelOf mark: MapTile, tiles: Int) throws {
        try file.withLock { try $0.markCompleted(block: mark, tiles: tiles) }
    }

    /// The file (its table of blocks has no lines to name).
    public func location(ofCompleted block: MapTile) -> SourceLocation { SourceLocation(file: path) }

    /// The finished file; nothing for a shard's part, which carries the run's identity and is
    /// checked when it is joined.
    public func evidence(sample: MapTile?) -> [String] { isShardPart ? [] : [path] }

    /// The lowest and highest zoom levels that hold a tile, or nil.
    public func zoomsWithTiles() throws -> ClosedRange<Int>? {
        try file.withLock { try $0.zoomsWithTiles() }
    }

    /// The rows of level `zoom` that address a valid tile `counted` takes.
    public func storedTileCount(zoom: Int, where counted: @Sendable (MapTile) -> Bool) throws -> Int {
        try file.withLock { try $0.storedTileCount(zoom: zoom, where: counted) }
    }

    /// Copies every tile of shard `index`'s own MBTiles file into this one, once it has shown
    /// to be that shard's part: its run's identity, tile format and tiles.
    public func adoptShard(_ index: Int, of workspace: ShardWorkspace, identity: TilingRunIdentity, belongs: @Sendable (MapTile) -> Bool) throws -> Int {
        try file.withLock {
            try $0.copyTiles(from: workspace.mbtiles(index), run: identity.fields.map { ($0.name, $0.value) },
                             format: format.fileExtension, belongs: belongs)
        }
    }

    /// Writes the MBTiles metadata table and moves the finished file into place.
    public func finish(metadata m: TileSetMetadata) throws {
        let metadata = MBTilesMetadata(name: m.name, description: m.description, format: m.format.fileExtension,
                                       bounds: m.bounds, center: m.center, minZoom: m.minZoom, maxZoom: m.maxZoom,
                                       json: m.format == .mvt ? "{\"vector_layers\":\(m.vectorLayersJSON ?? "[]")\(m.tileStatsJSON.map { ",\"tilestats\":\($0)" } ?? "")}" : nil)
        try file.withLock { try $0.finish(metadata: metadata, keepingRun: isShardPart) }
        for leftover in removedOnSignal { TemporaryFiles.forget(leftover) }
    }
}
