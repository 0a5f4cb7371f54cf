import ArgumentParser
import MeridianCoverage
import MeridianFormats
import MeridianGeometry
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct Coverage: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check routing-app coverage files before App Store submission.",
        discussion: """
            A routing app's coverage file tells Maps where to suggest the app: one GeoJSON \
            MultiPolygon of at most 20 polygons. 'validate' checks every rule App Store Connect \
            and Maps apply (and RFC 7946's); 'test' says whether a route would be covered.
            """,
        subcommands: [CoverageValidate.self, CoverageTest.self, CoverageFix.self, CoverageMake.self]
    )
}

struct CoverageValidate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check coverage files against every rule, with the place and fix of each problem.",
        discussion: """
            Errors (App Store Connect rejects the file or Maps misreads it): \
            \(CoverageRule.allCases.filter { $0.severity == .error }.map(\.id).joined(separator: ", ")). \
            Warnings: \(CoverageRule.allCases.filter { $0.severity == .warning }.map(\.id).joined(separator: ", ")).
            Polygon, ring and position numbers count from 1 in the text report and from 0 in JSON.
            Exit status: 0 when every file is valid (warnings allowed), 1 when any has an error \
            (or, with --strict, a warning). The JSON report's "valid" is App Store Connect's \
            verdict and "passes" the check's as run (false on a warning with --strict), as the \
            exit status says.

            Example:
              meridian coverage validate RoutingAppCoverage.geojson --format json
            """
    )

    enum ReportFormat: String, ExpressibleByArgument, CaseIterable { case text, json }

    @Argument(help: ArgumentHelp("Coverage files ('-' for standard input).", valueName: "file"))
    var files: [String] = ["-"]

    @Option(help: "How to print the reports.") var format: ReportFormat = .text
    @Flag(help: "Fail on warnings too.") var strict = false
    @Option(help: ArgumentHelp("Draw the file's polygons, coloured by their issues, with a pin where each finding points, as a picture (.png or .svg).", valueName: "path"))
    var preview: String?
    @OptionGroup(title: "Pictures (svg, png)") var picture: PictureArguments

    func validate() throws {
        if preview != nil && (files.count != 1 || files == ["-"]) { throw ValidationError("--preview draws one named file at a time") }
    }

    func run() throws {
        let validator = CoverageValidator()
        var reports: [CoverageReport] = []
        try Reporter().run {
            for file in files { reports.append(try validator.validate(path: file)) }
            if let preview, let report = reports.first {
                try drawPreview(of: report, to: preview)
            }
        }
        let out = OutputSink.standardOutput()
        switch format {
        case .json:
            let values = reports.map { $0.jsonValue(strict: strict) }
            writeJSON(values.count == 1 ? values[0] : .array(values), to: out)
        case .text:
            let colour = isatty(STDOUT_FILENO) == 1
            for report in reports { out.write(report.text(colour: colour, strict: strict, strictCheck: "--strict")) }
        }
        try out.flush()
        if reports.contains(where: { !$0.passes(strict: strict) }) { throw ExitCode(1) }
    }
}

extension CoverageValidate {
    func drawPreview(of report: CoverageReport, to path: String) throws {
        let features = CoveragePreview.features(report)
        guard !features.isEmpty else {
            Reporter().report(Diagnostic(.warning, "no preview: the file has no polygons to draw", at: SourceLocation(file: report.file)))
            return
        }
        var options = WriteOptions()
        options.picture = picture.options
        let output = try FeatureOutput(path: path, options: options, registry: .commandLine)
        try output.commit { try copyFeatures(from: FeatureList(features), to: output.writer) }
    }
}

