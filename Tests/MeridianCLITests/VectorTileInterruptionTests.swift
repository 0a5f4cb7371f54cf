import Foundation
import Testing
import MeridianTiles

/// Issue 29: a vector tile run (Mapbox Vector Tiles, or image tiles drawn from vector data)
/// interrupted at any moment leaves nothing but what was there before and, since issue 31, the
/// output's resume state (a folder with its state file, an MBTiles file's partial file and
/// journal): no spill in `$TMPDIR`. A PMTiles archive, written in one go, leaves nothing. On a
/// signal it says how to go on: --resume, or for an archive, run again.
@Suite struct VectorTileInterruptionTests {
    /// `meridian` started with `arguments`, its standard error written to `errors` (made
    /// empty), its standard output discarded, and `TMPDIR` set to `scratch` when one is given.
    static func startMeridian(_ arguments: [String], errors: URL, scratch: URL? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: meridianBinary)
        process.arguments = arguments
        if let scratch { process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": scratch.path]) { $1 } }
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    static let microstates = packageRoot.appendingPathComponent("examples/data/microstates.geojson").path

    /// Tiles the microstates down to zoom 24 (minutes of work) into `output` with `format`,
    /// sends `signal` once `moment` has passed, and checks what is left.
    /// - moment 0: a tenth of a second after the start; 1: as soon as the run has made something
    ///   (beside the output or in its private `$TMPDIR`); 2: a second after that.
    @Test(.timeLimit(.minutes(10)), arguments: ["tiles", "tiles.mbtiles", "tiles.pmtiles"], ["mvt", "png"])
    func interruptedRunLeavesNothing(output: String, format: String) throws {
        for (moment, signal) in [(0, SIGINT), (1, SIGTERM), (2, SIGINT), (2, SIGHUP)] {
            try withTemporaryFolder { folder in
                let place = folder.appendingPathComponent("place"), scratch = folder.appendingPathComponent("tmp")
                for made in [place, scratch] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
                let errors = folder.appendingPathComponent("stderr")
                let process = try Self.startMeridian(["tile", Self.microstates, place.appendingPathComponent(output).path, "--zoom", "0-24", "--tile-format", format], errors: errors, scratch: scratch)
                if moment == 0 {
                    usleep(100_000)
                } else {
                    let deadline = Date().addingTimeInterval(30)
                    while contents(of: place).isEmpty && contents(of: scratch).isEmpty && Date() < deadline { usleep(5_000) }
                    if moment == 2 { usleep(1_000_000) }
                }
                #expect(process.isRunning, "\(output) \(format): the run ended before the signal")
                kill(process.processIdentifier, signal)
                process.waitUntilExit()
                let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
                // So early the process may not have set up its handlers yet, and the signal ends it as it is.
                let endedBySignal = moment == 0 && process.terminationReason == .uncaughtSignal && process.terminationStatus == signal
                #expect(process.terminationStatus == 128 + signal || endedBySignal, "\(output) \(format) moment \(moment): \(stderr)")
                let left = Set((try? FileManager.default.contentsOfDirectory(atPath: place.path)) ?? [])
                // The lock file never stays: it is registered for the signal handler before it
                // has its name (kill -9 alone leaves it).
                let kept: [String] = output.hasSuffix(".pmtiles") ? []
                    : output.hasSuffix(".mbtiles") ? [".\(output).meridian-partial", ".\(output).meridian-partial-journal"] : [output]
                let resumeState = Set(kept)
                #expect(left.isSubset(of: resumeState), "\(output) \(format) moment \(moment): left \(left)")
                #expect(contents(of: scratch).isEmpty, "\(output) \(format) moment \(moment), signal \(signal): left in TMPDIR \(contents(of: scratch)); \(stderr)")
                if moment > 0 {
                    // Stopped while reading its input (before its first level), a run has nothing to resume, and says so.
                    let note = output.hasSuffix(".pmtiles") ? "nothing of the PMTiles archive was kept" : "--resume"
                    let nothingYet = stderr.contains("interrupted before any tile was written")
                    #expect(stderr.contains("interrupted") && (stderr.contains(note) || nothingYet), "\(stderr)")
                    if nothingYet { #expect(!stderr.contains("--resume"), "\(stderr)") }
                }
            }
        }
    }

    /// Stopped while it still reads its input (a named pipe nothing is written to), a run has
    /// written nothing: its note says so and gives the command to run again, without
    /// `--resume` (which would find nothing to continue), and nothing is left.
    ///
    /// The test's own waits bound it (45 s to reach the pipe, 10 s for each signal, then
    /// SIGKILL); the time limit is the suite's usual one, since under the full suite's load a
    /// test's clock runs while it waits for a thread (a one-minute limit tripped in CI while
    /// the run itself had not hung).
    @Test(.timeLimit(.minutes(10))) func interruptedBeforeAnyTileSaysNothingWasKept() throws {
        try withTemporaryFolder { folder in
            let place = folder.appendingPathComponent("place")
            try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
            let input = folder.appendingPathComponent("in.geojson").path
            #expect(mkfifo(input, 0o600) == 0)
            let errors = folder.appendingPathComponent("stderr")
            let process = try Self.startMeridian(["tile", input, place.appendingPathComponent("tiles").path, "--zoom", "0-3"], errors: errors)
            // Signalled once it waits for a writer on the pipe (not while it starts, however
            // slowly a loaded machine gets it there): that is the moment the test is about.
            let deadline = Date().addingTimeInterval(45)
            let waitChannel = "/proc/\(process.processIdentifier)/wchan"
            func waitingOn() -> String { (try? String(contentsOfFile: waitChannel, encoding: .utf8)) ?? "" }
            while Date() < deadline, process.isRunning, waitingOn() != "wait_for_partner" { usleep(20_000) }
            #expect(process.isRunning)
            let waitedOn = waitingOn()
            // A second signal ends the run at once, as a user's second Ctrl-C does, should the
            // first land where the run stops in order; a run that outlives both is a hang, and
            // SIGKILL ends it so that the failure is reported rather than waited on.
            var signalsSent: [Int32] = []
            for signal in [SIGINT, SIGINT, SIGKILL] where process.isRunning {
                kill(process.processIdentifier, signal)
                signalsSent.append(signal)
                let patience = Date().addingTimeInterval(10)
                while process.isRunning && Date() < patience { usleep(50_000) }
            }
            process.waitUntilExit()
            let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            #expect(!signalsSent.contains(SIGKILL), "the run outlived two SIGINTs (waiting on \(waitedOn) when signalled): \(stderr)")
            #expect(process.terminationStatus == 128 + SIGINT, "\(stderr)")
            #expect(stderr.contains("interrupted before any tile was written"), "\(stderr)")
            #expect(!stderr.contains("--resume"), "\(stderr)")
            #expect(contents(of: place).isEmpty)
        }
    }

    #if os(Linux)
    /// A signal while the viewer page is written, once every tile is in place (a page of
    /// thousands of tiles, each copied as a script: long enough to be caught), ends the run with
    /// 130 and its resume state kept, and the note says to `--resume`, which writes the page.
    /// (The page was written after the state was removed: a run stopped then looked finished,
    /// without its page, and could not be resumed.)
    @Test(.timeLimit(.minutes(10))) func interruptedWhileWritingTheViewerPageIsResumed() throws {
        try withTemporaryFolder { folder in
            let input = try Self.scatteredPoints(4000, seed: 31, in: folder)
            let output = folder.appendingPathComponent("tiles")
            let errors = folder.appendingPathComponent("stderr")
            let arguments = ["tile", input.path, output.path, "--zoom", "0-9", "--viewer"]
            let process = try Self.startMeridian(arguments, errors: errors)
            let deadline = Date().addingTimeInterval(300)
            let scripts = output.appendingPathComponent("viewer/tiles").path
            while process.isRunning && !FileManager.default.fileExists(atPath: scripts) && Date() < deadline { usleep(1_000) }
            #expect(process.isRunning, "the run ended before it was seen writing its page")
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            #expect(process.terminationStatus == 130, "\(stderr)")
            #expect(stderr.contains("--resume"), "\(stderr)")
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("0/0/0.pbf").path))
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(".meridian-tiling").path))
            #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("index.html").path))
            #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("metadata.json").path))
            let resumed = try meridian(arguments + ["--resume", "-q"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            let tiles = try TileFolderReader(path: output.path).tileAddresses(zooms: nil)
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("index.html").path))
            #expect(!tiles.isEmpty && tiles.allSatisfy {
                FileManager.default.fileExists(atPath: output.appendingPathComponent("viewer/tiles/\($0.zoom)/\($0.x)/\($0.y).js").path)
            })
        }
    }

    /// A PMTiles archive is laid out once every tile is made (every tile read back, sorted,
    /// identical ones stored once): a signal then stops the run as it does while tiling, with
    /// 130 and nothing left, where the layout went on to write the archive and exit 0. The
    /// moment is found in /proc: one thread, and the layout's scratch file open with the others.
    @Test(.timeLimit(.minutes(10))) func interruptedWhileLayingOutAPMTilesArchive() throws {
        try withTemporaryFolder { folder in
            let place = folder.appendingPathComponent("place"), scratch = folder.appendingPathComponent("tmp")
            for made in [place, scratch] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
            let input = try Self.scatteredPoints(8000, seed: 29, in: folder)
            let archive = place.appendingPathComponent("points.pmtiles")
            let errors = folder.appendingPathComponent("stderr")
            let process = try Self.startMeridian(["tile", input.path, archive.path, "--zoom", "0-12"], errors: errors, scratch: scratch)
            // The scratch files have no names (/proc shows `TMPDIR/#INODE (deleted)`): the layout
            // is the one time the run has one thread (the tiler's have ended) and three scratch
            // files open (the features, the tiles, the layout's data) for a while (0.09 s here on
            // an idle machine; between two levels the one thread is a moment, under 0.03 s), and
            // the archive not yet in place (once it is, the run has only to close its files).
            let processFolder = "/proc/\(process.processIdentifier)"
            func layingOutNow() -> Bool {
                let descriptors = processFolder + "/fd"
                let scratchFiles = ((try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? []).filter {
                    (try? FileManager.default.destinationOfSymbolicLink(atPath: descriptors + "/" + $0))?.hasPrefix(scratch.path + "/") == true
                }
                let status = (try? String(contentsOfFile: processFolder + "/status", encoding: .utf8)) ?? ""
                return scratchFiles.count >= 3 && status.split(separator: "\n").contains("Threads:\t1")
                    && !FileManager.default.fileExists(atPath: archive.path)
            }
            let deadline = Date().addingTimeInterval(300)
            var since: Date?
            while process.isRunning && Date() < deadline {
                if layingOutNow() {
                    since = since ?? Date()
                    if Date().timeIntervalSince(since!) >= 0.05 { break }
                } else {
                    since = nil
                }
                usleep(2_000)
            }
            #expect(process.isRunning, "the run ended before its layout was seen")
            kill(process.processIdentifier, SIGINT)
            let signalled = Date()
            process.waitUntilExit()
            let seconds = Date().timeIntervalSince(signalled)
            let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            #expect(process.terminationStatus == 128 + SIGINT, "\(stderr)")
            #expect(seconds < 30, "\(seconds) s after SIGINT")
            #expect(contents(of: place).isEmpty, "left \(contents(of: place))")
            #expect(contents(of: scratch).isEmpty, "left in TMPDIR \(contents(of: scratch))")
            #expect(stderr.contains("nothing of the PMTiles archive was kept"), "\(stderr)")
        }
    }

    /// A GeoJSON file of `count` points scattered over the world (a tile each at every zoom:
    /// many tiles, quickly made), the same for the same `seed`.
    static func scatteredPoints(_ count: Int, seed start: UInt64, in folder: URL) throws -> URL {
        var seed = start
        func next() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        let points = (0..<count).map { i in
            #"{"type":"Feature","properties":{"n":\#(i)},"geometry":{"type":"Point","coordinates":[\#(next() * 358 - 179),\#(next() * 160 - 80)]}}"#
        }
        let input = folder.appendingPathComponent("points.geojson")
        try Data((#"{"type":"FeatureCollection","features":["# + points.joined(separator: ",") + "]}").utf8).write(to: input)
        return input
    }
    #endif
}
