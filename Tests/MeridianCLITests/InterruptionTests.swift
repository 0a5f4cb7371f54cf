import Foundation
import Testing

@Suite struct InterruptionTests {
    /// A conversion interrupted part-way (Ctrl-C, `kill`) removes its temporary file and leaves
    /// no output: the input is a pipe that stays open, so the run is caught mid-stream.
    @Test(.timeLimit(.minutes(10)), arguments: [SIGINT, SIGTERM])
    func interruptedConversionLeavesNoFile(_ signal: Int32) throws {
        try withTemporaryFolder { folder in
            let output = folder.appendingPathComponent("out.geojson")
            let (process, input) = try startConverting(["convert", "-", "-o", output.path])
            // Wait until the temporary file exists, then interrupt.
            let deadline = Date().addingTimeInterval(10)
            while contents(of: folder).isEmpty && Date() < deadline { usleep(10_000) }
            #expect(contents(of: folder).first?.hasPrefix(".out.geojson.meridian-") == true)
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            try? input.fileHandleForWriting.close()
            #expect(process.terminationStatus == 128 + signal)
            #expect(contents(of: folder).isEmpty)
        }
    }

    /// A KML writer sets its styles and placemarks aside in two scratch files until the end;
    /// those are removed from `$TMPDIR` as soon as they are made (read back through their
    /// descriptors), so even `kill -9`, which no handler sees, leaves none behind. They used to
    /// stay there, two files per killed run.
    @Test(.timeLimit(.minutes(10)))
    func killedKMLConversionLeavesNoScratchFiles() throws {
        // The output's own temporary file shows the writer is open.
        try killConverting(to: "out.kml", once: { _, _, out in !contents(of: out).isEmpty }, what: "the output's temporary file")
    }

    #if os(Linux)
    /// Every writer that sets features aside until the end (KML's parts, a KMZ's document, CSV's
    /// rows, GPX's routes and tracks, a GDAL format's features for `meridian-gdal ogr-write`, a
    /// picture's for `meridian-draw`) does so in a scratch file without a name, which `kill -9`
    /// cannot leave behind: the run is killed while one is open (seen in /proc: a descriptor
    /// into `$TMPDIR`), and `$TMPDIR` is then empty. (Issue 31: they were named, and stayed.)
    @Test(.timeLimit(.minutes(10)), arguments: ["out.kml", "out.kmz", "out.csv", "out.gpx", "out.gpkg", "out.svg", "out.png"])
    func killedConversionLeavesNoScratchFiles(output: String) throws {
        try killConverting(to: output, once: { pid, scratch, _ in Self.hasOpenFile(pid, in: scratch.path) }, what: "a scratch file")
    }
    #endif

    #if os(Linux)
    /// A GDAL format read from standard input is copied for GDAL's drivers (which read by path,
    /// with random access) into a scratch file without a name, which `meridian-gdal` inherits:
    /// the run, killed while it copies (the pipe stays open), leaves nothing in `$TMPDIR`. (The
    /// copy was `$TMPDIR/meridian-stdin-XXXXXX.gpkg`, and stayed.)
    @Test(.timeLimit(.minutes(10)))
    func killedReadingOfAGDALFormatFromStandardInputLeavesNoCopy() throws {
        try killConverting(to: "out.geojson", from: "gpkg", once: { pid, scratch, _ in Self.hasOpenFile(pid, in: scratch.path) },
                           what: "standard input's copy")
    }
    #endif

    /// A GDAL format read from standard input is read under the format's extension without a
    /// file of that name: what the driver writes beside its input (GML's `.gfs` schema) is not
    /// left in `$TMPDIR` either (it was, after every run), and the features come through.
    @Test(.timeLimit(.minutes(10)))
    func gdalFormatFromStandardInputLeavesNothingInTMPDIR() throws {
        try withTemporaryFolder { folder in
            let scratch = folder.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            let gml = folder.appendingPathComponent("points.gml"), back = folder.appendingPathComponent("back.geojson")
            let made = try meridian(["convert", fixture("geojson/drop-rate-points.geojson"), "-o", gml.path])
            #expect(made.status == 0, "\(made.stderr)")
            let read = try run("/usr/bin/env", ["TMPDIR=" + scratch.path, meridianBinary, "convert", "-", "--from", "gml", "-o", back.path],
                               stdin: try Data(contentsOf: gml))
            #expect(read.status == 0, "\(read.stderr)")
            #expect(contents(of: scratch).isEmpty, "left in $TMPDIR: \(contents(of: scratch))")
            let direct = try meridian(["convert", gml.path, "-o", "-", "--to", "geojson"])
            #expect(direct.status == 0 && !direct.stdout.isEmpty)
            #expect(try String(contentsOf: back, encoding: .utf8) == direct.stdout)
        }
    }

