import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
import MeridianTiles
import Synchronization

/// A tiling run made zoom level by zoom level, each level whole from the data: vector data cut
/// into Mapbox Vector Tiles, or drawn into image tiles. It goes into any `TileSink` (a folder,
/// MBTiles or PMTiles), with the sink's resume state and shard parts, as a raster's run does:
///
/// - Resuming: a level is this run's unit of work. Its completion is recorded in the sink (as
///   the block ``levelMark(_:)``, once every tile of the level is durable); a resumed run makes
///   only the levels not recorded, and each such level again whole (its tiles, the same bytes,
///   replace what an interrupted attempt stored).
/// - Sharding: every tile has one shard that stores it (``owner(of:count:)``); each shard makes
///   its own tiles of each level (the producer is told which, as a `TileShardOwnership`) and
///   stores only those, and the joining takes every shard's in.
///
/// The tiles are made by the caller's `produce`: given a level, the shard's tiles (nil: all) and
/// where to store them, it makes the level's tiles (in any order, from any thread), only the
/// shard's where it can tell them before the work (tiles of other shards are not stored).
public struct LevelTilingRun: Sendable {
    /// The zoom levels of the run.
    public let zooms: ClosedRange<Int>
    /// The run: its inputs and every setting that changes its tiles (the sink checks it on
    /// resuming); for a run split into shards, their number too (a shard's sink is given
    /// `identity.shard(index)`).
    public let identity: TilingRunIdentity

    /// Makes the tiles of one zoom level, handing each to `store` (from any thread): those of
    /// `shard` (every tile when nil), and any other it must make to know them (left unstored).
    /// Returns how many tiles of other shards it made and kept from `store` (made only to know
    /// something of the whole level), for the shard's count of what it made.
    public typealias Producer = (_ zoom: Int, _ shard: TileShardOwnership?,
                                 _ store: @escaping @Sendable (MapTile, [UInt8]) throws -> Void) throws -> Int

    /// A run of `zooms` that is `identity`.
    public init(zooms: ClosedRange<Int>, identity: TilingRunIdentity) {
        self.zooms = zooms
        self.identity = identity
    }

    /// The identity of a run of `kind` over the files `inputs` (each known by its resolved path,
    /// size, modification time and first 64 KiB, as a raster's), then `settings`.
    public static func identity(kind: String, inputs: [String], settings: [(String, String)]) throws -> TilingRunIdentity {
        var fields = [TilingRunIdentity.Field(name: "kind", value: kind)]
        for (index, path) in inputs.enumerated() {
            fields += try TilingRunIdentity.fileFields(index == 0 ? "input" : "input-\(index + 1)", path: path)
        }
        return TilingRunIdentity(fields: fields + settings.map { TilingRunIdentity.Field(name: $0.0, value: $0.1) })
    }

    /// The block a sink records when level `zoom` is complete: the level's first tile stands for
    /// the whole level (a level-by-level run has no smaller unit of work).
    public static func levelMark(_ zoom: Int) -> MapTile { MapTile(zoom: zoom, x: 0, y: 0) }

    /// The levels `sink` records completed that still hold what the record says: each checked
    /// to be one of the run's levels with no more tiles than the level has (a state file is text
    /// anyone may change: counts of 2^63 - 1 made the sum of kept tiles overflow), then against
    /// the tiles the sink holds at that level (`shard`'s own): a level holding fewer (tiles
    /// removed since, a count changed down) is left out, to be made again whole; one holding more
    /// is refused, as tiles the run did not store are in it.
    /// - Throws: `MeridianError` (bad input) naming the state's file (and line) when not.
    func checkedCompletedLevels(of sink: TileSink, shard: TileShard? = nil) throws -> [MapTile: Int] {
        var completed = sink.completedBlocks
        let ownership = shard.flatMap { TileShardOwnership(index: $0.index, count: $0.count) }
        for (block, tiles) in completed.sorted(by: { $0.key.zoom < $1.key.zoom }) {
            let level = zooms.contains(block.zoom) && block == Self.levelMark(block.zoom)
            let most = level ? 1 << (2 * block.zoom) : 0
            var why = !level ? "which is not one of this run's levels" : !(0...most).contains(tiles) ? "which holds 0 to \(most)" : nil
            if why == nil {
                let held = try sink.storedTileCount(zoom: block.zoom) { ownership?.owns($0) ?? true }
                if held < tiles {
                    completed[block] = nil
                } else if held > tiles {
                    why = "and the output holds \(held) tiles of that level: tiles this run did not store"
                }
            }
            if let why {
                throw MeridianError(.badInput, "the run's state is damaged: it records \(tiles) tiles stored in level mark \(block.zoom)/\(block.x)/\(block.y), \(why)",
                                    at: sink.location(ofCompleted: block), hint: "remove the output and tile again")
            }
        }
        return completed
    }

