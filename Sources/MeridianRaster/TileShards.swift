import Foundation
import MeridianCore
import MeridianFormats
import MeridianTiles
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

    /// The shard a batch engine gave this process, from its environment: a Slurm job array
    /// (`SLURM_ARRAY_TASK_ID`, with `SLURM_ARRAY_TASK_COUNT` or the array's MIN, MAX and STEP),
    /// a Kubernetes Indexed Job (`JOB_COMPLETION_INDEX`) or an AWS Batch array job
    /// (`AWS_BATCH_JOB_ARRAY_INDEX`); `count` (`--shards`) gives N where the engine does not,
    /// and must agree where it does.
    /// - Throws: ``TileShardError`` (usage) naming the variables looked for, when none is set or
    ///   they disagree.
    public static func fromEnvironment(_ environment: [String: String], count: Int?) throws -> TileShard {
        func number(_ name: String) throws -> Int? {
            guard let text = environment[name] else { return nil }
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw TileShardError.notANumber(variable: name, value: text)
            }
            return value
        }
        let index: Int, engineCount: Int?, engine: String
        if let id = try number("SLURM_ARRAY_TASK_ID") {
            let min = try number("SLURM_ARRAY_TASK_MIN") ?? 0, step = max(1, try number("SLURM_ARRAY_TASK_STEP") ?? 1)
            // Differences of numbers from the environment, which may be anything.
            func span(_ high: Int, _ low: Int) throws -> Int {
                let (difference, overflow) = high.subtractingReportingOverflow(low)
                guard !overflow else { throw TileShardError.outOfRange }
                return difference / step
            }
            index = try span(id, min)
            engine = "SLURM_ARRAY_TASK_ID"
            if let tasks = try number("SLURM_ARRAY_TASK_COUNT") {
                engineCount = tasks
            } else if let max = try number("SLURM_ARRAY_TASK_MAX") {
                engineCount = try span(max, min).addingReportingOverflow(1).partialValue
            } else {
                engineCount = nil
            }
        } else if let completion = try number("JOB_COMPLETION_INDEX") {
            (index, engineCount, engine) = (completion, nil, "JOB_COMPLETION_INDEX")
        } else if let array = try number("AWS_BATCH_JOB_ARRAY_INDEX") {
            (index, engineCount, engine) = (array, nil, "AWS_BATCH_JOB_ARRAY_INDEX")
        } else {
            throw TileShardError.noArrayJob
        }
        if let count, let engineCount, count != engineCount {
            throw TileShardError.countDisagrees(given: count, engine: engineCount)
        }
        guard let total = engineCount ?? count else {
            throw TileShardError.noCount(variable: engine)
        }
        guard (1...maximumCount).contains(total) else {
            throw TileShardError.tooManyShards(total)
        }
        guard let shard = TileShard(index: index, count: total) else {
            throw TileShardError.indexOutside(variable: engine, index: index, count: total)
        }
        return shard
    }
}

/// Why the batch engine's environment gives no shard of a run split across machines. The
/// library states the fact; the command line names its options (`--shard`, `--shards`).
public enum TileShardError: MeridianFailure, Equatable {
    /// A variable of the engine's holds no whole number.
    case notANumber(variable: String, value: String)
    /// The job array's numbers (`SLURM_ARRAY_TASK_*`) overflow.
    case outOfRange
    /// None of the engines' variables is set: this is no array job.
    case noArrayJob
    /// The number of shards given disagrees with the job array's task count.
    case countDisagrees(given: Int, engine: Int)
    /// The engine gives the shard's number (`variable`) but not how many shards there are.
    case noCount(variable: String)
    /// More shards than a run takes (or none).
    case tooManyShards(Int)
    /// The engine's number for this shard lies outside 0 to `count` - 1.
    case indexOutside(variable: String, index: Int, count: Int)

    /// Always a usage error: the run was started wrongly.
    public var kind: MeridianError.Kind { .usage }
    /// No file is concerned.
    public var location: SourceLocation? { nil }

