import Foundation
import Testing

@Suite struct MapKitCommandTests {
    @Test func pointZoomAndTile() throws {
        let point = try meridian(["mapkit", "point", "37.7749,-122.4194", "--format", "json"])
        #expect(point.status == 0, "\(point.stderr)")
        let fields = try #require(try JSONSerialization.jsonObject(with: point.stdoutData) as? [String: Any])
        #expect(fields["tile (xyz)"] as? String == "12/655/1583")
        #expect(abs((fields["map point x"] as? Double ?? 0) - 42_935_207.27) < 0.01)

        let zoom = try meridian(["mapkit", "zoom", "--scale", "0.00390625"])
        #expect(zoom.stdout.contains("zoom level:") && zoom.stdout.contains("12.0"))
        #expect(try meridian(["mapkit", "zoom"]).status == ExitStatus.usage)

        let tile = try meridian(["mapkit", "tile", "12/655/2512", "--tms"])
        #expect(tile.stdout.contains("tile (xyz):     12/655/1583"))
        #expect(try meridian(["mapkit", "tile", "3/9/0"]).status == ExitStatus.usage)
    }

    /// Like every reading subcommand, geodesic densifies lines from standard input when it is
    /// given no path (it asked for one: `… | meridian geodesic` failed); half a pair of ends is
    /// a usage error.
    @Test func geodesicReadsStandardInputWithoutAPath() throws {
        let line = Data(#"{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[0,0],[10,10]]}}"#.utf8)
        let piped = try meridian(["geodesic", "--spacing-km", "500"], stdin: line)
        #expect(piped.status == 0, "\(piped.stderr)")
        let dashed = try meridian(["geodesic", "-", "--spacing-km", "500"], stdin: line)
        #expect(piped.stdout == dashed.stdout && piped.stdout.contains("\"overlay\":\"geodesic\""))
        #expect(piped.stdout.components(separatedBy: "],[").count >= 4, "\(piped.stdout)")  // about 1,570 km: densified
        let half = try meridian(["geodesic", "--from", "1,1"], stdin: line)
        #expect(half.status == ExitStatus.usage && half.stderr.contains("--to"), "\(half.stderr)")
    }

    @Test func geodesicAndCircleWriteGeoJSON() throws {
        let geodesic = try meridian(["geodesic", "--from", "33.9416,-118.4085", "--to", "40.6413,-73.7781"])
        #expect(geodesic.status == 0, "\(geodesic.stderr)")
        #expect(geodesic.stdout.contains("\"type\":\"LineString\""))
        let pacific = try meridian(["geodesic", "--from", "33.9416,-118.4085", "--to", "35.5494,139.7798", "--spacing-km", "50"])
        #expect(pacific.stdout.contains("\"type\":\"MultiLineString\""))
        let continuous = try meridian(["geodesic", "--from", "33.9416,-118.4085", "--to", "35.5494,139.7798",
                                       "--spacing-km", "50", "--antimeridian", "continuous"])
        #expect(continuous.stdout.contains("\"type\":\"LineString\"") && continuous.stdout.contains("-220.2202"))

        let circle = try meridian(["circle", "--center", "-16.5,179.9", "--radius", "50000"])
        #expect(circle.status == 0, "\(circle.stderr)")
        #expect(circle.stdout.contains("\"type\":\"MultiPolygon\""))
        try withTemporaryFolder { folder in
            let kml = folder.appendingPathComponent("circle.kml").path
            #expect(try meridian(["circle", "--center", "37.3349,-122.0090", "--radius", "5000", "-o", kml]).status == 0)
            let text = try String(contentsOfFile: kml, encoding: .utf8)
            #expect(text.contains("<Polygon>"))
        }
    }
}

@Suite struct SimplifyCommandTests {
    @Test func simplifiesAtAZoomLevel() throws {
        let run = try meridian(["simplify", fixture("geojson/ne_10m_countries_sample.geojson"), "--zoom-level", "4", "--format-free-check"])
        #expect(run.status == ExitStatus.usage)  // an unknown flag is a usage error
        let z4 = try meridian(["simplify", fixture("geojson/ne_10m_countries_sample.geojson"), "--zoom-level", "4"])
        #expect(z4.status == 0, "\(z4.stderr)")
        let z12 = try meridian(["simplify", fixture("geojson/ne_10m_countries_sample.geojson"), "--zoom-level", "12", "--method", "radial"])
        #expect(z12.status == 0)
        #expect(z4.stdout.utf8.count < z12.stdout.utf8.count)
        #expect(try meridian(["simplify", fixture("geojson/ne_10m_countries_sample.geojson")]).status == ExitStatus.usage)
    }

