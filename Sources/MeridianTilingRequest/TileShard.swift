import MeridianGeometry

/// One worker's part of a run split across machines: shard `index` of `count` (from 0). A
/// batch engine runs the shards (a Slurm job array, a Kubernetes Indexed Job), each writing its
/// share into the shared output, then one `--finish` joins them.
public struct TileShard: Sendable, Equatable, CustomStringConvertible {
    /// This worker's shard, from 0.
    public let index: Int
    /// How many shards the run is split into.
    public let count: Int

    /// The most shards a run is split into (each shard is at least a block; a run has a few
    /// thousand at most).
    public static let maximumCount = 65_536

    /// Shard `index` of `count`; nil unless 0 ≤ index < count ≤ ``maximumCount``.
    public init?(index: Int, count: Int) {
        guard (1...Self.maximumCount).contains(count), (0..<count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// `K/N`, as `--shard` takes it.
    public var description: String { "\(index)/\(count)" }

    /// `K/N` as typed; nil when it is not two whole numbers with 0 ≤ K < N.
    public init?(_ text: String) {
        guard let ownership = TileShardOwnership(text) else { return nil }
        self.init(index: ownership.index, count: ownership.count)
    }
}