    /// What is wrong, naming the engine's variables.
    public var message: String {
        switch self {
        case .notANumber(let variable, let value): "\(variable) is '\(value)', not a whole number"
        case .outOfRange: "the job array's numbers (SLURM_ARRAY_TASK_*) are out of range"
        case .noArrayJob:
            "no shard number: none of SLURM_ARRAY_TASK_ID (a Slurm job array), JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) "
                + "or AWS_BATCH_JOB_ARRAY_INDEX (an AWS Batch array job) is set"
        case .countDisagrees(let given, let engine): "\(given) shards disagree with the job array's \(engine) tasks (SLURM_ARRAY_TASK_COUNT, MIN, MAX)"
        case .noCount(let variable): "\(variable) gives this shard's number but not how many shards there are"
        case .tooManyShards(let count): "\(count) shards, where a run takes 1 to \(TileShard.maximumCount)"
        case .indexOutside(let variable, let index, let count): "\(variable) makes this shard \(index), outside 0-\(count - 1)"
        }
    }

    /// What to do, where there is something.
    public var hint: String? {
        switch self {
        case .noArrayJob: "run it as an array job, or name the shard and the number of shards"
        case .noCount: "give the number of shards (a Kubernetes Job's completions, an AWS Batch array's size)"
        default: nil
        }
    }
}

/// How a run's blocks are split into shards: the blocks in Morton order (a compact area of each
/// chart in each shard), cut into `count` runs of about equal estimated work — the source
/// pixels read plus the tile pixels warped, not tile counts, as a harbour plan's block costs far
/// more than a coast chart's. Every worker computes the same split from the inputs and options.
struct ShardSplit: Sendable {
    let count: Int
    /// The blocks in Morton order, and the shard of each (never decreasing along the order).
    let blocks: [MapTile]
    let shardOfBlock: [Int]
    private let codes: [UInt64]
    let blockZoom: Int

    init(tiler: Tiler, count: Int) {
        self.count = count
        blockZoom = tiler.blockZoom
        blocks = tiler.blocksInOrder
        codes = blocks.map { Tiler.blockOrder($0, blockZoom: tiler.blockZoom) }
        let work = blocks.map { tiler.estimatedWork(of: $0) }
        let total = max(work.reduce(0, +), .leastNonzeroMagnitude)
        var before = 0.0
        shardOfBlock = work.map { w in
            // The shard whose share holds the middle of this block's work.
            defer { before += w }
            return min(count - 1, Int(Double(count) * (before + w / 2) / total))
        }
    }

    /// The blocks of `shard`, in order.
    func blocks(of shard: Int) -> [MapTile] {
        zip(blocks, shardOfBlock).filter { $0.1 == shard }.map(\.0)
    }

    /// The shard that holds every block under `tile` (a tile at or above the block level), so
    /// builds it; nil when its blocks lie in several shards (`--finish` builds it) or it has none.
    func owner(of tile: MapTile) -> Int? {
        let shift = UInt64(2 * (blockZoom - tile.zoom))
        let first = tile.mortonCode << shift, end = (tile.mortonCode + 1) << shift
        let low = lowerBound(first), high = lowerBound(end)
        guard low < high, shardOfBlock[low] == shardOfBlock[high - 1] else { return nil }
        return shardOfBlock[low]
    }

    /// The shard that writes `tile` (of any level of the run), or nil when `--finish` does.
    func shard(writing tile: MapTile) -> Int? {
        guard tile.zoom > blockZoom else { return owner(of: tile) }
        let shift = tile.zoom - blockZoom
        return owner(of: MapTile(zoom: blockZoom, x: tile.x >> shift, y: tile.y >> shift))
    }