    /// The shard (from 0 to `count` - 1) that stores `tile` in a run split into `count`:
    /// `TileShardOwnership`'s, decided by its ancestor at zoom 8 and spread by a hash.
    public static func owner(of tile: MapTile, count: Int) -> Int {
        TileShardOwnership.owner(of: tile, count: count)
    }

    /// Makes the levels `sink` has not recorded complete, storing the tiles `shard` owns (all
    /// of them without a shard), each level recorded complete as it ends.
    ///
    /// A level is recorded on a thread of its own while the next level is made: the sink makes
    /// the level's tiles durable first (a folder's `syncfs`, an MBTiles commit), which takes the
    /// disk's time, not a core's. The record of a level is still written only once its tiles are
    /// durable, the levels' records in order (the next level's is begun only after it), and
    /// the run returns (or throws) only once the last one has ended.
    ///
    /// Without `recordingTheLastLevel` (a whole run, whose sink is finished right after: its
    /// state removed, its tiles complete) the last level is not recorded: its record would only
    /// spare a run killed in the moment between that level and the finish from making the level
    /// again, and a folder's record waits on a `syncfs` of the whole level (0.3 s of a 4 s run of
    /// the countries at zoom 0-8) that nothing else overlaps. A shard records every level: its
    /// part is marked complete for `--finish` only once its tiles are durable.
    /// - Returns: The tiles stored now, and the tiles the completed levels held before.
    /// - Throws: What `produce` and the sink throw.
    public func build(into sink: TileSink, shard: TileShard? = nil, recordingTheLastLevel: Bool = true,
                      produce: Producer) throws -> LevelTilingSummary {
        let completed = try checkedCompletedLevels(of: sink, shard: shard)
        var summary = LevelTilingSummary(zooms: zooms)
        var recording: LevelRecording?
        do {
            for zoom in zooms {
                if let kept = completed[Self.levelMark(zoom)] {
                    summary.kept += kept
                    continue
                }
                let (stored, made) = try produceLevel(zoom, into: sink, shard: shard, produce: produce)
                try recording?.finish()
                recording = nil
                let mark = Self.levelMark(zoom)
                if recordingTheLastLevel || zoom < zooms.upperBound {
                    recording = try LevelRecording { try sink.markCompleted(levelOf: mark, tiles: stored) }
                }
                summary.written += stored
                summary.made += made
            }
            try recording?.finish()
        } catch {
            // The first error is the run's; a record being written ends first.
            recording?.wait()
            throw error
        }
        return summary
    }

    /// Makes level `zoom`'s tiles with `produce` and stores those `shard` owns in `sink`.
    /// - Returns: How many tiles were stored (counted, not listed: a level of a million tiles
    ///   is recorded by its count), and how many were made (stored or not).
    private func produceLevel(_ zoom: Int, into sink: TileSink, shard: TileShard?, produce: Producer) throws -> (stored: Int, made: Int) {
        let stored = Atomic<Int>(0), made = Atomic<Int>(0)
        let ownership = shard.flatMap { TileShardOwnership(index: $0.index, count: $0.count) }
        let madeUnstored = try produce(zoom, ownership) { tile, bytes in
            // A run stopped in order (an archive written in one go) stops here.
            try TemporaryFiles.checkForStop()
            made.add(1, ordering: .relaxed)
            if let ownership, !ownership.owns(tile) { return }
            try sink.write(tile, data: bytes)
            stored.add(1, ordering: .relaxed)
        }
        return (stored.load(ordering: .relaxed), made.load(ordering: .relaxed) + madeUnstored)
    }

    /// Runs shard `shard` of this run into `sink` (the shared folder, or the shard's own MBTiles
    /// file in `workspace`), finishes its part with `metadata` and records it complete; nil
    /// when the shard had completed already.
    public func runShard(_ shard: TileShard, into sink: TileSink, workspace: ShardWorkspace, metadata: (ClosedRange<Int>?) -> TileSetMetadata,
                         produce: Producer) throws -> LevelTilingSummary? {
        let run = identity
        guard !workspace.isComplete(shard.index, of: run) else { return nil }
        let summary = try build(into: sink, shard: shard, produce: produce)
        try sink.finish(metadata: metadata(try sink.zoomsWithTiles()))
        try workspace.complete(shard.index, of: run, frontier: [:], evidence: sink.evidence(sample: nil))
        return summary
    }

