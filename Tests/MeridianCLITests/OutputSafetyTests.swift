import Foundation
import MeridianFormats
import MeridianTiles
import Testing

import MeridianCore

/// What Meridian leaves on disk: the modes of everything it creates, and which outputs
/// `--resume` agrees to continue.
@Suite struct OutputSafetyTests {
    let chart = fixture("raster/19347_2.KAP")

    /// `meridian` run under `mask` (umask's argument), through the shell that sets it.
    func runUnder(umask mask: String, _ arguments: [String]) throws -> RunResult {
        try run("/bin/sh", ["-c", "umask \(mask) && exec \"$0\" \"$@\"", meridianBinary] + arguments)
    }

    /// The permission bits of every file and folder under `folder` (relative path → mode).
    func modes(under folder: URL) -> [String: mode_t] {
        var modes: [String: mode_t] = [:]
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return modes }
        for case let relative as String in walker {
            var status = stat()
            if lstat(folder.appendingPathComponent(relative).path, &status) == 0 { modes[relative] = status.st_mode }
        }
        return modes
    }

    /// Every file and folder any writer makes gets exactly what the umask allows (0666 and 0777
    /// less the mask), with tiles written by four threads at once: the umask was once read by
    /// setting it to 0 for an instant, which made files other threads created then 0666.
    @Test(arguments: ["002", "077"])
    func everythingCreatedGetsWhatTheUmaskAllows(_ mask: String) throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("out")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            let countries = fixture("geojson/ne_10m_countries_sample.geojson")
            let runs: [[String]] = [
                ["tile", chart, out.appendingPathComponent("tiles").path, "--zoom", "14-18", "--jobs", "4", "--viewer", "-q"],
                ["tile", chart, out.appendingPathComponent("chart.mbtiles").path, "--zoom", "13-16", "--jobs", "4", "-q"],
                ["convert", countries, "-o", out.appendingPathComponent("countries.geojson").path],
                ["convert", countries, "-o", out.appendingPathComponent("countries.kmz").path],
                ["convert", countries, "-o", out.appendingPathComponent("countries.gpkg").path],
                ["convert", countries, "-o", out.appendingPathComponent("countries.shp").path],
                ["render", countries, "-o", out.appendingPathComponent("countries.png").path],
            ]
            for arguments in runs {
                let result = try runUnder(umask: mask, arguments)
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
            }
            let maskBits = mode_t(mask, radix: 8)!
            let found = modes(under: out)
            #expect(found.count > 100, "\(found.count) entries")
            for kind in ["countries.kmz", "countries.gpkg", "countries.dbf", "chart.mbtiles", "tiles/index.html", "tiles/metadata.json"] {
                #expect(found[kind] != nil, "\(kind) was not written")
            }
            for (path, mode) in found.sorted(by: { $0.key < $1.key }) {
                let isFolder = mode & S_IFMT == S_IFDIR
                let expected = (isFolder ? 0o777 : 0o666) & ~maskBits
                #expect(mode & 0o7777 == expected, "\(path): \(String(mode & 0o7777, radix: 8)), expected \(String(expected, radix: 8))")
            }
        }
    }

    /// Ctrl-C part-way through `tile` prints how to resume; `--resume` then continues only the
    /// same run: another raster, other options, a folder with no resume state or a finished tile
    /// set are usage errors that say what differs and write nothing; the resumed run's summary
    /// counts tiles written now and kept, and their sum is a clean run's.
    @Test func resumeContinuesOnlyTheSameRun() throws {
        try withTemporaryFolder { folder in
            let options = ["--zoom", "14-17", "--jobs", "1", "--no-cutline"]
            let clean = folder.appendingPathComponent("clean"), out = folder.appendingPathComponent("out")
            #expect(try meridian(["tile", chart, clean.path, "-q"] + options).status == 0)

            // Interrupted once a block with tiles in it is complete, so some are kept.
            let state = out.appendingPathComponent(".meridian-tiling")
            let interrupted = try TileCommandTests.tileStoppedPartWay([chart, out.path] + options, signal: SIGINT) {
                let text = (try? String(contentsOf: state, encoding: .utf8)) ?? ""
                return text.split(separator: "\n").contains { $0.hasPrefix("block ") && !$0.hasSuffix(" 0") }
            }
            #expect(interrupted.stopped, "the run ended before it could be interrupted")
            #expect(interrupted.stderr.contains("meridian tile \(chart) \(out.path) --zoom 14-17 --jobs 1 --no-cutline --resume"),
                    "\(interrupted.stderr)")
            let before = folderContents(out)
            #expect(pngCount(out) > 0 && pngCount(out) < pngCount(clean))

            // Another raster, other zooms, another nodata: refused, naming what differs.
            let refusals: [([String], String)] = [
                (["tile", fixture("raster/rgbsmall.tif"), out.path, "--resume"] + options, "input"),
                (["tile", chart, out.path, "--resume", "--zoom", "14-16", "--jobs", "1", "--no-cutline"], "zoom"),
                (["tile", chart, out.path, "--resume", "--nodata", "0"] + options, "nodata"),
                (["tile", chart, out.path, "--resume", "--tms"] + options, "scheme"),
            ]
            for (arguments, differing) in refusals {
                let refused = try meridian(arguments)
                #expect(refused.status == ExitStatus.usage, "\(arguments): \(refused.stderr)")
                #expect(refused.stderr.contains("\(differing): was"), "\(refused.stderr)")
                #expect(folderContents(out) == before, "\(arguments) changed the folder")
            }

            // The same run: the summary says what a user can check.
            let resumed = try meridian(["tile", chart, out.path, "--resume"] + options)
            #expect(resumed.status == 0, "\(resumed.stderr)")
            let summary = try #require(try Regex("([0-9]+) tiles in all.*: ([0-9]+) written now, ([0-9]+) kept").firstMatch(in: resumed.stderr),
                                       "\(resumed.stderr)")
            let (all, now, kept) = (Int(summary[1].substring!)!, Int(summary[2].substring!)!, Int(summary[3].substring!)!)
            #expect(all == pngCount(clean) && now + kept == all && kept > 0, "\(resumed.stderr)")
            #expect(folderContents(out) == folderContents(clean))

            // A finished tile set and a folder of someone else's files hold no run to resume.
            let other = folder.appendingPathComponent("other")
            try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
            try Data("notes".utf8).write(to: other.appendingPathComponent("notes.txt"))
            for target in [clean, other] {
                let snapshot = folderContents(target)
                let refused = try meridian(["tile", chart, target.path, "--resume", "-q"] + options)
                #expect(refused.status == ExitStatus.usage && refused.stderr.contains("no interrupted Meridian run"), "\(refused.stderr)")
                #expect(folderContents(target) == snapshot)
            }
        }
    }

    /// The same for MBTiles: the partial file records its run, and a finished file is not resumed.
    @Test func mbtilesResumeContinuesOnlyTheSameRun() throws {
        try withTemporaryFolder { folder in
            let options = ["--zoom", "14-17", "--jobs", "1", "--no-cutline", "-q"]
            let out = folder.appendingPathComponent("chart.mbtiles")
            let partial = folder.appendingPathComponent(".chart.mbtiles.meridian-partial")
            let stopped = try TileCommandTests.mbtilesStoppedPartWay([chart, out.path] + options, partial: partial, signal: SIGINT)
            #expect(stopped.stopped, "the run ended before it could be interrupted")
            let before = try Data(contentsOf: partial)
            let other = try meridian(["tile", fixture("raster/rgbsmall.tif"), out.path, "--resume"] + options)
            #expect(other.status == ExitStatus.usage && other.stderr.contains("input: was"), "\(other.stderr)")
            #expect(try Data(contentsOf: partial) == before)
            #expect(try meridian(["tile", chart, out.path, "--resume"] + options).status == 0)
            let finished = try Data(contentsOf: out)
            let again = try meridian(["tile", chart, out.path, "--resume"] + options)
            #expect(again.status == ExitStatus.usage && again.stderr.contains("no interrupted Meridian run"), "\(again.stderr)")
            #expect(try Data(contentsOf: out) == finished)
        }
    }

    /// A partial file whose last transaction was cut off after SQLite had written some of its
    /// pages into the file (here made so on purpose: a transaction that drops the run's table,
    /// spilled by a one-page cache, then the process gone) reads only with its hot journal rolled
    /// back. A refused resume reads it so without changing a byte of the file or its journal;
    /// the right resume rolls it back and finishes as a clean run does.
    @Test func mbtilesResumeReadsATornFileWithoutTouchingIt() throws {
        try withTemporaryFolder { folder in
            let options = ["--zoom", "14-17", "--jobs", "1", "--no-cutline", "-q"]
            let clean = folder.appendingPathComponent("clean.mbtiles"), out = folder.appendingPathComponent("chart.mbtiles")
            #expect(try meridian(["tile", chart, clean.path] + options).status == 0)
            let partial = folder.appendingPathComponent(".chart.mbtiles.meridian-partial")
            let journal = URL(fileURLWithPath: partial.path + "-journal")
            let stopped = try TileCommandTests.mbtilesStoppedPartWay([chart, out.path] + options, partial: partial, signal: SIGINT)
            #expect(stopped.stopped, "the run ended before it could be interrupted")
            let tear = """
                import os, sqlite3, sys
                db = sqlite3.connect(sys.argv[1], isolation_level=None)
                db.execute("PRAGMA cache_size = 1")
                db.execute("BEGIN")
                db.execute("DROP TABLE meridian_run")
                for x in range(200):
                    db.execute("INSERT INTO tiles VALUES (30, ?, 0, zeroblob(8000))", (x,))
                os._exit(0)
                """
            #expect(try run("/usr/bin/python3", ["-c", tear, partial.path]).status == 0)
            #expect(FileManager.default.fileExists(atPath: journal.path), "no hot journal was left")
            let (fileBefore, journalBefore) = (try Data(contentsOf: partial), try Data(contentsOf: journal))
            let listing = contents(of: folder)

            let other = try meridian(["tile", fixture("raster/rgbsmall.tif"), out.path, "--resume"] + options)
            #expect(other.status == ExitStatus.usage && other.stderr.contains("input: was"), "\(other.stderr)")
            #expect(try Data(contentsOf: partial) == fileBefore)
            #expect(try Data(contentsOf: journal) == journalBefore)
            #expect(contents(of: folder) == listing, "the copy read was left behind")

            let resumed = try meridian(["tile", chart, out.path, "--resume"] + options)
            #expect(resumed.status == 0, "\(resumed.stderr)")
            let (a, b) = (try MBTilesFile(path: clean.path), try MBTilesFile(path: out.path))
            #expect(try a.allTiles() == b.allTiles() && a.metadata == b.metadata)
            #expect(contents(of: folder) == ["chart.mbtiles", "clean.mbtiles"])
        }
    }

    // MARK: Outputs never overwrite or remove anything (issues 29 and 30)

    /// Every file under `folder`, with its bytes, and every link with its target: what a refused
    /// run must leave exactly as it was.
    func snapshot(_ folder: URL) -> [String: Data] {
        var found: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return found }
        for case let relative as String in walker {
            let path = folder.appendingPathComponent(relative).path
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
                found[relative] = Data("link to \(target)".utf8)
            } else {
                found[relative] = FileManager.default.contents(atPath: path) ?? Data("folder".utf8)
            }
        }
        return found
    }

    /// No subcommand writes over one of its inputs, whatever the output's kind (a file, a
    /// picture, a folder of tiles, MBTiles) and however the path is spelled (itself, through a
    /// link, standard input that is the file, a folder holding the input): each is a usage
    /// error naming the path, and every file is left as it was.
    @Test func noOutputIsOneOfTheInputs() throws {
        try withTemporaryFolder { folder in
            func copy(_ fixturePath: String, _ name: String) throws -> String {
                let path = folder.appendingPathComponent(name).path
                try FileManager.default.copyItem(atPath: fixture(fixturePath), toPath: path)
                return path
            }
            let coverage = try copy("coverage/cases/bay-area.geojson", "c.geojson")
            // Inputs named as pictures, read with --from: the runs are refused for being their input, nothing else.
            let picture = try copy("coverage/cases/bay-area.geojson", "c.svg")
            let mine = try copy("geojson/ne_10m_countries_sample.geojson", "mine.geojson")
            let charts = folder.appendingPathComponent("charts")
            try FileManager.default.createDirectory(at: charts, withIntermediateDirectories: true)
            let chart = charts.appendingPathComponent("small.tif").path
            try FileManager.default.copyItem(atPath: fixture("raster/rgbsmall.tif"), toPath: chart)
            let mbtiles = folder.appendingPathComponent("chart.mbtiles").path
            #expect(try meridian(["tile", chart, mbtiles, "--zoom", "8-9", "-q"]).status == 0)
            let link = folder.appendingPathComponent("link.geojson").path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: coverage)
            let spelled = folder.appendingPathComponent("charts/../c.geojson").path
            // A Shapefile's table alone, whose name the Shapefile driver writes beside a .shp
            // (meridian-gdal wrote it over the input: only `meridian` knew the run's inputs).
            let shapefile = folder.appendingPathComponent("shp")
            try FileManager.default.createDirectory(at: shapefile, withIntermediateDirectories: true)
            #expect(try meridian(["convert", coverage, "-o", shapefile.appendingPathComponent("table.shp").path, "-q"]).status == 0)
            for sidecar in ["shp", "shx"] { try FileManager.default.removeItem(at: shapefile.appendingPathComponent("table." + sidecar)) }
            let table = shapefile.appendingPathComponent("table.dbf").path
            // A whole Shapefile, whose table GDAL reads with it: an output there was written over it.
            let roads = folder.appendingPathComponent("roads")
            try FileManager.default.createDirectory(at: roads, withIntermediateDirectories: true)
            #expect(try meridian(["convert", coverage, "-o", roads.appendingPathComponent("roads.shp").path, "-q"]).status == 0)
            let roadsTable = roads.appendingPathComponent("roads.dbf").path

            let runs: [(arguments: [String], output: String)] = [
                (["coverage", "validate", picture, "--preview", picture], picture),
                (["coverage", "fix", coverage, "-o", spelled], spelled),
                (["coverage", "fix", "-o", coverage], coverage),  // standard input is the file: see below
                (["coverage", "make", coverage, "-o", link], link),
                (["render", picture, "--from", "geojson", "-o", picture], picture),
                (["convert", coverage, "-o", link], link),
                (["geodesic", coverage, "-o", link], link),  // it wrote over its input
                (["simplify", coverage, "--zoom-level", "3", "-o", coverage], coverage),
                (["clip", coverage, "--bbox", "-123,37,-121,38", "-o", spelled], spelled),
                (["tile", mbtiles, mbtiles], mbtiles),
                (["tile", mine, mine], mine),
                (["tile", mine, mine, "--tile-format", "png"], mine),
                (["tile", chart, charts.path, "--resume"], charts.path),
                (["tile-copy", mbtiles, mbtiles], mbtiles),
                (["tile-join", mbtiles, "-o", mbtiles], mbtiles),
                (["convert", table, "-o", shapefile.appendingPathComponent("table.shp").path], table),
                (["convert", roads.appendingPathComponent("roads.shp").path, "--to", "csv", "-o", roadsTable], roadsTable),
            ]
            let before = snapshot(folder)
            for (arguments, output) in runs {
                let result = arguments.count == 4 && arguments[1] == "fix" ? try runWithStandardInput(from: coverage, arguments) : try meridian(arguments)
                #expect(result.status == ExitStatus.usage && result.stderr.contains(output) && result.stderr.contains("input"),
                        "\(arguments): \(result.status) \(result.stderr)")
                #expect(snapshot(folder) == before, "\(arguments) changed the folder")
            }
        }
    }

    /// No subcommand writes inside an input that is a folder (a tile folder, a folder of
    /// charts), where the next reading of that input would find the output, nor to a folder that
    /// holds an input, however the path is spelled: each is a usage error naming the output and
    /// the input, and every file is left as it was (`tile-copy tiles/ tiles/sub.mbtiles` wrote
    /// the copy into the tiles it copied).
    @Test func noOutputIsInsideAnInputFolderNorHoldsAnInput() throws {
        try withTemporaryFolder { folder in
            let charts = folder.appendingPathComponent("charts").path
            try FileManager.default.createDirectory(atPath: charts, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: fixture("raster/rgbsmall.tif"), toPath: charts + "/small.tif")
            let images = folder.appendingPathComponent("images").path
            #expect(try meridian(["tile", charts + "/small.tif", images, "--zoom", "8-9", "-q"]).status == 0)
            let vectors = folder.appendingPathComponent("vectors").path
            let countries = folder.appendingPathComponent("in").path
            try FileManager.default.createDirectory(atPath: countries, withIntermediateDirectories: true)
            let feature = countries + "/countries.geojson"
            try FileManager.default.copyItem(atPath: fixture("geojson/ne_10m_countries_sample.geojson"), toPath: feature)
            #expect(try meridian(["tile", feature, vectors, "--zoom", "0-2", "-q"]).status == 0)
            let linked = folder.appendingPathComponent("linked").path
            try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: vectors)

            let runs: [(arguments: [String], output: String, input: String)] = [
                (["tile-copy", vectors, vectors + "/sub.mbtiles"], vectors + "/sub.mbtiles", vectors),
                (["tile-copy", vectors, vectors + "/./9"], vectors + "/./9", vectors),
                (["tile-copy", vectors, linked + "/sub.pmtiles"], linked + "/sub.pmtiles", vectors),
                (["tile-copy", vectors + "/", folder.path], folder.path, vectors),
                (["tile-join", vectors, "-o", vectors + "/joined.pmtiles"], vectors + "/joined.pmtiles", vectors),
                (["convert", vectors, "--zoom", "1", "-o", vectors + "/1.geojson"], vectors + "/1.geojson", vectors),
                (["convert", linked, "--zoom", "1", "-o", vectors + "/1.gpkg"], vectors + "/1.gpkg", linked),
                (["tile", charts, charts + "/tiles"], charts + "/tiles", charts),
                (["tile", charts, charts + "/charts.mbtiles"], charts + "/charts.mbtiles", charts),
                (["tile", charts, folder.path + "/in/../charts/charts.pmtiles"], folder.path + "/in/../charts/charts.pmtiles", charts),
                (["render", feature, "--basemap", images, "-o", images + "/picture.png"], images + "/picture.png", images),
                // A folder that holds an input, continued or not.
                (["tile", feature, countries, "--resume"], countries, feature),
                (["tile", feature, countries, "--tile-format", "png"], countries, feature),
            ]
            let before = snapshot(folder)
            for (arguments, output, input) in runs {
                let result = try meridian(arguments)
                #expect(result.status == ExitStatus.usage && result.stderr.contains(output) && result.stderr.contains(input),
                        "\(arguments): \(result.status) \(result.stderr)")
                #expect(snapshot(folder) == before, "\(arguments) changed the folder")
            }
        }
    }

    /// An output that is a named pipe (or a device: `-o /dev/null`) is written into, as a shell's
    /// `>` does: the file renamed into place replaced the node itself (as root, `-o /dev/full`
    /// made /dev/full a regular file). The reader gets the whole output, the FIFO stays one, and
    /// nothing is left beside it.
    @Test func anOutputThatIsAPipeOrADeviceIsWrittenInto() throws {
        try withTemporaryFolder { folder in
            let fifo = folder.appendingPathComponent("out.geojson").path
            try #require(mkfifo(fifo, 0o600) == 0)
            // Opened for reading first, without waiting, so the run's open for writing does not wait either.
            let reader = open(fifo, O_RDONLY | O_NONBLOCK)
            try #require(reader >= 0)
            defer { close(reader) }
            let result = try meridian(["convert", fixture("coverage/cases/bay-area.geojson"), "-o", fifo])
            #expect(result.status == 0, "\(result.stderr)")
            var status = stat()
            #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the FIFO was replaced")
            var bytes = [UInt8](repeating: 0, count: 65536)
            let count = read(reader, &bytes, bytes.count)
            #expect(count > 0 && String(decoding: bytes.prefix(max(count, 0)), as: UTF8.self).contains("MultiPolygon"))
            #expect(contents(of: folder) == ["out.geojson"])
            // GDAL's formats are written as files: a FIFO there is refused, and stays.
            let package = folder.appendingPathComponent("out.gpkg").path
            try #require(mkfifo(package, 0o600) == 0)
            let gpkg = try meridian(["convert", fixture("coverage/cases/bay-area.geojson"), "-o", package])
            #expect(gpkg.status == ExitStatus.cannotCreateOutput, "\(gpkg.status) \(gpkg.stderr)")
            #expect(lstat(package, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the FIFO was replaced")
            #expect(contents(of: folder) == ["out.geojson", "out.gpkg"])
            // (A device takes the same paths; not tried here: a regression run as root would
            // replace the machine's /dev/full.)
        }
    }

    /// `meridian ARGUMENTS < file`: standard input that is the file itself, not a pipe.
    func runWithStandardInput(from file: String, _ arguments: [String]) throws -> RunResult {
        try run("/bin/sh", ["-c", "exec \"$0\" \"$@\" < \"\(file)\"", meridianBinary] + arguments)
    }

    /// Something at a tile output's path that Meridian did not make is never removed or
    /// replaced, whatever the container: a regular file where a folder goes (it once read as an
    /// empty folder and was removed), a file at an .mbtiles or .pmtiles path, a folder holding
    /// files, a symbolic link, an interrupted run's partial file beside an .mbtiles (it may be
    /// resumed). Each is refused (cannot create output) naming the path, with a hint that says
    /// what works, and left as it was; an empty folder counts as new.
    @Test func existingOutputsAreRefusedAlikeAndNeverRemoved() throws {
        try withTemporaryFolder { folder in
            let countries = fixture("geojson/ne_10m_countries_sample.geojson"), small = fixture("raster/rgbsmall.tif")
            let pyramid = folder.appendingPathComponent("pyramid.pmtiles").path
            #expect(try meridian(["tile", countries, pyramid, "--zoom", "0-1", "-q"]).status == 0)
            let work = folder.appendingPathComponent("work")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            let thesis = work.appendingPathComponent("thesis.txt").path, notes = work.appendingPathComponent("notes.geojson").path
            let old = work.appendingPathComponent("old.mbtiles").path, archive = work.appendingPathComponent("old.pmtiles").path
            let partial = work.appendingPathComponent(".partial.mbtiles.meridian-partial").path
            for file in [thesis, notes, old, archive, partial] { try Data("someone's work\n".utf8).write(to: URL(fileURLWithPath: file)) }
            let full = work.appendingPathComponent("full")
            try FileManager.default.createDirectory(at: full, withIntermediateDirectories: true)
            try Data("notes".utf8).write(to: full.appendingPathComponent("notes.txt"))
            let elsewhere = work.appendingPathComponent("elsewhere")
            try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
            let link = work.appendingPathComponent("link").path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: elsewhere.path)

            let outputs = [thesis, notes, old, archive, full.path, link, work.appendingPathComponent("partial.mbtiles").path]
            let kinds: [(String, [String])] = [
                ("tile-copy", ["tile-copy", pyramid]),
                ("tile-join", ["tile-join", "-o", pyramid]),
                ("vector tiles", ["tile", countries, "--zoom", "0-1"]),
                ("drawn tiles", ["tile", countries, "--zoom", "0-1", "--tile-format", "png"]),
                ("raster tiles", ["tile", small, "--zoom", "8-9"]),
            ]
            let before = snapshot(work)
            for (kind, arguments) in kinds {
                for output in outputs {
                    let result = try meridian(Array(arguments.prefix(2) + [output] + arguments.dropFirst(2) + ["-q"]))
                    let named = (output as NSString).lastPathComponent
                    #expect(result.status == ExitStatus.cannotCreateOutput && result.stderr.contains(named) && result.stderr.contains("hint:"),
                            "\(kind) into \((output as NSString).lastPathComponent): \(result.status) \(result.stderr)")
                    #expect(snapshot(work) == before, "\(kind) into \((output as NSString).lastPathComponent) changed the folder")
                }
            }

            // An empty folder counts as new, for every kind.
            for (index, (kind, arguments)) in kinds.enumerated() {
                let empty = folder.appendingPathComponent("empty-\(index)")
                try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
                let result = try meridian(Array(arguments.prefix(2) + [empty.path] + arguments.dropFirst(2) + ["-q"]))
                #expect(result.status == 0 && !contents(of: empty).isEmpty, "\(kind) into \(empty.path): \(result.stderr)")
                let left = contents(of: folder).filter { $0.hasPrefix(".empty-\(index).") }
                #expect(left.isEmpty, "\(kind) left \(left)")
            }

            // No subcommand makes the folders above its output: missing ones are refused (73) as
            // `convert` refuses them, naming the output, for a folder, an MBTiles file and a
            // PMTiles archive alike, and nothing is made.
            for (index, (kind, arguments)) in kinds.enumerated() {
                for name in ["tiles", "tiles.mbtiles", "tiles.pmtiles"] {
                    let output = folder.appendingPathComponent("new-\(index)/deeper/\(name)").path
                    let result = try meridian(Array(arguments.prefix(2) + [output] + arguments.dropFirst(2) + ["-q"]))
                    #expect(result.status == ExitStatus.cannotCreateOutput && result.stderr.contains(output), "\(kind) into \(output): \(result.stderr)")
                    #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("new-\(index)").path), "\(kind) made \(output)'s folders")
                }
            }
            for arguments in [["render", countries, "-o"], ["convert", countries, "-o"]] {
                let output = folder.appendingPathComponent("new-\(arguments[0])/deeper/out.png").path
                let result = try meridian(arguments + [output])
                #expect(result.status == ExitStatus.cannotCreateOutput && result.stderr.contains(output), "\(arguments[0]): \(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("new-\(arguments[0])").path))
            }
        }
    }

    /// `tile-copy`'s summary counts the tiles it wrote, not the addresses the source lists: an
    /// MBTiles file with two rows without bytes copies only its real tiles.
    @Test func tileCopyCountsTheTilesItWrote() throws {
        try withTemporaryFolder { folder in
            let source = folder.appendingPathComponent("rows.mbtiles").path
            #expect(try meridian(["tile", fixture("raster/rgbsmall.tif"), source, "--zoom", "8-9", "-q"]).status == 0)
            let tiles = try TilePyramids.open(source).tileAddresses(zooms: nil).count
            let addEmptyRows = """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                db.execute("INSERT INTO tiles VALUES (3, 0, 0, zeroblob(0))")
                db.execute("INSERT INTO tiles VALUES (3, 1, 0, NULL)")
                db.commit()
                """
            #expect(try run("/usr/bin/python3", ["-c", addEmptyRows, source]).status == 0)
            for name in ["copy", "copy.mbtiles", "copy.pmtiles"] {
                let copy = folder.appendingPathComponent(name).path
                let result = try meridian(["tile-copy", source, copy])
                #expect(result.status == 0 && result.stderr.contains(": \(tiles) tiles copied"), "\(name): \(tiles) tiles, \(result.stderr)")
                #expect(try TilePyramids.open(copy).tileAddresses(zooms: nil).count == tiles, "\(name)")
            }
        }
    }

    /// One run at a time writes an output: a lock beside it (`.NAME.meridian-lock`), locked
    /// with flock(2), holds the process id, and a second run is refused naming it, for every
    /// container and every subcommand that writes tiles; a lock file nobody holds (a run killed
    /// with SIGKILL leaves it, its process and so its flock gone) is taken over; no lock is left
    /// behind by a run that ends.
    @Test func aSecondRunIntoTheSameOutputIsRefused() throws {
        try withTemporaryFolder { folder in
            let countries = fixture("geojson/ne_10m_countries_sample.geojson"), small = fixture("raster/rgbsmall.tif")
            let pyramid = folder.appendingPathComponent("pyramid.mbtiles").path
            #expect(try meridian(["tile", countries, pyramid, "--zoom", "0-1", "-q"]).status == 0)
            let live = "\(getpid())\n"  // this test process: alive while the runs are
            let gone = "4194303\n"       // above Linux's largest process id: no such process
            var index = 0
            for name in ["out", "out.mbtiles", "out.pmtiles"] {
                for arguments in [["tile", small, "--zoom", "8-9"], ["tile", countries, "--zoom", "0-1"], ["tile-copy", pyramid]] {
                    index += 1
                    let place = folder.appendingPathComponent("run-\(index)")
                    try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
                    let output = place.appendingPathComponent(name).path
                    let lock = place.appendingPathComponent(".\(name).meridian-lock")
                    try Data(live.utf8).write(to: lock)
                    // Held as a run holds it: locked (flock), by this live process.
                    let held = open(lock.path, O_RDONLY | O_CLOEXEC)
                    #expect(held >= 0 && flock(held, LOCK_EX | LOCK_NB) == 0)
                    let run = arguments.prefix(2) + [output] + arguments.dropFirst(2) + ["-q"]
                    let refused = try meridian(Array(run))
                    close(held)
                    #expect(refused.status == ExitStatus.cannotCreateOutput && refused.stderr.contains("process \(getpid())")
                            && refused.stderr.contains(output), "\(arguments) \(name): \(refused.stderr)")
                    #expect(contents(of: place) == [".\(name).meridian-lock"], "\(arguments) \(name)")

                    try Data(gone.utf8).write(to: lock)
                    let taken = try meridian(Array(run))
                    #expect(taken.status == 0, "\(arguments) \(name): \(taken.stderr)")
                    #expect(contents(of: place) == [name], "\(arguments) \(name): the lock was left")
                }
            }
        }
    }

    /// Two runs into one new folder at once: the second is refused while the first holds the
    /// lock, naming its process; SIGINT ends the first and takes its lock away with it.
    @Test func twoRunsAtOnceIntoOneNewFolder() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("out"), lock = folder.appendingPathComponent(".out.meridian-lock")
            let arguments = [chart, out.path, "--zoom", "10-18", "--jobs", "1", "-q"]
            var second: RunResult?, holder = ""
            let first = try TileCommandTests.tileStoppedPartWay(arguments, signal: SIGINT) {
                guard let text = try? String(contentsOf: lock, encoding: .utf8), text.hasSuffix("\n") else { return false }
                holder = text.trimmingCharacters(in: .whitespacesAndNewlines)
                second = try? meridian(["tile"] + arguments)
                return true
            }
            #expect(first.stopped, "the first run ended before the second started")
            #expect(second?.status == ExitStatus.cannotCreateOutput && second?.stderr.contains("another run (process \(holder))") == true,
                    "\(second?.stderr ?? "no second run")")
            #expect(!FileManager.default.fileExists(atPath: lock.path), "SIGINT left the lock")
        }
    }

    /// A symbolic link inside a folder output is not followed: a zoom folder that links
    /// elsewhere (a shard's shared folder may hold anything) is refused, and nothing is written
    /// where it points.
    @Test func linksInsideAFolderOutputAreNotFollowed() throws {
        try withTemporaryFolder { folder in
            let elsewhere = folder.appendingPathComponent("elsewhere")
            try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
            // The output as given, and with a trailing slash.
            for (name, spelling) in [("out", ""), ("slashed", "/")] {
                let out = folder.appendingPathComponent(name)
                try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(atPath: out.appendingPathComponent("9").path, withDestinationPath: elsewhere.path)
                let result = try meridian(["tile", fixture("raster/rgbsmall.tif"), out.path + spelling, "--zoom", "8-9", "--shard", "0/1", "-q"])
                #expect(result.status == ExitStatus.cannotCreateOutput && result.stderr.contains("\(name)/9"), "\(spelling): \(result.stderr)")
                #expect(contents(of: elsewhere).isEmpty, "tiles were written through the link")
            }
        }
    }

    /// GDAL's PDS4 driver writes `countries.xml` and its table in a folder `countries/` beside
    /// it. With a folder of that name already there (someone's files), the run used to move
    /// `countries.xml` into place, then fail on the folder: exit 73 with an output left behind.
    @Test func anOutputsCompanionFolderInTheWayLeavesNothing() throws {
        try withTemporaryFolder { folder in
            let theirs = folder.appendingPathComponent("countries")
            try FileManager.default.createDirectory(at: theirs, withIntermediateDirectories: true)
            try Data("kept".utf8).write(to: theirs.appendingPathComponent("notes.txt"))
            let run = try meridian(["convert", fixture("geojson/ne_10m_countries_sample.geojson"), "--to", "PDS4",
                                    "-o", folder.appendingPathComponent("countries.xml").path, "--quiet"])
            #expect(run.status == ExitStatus.cannotCreateOutput, "\(run.stderr)")
            #expect(run.stderr.contains("countries.xml"), "\(run.stderr)")
            #expect(contents(of: folder) == ["countries"], "nothing written, nothing hidden left: \(contents(of: folder))")
            #expect(contents(of: theirs) == ["notes.txt"])
            #expect(try String(contentsOf: theirs.appendingPathComponent("notes.txt"), encoding: .utf8) == "kept")
            // Where nothing is in the way, both go into place.
            let other = folder.appendingPathComponent("other")
            try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
            let clean = try meridian(["convert", fixture("geojson/ne_10m_countries_sample.geojson"), "--to", "PDS4",
                                      "-o", other.appendingPathComponent("countries.xml").path, "--quiet"])
            #expect(clean.status == 0, "\(clean.stderr)")
            #expect(contents(of: other) == ["countries", "countries.xml"])
        }
    }
}
