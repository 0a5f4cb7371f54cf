import Foundation
import Testing

@Suite(.serialized) struct ConvertCommandTests {
    @Test func convertsAFileIntoAFileExactly() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("out.geojson").path
            let run = try meridian(["convert", fixture("geojson/edge-cases.geojson"), "-o", out])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.isEmpty)
            let golden = try String(contentsOfFile: fixture("geojson/edge-cases.golden.geojson"), encoding: .utf8)
            #expect(try String(contentsOfFile: out, encoding: .utf8) == golden)
            #expect(contents(of: folder) == ["out.geojson"])  // no temporary file left behind
        }
    }

    /// A zip read through a named pipe (as `<(…)` gives one) is set aside like standard input:
    /// a zip is read from its end, which a pipe cannot seek to.
    @Test func readsAKMZFromANamedPipe() throws {
        try withTemporaryFolder { folder in
            let fifo = folder.appendingPathComponent("archive.kmz").path
            #expect(mkfifo(fifo, 0o600) == 0)
            let script = #"cat "$2" > "$1" & "$0" convert "$1" --to geojsonseq; status=$?; wait; exit $status"#
            let result = try run("sh", ["-c", script, meridianBinary, fifo, fixture("fuzz-seeds/kmz/multigeometry.kmz")])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.split(separator: "\n").count == 1)
        }
    }

    @Test func streamsStdinToStdout() throws {
        let input = try Data(contentsOf: URL(fileURLWithPath: fixture("geojson/edge-cases.geojson")))
        let run = try meridian(["convert"], stdin: input)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == (try String(contentsOfFile: fixture("geojson/edge-cases.golden.geojson"), encoding: .utf8)))

        let dash = try meridian(["convert", "-", "--to", "geojsonseq"], stdin: input)
        #expect(dash.status == 0)
        #expect(dash.stdout.split(separator: "\n").count == 6)
    }

    @Test func outputFormatFollowsTheExtension() throws {
        try withTemporaryFolder { folder in
            let rs = folder.appendingPathComponent("a.geojsons").path
            #expect(try meridian(["convert", fixture("geojson/sequence.geojsonl"), "-o", rs]).status == 0)
            let text = try String(contentsOfFile: rs, encoding: .utf8)
            #expect(text.hasPrefix("\u{1E}{\"type\":\"Feature\""))
            #expect(text.components(separatedBy: "\u{1E}").count == 4)

            let back = folder.appendingPathComponent("b.geojson").path
            #expect(try meridian(["convert", rs, "-o", back, "--pretty"]).status == 0)
            #expect(try String(contentsOfFile: back, encoding: .utf8).hasPrefix("{\n  \"type\": \"FeatureCollection\""))
        }
    }

    @Test func precisionRoundsCoordinates() throws {
        let run = try meridian(["convert", fixture("geojson/bare-geometry.geojson"), "--precision", "1"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("[[-122.4,37.8],[-74.0,40.7]]"))
        #expect(try meridian(["convert", fixture("geojson/bare-geometry.geojson"), "--precision", "40"]).status == ExitStatus.usage)
    }

    @Test func missingInputExits66() throws {
        let run = try meridian(["convert", "/nonexistent/route.geojson"])
        #expect(run.status == ExitStatus.inputUnavailable)
        #expect(run.stderr.hasPrefix("meridian: error: /nonexistent/route.geojson: cannot open input: No such file or directory"))
    }

    @Test func unwritableOutputExits73AndLeavesNothing() throws {
        let run = try meridian(["convert", fixture("geojson/edge-cases.geojson"), "-o", "/nonexistent-folder/out.geojson"])
        #expect(run.status == ExitStatus.cannotCreateOutput)
        #expect(run.stderr.contains("cannot create output"))
        try withTemporaryFolder { folder in
            // A folder where the output file should go: the rename fails, and nothing is left.
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("taken.geojson"), withIntermediateDirectories: false)
            let blocked = try meridian(["convert", fixture("geojson/edge-cases.geojson"), "-o", folder.appendingPathComponent("taken.geojson").path])
            #expect(blocked.status == ExitStatus.cannotCreateOutput)
            #expect(contents(of: folder) == ["taken.geojson"])
        }
    }

    @Test func usageErrorsExit64() throws {
        #expect(try meridian(["convert", fixture("geojson/edge-cases.geojson"), "--to", "shapefile-please"]).status == ExitStatus.usage)
        #expect(try meridian(["convert", "--no-such-flag"]).status == ExitStatus.usage)
        #expect(try meridian(["convert", fixture("geojson/edge-cases.geojson"), "-o", "out.unknown-extension"]).status == ExitStatus.usage)
    }

    @Test func neverOverwritesItsInput() throws {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("data.geojson").path
            try FileManager.default.copyItem(atPath: fixture("geojson/edge-cases.geojson"), toPath: path)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let run = try meridian(["convert", path, "-o", path])
            #expect(run.status == ExitStatus.usage)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(contents(of: folder) == ["data.geojson"])
        }
    }

    /// Every malformed fixture: exit 65, `meridian: error: FILE:LINE:COLUMN: message`, no output
    /// file, and an existing output file left as it was, even one the run was told to replace
    /// (`--force`: without it, the file is refused before the input is read).
    @Test func malformedInputExits65AndLeavesOutputUntouched() throws {
        let cases = try fixtureTable("malformed/expected.tsv")
        #expect(cases.count >= 25)
        try withTemporaryFolder { folder in
            let existing = folder.appendingPathComponent("existing.geojson").path
            try "previous contents\n".write(toFile: existing, atomically: true, encoding: .utf8)
            for fields in cases {
                let path = fixture("malformed/\(fields[0])")
                let fresh = try meridian(["convert", path, "-o", folder.appendingPathComponent("new.geojson").path])
                #expect(fresh.status == ExitStatus.badInput, "\(fields[0])")
                // Where expat finds the fault, its words and column vary with its version: the file and line do not.
                let expected = fields[2] == "(expat's words)" ? "meridian: error: \(path):\(fields[1]):" : "meridian: error: \(path):\(fields[1]): \(fields[2])"
                #expect(fresh.stderr.hasPrefix(expected), "\(fresh.stderr)")
                let over = try meridian(["convert", path, "-o", existing, "--force"])
                #expect(over.status == ExitStatus.badInput)
                #expect(contents(of: folder) == ["existing.geojson"], "\(fields[0]) left a file behind")
                #expect(try String(contentsOfFile: existing, encoding: .utf8) == "previous contents\n")
            }
        }
    }
}

