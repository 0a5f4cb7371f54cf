import Foundation
import MeridianCommandLine
import MeridianFormats
import MeridianGeometry
import Testing

/// What derives from the format registry (`FormatRegistry.standard`, the one list of formats):
/// the fuzz targets, the tiler's vector inputs, and each format's own write options on the
/// command line. A format added to the registry is fuzzed and tiled at once; an option of one
/// format's is refused for another's output.
@Suite struct FormatRegistryCommandTests {
    static let features = [
        Feature(geometry: .point(Point(Position(longitude: 8.54, latitude: 47.37))), properties: ["name": "Zurich"]),
        Feature(geometry: .lineString(LineString([Position(longitude: 7.45, latitude: 46.95), Position(longitude: 8.54, latitude: 47.37)])),
                properties: ["name": "Bern to Zurich"]),
    ]

    /// Every format the registry reads has a fuzz target of its id, as `meridian-fuzz` lists them.
    @Test func everyRegisteredReaderHasAFuzzTarget() throws {
        let fuzz = URL(fileURLWithPath: meridianBinary).deletingLastPathComponent().appendingPathComponent("meridian-fuzz").path
        let listed = try run(fuzz, ["--list-targets"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let targets = Set(listed.stdout.split(separator: "\n").map(String.init))
        let readers = FormatRegistry.standard.readable.map(\.id)
        #expect(readers.count >= 8)
        for id in readers { #expect(targets.contains(id), "no fuzz target for \(id)") }
    }

    /// `meridian formats` lists every registered format, with its media type and extensions.
    @Test func formatsListsTheRegistry() throws {
        let listed = try meridian(["formats"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        for format in FormatRegistry.standard.formats {
            let line = lines.first { $0.hasPrefix("  \(format.id) ") }
            #expect(line?.contains(format.mediaType) == true && line?.contains("." + format.extensions[0]) == true, "\(format.id): \(line ?? "missing")")
        }
    }

    /// `meridian formats` is parsed by `meridian` (its help is `meridian`'s, a stray option a
    /// usage error there) and runs in `meridian-gdal` as a typed request: the helper lists the
    /// same thing for the request's words and refuses any other word with 64.
    @Test func formatsIsATypedRequest() throws {
        let listed = try meridian(["formats"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let gdal = URL(fileURLWithPath: meridianBinary).deletingLastPathComponent().appendingPathComponent("meridian-gdal").path
        let direct = try run(gdal, FormatsRequest().arguments)
        #expect(direct.status == 0 && direct.stdout == listed.stdout, "\(direct.stderr)")
        for words in [["--bogus"], ["--help"], ["zoom=3"]] {
            let refused = try run(gdal, ["formats"] + words)
            #expect(refused.status == ExitStatus.usage && refused.stdout.isEmpty, "\(words): \(refused.stdout) \(refused.stderr)")
        }
        let help = try meridian(["formats", "--help"])
        #expect(help.status == 0 && help.stdout.contains("List the formats Meridian reads and writes"), "\(help.stderr)")
        #expect(try meridian(["formats", "extra"]).status == ExitStatus.usage)
    }

    /// `meridian-gdal ogr-driver` answers an `OGRDriverRequest` (a driver's name and extensions,
    /// the drivers writing an extension) and refuses the options it once parsed with 64.
    @Test func driverLookupIsATypedRequest() throws {
        let gdal = URL(fileURLWithPath: meridianBinary).deletingLastPathComponent().appendingPathComponent("meridian-gdal").path
        let named = try run(gdal, OGRDriverRequest(name: "gpkg").arguments)
        #expect(named.status == 0 && named.stdout.hasPrefix("GPKG\n") && named.stdout.contains("gpkg"), "\(named.stderr)")
        let writers = try run(gdal, OGRDriverRequest(fileExtension: "gpkg").arguments)
        #expect(writers.status == 0 && writers.stdout.split(separator: "\n").contains("GPKG"), "\(writers.stderr)")
        let unknown = try run(gdal, OGRDriverRequest(name: "-geojsn").arguments)
        #expect(unknown.status == ExitStatus.usage && unknown.stdout.isEmpty && unknown.stderr.contains("-geojsn"), "\(unknown.stderr)")
        let old = try run(gdal, ["ogr-driver", "--extension", "gpkg"])
        #expect(old.status == ExitStatus.usage && old.stdout.isEmpty, "\(old.stdout)")
    }

    /// Every extension of every format the registry reads is taken by `meridian tile` as vector
    /// data: the features, written in that format by its own writer, become vector tiles.
    @Test func everyRegisteredExtensionTiles() throws {
        try withTemporaryFolderPath { folder in
            for format in FormatRegistry.standard.readable {
                for ext in format.extensions {
                    let input = "\(folder)/in-\(ext).\(ext)"
                    let target = try OutputTarget.open(input)
                    try target.commit {
                        let writer = try format.writer(for: target.sink)
                        try copyFeatures(from: FeatureList(Self.features), to: writer)
                    }
                    let output = "\(folder)/tiles-\(ext)"
                    let tiled = try meridian(["tile", input, output, "--zoom", "0-2", "-q"])
                    #expect(tiled.status == 0, ".\(ext) (\(format.id)): \(tiled.stderr)")
                    #expect(FileManager.default.fileExists(atPath: output + "/0/0/0.pbf"), ".\(ext) (\(format.id)) made no tile 0/0/0")
                }
            }
        }
    }

    /// The extensions the tiler used to miss (tsv, ndjson, jsonl, wkb) tile, and their tiles
    /// hold the features at the deepest zoom, as PyPI's mapbox-vector-tile decodes them.
    @Test func tabSeparatedNewlineDelimitedAndWKBInputsTile() throws {
        try withTemporaryFolderPath { folder in
            let inputs = [
                "stops.tsv": "WKT\tname\nPOINT (8.54 47.37)\tZurich\nLINESTRING (7.45 46.95, 8.54 47.37)\tBern to Zurich\n",
                "stops.ndjson": #"{"type":"Feature","properties":{"name":"Zurich"},"geometry":{"type":"Point","coordinates":[8.54,47.37]}}"# + "\n"
                    + #"{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[7.45,46.95],[8.54,47.37]]}}"# + "\n",
                "stops.jsonl": #"{"type":"Feature","properties":{"name":"Zurich"},"geometry":{"type":"Point","coordinates":[8.54,47.37]}}"# + "\n",
                // POINT (8.54 47.37) and POINT (7.45 46.95), little-endian, as PostGIS prints them.
                "stops.wkb": "010100000014AE47E17A1421408FC2F5285CAF4740\n0101000000CDCCCCCCCCCC1D409A99999999794740\n",
            ]
            let python = packageRoot.appendingPathComponent(".build/python-checks/bin/python").path
            let script = """
                import sys, mapbox_vector_tile
                tile = mapbox_vector_tile.decode(open(sys.argv[1], 'rb').read())
                print(sum(len(layer['features']) for layer in tile.values()))
                """
            let expected = ["stops.tsv": 2, "stops.ndjson": 2, "stops.jsonl": 1, "stops.wkb": 2]
            for (name, text) in inputs {
                try text.write(toFile: "\(folder)/\(name)", atomically: true, encoding: .utf8)
                let output = "\(folder)/\(name)-tiles"
                let tiled = try meridian(["tile", "\(folder)/\(name)", output, "--zoom", "0-3", "-q"])
                #expect(tiled.status == 0, "\(name): \(tiled.stderr)")
                // The deepest zoom holds every feature (points are thinned only below it): Bern and Zurich share tile 3/4/2.
                let decoded = try run(python, ["-c", script, output + "/3/4/2.pbf"])
                #expect(decoded.status == 0 && decoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "\(expected[name]!)",
                        "\(name): \(decoded.stdout) \(decoded.stderr)")
            }
        }
    }

    /// An option of one format's own, given for an output in another format, is refused (64)
    /// and nothing is written; given for its own format, it works.
    @Test(arguments: [
        (["--gpx-routes"], "out.geojson"),
        (["--pretty"], "out.kml"),
        (["--pretty"], "out.geojsonl"),
        (["--swift-type", "Stops"], "out.gpx"),
        (["--overlay-level", "above-labels"], "out.geojson"),
        (["--size", "300x200"], "out.csv"),
        (["--heading", "-30"], "out.swift"),
        (["--precision", "3"], "out.kml"),
    ])
    func anotherFormatsOptionIsRefused(_ option: [String], _ output: String) throws {
        try withTemporaryFolderPath { folder in
            let input = fixture("geojson/bare-geometry.geojson")
            let refused = try meridian(["convert", input, "-o", "\(folder)/\(output)"] + option)
            #expect(refused.status == ExitStatus.usage, "\(option) \(output): \(refused.status) \(refused.stderr)")
            #expect(refused.stderr.contains(option[0]), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: "\(folder)/\(output)"))
        }
    }

    @Test(arguments: [
        (["--gpx-routes"], "out.gpx"),
        (["--pretty"], "out.geojson"),
        (["--swift-type", "Stops", "--overlay-level", "above-labels"], "out.swift"),
        (["--precision", "3"], "out.wkt"),
    ])
    func aFormatsOwnOptionWorks(_ option: [String], _ output: String) throws {
        try withTemporaryFolderPath { folder in
            let input = fixture("geojson/bare-geometry.geojson")
            let made = try meridian(["convert", input, "-o", "\(folder)/\(output)"] + option)
            #expect(made.status == 0, "\(option) \(output): \(made.stderr)")
            #expect(FileManager.default.fileExists(atPath: "\(folder)/\(output)"))
        }
    }

    /// `render` draws pictures: the options of data formats are refused there too.
    @Test func renderRefusesDataFormatsOptions() throws {
        try withTemporaryFolderPath { folder in
            for option in [["--precision", "2"], ["--pretty"], ["--gpx-routes"]] {
                let refused = try meridian(["render", fixture("geojson/bare-geometry.geojson"), "-o", "\(folder)/x.svg"] + option)
                #expect(refused.status == ExitStatus.usage, "\(option): \(refused.stderr)")
            }
        }
    }
}
