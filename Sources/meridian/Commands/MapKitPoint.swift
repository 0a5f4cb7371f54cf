import ArgumentParser
import MeridianFormats
import MeridianGeometry

extension Commands {
    struct MapKitPoint: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "point",
            abstract: "A coordinate as MKMapPoint, with metres per map point and its tile.",
            discussion: "Example:\n  meridian mapkit point 37.7749,-122.4194 --zoom-level 12"
        )

        @Argument(help: ArgumentHelp("The coordinate, LAT,LON.", valueName: LatLon.syntax.valueName)) var coordinate: LatLon
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
            ] + ReportFormatOption.addresses(of: tile))
        }
    }
}
