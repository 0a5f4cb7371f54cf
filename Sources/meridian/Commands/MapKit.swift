import ArgumentParser
import MeridianFormats
import MeridianGeometry

extension Commands {
    struct MapKit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mapkit",
            abstract: "MapKit's map math: map points, zoom scales and levels, tiles.",
            discussion: "The numbers MKMapPoint, MKMapRect, MKMetersPerMapPointAtLatitude and tile overlays use, for debugging map code.",
            subcommands: [MapKitPoint.self, MapKitZoom.self, MapKitTile.self]
        )
    }
}

/// `--format text|json` for the mapkit reports.
struct ReportFormatOption: ParsableArguments {
    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }
    @Option(help: "How to print the result.") var format: Format = .text

    /// A tile's address both ways, XYZ and TMS, as every mapkit report gives it.
    static func addresses(of tile: MapTile) -> [(String, JSONValue)] {
        [("tile (xyz)", .string("\(tile.zoom)/\(tile.x)/\(tile.y)")), ("tile (tms)", .string("\(tile.zoom)/\(tile.x)/\(tile.tmsY)"))]
    }

    /// Prints the report as aligned lines, or as one JSON object.
    func print(_ fields: [(String, JSONValue)]) throws {
        let out = OutputSink.standardOutput()
        switch format {
        case .json:
            writeJSON(.object(JSONObject(fields, uniquingKeysWith: { _, last in last })), to: out)
        case .text:
            let width = (fields.map(\.0.count).max() ?? 0) + 2
            for (key, value) in fields {
                out.write(key + ":" + String(repeating: " ", count: width - key.count - 1) + value.plainText() + "\n")
            }
        }
        try out.flush()
    }
}
