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