    /// A GDAL format of several files (a shapefile) is written in a hidden folder beside the
    /// output, `.NAME.meridian-XXXXXX`, moved into place at the end. SIGINT or SIGTERM while
    /// `meridian-gdal` writes it stops the writing and removes the folder (a signal handler
    /// removes files only: it was left), also when SIGINT reaches the helper too, as a
    /// terminal's Ctrl-C reaches the process group (the parent's SIGTERM that follows is the
    /// same request); killed with SIGKILL (parent and helper), the folder is left, and the next
    /// run of that output recognises it, removes it with a note, and leaves only its own files.
    /// (It was `.meridian-XXXXXX`, which no run recognised.)
    @Test(.timeLimit(.minutes(10)), arguments: [(SIGTERM, false), (SIGINT, false), (SIGINT, true), (SIGKILL, false)])
    func interruptedShapefileOutputLeavesNoStagingFolder(_ signal: Int32, toTheHelperToo: Bool) throws {
        try withTemporaryFolder { folder in
            let input = folder.appendingPathComponent("points.geojson"), out = folder.appendingPathComponent("out")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            var text = "{\"type\":\"FeatureCollection\",\"features\":["
            for i in 0..<150_000 {
                text += (i == 0 ? "" : ",") + "{\"type\":\"Feature\",\"properties\":{\"i\":\(i),\"name\":\"point \(i)\"},"
                    + "\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(Double(i % 360) - 179.5),\(Double(i % 170) - 84.5)]}}"
            }
            try Data((text + "]}").utf8).write(to: input)
            let output = out.appendingPathComponent("points.shp")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: meridianBinary)
            process.arguments = ["convert", input.path, "-o", output.path]
            process.standardError = FileHandle.nullDevice
            try process.run()
            func staging() -> [String] {
                contents(of: out).filter { $0.hasPrefix(".points.shp.meridian-") && $0 != ".points.shp.meridian-lock" }
            }
            let deadline = Date().addingTimeInterval(60)
            while staging().isEmpty && process.isRunning && Date() < deadline { usleep(5_000) }
            #expect(!staging().isEmpty, "the staging folder was never seen")
            if signal == SIGKILL {
                // The helper first (its parent stopped, so that it does not see it end): killed
                // alone, the parent would end it with SIGTERM, which removes the folder.
                kill(process.processIdentifier, SIGSTOP)
                for child in Self.children(of: process.processIdentifier) { kill(child, SIGKILL) }
            }
            if toTheHelperToo {
                for child in Self.children(of: process.processIdentifier) { kill(child, signal) }
            }
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            #expect(process.terminationStatus == (signal == SIGKILL ? SIGKILL : 128 + signal))
            guard signal == SIGKILL else {
                #expect(contents(of: out).isEmpty, "left: \(contents(of: out))")
                return
            }
            let left = staging()
            #expect(left.count == 1, "\(contents(of: out))")
            let again = try meridian(["convert", input.path, "-o", output.path])
            #expect(again.status == 0, "\(again.stderr)")
            for name in left { #expect(again.stderr.contains(name), "\(again.stderr)") }
            #expect(contents(of: out).allSatisfy { $0.hasPrefix("points.") }, "\(contents(of: out))")
            #expect(contents(of: out).contains("points.shp"))
        }
    }