    private func lowerBound(_ code: UInt64) -> Int {
        var low = 0, high = codes.count
        while low < high {
            let middle = (low + high) / 2
            if codes[middle] < code { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// Where the shards of a run keep what is theirs, beside the output (`OUT.shards/`; tiles of a
/// folder output go straight into it): the run's identity (`run`), each shard's resume state
/// (`shard-K.state`, or its own MBTiles file `shard-K.mbtiles`: SQLite must not be written by
/// several hosts), each shard's *frontier* (`frontier-K`: the charts' own pixels of the tiles
/// whose parents lie in several shards, which `--finish` builds from them), and a mark per
/// completed shard (`shard-K.done`). After `--finish`, only `run` and `finished` are left.
///
/// What it assumes of shared storage (NFS, Lustre, a ReadWriteMany volume): a file renamed
/// within a folder appears whole or not at all; it takes no locks across hosts.
public struct ShardWorkspace: Sendable {
    /// The folder.
    public let path: String

    /// The workspace of the run writing `output`.
    public init(output: String) {
        var output = output
        while output.count > 1 && output.hasSuffix("/") { output.removeLast() }
        path = output + ".shards"
    }

    func file(_ name: String) -> String { path + "/" + name }
    /// Shard `index`'s MBTiles file (MBTiles outputs).
    public func mbtiles(_ index: Int) -> String { file("shard-\(index).mbtiles") }
    /// Shard `index`'s resume state (folder outputs).
    public func state(_ index: Int) -> String { file("shard-\(index).state") }
    var finishedMark: String { file("finished") }
    /// The state of the joining (`--finish`) into a folder output.
    public var finishState: String { file("finish.state") }
    func doneMark(_ index: Int) -> String { file("shard-\(index).done") }
    func frontier(_ index: Int) -> String { file("frontier-\(index)") }

    /// Makes the folder and records the run's identity in it, or checks the one recorded: every
    /// shard of a run, and its `--finish`, must be the same run (same inputs, options and N).
    /// - Throws: usage when the recorded run differs (listing how), cannot-create-output when
    ///   the folder cannot be made.
    public func claim(for identity: TilingRunIdentity) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw MeridianError(.cannotCreateOutput, "cannot create the shards' folder", at: SourceLocation(file: path))
        }
        if recordedRun() == nil {
            // Several shards may start at once: each writes the same bytes and renames them in.
            try OutputTarget.write(Array(identity.lines.map { $0 + "\n" }.joined().utf8), to: file("run"), durable: true)
        }
        guard let recorded = recordedRun() else {
            throw MeridianError(.cannotCreateOutput, "cannot record the run in the shards' folder", at: SourceLocation(file: path))
        }
        let differences = identity.differences(from: recorded)
        guard differences.isEmpty else { throw TileOutputError.resumeMismatch(path: path, differences: differences) }
    }

    /// The run recorded in the folder, or nil.
    public func recordedRun() -> TilingRunIdentity? {
        guard let bytes = try? TilingStateFile.read(file("run")) else { return nil }
        return TilingRunIdentity(lines: String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init))
    }

    /// Whether the shards of the run `run` have been joined (`--finish`) and what they made is
    /// still there (a mark whose output was removed does not count: the run is made again).
    public func isFinished(_ run: TilingRunIdentity) -> Bool { WorkMark.holds(finishedMark, identity: run) }

    /// Whether shard `index` of the run `run` has completed its share, and what it wrote is
    /// still there (or the shards have been joined).
    public func isComplete(_ index: Int, of run: TilingRunIdentity) -> Bool {
        isFinished(run) || WorkMark.holds(doneMark(index), identity: run.shard(index))
    }

    /// Checks that every shard of `run`, split into `count`, has completed, so they can be joined.
    /// - Throws: `MeridianError` (input unavailable: their tiles are the joining's input)
    ///   listing the shards that have not.
    public func checkComplete(count: Int, of run: TilingRunIdentity) throws {
        let missing = (0..<count).filter { !isComplete($0, of: run) }
        guard missing.isEmpty else {
            throw MeridianError(.inputUnavailable, "\(missing.count) of \(count) shards have not completed: \(missing.map(String.init).joined(separator: ", "))",
                                at: SourceLocation(file: path), hint: "run them (resuming those that were interrupted), then join them again; nothing was changed")
        }
    }

    /// Records shard `index` of `run` complete: its frontier first, then the mark, with the
    /// files that prove its tiles are there (both renamed into place).
    func complete(_ index: Int, of run: TilingRunIdentity, frontier: [MapTile: [Int: TileImage]], evidence: [String]) throws {
        try OutputTarget.write(FrontierFile.encode(frontier), to: self.frontier(index), durable: true)
        try OutputTarget.write(WorkMark.text(identity: run.shard(index), evidence: evidence), to: doneMark(index), durable: true)
    }

    /// Every shard's frontier, joined, each checked to hold `charts` charts' tiles of `tileSize`
    /// pixels with `colorChannels` colour channels.
    func frontiers(count: Int, charts: Int, tileSize: Int, colorChannels: Int) throws -> [MapTile: [Int: TileImage]] {
        var joined: [MapTile: [Int: TileImage]] = [:]
        for index in 0..<count {
            guard let data = try TilingStateFile.read(frontier(index)) else {
                throw MeridianError(.inputUnavailable, "cannot read shard \(index)'s frontier", at: SourceLocation(file: frontier(index)))
            }
            joined.merge(try FrontierFile.decode(data, path: frontier(index), charts: charts, tileSize: tileSize, colorChannels: colorChannels)) { a, _ in a }
        }
        return joined
    }

    /// After `--finish` of `run`: the mark, with the files that prove the output is there, then
    /// everything but the run's identity and the mark removed.
    func markFinished(count: Int, run: TilingRunIdentity, evidence: [String]) throws {
        try OutputTarget.write(WorkMark.text(identity: run, evidence: evidence), to: finishedMark, durable: true)
        for index in 0..<count {
            for leftover in [mbtiles(index), state(index), doneMark(index), frontier(index)] { unlink(leftover) }
        }
        unlink(finishState)
    }
}

extension ShardWorkspace {
    /// Claims the workspace for `run` and opens shard `shard`'s sink: the shared folder
    /// `output` (`scheme` rows), or the shard's own MBTiles file here for an MBTiles or PMTiles output;
    /// nil when the shard had completed. `resume` continues the shard's interrupted attempt.
    /// - Throws: `TileOutputError` when the workspace is another run's or the shard ran before
    ///   and `resume` is false; the sink's errors.
    public func openShardSink(_ shard: TileShard, of run: TilingRunIdentity, output: String, format: TileFormat, scheme: TileScheme,
                              resume: Bool, checkpointBytes: Int? = nil) throws -> TileSink? {
        try claim(for: run)
        guard !isComplete(shard.index, of: run) else { return nil }
        let identity = run.shard(shard.index)
        if TilePyramidWriter.isMBTiles(output) || TilePyramidWriter.isPMTiles(output) {
            // A shard's file that is whole but not marked complete was cut off before the mark: redo it.
            unlink(mbtiles(shard.index))
            return try MBTilesSink(path: mbtiles(shard.index), format: format, resume: resume, identity: identity, isShardPart: true,
                                   checkpointBytes: checkpointBytes)
        }
        return try FolderTileSink(path: output, scheme: scheme, format: format, resume: resume,
                                  identity: identity, sharedState: state(shard.index), writesMetadata: false)
    }

