import Foundation
import MeridianCommandLine
import MeridianCore
import MeridianFormats
import MeridianRaster
import MeridianTiling
import MeridianTiles

/// How one run of `meridian tile` is worded on a terminal: what it says as it ends, what a
/// failure says about going on, and the note an interruption prints (kept true for what the
/// output holds at that moment).
public struct TilingRunWording {
    /// The request the run was made from (its output, shard, resume and finish choices).
    public let request: TileRequest

    /// The wording of the run `request` asks for (its shard already found, if any).
    public init(request: TileRequest) {
        self.request = request
    }

    var output: String { request.job.output }
    var isPMTiles: Bool { request.job.isPMTiles }
    /// The shard made, `K/N`, for the summary; nil for a whole run or the joining.
    var shard: String? { request.job.shard?.description }
    /// Clears the progress line on a terminal before a note is printed.
    var clear: String { isatty(STDERR_FILENO) == 1 ? "\r\u{1B}[K" : "" }

    /// How to go on after a failed or interrupted run, for what the output keeps: a folder or
    /// an MBTiles file keeps its tiles for --resume; a PMTiles archive, written in one go,
    /// keeps nothing and cannot be resumed.
    public var goingOn: String {
        isPMTiles ? "nothing of a PMTiles archive is kept (it is written in one go): once the cause is fixed, run the same command again"
            : "the tiles written so far are kept: once the cause is fixed, run again with --resume to finish"
    }

    /// The line printed when Ctrl-C (or SIGTERM, SIGHUP) stops the run once its output holds
    /// tiles (or resume state): the command to resume it, or for a PMTiles archive (which
    /// cannot be resumed) to run it again.
    public var resumeNote: String {
        var arguments = request.command
        if !isPMTiles && !arguments.contains("--resume") { arguments.append("--resume") }
        let kept = isPMTiles ? "nothing of the PMTiles archive was kept (it is written in one go). To tile again, run:"
            : "the tiles written so far are kept. To finish, run:"
        return "\(clear)meridian: interrupted; \(kept)\n  \(Self.command(arguments))\n"
    }

    /// The note a level-by-level run (vector or drawn tiles) prints when stopped: before its
    /// first level (`started` false: reading its inputs, nothing written yet) the command to
    /// run it again as it was typed, since `--resume` would find nothing to continue; from
    /// then on ``resumeNote``. A run that was itself resumed, a joining of shards and a
    /// PMTiles archive say the same before and after.
    public func levelRunNote(started: Bool) -> String {
        if started || isPMTiles || request.job.resume || request.job.finish { return resumeNote }
        return "\(clear)meridian: interrupted before any tile was written; nothing was kept. To tile, run again:\n  \(Self.command(request.command))\n"
    }

    /// A failure worded for this run: a killed run's partial file beside the output names the
    /// command that resumes it (this one, with --resume) and the one that removes it.
    public func worded(_ failure: any MeridianFailure) -> MeridianError? {
        guard case TileOutputError.interruptedRunLeftover(let partial) = failure else { return nil }
        var resuming = request.command
        if !resuming.contains("--resume") { resuming.append("--resume") }
        return MeridianError(failure.kind, failure.commandLineWording.message, at: failure.location,
                             hint: "to continue that run: \(Self.command(resuming)); to start again, remove it first: rm -- \(shellQuoted(partial))")
    }

    /// The warnings for the inputs a raster run skipped and the notes of the rasters it found.
    public func warnings(for found: TileInputs.Found) -> [Diagnostic] {
        found.skipped.map { skipped in
            let (message, hint) = skipped.reason.commandLineWording
            return Diagnostic(.warning, "skipped: \(message)" + (hint.map { " (\($0))" } ?? ""), at: SourceLocation(file: skipped.path))
        } + found.sources.flatMap { source in
            source.notes.map { Diagnostic(.warning, $0.commandLineText, at: SourceLocation(file: source.path)) }
        }
    }

    /// Runs `body` (a raster run or a shard's) with the progress line and the note Ctrl-C
    /// prints; a failure that running again can mend says how to go on (``goingOn``).
    public func tiling(_ body: (@escaping @Sendable (TilingProgress) -> Void) throws -> TilingJobOutcome) throws -> TilingJobOutcome {
        if !request.quiet { TemporaryFiles.setInterruptionNote(resumeNote) }
        defer { TemporaryFiles.setInterruptionNote(nil) }
        let line = TilingProgressLine(quiet: request.quiet)
        defer { line.finish() }
        do {
            let outcome = try body(line.show)
            if case .rasters(let summary, _) = outcome { line.complete(summary) }
            return outcome
        } catch let failure as any MeridianFailure {
            if let worded = worded(failure) { throw worded }
            let (message, hint) = failure.commandLineWording
            // Running again helps when the output or a helper failed, not the input or the command line.
            let outputFailed = [.io, .cannotCreateOutput, .unavailable].contains(failure.kind)
            throw MeridianError(failure.kind, message, at: failure.location, hint: hint ?? (outputFailed ? goingOn : nil))
        }
    }

    /// What a run prints when it is done, `seconds` after it began.
    public struct Report: Sendable, Equatable {
        /// The raster stages' times, for standard output (printed even when quiet).
        public var profile: [String] = []
        /// The KML files written and the summary line (or that there was nothing to do), for
        /// standard error; none when quiet.
        public var messages: [String] = []
    }

    /// What the run that ended with `outcome` prints, `seconds` after it began.
    public func report(_ outcome: TilingJobOutcome, seconds: Double) -> Report {
        var report = Report()
        let job = request.job
        switch outcome {
        case .rasters(let summary, let kml):
            report.profile = summary.stageSeconds.sorted(by: { $0.key.rawValue < $1.key.rawValue }).map { stage, seconds in
                "profile \(stage.rawValue): \(String(format: "%.2f", seconds)) s"
            }
            if let kml { report.messages.append(TilingJobText.kml(kml, output: output)) }
            let time = String(format: "%.1f s", summary.seconds)
            if let shard {
                report.messages.append("\(output): shard \(shard): \(summary.tileCount) tiles written, \(time)")
            } else if job.finish {
                let held = summary.zoomsWithTiles ?? summary.zooms
                report.messages.append("\(output): shards joined: \(summary.totalTiles) tiles, \(summary.kept) from the shards and \(summary.tileCount) built where they meet; zoom \(held.lowerBound)-\(held.upperBound), \(time)")
            } else {
                report.messages.append(TilingJobText.summary(summary, output: output, resumed: job.resume))
            }
        case .levels(let summary, let details):
            if let kml = details.kml { report.messages.append(TilingJobText.kml(kml, output: output)) }
            report.messages.append(TilingJobText.summary(summary, details, request: job, shard: shard, seconds: seconds))
        case .shardAlreadyComplete(let shard):
            report.messages.append("\(output): shard \(shard) has already completed; nothing to do")
        case .alreadyJoined(let count):
            report.messages.append("\(output): the \(count) shards were joined already; nothing to do")
        case .unchanged: break
        }
        if request.quiet { report.messages = [] }
        return report
    }

    /// `meridian tile` with `arguments`, quoted for a shell.
    static func command(_ arguments: [String]) -> String {
        (["meridian", "tile"] + arguments).map(shellQuoted).joined(separator: " ")
    }
}
