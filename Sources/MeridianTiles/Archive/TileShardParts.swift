import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry

extension TileShard {
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

    package func file(_ name: String) -> String { path + "/" + name }
    /// Shard `index`'s MBTiles file (MBTiles outputs).
    public func mbtiles(_ index: Int) -> String { file("shard-\(index).mbtiles") }
    /// Shard `index`'s resume state (folder outputs).
    public func state(_ index: Int) -> String { file("shard-\(index).state") }
    package var finishedMark: String { file("finished") }
    /// The state of the joining (`--finish`) into a folder output.
    public var finishState: String { file("finish.state") }
    package func doneMark(_ index: Int) -> String { file("shard-\(index).done") }
    package func frontier(_ index: Int) -> String { file("frontier-\(index)") }

    /// Makes the folder and records the run's identity in it, or checks the one recorded: every
    /// shard of a run, and its `--finish`, must be the same run (same inputs, options and N).
    /// - Throws: usage when the recorded run differs (listing how), cannot-create-output when
    ///   the folder cannot be made.
    public func claim(for identity: TilingRunIdentity) throws {
        try OutputClaim.requireFolder(of: path)
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

    /// After `--finish` of `run`: the mark, with the files that prove the output is there, then
    /// everything but the run's identity and the mark removed.
    package func markFinished(count: Int, run: TilingRunIdentity, evidence: [String]) throws {
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
        return try TileSinks.open(output, format: format, scheme: scheme,
                                  for: .shardPart(index: shard.index, workspace: self, identity: run.shard(shard.index), resume: resume,
                                                  checkpointBytes: checkpointBytes))
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
        return (count, run, try TileSinks.open(output, format: format, scheme: scheme,
                                               for: .joining(workspace: self, identity: run, checkpointBytes: checkpointBytes)))
    }
}

extension TilingRunIdentity {
    /// The identity of shard `index` of this run.
    public func shard(_ index: Int) -> TilingRunIdentity { adding("shard", "\(index)") }
}