    /// For joining the shards into `output`: their number (`count`, or the recorded one), the
    /// run (`identity` of that number) checked against the recorded one, and the output's sink,
    /// nil when they had been joined already. Nothing is made before every shard is checked complete.
    /// - Throws: `TileOutputError` when no shard has started, the workspace is damaged or another
    ///   run's; `MeridianError` (input unavailable) naming the shards that have not completed.
    public func openJoining(output: String, count: Int?, format: TileFormat, scheme: TileScheme, checkpointBytes: Int? = nil,
                            identity: (Int) throws -> TilingRunIdentity) throws -> (count: Int, run: TilingRunIdentity, sink: TileSink?) {
        guard let recorded = recordedRun() else { throw TileOutputError.noShardsStarted(output: output, workspace: path) }
        let recordedCount = recorded.fields.first { $0.name == "shards" }.flatMap { Int($0.value) }
        guard let count = count ?? recordedCount, (1...TileShard.maximumCount).contains(count) else {
            throw TileOutputError.shardCountMissing(path: file("run"))
        }
        let run = try identity(count)
        let differences = run.differences(from: recorded)
        guard differences.isEmpty else { throw TileOutputError.resumeMismatch(path: path, differences: differences) }
        if isFinished(run) { return (count, run, nil) }
        try checkComplete(count: count, of: run)
        if TilePyramidWriter.isPMTiles(output) { return (count, run, try PMTilesSink(path: output, format: format)) }
        if TilePyramidWriter.isMBTiles(output) {
            return (count, run, try MBTilesSink(path: output, format: format, resume: false, identity: run, checkpointBytes: checkpointBytes))
        }
        return (count, run, try FolderTileSink(path: output, scheme: scheme, format: format, resume: true, identity: run, sharedState: finishState))
    }
}

extension TilingRunIdentity {
    /// The identity of shard `index` of this run.
    public func shard(_ index: Int) -> TilingRunIdentity { adding("shard", "\(index)") }
}

/// The frontier tiles' per-chart pixels, in a file of their own: `MERIDIAN-FRONTIER 1\n`, then per
/// tile its zoom, x, y and chart count, and per chart its index, colour channels, size and raw
/// pixels (little-endian 32-bit integers). Raw, so that `--finish` builds from the very pixels a
/// single run would have held in memory.
public enum FrontierFile {
    static let magic = Array("MERIDIAN-FRONTIER 1\n".utf8)

