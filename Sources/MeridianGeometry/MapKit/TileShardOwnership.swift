/// Which tiles of a run split into shards one shard makes: every tile belongs to one shard,
/// decided by its ancestor at zoom 8 (``ownerZoom``, or the tile itself above it) and its own
/// zoom, spread by a hash so that each shard gets about as many tiles of each level as every
/// other. A tiler given it makes only the shard's tiles, and skips what reaches none of them
/// (a quadtree node none of whose tiles at the level is the shard's) before any work on it.
public struct TileShardOwnership: Sendable, Hashable, CustomStringConvertible {
    /// The shard, from 0.
    public let index: Int
    /// How many shards the run is split into.
    public let count: Int

    /// Shard `index` of `count`; nil unless 0 ≤ index < count.
    public init?(index: Int, count: Int) {
        guard count >= 1, (0..<count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// `K/N` as typed; nil when it is not two whole numbers with 0 ≤ K < N.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    /// `K/N`.
    public var description: String { "\(index)/\(count)" }

    /// The zoom at and below which a tile's shard is its ancestor's there: neighbouring tiles go
    /// to one shard (fewer folders each), and there are 65,536 ancestors to spread.
    public static let ownerZoom = 8

    /// The shard (from 0 to `count` - 1) that makes `tile` in a run split into `count`.
    public static func owner(of tile: MapTile, count: Int) -> Int {
        guard count > 1 else { return 0 }
        let shift = max(0, tile.zoom - ownerZoom)
        var key = UInt64(truncatingIfNeeded: tile.zoom) << 58 ^ UInt64(truncatingIfNeeded: tile.x >> shift) << 29
            ^ UInt64(truncatingIfNeeded: tile.y >> shift)
        // SplitMix64's finaliser: every input bit moves every output bit.
        key = (key ^ (key >> 30)) &* 0xbf58_476d_1ce4_e5b9
        key = (key ^ (key >> 27)) &* 0x94d0_49bb_1331_11eb
        key ^= key >> 31
        return Int(key % UInt64(count))
    }

    /// Whether `tile` is this shard's.
    public func owns(_ tile: MapTile) -> Bool { Self.owner(of: tile, count: count) == index }

    /// Whether any tile of level `zoom` in columns `columns` and rows `rows` (of that level) is
    /// this shard's. Tiles of one ancestor at ``ownerZoom`` share a shard, so a block of a deep
    /// level is asked once per ancestor, and the answer comes at the first tile found.
    public func ownsAny(atZoom zoom: Int, columns: ClosedRange<Int>, rows: ClosedRange<Int>) -> Bool {
        guard count > 1 else { return true }
        let shift = max(0, zoom - Self.ownerZoom)
        for y in (rows.lowerBound >> shift)...(rows.upperBound >> shift) {
            for x in (columns.lowerBound >> shift)...(columns.upperBound >> shift)
            where Self.owner(of: MapTile(zoom: zoom, x: x << shift, y: y << shift), count: count) == index {
                return true
            }
        }
        return false
    }

    /// Whether any tile of level `zoom` at or under `node` (a tile of that level or above it)
    /// is this shard's; false for a node below the level.
    public func ownsAny(atZoom zoom: Int, under node: MapTile) -> Bool {
        guard node.zoom <= zoom else { return false }
        let shift = zoom - node.zoom
        return ownsAny(atZoom: zoom, columns: (node.x << shift)...(((node.x + 1) << shift) - 1),
                       rows: (node.y << shift)...(((node.y + 1) << shift) - 1))
    }

    /// Whether any tile of the levels `zooms` at or under `node` is this shard's (levels above
    /// the node hold none under it).
    public func ownsAny(atZooms zooms: ClosedRange<Int>, under node: MapTile) -> Bool {
        zooms.contains { ownsAny(atZoom: $0, under: node) }
    }
}
