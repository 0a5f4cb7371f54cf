import Foundation
import Testing

/// Usage errors speak in one voice, Meridian's (`meridian: error: message` and a hint), with
/// exit 64, in every executable and for every kind of mistake: swift-argument-parser's own
/// `Error: … / Usage: …` never reaches the user.
@Suite struct UsageErrorTests {
    /// The voice of one failed run: its first line is Meridian's error, no line is
    /// swift-argument-parser's, and nothing reaches standard output.
    func expectMeridianVoice(_ run: RunResult, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = run.stderr.split(separator: "\n")
        #expect(run.status == ExitStatus.usage, "\(arguments): exit \(run.status)\n\(run.stderr)", sourceLocation: sourceLocation)
        #expect(lines.first?.hasPrefix("meridian: error: ") == true, "\(arguments):\n\(run.stderr)", sourceLocation: sourceLocation)
        #expect(!lines.contains { $0.hasPrefix("Error:") || $0.hasPrefix("Usage:") || $0.hasPrefix("  See '") || $0.hasPrefix("Help:") },
                "\(arguments):\n\(run.stderr)", sourceLocation: sourceLocation)
        #expect(lines.contains { $0.hasPrefix("  hint: ") }, "\(arguments):\n\(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.stdout.isEmpty, "\(arguments):\n\(run.stdout)", sourceLocation: sourceLocation)
    }

    /// Bad command lines of every subcommand: missing arguments, values a command refuses, values
    /// that do not parse, unknown options, an antimeridian box where one plane is needed.
    static let badCommandLines: [[String]] = [
        ["convert", "--folders", "flat", "--zoom", "3", "in.geojson"],
        // '-' as a tile pyramid: standard output elsewhere, a folder named '-' here before.
        ["tile", "in.tif", "-"], ["tile-copy", "in.mbtiles", "-"], ["tile-join", "in.mbtiles", "-o", "-"],
        // '-' as a tile run's input: standard input elsewhere, which a run cannot read again (it said "no such file", 66).
        ["tile", "-", "out/"], ["tile", "in.geojson", "-", "out.pmtiles"], ["tile-copy", "-", "out.mbtiles"],
        ["tile-join", "in.mbtiles", "-", "-o", "out.pmtiles"],
        ["convert", "--precision", "40", "in.geojson"],
        ["info", "--format", "xml", "in.geojson"],
        ["info", "a.geojson", "b.geojson"],
        ["coverage", "validate", "--preview", "p.png", "a.geojson", "b.geojson"],
        ["coverage", "make", "--bbox", "1,2,3,4", "--max-points", "2"],
        ["coverage", "make"],
        ["coverage", "test", "c.geojson"],
        ["coverage", "test", "c.geojson", "--from", "91,0", "--to", "1,2"],
        ["mapkit", "point"],
        ["mapkit", "zoom"],
        ["mapkit", "zoom", "--scale", "-5"],
        ["mapkit", "tile", "1/2"],
        ["simplify", "in.geojson"],
        ["simplify", "in.geojson", "--zoom-level", "x"],
        ["simplify", "in.geojson", "--zoom-scale", "-5"],
        ["clip", "in.geojson"],
        ["clip", "in.geojson", "--bbox", "170,-20,-170,-10"],
        // Options taken and then ignored: --tms without --tile, --folders tree outside convert, and a
        // feature file's --from or --folders tree for a tile pyramid.
        ["clip", "in.geojson", "--bbox", "0,0,10,10", "--tms"], ["clip", "in.kml", "--bbox", "0,0,10,10", "--folders", "tree"],
        ["simplify", "in.kml", "--zoom-level", "3", "--folders", "tree"], ["info", "in.kml", "--folders", "tree"],
        ["convert", "in.pmtiles", "--zoom", "2", "--from", "kml"], ["convert", "in.pmtiles", "--zoom", "2", "--folders", "tree"],
        // A PNG's own options for an SVG: drawn without them, silently.
        ["render", "in.geojson", "-o", "out.svg", "--scale", "2"], ["render", "in.geojson", "-o", "out.svg", "--basemap", "tiles/"],
        ["convert", fixture("geojson/ne_10m_countries_sample.geojson"), "-o", "out.svg", "--scale", "3"], ["coverage", "validate", "in.geojson", "--preview", "p.svg", "--scale", "2"],
        ["geodesic", "--from", "1,2"],
        ["geodesic", "--from", "1,2", "--to", "3,4", "--spacing-km", "-1"],
        ["circle"],
        ["circle", "--center", "-16.5,179.9", "--radius", "-5"],
        ["circle", "--center", "-16.5,179.9", "--radius", "x"],
        ["circle", "--center", "-16.5,179.9", "--radius", "5", "--segments", "2"],
        ["render", "in.geojson", "--scale", "x"],
        ["render", "in.geojson", "--scale", "7"],
        ["render", "in.geojson", "--view", "170,-20,-170,-10"],
        ["render", "in.geojson", "--view", "1,2,3,4", "--view-tile", "1/0/0"],
        ["tile"],
        ["tile", "in.tif"],
        ["tile", "in.tif", "out", "--tile-size", "100"],
        ["tile", "in.tif", "out", "--jobs", "x"],
        ["tile", "in.tif", "out.pmtiles", "--resume"],
        // Options taken and then ignored by a tile run: TMS rows in a PMTiles archive (its tile ids
        // count from the top; MBTiles' were refused), --plan-format without --plan, --shards
        // without --shard auto or --finish.
        ["tile", "in.tif", "out.pmtiles", "--tms"], ["tile", "in.geojson", "out.pmtiles", "--tms"],
        ["tile", "in.tif", "out/", "--plan-format", "json"], ["tile", "in.tif", "out/", "--shards", "4"],
        ["tile", "in.tif", "out/", "--shard", "0/4", "--shards", "4", "--plan-format", "text"],
        ["tile-copy"],
        ["tile-copy", "a.mbtiles", "b.pmtiles", "--bogus"],
        ["tile-join"],
        ["tile-join", "a.mbtiles", "-o", "b.pmtiles", "--bogus"],
        ["tile-join", "a.mbtiles", "-o", "b.pmtiles", "--csv-key", "id"],
        ["formats", "--bogus"],
        // Swift reads nan and inf as numbers; no option means them (inf hung circle, nan trapped geodesic).
        ["circle", "--center", "1,2", "--radius", "nan"],
        ["circle", "--center", "1,2", "--radius", "inf"],
        ["geodesic", "--from", "1,2", "--to", "3,4", "--spacing-km", "nan"],
        ["simplify", "in.geojson", "--zoom-scale", "inf"],
        ["simplify", "in.geojson", "--zoom-level", "5", "--tolerance", "nan"],
        ["mapkit", "zoom", "--scale", "inf"],
        ["mapkit", "zoom", "--scale", "nan"],
        ["render", "in.geojson", "--heading", "nan"],
        ["clip", "in.geojson", "--tile", "1/0/0", "--buffer", "inf"],
        ["coverage", "make", "in.geojson", "--buffer-km", "nan"],
        ["convrt", "in.geojson"],
        ["--bogus"],
    ]

    @Test(arguments: badCommandLines)
    func meridianSpeaksInOneVoice(_ arguments: [String]) throws {
        expectMeridianVoice(try meridian(arguments), arguments)
    }

    /// `meridian-draw`, run by `meridian`, answers a wrong command line the same way.
    @Test(arguments: [["picture"], ["picture", "--to", "gif", "in.geojsonl"], ["tiles", "--zoom", "x", "in.geojsonl"], ["bogus"]])
    func drawingHelperSpeaksInOneVoice(_ arguments: [String]) throws {
        let draw = URL(fileURLWithPath: meridianBinary).deletingLastPathComponent().appendingPathComponent("meridian-draw").path
        expectMeridianVoice(try run(draw, arguments), arguments)
    }

    /// Help is not an error: it stays swift-argument-parser's text, on standard output, exit 0.
    @Test func helpIsStillHelp() throws {
        for arguments in [["--help"], ["circle", "--help"], ["tile", "--help"], ["coverage", "make", "--help"]] {
            let help = try meridian(arguments)
            #expect(help.status == ExitStatus.success, "\(arguments)")
            #expect(help.stdout.contains("USAGE:") && help.stderr.isEmpty, "\(arguments)")
        }
    }

    /// A subcommand that needs a helper exits 69 (EX_UNAVAILABLE) when the helper is missing,
    /// whichever helper and whichever path: a copy of `meridian` alone in a folder, with no
    /// helper on PATH or in the environment.
    @Test func missingHelperIsUnavailableEverywhere() throws {
        try withTemporaryFolder { folder in
            let lone = folder.appendingPathComponent("meridian").path
            try FileManager.default.copyItem(atPath: meridianBinary, toPath: lone)
            let point = folder.appendingPathComponent("point.geojson")
            try Data(#"{"type":"Point","coordinates":[1,2]}"#.utf8).write(to: point)
            let package = folder.appendingPathComponent("q.gpkg")
            try Data().write(to: package)
            for arguments in [
                ["convert", point.path, "-o", folder.appendingPathComponent("p.gpkg").path],
                ["convert", point.path, "--to", "FlatGeobuf", "-o", folder.appendingPathComponent("p.out").path],
                ["convert", package.path],
                ["render", point.path, "-o", folder.appendingPathComponent("p.png").path],
                ["convert", point.path, "-o", folder.appendingPathComponent("p.svg").path],
                ["tile", point.path, folder.appendingPathComponent("tiles").path],
                ["tile-copy", folder.appendingPathComponent("a.mbtiles").path, folder.appendingPathComponent("b.pmtiles").path],
                ["tile-join", folder.appendingPathComponent("a.mbtiles").path, "-o", folder.appendingPathComponent("b.pmtiles").path],
                ["formats"],
            ] {
                let result = try run("/usr/bin/env", ["-i", "PATH=/usr/bin:/bin", lone] + arguments, in: folder)
                #expect(result.status == ExitStatus.helperUnavailable, "\(arguments): exit \(result.status)\n\(result.stderr)")
                #expect(result.stderr.hasPrefix("meridian: error: ") && result.stderr.contains("meridian-"), "\(arguments):\n\(result.stderr)")
            }
            // A mistyped format name is still a usage error, with its suggestion.
            let typo = try run("/usr/bin/env", ["-i", "PATH=/usr/bin:/bin", lone, "convert", point.path, "--to", "geojsn"], in: folder)
            #expect(typo.status == ExitStatus.usage && typo.stderr.contains("did you mean 'geojson'?"), "\(typo.stderr)")
            #expect(contents(of: folder) == ["meridian", "point.geojson", "q.gpkg"])
        }
        // The exit code is listed where users look for it.
        let gdal = URL(fileURLWithPath: meridianBinary).deletingLastPathComponent().appendingPathComponent("meridian-gdal").path
        for help in [try meridian(["--help"]), try run(gdal, ["--help"])] {
            #expect(help.stdout.contains("69 a helper"), "\(help.stdout)")
        }
    }

    /// A hint names only what works for the case: a PMTiles archive, written in one go, is not
    /// resumed, so its failure does not suggest --resume; a folder not made by an interrupted
    /// run is not resumable either. A folder that holds an interrupted run's state is.
    @Test func hintsNameOnlyWhatApplies() throws {
        let raster = fixture("raster/RGB.byte.half.tif")
        try withTemporaryFolder { folder in
            // The archive's place is a folder: it cannot be moved into place.
            let blocked = folder.appendingPathComponent("blocked.pmtiles")
            try FileManager.default.createDirectory(at: blocked.appendingPathComponent("inside"), withIntermediateDirectories: true)
            let archive = try meridian(["tile", raster, blocked.path, "-q"])
            #expect(archive.status == ExitStatus.cannotCreateOutput, "\(archive.stderr)")
            #expect(archive.stderr.contains("hint: ") && !archive.stderr.contains("--resume"), "\(archive.stderr)")
            #expect(try meridian(["tile", raster, blocked.path, "--resume"]).status == ExitStatus.usage, "--resume is refused for PMTiles")

            let used = folder.appendingPathComponent("used")
            try FileManager.default.createDirectory(at: used, withIntermediateDirectories: true)
            try Data("x".utf8).write(to: used.appendingPathComponent("notes.txt"))
            let foreign = try meridian(["tile", raster, used.path, "-q"])
            #expect(foreign.status == ExitStatus.cannotCreateOutput)
            #expect(foreign.stderr.contains("hint: ") && !foreign.stderr.contains("--resume"), "\(foreign.stderr)")

            // An interrupted run's folder: its state file is there, and --resume is named.
            let interrupted = folder.appendingPathComponent("interrupted")
            #expect(try meridian(["tile", raster, interrupted.path, "-q"]).status == ExitStatus.success)
            try Data().write(to: interrupted.appendingPathComponent(".meridian-tiling"))
            let again = try meridian(["tile", raster, interrupted.path, "-q"])
            #expect(again.status == ExitStatus.cannotCreateOutput && again.stderr.contains("--resume"), "\(again.stderr)")
        }
    }

    /// The hint for an output whose format cannot be told names what the subcommand takes:
    /// `--to FORMAT` where it has one (`circle`, now), the extension where `--to` is a place
    /// (`geodesic`'s end point).
    @Test func unknownOutputFormatHintsNameWhatTheSubcommandTakes() throws {
        try withTemporaryFolder { folder in
            let weird = folder.appendingPathComponent("shape.weird").path
            let circle = try meridian(["circle", "--center", "1,2", "--radius", "100", "-o", weird])
            #expect(circle.status == ExitStatus.usage && circle.stderr.contains("--to"), "\(circle.stderr)")
            #expect(try meridian(["circle", "--center", "1,2", "--radius", "100", "--to", "kml", "-o", weird]).status == ExitStatus.success)
            let geodesic = try meridian(["geodesic", "--from", "1,2", "--to", "3,4", "-o", folder.appendingPathComponent("line.weird").path])
            #expect(geodesic.status == ExitStatus.usage, "\(geodesic.stderr)")
            #expect(geodesic.stderr.contains(".geojson") && !geodesic.stderr.contains("with --to"), "\(geodesic.stderr)")
        }
    }

    /// A subcommand that draws writes a picture or nothing: an output that is not one is a usage
    /// error naming the picture formats, and no file is written.
    @Test func drawingOutputsMustBePictures() throws {
        try withTemporaryFolder { folder in
            let data = fixture("geojson/ne_10m_countries_sample.geojson")
            func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
            for arguments in [
                ["render", data, "-o", path("x.geojson")],
                ["render", data, "-o", path("x.kml")],
                ["render", data, "--to", "geojson"],
                ["render", data, "--to", "kml", "-o", path("x")],
                ["coverage", "validate", fixture("coverage/cases/bay-area.geojson"), "--preview", path("p.geojson")],
            ] {
                let result = try meridian(arguments)
                #expect(result.status == ExitStatus.usage, "\(arguments): exit \(result.status)\n\(result.stderr)")
                #expect(result.stderr.hasPrefix("meridian: error: ") && result.stderr.contains("png") && result.stderr.contains("svg"),
                        "\(arguments):\n\(result.stderr)")
                #expect(result.stdout.isEmpty)
            }
            #expect(contents(of: folder).isEmpty)
            // Pictures are still drawn, by extension or --to.
            #expect(try meridian(["render", data, "-o", path("x.svg")]).status == ExitStatus.success)
            #expect(try meridian(["render", data, "--to", "png", "-o", path("x")]).status == ExitStatus.success)
        }
    }
}