/// Data that belongs to positions (a track's times and values, GeoJSON's coordinateProperties)
/// is never dropped without a word: converted into every format Meridian writes (the list
/// `meridian formats` prints, and the common GDAL formats), the output either holds the times
/// (read back) or standard error says how many values were not kept and where they had no place.
@Suite struct PositionDataLeftOutTests {
    static let track = #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Manele","coordinateProperties":{"times":["2020-01-01T00:00:00Z","2020-01-01T00:01:00Z","2020-01-01T00:02:00Z"],"heart":[101,102,103]}},"geometry":{"type":"LineString","coordinates":[[-156.9,20.7],[-156.8,20.8],[-156.7,20.9]]}}]}"#

    /// The formats `meridian formats` lists as Meridian's own and writable, with their first
    /// extension, and the common GDAL ones picked by extension.
    static func writableFormats() throws -> [(id: String, ext: String)] {
        let listed = try meridian(["formats"])
        var formats: [(id: String, ext: String)] = []
        for line in listed.stdout.split(separator: "\n") {
            if line.hasPrefix("GDAL") { break }
            let words = line.split(separator: " ")
            guard line.hasPrefix("  "), line.contains("write)"), let ext = words.first(where: { $0.hasPrefix(".") }) else { continue }
            formats.append((String(words[0]), String(ext.dropFirst())))
        }
        return formats + [("gpkg", "gpkg"), ("shp", "shp"), ("fgb", "fgb")]
    }

    @Test func everyWriterKeepsTheTimesOrSaysItDidNot() throws {
        let formats = try Self.writableFormats()
        #expect(formats.count >= 11, "\(formats)")
        var reported: Set<String> = []
        try withTemporaryFolder { folder in
            let input = folder.appendingPathComponent("track.geojson").path
            try Data(Self.track.utf8).write(to: URL(fileURLWithPath: input))
            for (id, ext) in formats {
                let made = folder.appendingPathComponent(id)
                try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
                let output = made.appendingPathComponent("Track.\(ext)").path
                let run = try meridian(["convert", input, "-o", output])
                #expect(run.status == 0, "\(id): \(run.stderr)")
                if run.stderr.contains("not kept") {
                    reported.insert(id)
                    #expect(run.stderr.contains("3 times of positions and 3 'heart' values of positions (coordinateProperties) not kept"), "\(id): \(run.stderr)")
                    continue
                }
                // Kept: the written files, or what they read back as, hold the times.
                let texts = try FileManager.default.contentsOfDirectory(atPath: made.path).map {
                    String(decoding: (try? Data(contentsOf: made.appendingPathComponent($0))) ?? Data(), as: UTF8.self)
                }
                let readBack = try meridian(["convert", output, "--to", "geojson"]).stdout
                #expect((texts + [readBack]).contains { $0.contains("2020-01-01T00:01:00Z") }, "\(id): the times were dropped without a word")
            }
        }
        // The formats with no place for them say so.
        #expect(["wkt", "wkb", "swift", "svg", "png"].allSatisfy(reported.contains), "\(reported.sorted())")
    }
}