struct CoverageTest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Would Maps suggest the app for a route? Both ends must lie inside the coverage.",
        discussion: """
            Points are LAT,LON (MapKit's order). The boundary of a polygon counts as inside; \
            polygons that cross the antimeridian work. --routes reads a CSV of \
            from_lat,from_lon,to_lat,to_lon lines (a header line is skipped). Exit status 0 when \
            every route is covered, 1 when one is not.

            Example:
              meridian coverage test coverage.geojson --from 37.7749,-122.4194 --to 37.3382,-121.8863
            """
    )

    @Argument(help: ArgumentHelp("The coverage file.", valueName: "file")) var file: String
    // .unconditional: a southern latitude ("-16.5,179.5") is a value, not an option.
    @Option(parsing: .unconditional, help: ArgumentHelp("Where the route starts.", valueName: LatLon.valueName)) var from: LatLon?
    @Option(parsing: .unconditional, help: ArgumentHelp("Where the route ends.", valueName: LatLon.valueName)) var to: LatLon?
    @Option(help: ArgumentHelp("A CSV file of routes: from_lat,from_lon,to_lat,to_lon per line.", valueName: "csv"))
    var routes: String?

    func validate() throws {
        if routes == nil && (from == nil || to == nil) {
            throw ValidationError("give --from and --to, or --routes")
        }
    }

    func run() throws {
        var allCovered = true
        try Reporter().run {
            let area = try CoverageArea(path: file)
            var asked: [RouteEnds] = []
            if let from, let to { asked.append(RouteEnds(from: from.position, to: to.position)) }
            if let routes { asked += try RouteList.read(path: routes) }
            let out = OutputSink.standardOutput()
            for ends in asked {
                let route = area.check(from: ends.from, to: ends.to)
                allCovered = allCovered && route.isCovered
                func describe(_ p: Position, _ polygons: [Int]) -> String {
                    "\(p.latitude),\(p.longitude) " + (polygons.isEmpty ? "outside every polygon"
                        : "in polygon " + polygons.map { String($0 + 1) }.joined(separator: ", "))
                }
                out.write("\(route.isCovered ? "covered" : "NOT covered"): from \(describe(route.from, route.fromPolygons)); to \(describe(route.to, route.toPolygons))\n")
            }
            try out.flush()
        }
        if !allCovered { throw ExitCode(1) }
    }
}

struct CoverageFix: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fix",
        abstract: "Repair what is safe in a coverage file, and list each change.",
        discussion: """
            Unwraps a Feature or FeatureCollection, makes a Polygon a MultiPolygon, strips \
            comments, closes rings, drops repeated points and altitudes, rounds to 6 decimals, cuts \
            polygons at the antimeridian and makes outer rings counter-clockwise. Refuses (exit 65) \
            what would change the covered area: holes, more than 20 polygons, broken positions; \
            'meridian coverage make' builds a valid file from any polygons instead. What it writes \
            but cannot repair (a ring that crosses itself, overlapping polygons, more than 20 \
            points) is listed with the reason.

            Exit status: 0 when the file written passes 'validate --strict', 1 when it is written \
            but still does not (each remaining issue listed), 65 when nothing is written.

            Example:
              meridian coverage fix RoutingAppCoverage.json -o RoutingAppCoverage.geojson
            """
    )

    @Argument(help: ArgumentHelp("The coverage file ('-' for standard input).", valueName: "file"))
    var file: String = "-"

    @Option(name: [.customShort("o"), .customLong("output")],
            help: ArgumentHelp("The repaired file (written atomically); standard output if omitted.", valueName: "path"))
    var output: String?

    @OptionGroup var reporting: ReportingOptions

    func run() throws {
        let reporter = reporting.reporter
        var passes = true
        try reporter.run {
            let result = try CoverageFixer().fix(path: file)
            try writeCoverage(result.coverage, to: output)
            passes = result.passes
            let summary = !result.changes.isEmpty ? result.changes.map(\.summary).joined(separator: "; ")
                : result.passes ? "nothing to change" : "nothing it can repair safely"
            if !reporting.quiet { Reporter.printError("meridian: fixed \(file): \(summary)") }
            reportRemaining(result.remaining, in: output, reporter: reporter,
                            hint: "meridian coverage make \(file) builds polygons that pass validate --strict, covering at least the same area")
        }
        if !passes { throw ExitCode(1) }
    }
}