    /// Joins the `count` completed shards in `workspace` into `sink`: every shard's tiles
    /// (`TileSink.adoptShard`, each checked to hold only its own), then `metadata`; nil when
    /// they had been joined already.
    /// - Throws: `MeridianError` (input unavailable) when a shard has not completed, before
    ///   anything is changed.
    public func finishShards(count: Int, into sink: TileSink, workspace: ShardWorkspace,
                             metadata: (ClosedRange<Int>?) -> TileSetMetadata,
                             completing: (TileSetMetadata) throws -> Void = { _ in }) throws -> LevelTilingSummary? {
        let run = identity
        guard !workspace.isFinished(run) else { return nil }
        try workspace.checkComplete(count: count, of: run)
        let zooms = self.zooms
        var joined = LevelTilingSummary(zooms: zooms)
        for index in 0..<count {
            joined.kept += try sink.adoptShard(index, of: workspace, identity: run.shard(index)) { tile in
                zooms.contains(tile.zoom) && Self.owner(of: tile, count: count) == index
            }
        }
        let finished = metadata(try sink.zoomsWithTiles())
        try completing(finished)
        try sink.finish(metadata: finished)
        try workspace.markFinished(count: count, run: run, evidence: sink.evidence(sample: nil))
        return joined
    }
}

/// A level's completion being recorded (`TileSink.markCompleted(levelOf:tiles:)`) on a thread of
/// its own, while the next level is made.
private final class LevelRecording: @unchecked Sendable {
    /// What the record threw: set by its thread, read only after joining it.
    private final class Outcome: @unchecked Sendable {
        var failure: (any Error)?
    }

    private let outcome = Outcome()
    private var thread: WorkerThread?

    /// Starts `record` on a new thread.
    /// - Throws: `MeridianError` (`io`) when no thread can be started.
    init(_ record: @escaping @Sendable () throws -> Void) throws {
        let outcome = outcome
        thread = try WorkerThread {
            do { try record() } catch { outcome.failure = error }
        }
    }

    /// Waits for the record to be written.
    func wait() {
        thread?.join()
    }

    /// Waits for the record to be written, and throws what it threw.
    func finish() throws {
        wait()
        if let failure = outcome.failure { throw failure }
    }
}

/// What a level-by-level run is asked to do with its output.
public enum LevelTilingMode: Sendable {
    /// The whole run into the output, continuing an interrupted one when `resume`; its finished
    /// MBTiles or PMTiles file replaces one already there when `replacing`.
    case run(resume: Bool, replacing: Bool = false)
    /// One shard of the run into the shared output (continuing its interrupted attempt when `resume`).
    case shard(TileShard, resume: Bool)
    /// The joining of the completed shards (their number, or the one recorded).
    case finish(count: Int?)
}

/// How a level-by-level run into an output ended.
public enum LevelTilingOutcome: Sendable {
    /// It stored tiles (or joined the shards): what it stored.
    case done(LevelTilingSummary)
    /// The shard had completed before: nothing was done.
    case shardAlreadyComplete(TileShard)
    /// The shards had been joined before (`count` of them): nothing was done.
    case alreadyJoined(count: Int)
}

