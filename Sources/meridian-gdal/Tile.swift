import ArgumentParser
import Foundation
import GDALSupport
import MeridianCommandLine
import MeridianCore
import MeridianFormats
import MeridianGeometry
import MeridianRaster
import MeridianTiling
import MeridianTiles
import Synchronization

/// `meridian-gdal tile`, hidden: runs the `TileRequest` that `meridian tile` parsed (and
/// replaced itself with this process to run, so the terminal, signals and exit code are the
/// user's): the job, its progress line, its warnings, its plan or summary, and the note an
/// interruption prints.
enum Tile: RequestRunInPlace {
    static func run(_ request: TileRequest) throws {
        var request = request
        var reporter = Reporter(quiet: request.quiet)
        reporter.program = "meridian"
        try reporter.run {
            if let list = request.inputList { request.job.inputs += try TileInputs.listed(in: list) }
            RunInputs.record(request.job.inputs + [request.inputList].compactMap { $0 })
            if request.shardFromEnvironment {
                // Read once, here, before any thread starts (exec kept `meridian`'s environment).
                request.job.shard = try TileShard.fromEnvironment(ProcessInfo.processInfo.environment, count: request.job.shardCount)
            }
            try TileRun(request: request, reporter: reporter).run()
        }
    }
}

/// One run of `meridian tile`, as its request asks (the inputs listed and the shard found).
struct TileRun {
    let request: TileRequest
    /// Where the inputs' warnings go.
    let reporter: Reporter

    var quiet: Bool { request.quiet }
    var output: String { request.job.output }
    var isPMTiles: Bool { request.job.isPMTiles }
    /// The shard made, `K/N`, for the summary; nil for a whole run or the joining.
    var shard: String? { request.job.shard?.description }

    /// Plans or runs the job, printing as `meridian tile` does.
    func run() throws {
        let job = TilingJob(request.job, drawing: DrawingThroughHelper())
        let kind = try job.checkedKind()
        let messages = reporter
        var events = TilingJobEvents()
        events.diagnostics = { messages.report($0) }
        events.writingViewer = { tiles, write in try writingViewer(tiles: tiles, write) }
        events.rastersOpened = { found in
            guard !quiet else { return }
            for skipped in found.skipped {
                let (message, hint) = skipped.reason.commandLineWording
                messages.report(Diagnostic(.warning, "skipped: \(message)" + (hint.map { " (\($0))" } ?? ""), at: SourceLocation(file: skipped.path)))
            }
            for source in found.sources {
                for note in source.notes { messages.report(Diagnostic(.warning, note.commandLineText, at: SourceLocation(file: source.path))) }
            }
        }
        if let format = request.plan {
            switch try job.plan(events: events) {
            case .rasters(let plan): print(try TilingJobText.plan(plan, json: format == .json), terminator: "")
            case .levels(let plan): print(try TilingJobText.plan(plan, json: format == .json), terminator: "")
            }
            return
        }
        let start = Date()
        let outcome: TilingJobOutcome
        if kind == .rasters && !job.request.finish {
            outcome = try tiling { progress in
                var events = events
                events.progress = progress
                return try job.run(events: events)
            }
        } else {
            // Kept to the end of the process: a run stopped by a signal (reading included) prints how to go on as it exits.
            if kind != .rasters && !quiet { TemporaryFiles.setInterruptionNote(resumeNote) }
            outcome = try job.run(events: events)
        }
        report(outcome, job: job.request, seconds: Date().timeIntervalSince(start))
    }

    /// Runs `body` (a raster run or a shard's) with the progress line and the note Ctrl-C
    /// prints; a failure says how to go on (`goingOn`).
    func tiling(_ body: (@escaping @Sendable (TilingProgress) -> Void) throws -> TilingJobOutcome) throws -> TilingJobOutcome {
        if !quiet { TemporaryFiles.setInterruptionNote(resumeNote) }
        defer { TemporaryFiles.setInterruptionNote(nil) }
        let line = TilingProgressLine(quiet: quiet)
        defer { line.finish() }
        do {
            let outcome = try body(line.show)
            if case .rasters(let summary, _) = outcome { line.complete(summary) }
            return outcome
        } catch let failure as any MeridianFailure {
            let (message, hint) = failure.commandLineWording
            // Running again helps when the output or a helper failed, not the input or the command line.
            let outputFailed = [.io, .cannotCreateOutput, .unavailable].contains(failure.kind)
            throw MeridianError(failure.kind, message, at: failure.location, hint: hint ?? (outputFailed ? goingOn : nil))
        }
    }

    /// How to go on after a failed or interrupted run, for what the output keeps: a folder or
    /// an MBTiles file keeps its tiles for --resume; a PMTiles archive, written in one go,
    /// keeps nothing and cannot be resumed.
    var goingOn: String {
        isPMTiles ? "nothing of a PMTiles archive is kept (it is written in one go): once the cause is fixed, run the same command again"
            : "the tiles written so far are kept: once the cause is fixed, run again with --resume to finish"
    }