extension CoverageChange {
    /// The change as `coverage fix` lists it: "closed open rings".
    var summary: String {
        switch self {
        case .removedComments(let line): "removed comments (the first at line \(line))"
        case .unwrappedFromFeature: "unwrapped the geometry from its Feature"
        case .unwrappedFromFeatureCollection: "unwrapped the geometry from its FeatureCollection"
        case .spelledMultiPolygon: "spelled the type \"MultiPolygon\""
        case .madePolygonMultiPolygon: "made the Polygon a MultiPolygon"
        case .removedCRS: "removed the crs member"
        case .removedBBox: "removed the bbox member (it is optional)"
        case .closedOpenRings: "closed open rings"
        case .cutAtAntimeridian: "cut polygons that cross the antimeridian in two"
        case .droppedAltitudes: "dropped altitudes"
        case .droppedRepeatedPositions: "dropped repeated positions"
        case .madeOuterRingsCounterClockwise: "made outer rings counter-clockwise"
        case .roundedCoordinates(let decimals): "rounded coordinates to \(decimals) decimals"
        }
    }
}

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
            help: ArgumentHelp("The coverage file (written atomically); standard output if omitted.", valueName: "path"))
    var output: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Cover this box instead of an input: west,south,east,north (west above east crosses the antimeridian).", valueName: DegreeBox.valueName))
    var bbox: DegreeBox?

    @Option(help: ArgumentHelp("Grow each input point into a circle of this radius.", valueName: "km"))
    var bufferKm: Double?

    @Option(help: "At most this many polygons (Apple's limit is 20).") var maxPolygons = 20
    @Option(help: "At most this many positions per polygon (Apple recommends 20).") var maxPoints = 20
    @OptionGroup var reporting: ReportingOptions

    func validate() throws {
        if input == nil && bbox == nil { throw ValidationError("give an input file or --bbox") }
        if maxPoints < 5 { throw ValidationError("--max-points must be at least 5") }
        if maxPolygons < 1 { throw ValidationError("--max-polygons must be at least 1") }
    }

    func run() throws {
        var passes = true
        try reporting.reporter.run {
            var maker = CoverageMaker()
            maker.maximumPolygons = maxPolygons
            maker.maximumPoints = maxPoints
            let result: CoverageMaker.Result
            if let box = bbox?.box {
                result = try maker.make(west: box.west, south: box.south, east: box.east, north: box.north)
            } else {
                result = try maker.make(path: input, bufferKilometres: bufferKm)
            }
            try writeCoverage(result.coverage, to: output)
            passes = result.passes
            if !reporting.quiet {
                let km2 = { (m2: Double) -> String in
                    let value = m2 / 1e6
                    return value >= 100 ? String(Int(value.rounded())) : "\((value * 100).rounded() / 100)"
                }
                var line = "meridian: made \(result.coverage.polygons.count) polygon(s) covering \(km2(result.coverageArea)) km²"
                if result.inputArea > 0 { line += ", \(km2(result.coverageArea - result.inputArea)) km² more than the input's polygons" }
                Reporter.printError(line)
            }
            reportRemaining(result.remaining, in: output, reporter: reporting.reporter, hint: "give a smaller region (an input or --bbox)")
        }
        if !passes { throw ExitCode(1) }
    }
}


/// Writes a coverage file (one bare MultiPolygon, 6 decimals) atomically, or to stdout.
func writeCoverage(_ coverage: MultiPolygon, to output: String?) throws {
    let target = try OutputTarget.open(output)
    try target.commit { try CoverageFile.write(coverage, to: target.sink) }
}

/// What `validate --strict` still finds in a file `fix` or `make` wrote, each issue with the
/// written file's place and why it was left, then that the file fails (the exit status is 1).
func reportRemaining(_ issues: [CoverageIssue], in output: String?, reporter: Reporter, hint: String) {
    guard !issues.isEmpty else { return }
    let written = output ?? "<stdout>"
    for issue in issues {
        let whereText = issue.whereText.map { "\($0): " } ?? ""
        let why = issue.rule.whyLeftAsItIs.map { ": \($0)" } ?? ""
        reporter.report(Diagnostic(.warning, "\(whereText)\(issue.message); left as it is\(why)",
                                   at: SourceLocation(file: written, line: issue.line, column: issue.column), hint: hint))
    }
    reporter.report(Diagnostic(.note, "\(written) still fails 'meridian coverage validate --strict' (exit status 1)"))
}
