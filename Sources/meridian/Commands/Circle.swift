import ArgumentParser
import MeridianFormats
import MeridianGeometry

extension Commands {
    struct Circle: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "circle",
            abstract: "A circle overlay like MKCircle: round on the map, its radius in metres at the centre.",
            discussion: """
                Example:
                  meridian circle --center 37.3349,-122.0090 --radius 5000 -o park.geojson
                """
        )

        @Option(parsing: .unconditional, help: ArgumentHelp("The centre.", valueName: LatLon.syntax.valueName)) var center: LatLon
        @Option(help: "The radius in metres.") var radius: Double
        @Option(help: "Points around the circle.") var segments: Int = 64
        @Option(help: "split: cut at ±180° (RFC 7946); continuous: longitudes run on (MapKit).") var antimeridian: Antimeridian.Style = .split
        @OptionGroup var output: OutputOptions
        @OptionGroup var reporting: ReportingOptions

        func validate() throws {
            try requireFinite([(radius, "--radius")])
            if radius <= 0 { throw ValidationError("--radius must be positive") }
            if segments < 3 { throw ValidationError("--segments must be at least 3") }
        }

        func run() throws {
            try reporting.reporter.run {
                let ring = MapCircle.ring(center: center.position, radius: radius, segments: segments)
                let geometry = Antimeridian.geometry(of: Antimeridian.polygon(Polygon([ring]), style: antimeridian))
                // `overlay`, `center` and `radius_m` let `--to swift` declare an MKCircle.
                try output.file.write([Feature(geometry: geometry, properties: [
                    "overlay": .string("circle"), "center": Geodesic.pair(center.position), "radius_m": .double(radius),
                ])], format: output.format, reporter: reporting.reporter)
            }
        }
    }
}
