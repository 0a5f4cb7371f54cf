import ArgumentParser
import MeridianCoverage
import MeridianFormats
import MeridianGeometry

extension Commands {
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
        @Option(parsing: .unconditional, help: ArgumentHelp("Where the route starts.", valueName: LatLon.syntax.valueName)) var from: LatLon?
        @Option(parsing: .unconditional, help: ArgumentHelp("Where the route ends.", valueName: LatLon.syntax.valueName)) var to: LatLon?
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
}