    static func encode(_ frontier: [MapTile: [Int: TileImage]]) -> [UInt8] {
        var bytes = magic
        func put(_ value: Int) { withUnsafeBytes(of: Int32(value).littleEndian) { bytes += $0 } }
        for (tile, charts) in frontier.sorted(by: { $0.key.mortonCode < $1.key.mortonCode }) {
            put(tile.zoom); put(tile.x); put(tile.y); put(charts.count)
            for (chart, image) in charts.sorted(by: { $0.key < $1.key }) {
                put(chart); put(image.colorChannels); put(image.size)
                bytes += image.pixels
            }
        }
        return bytes
    }

    /// How many tiles the frontier file `bytes` holds, read as `decode` reads it (for the fuzzer).
    public static func tileCount(_ bytes: [UInt8], path: String, charts: Int, tileSize: Int, colorChannels: Int) throws -> Int {
        try decode(bytes, path: path, charts: charts, tileSize: tileSize, colorChannels: colorChannels).count
    }

    /// The frontier a file holds, of a run of `charts` charts, tiles of `tileSize` pixels and
    /// `colorChannels` colour channels.
    /// - Throws: `MeridianError` (bad input) naming the file and the byte where it stops making
    ///   sense: every number is checked before it is used.
    static func decode(_ bytes: [UInt8], path: String, charts chartCount: Int, tileSize: Int,
                       colorChannels: Int) throws -> [MapTile: [Int: TileImage]] {
        guard bytes.starts(with: magic) else {
            throw MeridianError(.badInput, "not a shard's frontier file", at: SourceLocation(file: path))
        }
        var offset = magic.count
        func damaged(_ what: String) -> MeridianError {
            MeridianError(.badInput, "the frontier file is damaged at byte \(offset): \(what)", at: SourceLocation(file: path),
                          hint: "run the shard again (remove its .done mark), then join the shards again")
        }
        func take() throws -> Int {
            guard offset + 4 <= bytes.count else { throw damaged("cut short") }
            defer { offset += 4 }
            return Int(Int32(littleEndian: bytes[offset..<offset + 4].withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }))
        }
        let length = tileSize * tileSize * (colorChannels + 1)
        var frontier: [MapTile: [Int: TileImage]] = [:]
        while offset < bytes.count {
            let tile = MapTile(zoom: try take(), x: try take(), y: try take())
            guard tile.isValid else { throw damaged("tile \(tile.zoom)/\(tile.x)/\(tile.y) does not exist") }
            let count = try take()
            guard (0...chartCount).contains(count) else { throw damaged("\(count) charts, of a run of \(chartCount)") }
            var charts: [Int: TileImage] = [:]
            for _ in 0..<count {
                let chart = try take(), channels = try take(), size = try take()
                guard (0..<chartCount).contains(chart), channels == colorChannels, size == tileSize else {
                    throw damaged("chart \(chart), \(channels) colour channels, \(size) pixels: not this run's tiles")
                }
                guard length <= bytes.count - offset else { throw damaged("cut short") }
                charts[chart] = TileImage(size: size, colorChannels: channels, pixels: Array(bytes[offset..<offset + length]))
                offset += length
            }
            frontier[tile] = charts
        }
        return frontier
    }
}

extension Tiler {
    /// The work of a block, as the split weighs it: the source pixels its charts have in it
    /// (each chart's pixel count times the share of its extent the block covers) plus the
    /// pixels of its tiles at and below the block level.
    func estimatedWork(of block: MapTile) -> Double {
        let b = pyramid.bounds(block)
        var pixels = 0.0
        for c in coverage.charts(touching: block, among: Array(catalog.charts.indices)) {
            let e = catalog.charts[c].source.extent
            let width = min(b.maxX, e.maxX) - max(b.minX, e.minX), height = min(b.maxY, e.maxY) - max(b.minY, e.minY)
            guard width > 0, height > 0 else { continue }
            let share = width * height / max((e.maxX - e.minX) * (e.maxY - e.minY), .leastNonzeroMagnitude)
            pixels += share * Double(catalog.charts[c].source.sourceWidth * catalog.charts[c].source.sourceHeight)
        }
        return pixels + Double(tileCount(under: block) * options.tileSize * options.tileSize)
    }