extension LevelTilingRun {
    /// Runs into `output` (a folder of `scheme` rows, an MBTiles file or a PMTiles archive, as
    /// `TileSinks` chooses) as `mode` says: the run, one shard of it, or the joining of its
    /// shards (their workspace beside the output). `metadata` is the tile set's, given the zoom
    /// levels that hold tiles; `completing` writes what else belongs to the finished tile set (a
    /// KML super-overlay) before the output is finished, while the run can still be resumed
    /// (not for one shard). A PMTiles archive is written in one go: a signal stops it in order
    /// and it leaves nothing; a folder or an MBTiles file keeps what it stored for resuming.
    /// `opened` is called once the output (or the shard's part) is open, before the first
    /// level: from then on an interruption leaves something to resume.
    public func run(into output: String, format: TileFormat, scheme: TileScheme, mode: LevelTilingMode,
                    metadata: (ClosedRange<Int>?) -> TileSetMetadata, completing: (TileSetMetadata) throws -> Void = { _ in },
                    opened: () -> Void = {}, produce: Producer) throws -> LevelTilingOutcome {
        // A level's tiles are committed into an MBTiles file every few megabytes.
        let checkpoint = 8 << 20
        let workspace = ShardWorkspace(output: output)
        switch mode {
        case .finish(let count):
            let joining = try workspace.openJoining(output: output, count: count, format: format, scheme: scheme, checkpointBytes: checkpoint) {
                identity.adding("shards", "\($0)")
            }
            guard let sink = joining.sink else { return .alreadyJoined(count: joining.count) }
            opened()
            let run = LevelTilingRun(zooms: zooms, identity: joining.run)
            return .done(try run.finishShards(count: joining.count, into: sink, workspace: workspace, metadata: metadata, completing: completing)
                         ?? LevelTilingSummary(zooms: zooms))
        case .shard(let shard, let resume):
            let run = LevelTilingRun(zooms: zooms, identity: identity.adding("shards", "\(shard.count)"))
            guard let sink = try workspace.openShardSink(shard, of: run.identity, output: output, format: format, scheme: scheme,
                                                         resume: resume, checkpointBytes: checkpoint)
            else { return .shardAlreadyComplete(shard) }
            opened()
            guard let summary = try run.runShard(shard, into: sink, workspace: workspace, metadata: metadata, produce: produce)
            else { return .shardAlreadyComplete(shard) }
            return .done(summary)
        case .run(let resume, let replacing):
            let sink = try TileSinks.open(output, format: format, scheme: scheme, for: .run(resume: resume, checkpointBytes: checkpoint) { identity },
                                          replacing: replacing)
            opened()
            let inOneGo = !TileContainer(path: output).keepsInterruptedRuns
            func build() throws -> LevelTilingSummary {
                do {
                    let summary = try self.build(into: sink, recordingTheLastLevel: false, produce: produce)
                    try TemporaryFiles.checkForStop()
                    let finished = metadata(try sink.zoomsWithTiles())
                    try completing(finished)
                    try sink.finish(metadata: finished)
                    return summary
                } catch {
                    if inOneGo { sink.discard() }
                    throw error
                }
            }
            return .done(try inOneGo ? TemporaryFiles.stoppingInOrder(build) : build())
        }
    }

    /// The tiles over `bounds` (degrees) at each of `zooms`: at most what a run makes, as tiles
    /// where nothing lies are not made.
    public static func plan(bounds: BoundingBox, zooms: ClosedRange<Int>) -> LevelTilingPlan {
        let north = min(bounds.north, MapWorld.maximumLatitude), south = max(bounds.south, -MapWorld.maximumLatitude)
        var perZoom: [String: Int] = [:]
        for zoom in zooms {
            let low = MapTile(containing: MapPoint(Position(longitude: bounds.west, latitude: north)), zoom: zoom)
            let high = MapTile(containing: MapPoint(Position(longitude: bounds.east, latitude: south)), zoom: zoom)
            perZoom["\(zoom)"] = (high.x - low.x + 1) * (high.y - low.y + 1)
        }
        return LevelTilingPlan(zooms: [zooms.lowerBound, zooms.upperBound], tilesPerZoom: perZoom, tiles: perZoom.values.reduce(0, +))
    }
}

/// What a level-by-level run would make: the tiles over the data's bounds per zoom level.
public struct LevelTilingPlan: Codable, Sendable, Equatable {
    /// The lowest and highest zoom levels.
    public var zooms: [Int]
    /// The tiles at most at each level (keyed by the level, as JSON keys are text).
    public var tilesPerZoom: [String: Int]
    /// Their sum.
    public var tiles: Int
}

/// What a level-by-level run stored.
public struct LevelTilingSummary: Sendable {
    /// The zoom levels of the run.
    public var zooms: ClosedRange<Int>
    /// The tiles stored by this run (this shard's, for a shard).
    public var written = 0
    /// The tiles an interrupted run had stored in the levels it completed, kept; joining shards,
    /// the tiles the shards stored, now in the joined tile set.
    public var kept = 0
    /// The tiles made by this run: ``written`` and those made only to decide something of the
    /// whole level (a shard's tiles of other shards, left unstored). A shard of N makes about
    /// 1/N of a level's tiles.
    public var made = 0
}