    /// The processes `pid` started (Linux's /proc; none elsewhere).
    static func children(of pid: Int32) -> [Int32] {
        let tasks = "/proc/\(pid)/task"
        return ((try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []).flatMap { task in
            ((try? String(contentsOfFile: "\(tasks)/\(task)/children", encoding: .utf8)) ?? "").split(separator: " ").compactMap { Int32($0) }
        }
    }

    /// Starts converting standard input's GeoJSON (read as `format`) to `output` with its own
    /// `$TMPDIR`, waits (up to 20 s) until `ready` says the writer is at work (given the process
    /// id, `$TMPDIR` and the output's folder), lets it write a moment, kills it with SIGKILL,
    /// which no handler sees, and expects `$TMPDIR` empty.
    func killConverting(to output: String, from format: String = "geojson", once ready: (Int32, URL, URL) -> Bool, what: String) throws {
        try withTemporaryFolder { folder in
            let scratch = folder.appendingPathComponent("tmp"), out = folder.appendingPathComponent("out")
            for made in [scratch, out] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
            let (process, input) = try startConverting(["convert", "-", "--from", format, "-o", out.appendingPathComponent(output).path],
                                                       environment: ["TMPDIR": scratch.path])
            let deadline = Date().addingTimeInterval(20)
            while !ready(process.processIdentifier, scratch, out) && Date() < deadline { usleep(10_000) }
            #expect(ready(process.processIdentifier, scratch, out), "\(output): \(what) was never seen")
            usleep(300_000)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? input.fileHandleForWriting.close()
            #expect(process.terminationStatus == SIGKILL)
            #expect(contents(of: scratch).isEmpty, "\(output): left in $TMPDIR: \(contents(of: scratch))")
        }
    }

    #if os(Linux)
    /// Whether process `pid` has a file in `folder` open (named or not: /proc shows a nameless
    /// one as `folder/#INODE (deleted)`).
    static func hasOpenFile(_ pid: Int32, in folder: String) -> Bool {
        let descriptors = "/proc/\(pid)/fd"
        return ((try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? []).contains { name in
            ((try? FileManager.default.destinationOfSymbolicLink(atPath: descriptors + "/" + name)) ?? "").hasPrefix(folder + "/")
        }
    }
    #endif

    /// A conversion killed with `kill -9` leaves its hidden temporary file beside the output
    /// (and the output's lock); the next run of the same output finds it stale (the lock is
    /// free: its owner is gone), removes it and says so, and leaves only the output.
    @Test(.timeLimit(.minutes(10)))
    func theNextRunRemovesWhatAKilledConversionLeft() throws {
        try withTemporaryFolder { folder in
            let output = folder.appendingPathComponent("out.geojson")
            let (process, input) = try startConverting(["convert", "-", "--from", "geojson", "-o", output.path])
            let deadline = Date().addingTimeInterval(10)
            while !contents(of: folder).contains(where: { $0.hasPrefix(".out.geojson.meridian-") && $0 != ".out.geojson.meridian-lock" })
                    && Date() < deadline { usleep(10_000) }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? input.fileHandleForWriting.close()
            let left = contents(of: folder).filter { $0 != ".out.geojson.meridian-lock" }
            #expect(left.count == 1 && left[0].hasPrefix(".out.geojson.meridian-"), "\(left)")
            let run = try meridian(["convert", Self.input, "-o", output.path])
            #expect(run.status == 0)
            #expect(run.stderr.contains(left[0]), "\(run.stderr)")
            #expect(contents(of: folder) == ["out.geojson"])
        }
    }

    /// A small input, for runs that need one.
    static let input = packageRoot.appendingPathComponent("Tests/Fixtures/geojson/edge-cases.geojson").path

    /// Starts `meridian arguments` reading standard input from a pipe, and writes the start of a
    /// FeatureCollection of 2,000 points into it, leaving the pipe open so the run is caught
    /// mid-stream. Returns the running process and the pipe (close its writing end when done).
    func startConverting(_ arguments: [String], environment: [String: String] = [:]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: meridianBinary)
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let input = Pipe()
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = "{\"type\":\"FeatureCollection\",\"features\":["
        for i in 0..<2_000 {
            text += "{\"type\":\"Feature\",\"properties\":{\"i\":\(i)},\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}},"
        }
        input.fileHandleForWriting.write(Data(text.utf8))
        return (process, input)
    }
}
