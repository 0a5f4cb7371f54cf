import ArgumentParser
import Foundation
import GDALSupport
import MeridianCommandLine
import MeridianCore
import MeridianFormats
import MeridianGeometry
import MeridianRaster
import MeridianTiling
import MeridianTilingCommandLine
import MeridianTiles

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

/// One run of `meridian tile`, as its request asks (the inputs listed and the shard found),
/// worded on the terminal by `TilingRunWording`.
struct TileRun {
    let request: TileRequest
    /// Where the inputs' warnings go.
    let reporter: Reporter

    /// Plans or runs the job, printing as `meridian tile` does.
    func run() throws {
        let job = TilingJob(request.job, drawing: DrawingThroughHelper())
        let kind = try job.checkedKind()
        let (messages, wording, quiet) = (reporter, TilingRunWording(request: request), request.quiet)
        var events = TilingJobEvents()
        events.diagnostics = { messages.report($0) }
        events.rastersOpened = { found in
            if !quiet { wording.warnings(for: found).forEach(messages.report) }
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
            outcome = try wording.tiling { progress in
                var events = events
                events.progress = progress
                return try job.run(events: events)
            }
        } else {
            // Kept to the end of the process: a run stopped by a signal (reading included) prints how to go on as it exits.
            if kind != .rasters && !quiet {
                TemporaryFiles.setInterruptionNote(wording.levelRunNote(started: false))
                events.levelsStarted = { TemporaryFiles.setInterruptionNote(wording.levelRunNote(started: true)) }
            }
            do {
                outcome = try job.run(events: events)
            } catch let failure as any MeridianFailure {
                throw wording.worded(failure) ?? failure
            }
        }
        let report = wording.report(outcome, seconds: Date().timeIntervalSince(start))
        report.profile.forEach { print($0) }
        report.messages.forEach { Reporter.printError($0) }
    }
}

/// Image tiles of vector data drawn by `meridian-draw tiles`, so that this process never links cairo.
struct DrawingThroughHelper: TileDrawing {
    func drawLevel(spill: FeatureSpill, zoom: Int, tileSize: Int, jobs: Int, shard: TileShardOwnership?, warnings: DiagnosticHandler?,
                   store: @escaping @Sendable (MapTile, [UInt8]) throws -> Void) throws {
        try TilesThroughHelper.draw(spill: spill, zoom: zoom, tileSize: tileSize, jobs: jobs, shard: shard, warnings: warnings, store: store)
    }
}