    /// What a run prints when it is done: the profile, the KML files written, the summary line
    /// (or that there was nothing to do).
    func report(_ outcome: TilingJobOutcome, job: TilingJobRequest, seconds: Double) {
        switch outcome {
        case .rasters(let summary, let kml):
            for (stage, seconds) in summary.stageSeconds.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                print("profile \(stage.rawValue): \(String(format: "%.2f", seconds)) s")
            }
            guard !quiet else { return }
            if let kml { Reporter.printError(TilingJobText.kml(kml, output: output)) }
            let time = String(format: "%.1f s", summary.seconds)
            if let shard {
                Reporter.printError("\(output): shard \(shard): \(summary.tileCount) tiles written, \(time)")
            } else if job.finish {
                let held = summary.zoomsWithTiles ?? summary.zooms
                Reporter.printError("\(output): shards joined, \(summary.tileCount) tiles built where they meet; zoom \(held.lowerBound)-\(held.upperBound), \(time)")
            } else {
                Reporter.printError(TilingJobText.summary(summary, output: output, resumed: job.resume))
            }
        case .levels(let summary, let details):
            if !quiet, let kml = details.kml { Reporter.printError(TilingJobText.kml(kml, output: output)) }
            if !quiet { Reporter.printError(TilingJobText.summary(summary, details, request: job, shard: shard, seconds: seconds)) }
        case .shardAlreadyComplete(let shard):
            if !quiet { Reporter.printError("\(output): shard \(shard) has already completed; nothing to do") }
        case .alreadyJoined(let count):
            if !quiet { Reporter.printError("\(output): the \(count) shards were joined already; nothing to do") }
        case .unchanged: break
        }
    }

    /// Writes the viewer page (`body`) once the `count` tiles are all in place, with the note a
    /// signal prints meanwhile saying what is true then: the tiles are complete and kept, the
    /// page is not (the note for the tiling, "written so far… --resume", no longer is).
    func writingViewer(tiles count: Int, _ body: () throws -> Void) throws {
        let clear = isatty(STDERR_FILENO) == 1 ? "\r\u{1B}[K" : ""
        if !quiet {
            TemporaryFiles.setInterruptionNote("\(clear)meridian: interrupted while writing the viewer page: the \(count) tile\(count == 1 ? "" : "s") of \(output) are complete and kept; the page is not\n")
        }
        // Cleared once the page is written; a stop in order (an `Interruption`) prints it as it ends.
        try body()
        TemporaryFiles.setInterruptionNote(nil)
    }

    /// The line printed when Ctrl-C (or SIGTERM, SIGHUP) stops the run: the command to resume
    /// it, or for a PMTiles archive (which cannot be resumed) to run it again.
    var resumeNote: String {
        var arguments = request.command
        if !isPMTiles && !arguments.contains("--resume") { arguments.append("--resume") }
        let command = (["meridian", "tile"] + arguments).map(shellQuoted).joined(separator: " ")
        let clear = isatty(STDERR_FILENO) == 1 ? "\r\u{1B}[K" : ""
        let kept = isPMTiles ? "nothing of the PMTiles archive was kept (it is written in one go). To tile again, run:"
            : "the tiles written so far are kept. To finish, run:"
        return "\(clear)meridian: interrupted; \(kept)\n  \(command)\n"
    }
}

/// Image tiles of vector data drawn by `meridian-draw tiles`, so that this process never links cairo.
struct DrawingThroughHelper: TileDrawing {
    func drawLevel(spill: FeatureSpill, zoom: Int, tileSize: Int, jobs: Int, shard: TileShardOwnership?, warnings: DiagnosticHandler?,
                   store: @escaping @Sendable (MapTile, [UInt8]) throws -> Void) throws {
        try TilesThroughHelper.draw(spill: spill, zoom: zoom, tileSize: tileSize, jobs: jobs, shard: shard, warnings: warnings, store: store)
    }
}

/// The progress line of a tiling run, which the tiler's worker threads draw one at a time.
final class TilingProgressLine: Sendable {
    private let line: Mutex<ProgressLine>

    init(quiet: Bool) {
        line = Mutex(ProgressLine(quiet: quiet))
    }

    /// Draws `progress` (at most ten times a second).
    func show(_ progress: TilingProgress) {
        line.withLock { $0.update(text: TilingJobText.progress(done: progress.done, total: progress.total, seconds: progress.seconds)) }
    }

    /// Draws the run's end: its true count of tiles as all of them (the count shown along the
    /// way is of at most ``TilingProgress/total``, a bound the run stays under), whatever the
    /// last drawing showed.
    func complete(_ summary: TilingSummary) {
        let text = TilingJobText.progress(done: summary.totalTiles, total: summary.totalTiles, seconds: summary.seconds)
        line.withLock { $0.update(text: text, force: true) }
    }

    /// Clears the line.
    func finish() {
        line.withLock { $0.finish() }
    }
}
