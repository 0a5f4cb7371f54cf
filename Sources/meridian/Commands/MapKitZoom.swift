import ArgumentParser
import MeridianFormats
import MeridianGeometry

extension Commands {
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
            try requireFinite([(scale, "--scale"), (level, "--level")])
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
}
