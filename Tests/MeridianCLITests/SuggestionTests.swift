import Foundation
import MeridianCommandLine
import Testing

/// Mistyped words get the nearest word Meridian knows, whatever kind of word they are.
@Suite struct SuggestionTests {
    @Test func editDistanceCountsASwapAsOneStep() {
        #expect(Suggestions.editDistance("level", "levle") == 1)
        #expect(Suggestions.editDistance("convrt", "convert") == 1)
        #expect(Suggestions.editDistance("kitten", "sitting") == 3)
        #expect(Suggestions.editDistance("", "abc") == 3)
        #expect(Suggestions.closest(to: "geojsn", among: ["geojsonseq", "geojson", "kml"]) == "geojson")
        #expect(Suggestions.closest(to: "GeoJSN", among: ["geojson"]) == "geojson")
        #expect(Suggestions.closest(to: "gml", among: ["kml", "gml"]) == nil, "an exact match needs no suggestion")
        #expect(Suggestions.closest(to: "xyz", among: ["convert", "info"]) == nil, "nothing near")
    }

    @Test(arguments: [
        (["convrt", "in.geojson"], "did you mean 'convert'?"),
        (["coverage", "valdate", "c.geojson"], "did you mean 'validate'?"),
        (["tlie", "in.tif", "out"], "did you mean 'tile'?"),
    ])
    func mistypedSubcommands(_ arguments: [String], _ suggestion: String) throws {
        let run = try meridian(arguments)
        #expect(run.status == ExitStatus.usage)
        #expect(run.stderr.contains(suggestion), "\(run.stderr)")
    }

    /// swift-argument-parser suggests a near option only when the rest parses: a mistyped
    /// required option used to bring only "give --zoom-scale or --zoom-level".
    @Test func mistypedRequiredOption() throws {
        let run = try meridian(["simplify", fixture("geojson/ne_10m_countries_sample.geojson"), "--zoom-levle", "6"])
        #expect(run.status == ExitStatus.usage)
        #expect(run.stderr.contains("did you mean '--zoom-level'?"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        // A required argument missing too: the mistyped option is still what is named.
        let missing = try meridian(["coverage", "test", "--form", "37.3,-121.9", "--to", "37.8,-122.4"])
        #expect(missing.status == ExitStatus.usage)
        #expect(missing.stderr.contains("did you mean '--from'?"), "\(missing.stderr)")
    }

    @Test(arguments: [
        (["simplify", "--zoom-level", "6", "--method", "visvalingham"], "did you mean 'visvalingam'?"),
        (["coverage", "validate", "--format", "jsno", "c.geojson"], "did you mean 'json'?"),
        (["convert", "--folders=tre", "in.kml"], "did you mean 'tree'?"),
    ])
    func mistypedValues(_ arguments: [String], _ suggestion: String) throws {
        let run = try meridian(arguments)
        #expect(run.status == ExitStatus.usage)
        #expect(run.stderr.contains(suggestion), "\(run.stderr)")
    }

    /// A `--to` name that is neither Meridian's nor a common GDAL format's is looked up by
    /// `meridian-gdal`, which reports it; it used to be looked up twice (once for the
    /// coordinate rule, once to open the output), so the error came out twice.
    @Test(arguments: ["convert", "simplify"])
    func mistypedOutputFormatIsReportedOnce(_ subcommand: String) throws {
        let extra = subcommand == "simplify" ? ["--zoom-level", "6"] : []
        let run = try meridian([subcommand, fixture("geojson/ne_10m_countries_sample.geojson"), "--to", "geojsn"] + extra)
        #expect(run.status == ExitStatus.usage)
        let errors = run.stderr.split(separator: "\n").filter { $0.hasPrefix("meridian: error:") }
        #expect(errors.count == 1, "\(run.stderr)")
        #expect(run.stderr.contains("did you mean 'geojson'?"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// `convert` reads tile pyramids but writes features: an output named like a tile
    /// container or a folder is pointed at `meridian tile`, and nothing is written.
    @Test(arguments: ["out.pmtiles", "out.mbtiles", "out/"])
    func aTileOutputPointsAtTile(_ name: String) throws {
        try withTemporaryFolder { folder in
            let run = try meridian(["convert", fixture("geojson/ne_10m_countries_sample.geojson"), "-o", folder.path + "/" + name])
            #expect(run.status == ExitStatus.usage)
            #expect(run.stderr.contains("`meridian tile`"), "\(run.stderr)")
            #expect(contents(of: folder).isEmpty)
        }
    }

    /// `meridian tile` runs in meridian-gdal: its options get the same help.
    @Test(arguments: [
        (["tile", "in.tif", "out", "--resampling", "bilinaer"], "did you mean 'bilinear'?"),
        (["tile", "in.tif", "out", "--tile-format", "jpg"], "did you mean 'jpeg'?"),
        // (a validation error comes first: swift-argument-parser would not look at --zom)
        (["tile", "in.tif", "out", "--zom", "3", "--tile-size", "100"], "did you mean '--zoom'?"),
    ])
    func mistypedTileArguments(_ arguments: [String], _ suggestion: String) throws {
        let run = try meridian(arguments)
        #expect(run.status == ExitStatus.usage)
        #expect(run.stderr.contains(suggestion), "\(run.stderr)")
    }

    @Test func negativeNumbersAndKnownWordsAreNotMistakes() throws {
        // A southern latitude after an option that takes any value is a value, not an option.
        let run = try meridian(["clip", "--bbox", "-11,35,30,60", "--tile", "1/0/0"])
        #expect(run.status == ExitStatus.usage)
        #expect(!run.stderr.contains("unknown"), "\(run.stderr)")
    }
}
