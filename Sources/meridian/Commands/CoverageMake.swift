import ArgumentParser
import MeridianCoverage
import MeridianFormats
import MeridianGeometry

extension Commands {
    struct CoverageMake: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "make",
            abstract: "Make a coverage file that passes 'validate --strict' from any polygons, lines or points.",
            discussion: """
                Every input point stays covered: outlines are simplified outward only (convex hulls, \
                corners cut outward), nearby parts are merged when there are more than --max-polygons, \
                and polygons are cut at the antimeridian. Reports the area covered and how much the \
                input's polygons grew. Exit status 1 when the file written still does not pass \
                'validate --strict' (asked to cover nearly the whole world), the reason listed.

                Examples:
                  meridian coverage make service-area.kml -o RoutingAppCoverage.geojson
                  meridian coverage make --bbox -122.6,37.2,-121.6,38.1 -o bay-area.geojson
                  meridian coverage make stops.csv --buffer-km 5 -o coverage.geojson
                """
        )

        @Argument(help: ArgumentHelp("Polygons, lines or points in any readable format ('-' for standard input).", valueName: "input"))
        var input: String?

        @Option(name: [.customShort("o"), .customLong("output")],
                help: ArgumentHelp("The coverage file (written atomically); standard output if omitted. An existing file is refused unless --force is given.", valueName: "path"))
        var output: String?

        @OptionGroup var replacing: ReplaceOption

        @Option(parsing: .unconditional, help: ArgumentHelp("Cover this box instead of an input: west,south,east,north (west above east crosses the antimeridian).", valueName: DegreeBox.syntax.valueName))
        var bbox: DegreeBox?

        @Option(help: ArgumentHelp("Grow each input point into a circle of this radius.", valueName: "km"))
        var bufferKm: Double?

        @Option(help: "At most this many polygons (Apple's limit is 20).") var maxPolygons = 20
        @Option(help: "At most this many positions per polygon (Apple recommends 20).") var maxPoints = 20
        @OptionGroup var reporting: ReportingOptions

        func validate() throws {
            if input == nil && bbox == nil { throw ValidationError("give an input file or --bbox") }
            try replacing.check(output: output)
            try requireFinite([(bufferKm, "--buffer-km")])
            if maxPoints < 5 { throw ValidationError("--max-points must be at least 5") }
            if maxPolygons < 1 { throw ValidationError("--max-polygons must be at least 1") }
        }

        func run() throws {
            var passes = true
            try reporting.reporter.run {
                if bbox == nil { RunInputs.record(input) }
                var maker = CoverageMaker()
                maker.maximumPolygons = maxPolygons
                maker.maximumPoints = maxPoints
                let result: CoverageMaker.Result
                if let box = bbox?.box {
                    result = try maker.make(covering: box)
                } else {
                    result = try maker.make(path: input, bufferKilometres: bufferKm)
                }
                try writeCoverage(result.coverage, to: output, replacing: replacing)
                passes = result.passes
                if !reporting.quiet {
                    let km2 = { (m2: Double) -> String in
                        let value = m2 / 1e6
                        return value >= 100 ? String(Int(value.rounded())) : "\((value * 100).rounded() / 100)"
                    }
                    let made = result.coverage.polygons.count
                    var line = "meridian: made \(made) \(made == 1 ? "polygon" : "polygons") covering \(km2(result.coverageArea)) km²"
                    if result.inputArea > 0 { line += ", \(km2(result.coverageArea - result.inputArea)) km² more than the input's polygons" }
                    Reporter.printError(line)
                }
                reportRemaining(result.remaining, in: output, reporter: reporting.reporter, hint: "give a smaller region (an input or --bbox)")
            }
            if !passes { throw ExitCode(1) }
        }
    }
}
