import ArgumentParser
import MeridianFormats
import MeridianGeometry

struct MapKit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mapkit",
        abstract: "MapKit's map math: map points, zoom scales and levels, tiles.",
        discussion: "The numbers MKMapPoint, MKMapRect, MKMetersPerMapPointAtLatitude and tile overlays use, for debugging map code.",
        subcommands: [MapKitPoint.self, MapKitZoom.self, MapKitTile.self]
    )
}

/// `--format text|json` for the mapkit reports.
struct ReportFormatOption: ParsableArguments {
    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }
    @Option(help: "How to print the result.") var format: Format = .text

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

struct MapKitPoint: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "point",
        abstract: "A coordinate as MKMapPoint, with metres per map point and its tile.",
        discussion: "Example:\n  meridian mapkit point 37.7749,-122.4194 --zoom-level 12"
    )

    @Argument(help: ArgumentHelp("The coordinate, LAT,LON.", valueName: LatLon.valueName)) var coordinate: LatLon
    @Option(help: ArgumentHelp("Also give the tile at this zoom level.", valueName: "z")) var zoomLevel: Int = 12
    @OptionGroup var report: ReportFormatOption

    func validate() throws {
        try checkZoomLevel(Double(zoomLevel), option: "--zoom-level")
    }

    func run() throws {
        let point = MapPoint(coordinate.position)
        let tile = MapTile(containing: point, zoom: zoomLevel)
        try report.print([
            ("map point x", .double(point.x)), ("map point y", .double(point.y)),
            ("meters per map point", .double(MapWorld.metersPerMapPoint(atLatitude: coordinate.position.latitude))),
            ("tile (xyz)", .string("\(tile.zoom)/\(tile.x)/\(tile.y)")),
            ("tile (tms)", .string("\(tile.zoom)/\(tile.x)/\(tile.tmsY)")),
        ])
    }
}

struct MapKitZoom: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zoom",
        abstract: "A zoom scale as a zoom level, or the other way, with MapKit's road width.",
        discussion: "Example:\n  meridian mapkit zoom --level 12\n  meridian mapkit zoom --scale 0.00390625"
    )

    @Option(help: "A zoom scale: screen points per map point (MKZoomScale).") var scale: Double?
    @Option(help: "A zoom level (20 + log2 of the scale, for 256-point tiles).") var level: Double?
    @OptionGroup var report: ReportFormatOption

    func validate() throws {
        guard (scale == nil) != (level == nil) else { throw ValidationError("give --scale or --level") }
        if let scale, scale <= 0 { throw ValidationError("--scale must be positive") }
        if let level { try checkZoomLevel(level, option: "--level") }
    }

    func run() throws {
        let s = scale ?? ZoomScale.scale(forLevel: level!)
        try report.print([
            ("zoom scale", .double(s)), ("zoom level", .double(ZoomScale.level(forScale: s))),
            ("tile level (TileMap rounding)", .integer(Int64(ZoomScale.roundedLevel(forScale: s)))),
            ("road width (map points)", .double(ZoomScale.roadWidth(atScale: s))),
            ("road width (screen points)", .double(ZoomScale.roadWidth(atScale: s) * s)),
            ("tile size (map points)", .double(256 / s)),
        ])
    }
}

struct MapKitTile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tile",
        abstract: "A tile's MKMapRect and bounds.",
        discussion: "Example:\n  meridian mapkit tile 12/655/1583"
    )

    @Argument(help: ArgumentHelp("The tile, Z/X/Y.", valueName: TileAddress.valueName)) var address: TileAddress
    @Flag(help: "Y counts from the bottom (TMS) rather than the top (XYZ).") var tms = false
    @OptionGroup var report: ReportFormatOption

    func run() throws {
        let t = address.tile(rowsFromBottom: tms)
        let rect = t.mapRect, box = t.boundingBox
        try report.print([
            ("tile (xyz)", .string("\(t.zoom)/\(t.x)/\(t.y)")), ("tile (tms)", .string("\(t.zoom)/\(t.x)/\(t.tmsY)")),
            ("map rect", .array([.double(rect.minX), .double(rect.minY), .double(rect.size.width), .double(rect.size.height)])),
            ("bbox (w,s,e,n)", .array(box.values.map(JSONValue.double))),
        ])
    }
}