    /// Zoomed out, 12 of the 31 sample countries vanish whole: that is said, not only the rings;
    /// --keep-small keeps all 31.
    @Test func reportsDroppedFeaturesAndKeepsThemOnRequest() throws {
        let file = fixture("geojson/ne_10m_countries_sample.geojson")
        for extra in [[], ["--keep-topology"]] {
            let plain = try meridian(["simplify", file, "--zoom-level", "6"] + extra)
            #expect(plain.status == 0)
            #expect(plain.stderr.contains("12 of 31 features were dropped whole"), "\(plain.stderr)")
            #expect(plain.stderr.contains("--keep-small"))
            let kept = try meridian(["simplify", file, "--zoom-level", "6", "--keep-small"] + extra)
            #expect(kept.status == 0, "\(kept.stderr)")
            #expect(!kept.stderr.contains("dropped whole"), "\(kept.stderr)")
            #expect(kept.stdout.components(separatedBy: "\"type\":\"Feature\"").count - 1 == 31)
        }
        // A feature without geometry has nothing to simplify: it stays (it used to vanish).
        let bare = try meridian(["simplify", "--zoom-level", "6"], stdin: Data(#"{"type":"Feature","properties":{"a":1},"geometry":null}"#.utf8))
        #expect(bare.stdout.contains(#""a":1"#))
    }

    @Test func keepsTopologyOverTheWholeCollection() throws {
        let file = fixture("geojson/ne_10m_countries_sample.geojson")
        let plain = try meridian(["simplify", file, "--zoom-level", "6"])
        let shared = try meridian(["simplify", file, "--zoom-level", "6", "--keep-topology"])
        #expect(shared.status == 0, "\(shared.stderr)")
        // The same countries come out, in the same order, with the collection's own members.
        func names(_ text: String) -> [Substring] {
            text.split(separator: "\"NAME\":").dropFirst().map { $0.prefix { $0 != "," } }
        }
        #expect(names(shared.stdout) == names(plain.stdout))
        #expect(names(shared.stdout).count > 15)
        #expect(shared.stdout.hasPrefix(String(plain.stdout.prefix { $0 != "[" })))
    }
}

@Suite struct ClipCommandTests {
    @Test func clipsToATileABoxAndAMapRect() throws {
        let file = fixture("geojson/ne_10m_countries_sample.geojson")
        // Liechtenstein, San Marino, Monaco, Vatican, Andorra… lie in tile 5/16/11 or near it.
        let tile = try meridian(["clip", file, "--tile", "3/4/2", "--format-check-off"])
        #expect(tile.status == ExitStatus.usage)
        let europe = try meridian(["clip", file, "--tile", "3/4/2"])
        #expect(europe.status == 0, "\(europe.stderr)")
        #expect(europe.stdout.contains("Liechtenstein") && !europe.stdout.contains("Fiji"))
        let tms = try meridian(["clip", file, "--tile", "3/4/5", "--tms"])
        #expect(tms.stdout == europe.stdout)
        let box = try meridian(["clip", file, "--bbox", "9.4,47.0,9.7,47.3"])
        #expect(box.stdout.contains("Liechtenstein") && !box.stdout.contains("Monaco"))
        let rect = try meridian(["clip", file, "--map-rect", "0,0,268435456,268435456"])
        #expect(rect.status == 0)
        let widened = try meridian(["clip", file, "--tile", "3/4/2", "--line-width", "auto"])
        #expect(widened.status == 0)
        // What is left out is counted, as simplify counts what it drops.
        #expect(europe.stderr.contains("26 of 31 features lie outside the rectangle"), "\(europe.stderr)")
        #expect(try meridian(["clip", file, "--bbox", "1,2,3,4", "--tile", "1/0/0"]).status == ExitStatus.usage)
        #expect(try meridian(["clip", file, "--bbox", "1,2,3,4", "--buffer", "5"]).status == ExitStatus.usage)
    }
}

@Suite struct AntimeridianCommandTests {
    @Test func convertCutsAtTheAntimeridianOnRequest() throws {
        let line = Data(#"{"type":"LineString","coordinates":[[170,10],[-170,12]]}"#.utf8)
        let cut = try meridian(["convert", "--cut-antimeridian"], stdin: line)
        #expect(cut.stdout.contains(#"[[[170.0,10.0],[180.0,11.0]],[[-180.0,11.0],[-170.0,12.0]]]"#))
        let kept = try meridian(["convert"], stdin: line)
        #expect(kept.stdout.contains(#""type":"LineString""#))
    }

    /// A generated Swift file's header names the command line that made it as typed, whichever
    /// subcommand wrote it: relative paths stay relative (the test folder's absolute path is
    /// nowhere in it), an argument with a space is quoted for a shell, and the line, run again
    /// from the same folder, makes the same file. (It named only the subcommand.)
    @Test func swiftHeaderNamesTheCommandLineAsTyped() throws {
        try withTemporaryFolder { folder in
            try FileManager.default.copyItem(atPath: fixture("geojson/drop-rate-points.geojson"),
                                             toPath: folder.appendingPathComponent("lake walk.geojson").path)
            let runs: [[String]] = [
                ["convert", "lake walk.geojson", "-o", "Converted.swift"],
                ["geodesic", "--from", "33.9,-118.4", "--to", "40.6,-73.7", "-o", "Flight.swift"],
                ["circle", "--center", "37.33,-122.0", "--radius", "1000", "-o", "Campus.swift"],
                ["simplify", "lake walk.geojson", "--zoom-level", "10", "-o", "Simplified.swift", "-q"],
            ]
            for arguments in runs {
                let made = try meridian(arguments, in: folder)
                #expect(made.status == 0, "\(arguments): \(made.stderr)")
                let output = folder.appendingPathComponent(arguments[arguments.firstIndex(of: "-o")! + 1])
                let text = try String(contentsOf: output, encoding: .utf8)
                let typed = arguments.map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
                #expect(text.hasPrefix("// Generated by Meridian (meridian \(typed))"), "\(text.prefix(200))")
                #expect(!text.contains(folder.path), "\(arguments)")
                // The header's line, split as a shell splits it, remakes the file.
                let header = try #require(text.split(separator: "\n").first)
                let line = try #require(header.split(separator: "(", maxSplits: 1).last?.split(separator: ")").first)
                let words = line.split(separator: "\'", omittingEmptySubsequences: false).enumerated().flatMap { index, part in
                    index % 2 == 1 ? [String(part)] : part.split(separator: " ").map(String.init)
                }
                try FileManager.default.removeItem(at: output)
                let again = try meridian(Array(words.dropFirst()), in: folder)
                #expect(again.status == 0, "\(words): \(again.stderr)")
                #expect(try String(contentsOf: output, encoding: .utf8) == text)
            }
        }
    }

    /// A line break in an argument (or in the collection's name) cannot end the header's
    /// comment: the command line is quoted `$'…'` and stays one line, which bash runs again to
    /// make the same file, and `*/` or a quote in the text changes nothing; swiftc parses the
    /// file. (A newline in an argument became a space, and the line no longer named the file.)
    /// The resource's name, made of the output's, is a string literal and a comment that a
    /// quote, a backslash or a line break in the output's name cannot end.
    @Test func swiftHeaderStaysOneCommentWhateverTheArgumentsHold() throws {
        try withTemporaryFolder { folder in
            // A folder `lake⏎walk *` and in it the file ` it's (1).geojson`: the path holds `*/`.
            let input = "lake\nwalk */ it's (1).geojson"
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("lake\nwalk *"), withIntermediateDirectories: false)
            var collection = try String(contentsOfFile: fixture("geojson/drop-rate-points.geojson"), encoding: .utf8)
            collection = collection.replacingOccurrences(of: "\"type\"", with: "\"name\": \"first line\\nsecond */ line\", \"type\"",
                                                         options: [], range: collection.range(of: "\"type\""))
            try collection.write(to: folder.appendingPathComponent(input), atomically: true, encoding: .utf8)
            let made = try meridian(["convert", input, "-o", "Walk.swift"], in: folder)
            #expect(made.status == 0, "\(made.stderr)")
            let output = folder.appendingPathComponent("Walk.swift")
            let text = try String(contentsOf: output, encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let prefix = "// Generated by Meridian (", suffix = ") from first line second */ line. Do not edit: regenerate."
            #expect(lines.count > 2 && lines[0].hasPrefix(prefix) && lines[0].hasSuffix(suffix) && lines[1] == "import MapKit", "\(text.prefix(300))")
            let command = String(lines[0].dropFirst(prefix.count).dropLast(suffix.count))
            #expect(command == #"meridian convert $'lake\nwalk */ it\'s (1).geojson' -o Walk.swift"#, "\(command)")
            let parsed = try run("/usr/bin/env", ["swiftc", "-parse", output.path])
            #expect(parsed.status == 0, "\(parsed.stderr)")
            // bash reads the line back as the same words: the same file again.
            try FileManager.default.removeItem(at: output)
            let again = try run("/bin/bash", ["-c", "meridian() { \"\(meridianBinary)\" \"$@\"; }; " + command], in: folder)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try String(contentsOf: output, encoding: .utf8) == text)

            // The resource's name, from the output's, in a string literal and a comment: a
            // quote, a backslash or a line break in it ended them, and what followed was code.
            let named = "Walk \"x\" \\ \n y.swift"
            let resource = try meridian(["convert", input, "-o", named, "--swift-geometry", "resource"], in: folder)
            #expect(resource.status == 0, "\(resource.stderr)")
            let source = folder.appendingPathComponent(named)
            let withResource = try String(contentsOf: source, encoding: .utf8)
            #expect(withResource.contains(#"static let resourceName = "Walk \"x\" \\ \n y.geometry""#), "\(withResource)")
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("Walk \"x\" \\ \n y.geometry.geojson").path))
            let parsedResource = try run("/usr/bin/env", ["swiftc", "-parse", source.path])
            #expect(parsedResource.status == 0, "\(parsedResource.stderr)")
        }
    }
}
