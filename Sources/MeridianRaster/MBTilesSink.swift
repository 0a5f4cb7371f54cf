import MeridianGeometry
import MeridianTiles

/// A tiling run's tiles into an MBTiles file (`MBTilesWriter`: built out of sight, block by
/// block, resumable), for the tiler's threads: one lock orders their calls.
public final class MBTilesSink: TileSink, @unchecked Sendable {
    public let format: TileFormat
    private let file: MBTilesWriter
    private let lock = Lock()

    public var path: String { file.path }
    public var completedBlocks: [MapTile: Int] { file.completedBlocks }

    /// Opens the partial file for the run `identity`: a new one, or with `resume` an interrupted
    /// run's of the same identity (else a usage error, before anything is written).
    public init(path: String, format: TileFormat, resume: Bool, identity: TilingRunIdentity) throws {
        self.format = format
        file = try MBTilesWriter(path: path, resume: resume, run: identity.fields.map { ($0.name, $0.value) }) { recorded in
            let recordedIdentity = recorded.map { TilingRunIdentity(fields: $0.map { TilingRunIdentity.Field(name: $0.name, value: $0.value) }) }
            try identity.checkResuming(recordedIdentity, output: path)
        }
    }

    public func existingTile(_ tile: MapTile) throws -> [UInt8]? {
        try lock.locked { try file.existingTile(tile) }
    }

    public func write(_ tile: MapTile, data: [UInt8]) throws {
        try lock.locked { try file.write(tile, data: data) }
    }

    public func markCompleted(block: MapTile, tiles: Int) throws {
        try lock.locked { try file.markCompleted(block: block, tiles: tiles) }
    }

    public func zoomsWithTiles() throws -> ClosedRange<Int>? {
        try lock.locked { try file.zoomsWithTiles() }
    }

    public func finish(metadata m: TileSetMetadata) throws {
        let metadata = MBTilesMetadata(name: m.name, description: m.description, format: m.format == .jpeg ? "jpg" : m.format.rawValue,
                                       bounds: m.bounds, center: m.center, minZoom: m.minZoom, maxZoom: m.maxZoom)
        try lock.locked { try file.finish(metadata: metadata) }
    }
}
