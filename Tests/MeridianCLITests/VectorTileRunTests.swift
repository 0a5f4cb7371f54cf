import Foundation
import MeridianCore
import MeridianTestSupport
import MeridianTiles
import Testing

/// Issue 31: vector tiles (MVT) and image tiles drawn from vector data honour the tiling
/// options a raster's run does: shards joined by --finish give one run's pyramid byte for
/// byte, a run stopped by SIGINT and resumed gives a clean run's, --plan estimates the run, and
/// nothing is left in `$TMPDIR` or beside the output but the output and its resume state.
@Suite struct VectorTileRunTests {
    static let countries = fixture("geojson/ne_10m_countries_sample.geojson")

    /// The zoom levels of a run of `format`: deep enough that a run can be stopped part-way.
    static func zooms(_ format: String) -> [String] { ["--zoom", format == "mvt" ? "0-7" : "0-4"] }

    /// `meridian tile` of the countries into `output` as `format`, with `extra` options and
    /// `TMPDIR` pointed at `scratch`; started, not waited for.
    static func start(_ output: String, format: String, _ extra: [String], scratch: URL) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: meridianBinary)
        process.arguments = ["tile", countries, output, "--tile-format", format, "--jobs", "2", "-q"] + zooms(format) + extra
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": scratch.path]) { $1 }
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Runs `start` to its end: the exit status.
    static func run(_ output: String, format: String, _ extra: [String] = [], scratch: URL) throws -> Int32 {
        let process = try start(output, format: format, extra, scratch: scratch)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// What a pyramid holds, to compare byte for byte: a folder's files (metadata included),
    /// an MBTiles file's tiles and metadata table.
    static func pyramid(_ path: String) throws -> [String: Data] {
        if path.hasSuffix(".pmtiles") { return ["archive": try Data(contentsOf: URL(fileURLWithPath: path))] }
        guard path.hasSuffix(".mbtiles") else { return folderContents(URL(fileURLWithPath: path)) }
        let file = try MBTilesFile(path: path)
        var contents: [String: Data] = [:]
        for (tile, bytes) in try file.allTiles() { contents["\(tile.zoom)/\(tile.x)/\(tile.y)"] = Data(bytes) }
        for (name, value) in file.metadata { contents["metadata " + name] = Data(value.utf8) }
        return contents
    }

    /// A clean run of `format` into `output` (in a folder of its own), then `body` with the
    /// runs' empty `$TMPDIR`, an empty folder, the path `output` there, and what the clean run made
    /// (a PMTiles archive's bytes whole: the archive is compared byte for byte).
    static func afterACleanRun(format: String, output: String, _ body: (URL, URL, String, [String: Data]) throws -> Void) throws {
        try withTemporaryFolder { folder in
            let scratch = folder.appendingPathComponent("tmp"), place = folder.appendingPathComponent("place")
            for made in [scratch, place] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
            let clean = folder.appendingPathComponent("clean-" + output).path
            #expect(try run(clean, format: format, scratch: scratch) == 0)
            let expected = try pyramid(clean)
            // More than 10 tiles (an archive is one file: more than 10 tiles' worth of bytes).
            #expect(output.hasSuffix(".pmtiles") ? (expected["archive"]?.count ?? 0) > 10_000 : expected.count > 10)
            try body(scratch, place, place.appendingPathComponent(output).path, expected)
        }
    }

    /// The names in `folder`, hidden ones included.
    static func names(in folder: URL) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
    }

    @Test(arguments: ["mvt", "png"], ["tiles", "tiles.mbtiles", "tiles.pmtiles"])
    func shardsJoinIntoOneRunsPyramid(format: String, output: String) throws {
        try Self.afterACleanRun(format: format, output: output) { scratch, place, split, expected throws in
            var written = 0
            for k in 0..<3 {
                let said = try Self.summary(split, format: format, ["--shard", "\(k)/3"], scratch: scratch)
                written += try #require(Self.number(in: said, between: "shard \(k)/3: ", and: " tile"), "\(said)")
            }
            // The joining counts the tiles the shards stored, now in the joined tile set.
            let joined = try Self.summary(split, format: format, ["--finish"], scratch: scratch)
            #expect(written > 30 && Self.number(in: joined, between: "shards joined: ", and: " tile") == written, "\(joined)")
            #expect(try Self.pyramid(split) == expected)
            #expect(try Self.run(split, format: format, ["--finish"], scratch: scratch) == 0)   // idempotent
            #expect(try Self.pyramid(split) == expected)
            #expect(Self.names(in: place) == [output, output + ".shards"])
            #expect(Self.names(in: URL(fileURLWithPath: split + ".shards")) == ["finished", "run"])
            #expect(Self.names(in: scratch).isEmpty)
        }
    }

    /// A level thinned as a whole under the tile limits (the threshold the densest tile needed,
    /// for all the level's tiles) is the same in every shard: shards joined by --finish give one
    /// run's tiles byte for byte. (Limits under which some shard's own tiles need less than the
    /// level's densest tile: with each shard thinning by its own tiles, both differ.)
    @Test(arguments: [["--maximum-tile-features", "5", "--drop-densest-as-needed"], ["--maximum-tile-features", "8", "--drop-fraction-as-needed"]])
    func shardsShareTheLevelsThreshold(limits: [String]) throws {
        try withTemporaryFolder { folder in
            let scratch = folder.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            let clean = folder.appendingPathComponent("clean").path, split = folder.appendingPathComponent("split").path
            #expect(try Self.run(clean, format: "mvt", limits, scratch: scratch) == 0)
            for k in 0..<3 { #expect(try Self.run(split, format: "mvt", limits + ["--shard", "\(k)/3"], scratch: scratch) == 0) }
            #expect(try Self.run(split, format: "mvt", limits + ["--finish"], scratch: scratch) == 0)
            let expected = try Self.pyramid(clean), joined = try Self.pyramid(split)
            #expect(expected.count > 10 && joined == expected)
        }
    }

    /// A run of `format` into `output` as `start` makes it, but not quiet: its summary line.
    static func summary(_ output: String, format: String, _ extra: [String], scratch: URL) throws -> String {
        let process = Process(), errors = Pipe()
        process.executableURL = URL(fileURLWithPath: meridianBinary)
        process.arguments = ["tile", countries, output, "--tile-format", format, "--jobs", "2"] + zooms(format) + extra
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": scratch.path]) { $1 }
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        return text
    }

    /// The whole numbers in `text` that `before` and `after` surround.
    static func number(in text: String, between before: String, and after: String) -> Int? {
        guard let start = text.range(of: before)?.upperBound, let end = text[start...].range(of: after)?.lowerBound else { return nil }
        return Int(text[start..<end])
    }

    @Test(arguments: ["mvt", "png"])
    func aShardMakesOnlyItsShareOfTheTiles(format: String) throws {
        try withTemporaryFolder { folder in
            let scratch = folder.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            let one = try Self.summary(folder.appendingPathComponent("one").path, format: format, [], scratch: scratch)
            let total = try #require(Self.number(in: one, between: "one: ", and: " "), "\(one)")
            #expect(total > 30)
            var made = 0, written = 0
            for k in 0..<3 {
                let text = try Self.summary(folder.appendingPathComponent("split").path, format: format, ["--shard", "\(k)/3"], scratch: scratch)
                // `shard K/3: W tiles written (M made)`: a shard makes its own tiles, and no other.
                let shardWritten = try #require(Self.number(in: text, between: "shard \(k)/3: ", and: " tiles written"), "\(text)")
                let shardMade = try #require(Self.number(in: text, between: "written (", and: " made)"), "\(text)")
                #expect(shardMade == shardWritten)
                #expect(Double(shardMade) < 0.6 * Double(total), "shard \(k) made \(shardMade) of \(total)")
                made += shardMade
                written += shardWritten
            }
            #expect(made == total && written == total)
        }
    }

    /// Whether a run into the folder or MBTiles file `path` has stored something it would keep
    /// for --resume: a folder's state records a completed block (a level, for vector data), an
    /// MBTiles file's partial file has grown past its empty tables.
    static func isPartWay(_ path: String) -> Bool {
        if path.hasSuffix(".mbtiles") {
            let (folder, name) = ((path as NSString).deletingLastPathComponent, (path as NSString).lastPathComponent)
            let partial = folder + "/.\(name).meridian-partial"
            return ((try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int) ?? 0) >= 40_000
        }
        return ((try? String(contentsOfFile: path + "/.meridian-tiling", encoding: .utf8)) ?? "").contains("block ")
    }

    @Test(arguments: ["mvt", "png"], ["tiles", "tiles.mbtiles"])
    func interruptedThenResumedIsACleanRun(format: String, output: String) throws {
        try Self.afterACleanRun(format: format, output: output) { scratch, place, resumed, expected throws in

            let process = try Self.start(resumed, format: format, [], scratch: scratch)
            // Stopped once a level is recorded complete.
            let deadline = Date().addingTimeInterval(60)
            while process.isRunning && Date() < deadline && !Self.isPartWay(resumed) { usleep(2_000) }
            #expect(process.isRunning, "the run ended before it could be stopped")
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            #expect(process.terminationStatus == 128 + SIGINT)
            // Only the output and its documented resume state: a folder with its state, or an
            // MBTiles file's partial file (with SQLite's journal when stopped in a commit).
            let left = Self.names(in: place)
            if output.hasSuffix(".mbtiles") {
                let partialName = ".\(output).meridian-partial"
                #expect(left.contains(partialName) && left.isSubset(of: [partialName, partialName + "-journal"]), "\(left)")
            } else {
                #expect(left == [output], "\(left)")
            }
            #expect(Self.names(in: scratch).isEmpty, "\(Self.names(in: scratch))")

            #expect(try Self.run(resumed, format: format, ["--resume"], scratch: scratch) == 0)
            #expect(try Self.pyramid(resumed) == expected)
            #expect(Self.names(in: place) == [output])
            #expect(Self.names(in: scratch).isEmpty)
        }
    }

    /// A tile goes into a folder the run made under its own name, not renamed into place, so a
    /// run killed outright (SIGKILL: no handler runs) may leave a tile cut short, in a level its
    /// state does not record as done. Killed once a level is recorded, with a tile of an
    /// unrecorded level cut short (as such a kill leaves it), the run resumed gives a clean
    /// run's tiles byte for byte, and nothing beside them.
    @Test func killedWithATileCutShortThenResumedIsACleanRun() throws {
        try Self.afterACleanRun(format: "mvt", output: "tiles") { scratch, place, resumed, expected throws in
            let process = try Self.start(resumed, format: "mvt", [], scratch: scratch)
            let deadline = Date().addingTimeInterval(60)
            while process.isRunning && Date() < deadline && !Self.isPartWay(resumed) { usleep(2_000) }
            #expect(process.isRunning, "the run ended before it could be killed")
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            // The levels the state records as done (`block Z/X/Y TILES`); the deepest tile of
            // another level is cut to half its bytes.
            let state = try String(contentsOfFile: resumed + "/.meridian-tiling", encoding: .utf8)
            let done = Set(state.split(separator: "\n").filter { $0.hasPrefix("block ") }.compactMap { Int($0.dropFirst(6).split(separator: "/")[0]) })
            let undone = expected.filter { key, bytes in
                key.hasSuffix(".pbf") && bytes.count > 1 && Int(key.split(separator: "/")[0]).map { !done.contains($0) } == true
            }
            func zoom(_ key: String) -> Int { Int(key.split(separator: "/")[0]) ?? -1 }
            let (cut, bytes) = try #require(undone.max { (zoom($0.key), $0.key) < (zoom($1.key), $1.key) })
            let cutPath = resumed + "/" + cut
            try FileManager.default.createDirectory(atPath: (cutPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            unlink(cutPath)
            #expect(FileManager.default.createFile(atPath: cutPath, contents: bytes.prefix(bytes.count / 2)))

            #expect(try Self.run(resumed, format: "mvt", ["--resume"], scratch: scratch) == 0)
            #expect(try Self.pyramid(resumed) == expected)
            #expect(Self.names(in: place) == ["tiles"])
            #expect(Self.names(in: scratch).isEmpty)
        }
    }

    @Test(arguments: ["mvt", "png"])
    func planEstimatesTheRunAndWritesNothing(format: String) throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("out").path
            let plan = try meridian(["tile", Self.countries, out, "--tile-format", format, "--zoom", "0-3", "--plan"])
            #expect(plan.status == 0, "\(plan.stderr)")
            #expect(plan.stdout.contains("tiles at most"), "\(plan.stdout)")
            // Zoom 0 is one tile; the levels' counts add up to the total.
            let counts = plan.stdout.split(separator: "\n").dropFirst().prefix(4).compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
            #expect(counts.count == 4 && counts[0] == 1)
            #expect(plan.stdout.contains("\(counts.reduce(0, +)) tiles at most"))
            let json = try meridian(["tile", Self.countries, out, "--tile-format", format, "--zoom", "0-3", "--plan", "--plan-format", "json"])
            let decoded = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            #expect(decoded?["tiles"] as? Int == counts.reduce(0, +))
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    /// An archive is written in one go: --resume is refused, naming why.
    @Test(arguments: ["mvt", "png"], [["--resume"]])
    func aPMTilesArchiveRefusesWhatNeedsResumableOutput(format: String, option: [String]) throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("out.pmtiles").path
            let result = try meridian(["tile", Self.countries, out, "--tile-format", format, "--zoom", "0-1"] + option)
            #expect(result.status == ExitStatus.usage && result.stderr.contains("PMTiles"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}
