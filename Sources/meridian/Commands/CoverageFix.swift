import ArgumentParser
import MeridianCoverage
import MeridianFormats
import MeridianGeometry

extension Commands {
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
                help: ArgumentHelp("The repaired file (written atomically); standard output if omitted. An existing file is refused unless --force is given.", valueName: "path"))
        var output: String?

        @OptionGroup var replacing: ReplaceOption

        @OptionGroup var reporting: ReportingOptions

        func validate() throws { try replacing.check(output: output) }

        func run() throws {
            let reporter = reporting.reporter
            var passes = true
            try reporter.run {
                RunInputs.record(file)
                let result = try CoverageFixer().fix(path: file)
                try writeCoverage(result.coverage, to: output, replacing: replacing)
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