    /// Runs shard `shard` of the pyramid: its blocks, written into `sink` (the shared folder,
    /// or the shard's own MBTiles file in `workspace`), and every tile above them whose blocks
    /// all lie in it; then records the shard complete in `workspace`, with its frontier.
    /// A shard that is already complete (of the run `run`) does nothing and returns nil.
    public func runShard(_ shard: TileShard, of run: TilingRunIdentity, into sink: TileSink, workspace: ShardWorkspace,
                         progress: @escaping @Sendable (TilingProgress) -> Void = { _ in }) throws -> TilingSummary? {
        guard !workspace.isComplete(shard.index, of: run) else { return nil }
        let start = Date()
        let split = ShardSplit(tiler: self, count: shard.count)
        let blocks = split.blocks(of: shard.index)
        var total = blocks.reduce(0) { $0 + tileCount(under: $1) }
        let ownBlocks = Set(blocks)
        for zoom in zooms where zoom < blockZoom {
            total += coverage.tiles(atZoom: zoom).filter { split.owner(of: $0) == shard.index && !ownBlocks.contains($0) }.count
        }
        let state = try build(blocks, total: total, split: split, shard: shard.index, into: sink, start: start, progress: progress)
        let summary = try finish(sink, state: state, start: start)
        try workspace.complete(shard.index, of: run, frontier: state.frontier, evidence: sink.evidence(sample: state.sample))
        return summary
    }

    /// Checks that every shard of a run of `count` has completed, so `finishShards` can run.
    /// - Throws: `MeridianError` (input unavailable: their tiles are the joining's input)
    ///   listing the shards that have not.
    public func checkShardsComplete(count: Int, of run: TilingRunIdentity, workspace: ShardWorkspace) throws {
        try workspace.checkComplete(count: count, of: run)
    }

    /// Joins the `count` completed shards in `workspace` into `sink`: takes in each shard's
    /// tiles (`TileSink.adoptShard`), builds the tiles whose blocks lie in several shards from
    /// the shards' frontiers, and writes the metadata. Idempotent: a run already finished
    /// returns nil and changes nothing.
    /// - Throws: as `checkShardsComplete` when a shard has not completed.
    public func finishShards(count: Int, of run: TilingRunIdentity, into sink: TileSink, workspace: ShardWorkspace) throws -> TilingSummary? {
        guard !workspace.isFinished(run) else { return nil }
        try checkShardsComplete(count: count, of: run, workspace: workspace)
        let start = Date()
        let split = ShardSplit(tiler: self, count: count)
        for index in 0..<count {
            try sink.adoptShard(index, of: workspace, identity: run.shard(index)) { tile in
                zooms.contains(tile.zoom) && coverage.contains(tile) && split.shard(writing: tile) == index
            }
        }
        var built = try workspace.frontiers(count: count, charts: catalog.charts.count, tileSize: options.tileSize, colorChannels: colorChannels)
        let mixed = stride(from: blockZoom - 1, through: zooms.lowerBound, by: -1).map { zoom in
            coverage.tiles(atZoom: zoom).filter { split.owner(of: $0) == nil }
        }
        let state = RunState(total: mixed.reduce(0) { $0 + $1.count }, timesStages: false)
        let tools = ThreadTools(tiler: self, stageTimes: state.stageTimes)
        for tile in mixed.joined() {
            let children = try tile.children.map { child -> [Int: TileImage] in
                guard coverage.contains(child) else { return [:] }
                guard let charts = built.removeValue(forKey: child) else {
                    throw MeridianError(.badInput, "no shard holds tile \(child.zoom)/\(child.x)/\(child.y)'s pixels", at: SourceLocation(file: workspace.path),
                                        hint: "the shards' folder is damaged: run the shards again into a new output")
                }
                return charts
            }
            let (charts, quilt) = try assemble(tile, children: children, among: Array(catalog.charts.indices), tools: tools)
            try store(quilt, at: tile, tools: tools, sink: sink, state: state)
            built[tile] = charts
        }
        let summary = try finish(sink, state: state, start: start)
        try workspace.markFinished(count: count, run: run, evidence: sink.evidence(sample: nil))
        return summary
    }
}
