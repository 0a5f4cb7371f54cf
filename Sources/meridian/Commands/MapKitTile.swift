import ArgumentParser
import MeridianFormats
import MeridianGeometry

extension Commands {
    struct MapKitTile: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tile",
            abstract: "A tile's MKMapRect and bounds.",
            discussion: "Example:\n  meridian mapkit tile 12/655/1583"
        )

        @Argument(help: ArgumentHelp("The tile, Z/X/Y.", valueName: TileAddress.syntax.valueName)) var address: TileAddress
        @Flag(help: "Y counts from the bottom (TMS) rather than the top (XYZ).") var tms = false
        @OptionGroup var report: ReportFormatOption

        func run() throws {
            let t = address.tile(rowsFromBottom: tms)
            let rect = t.mapRect, box = t.boundingBox
            try report.print(ReportFormatOption.addresses(of: t) + [
                ("map rect", .array([.double(rect.minX), .double(rect.minY), .double(rect.size.width), .double(rect.size.height)])),
                ("bbox (w,s,e,n)", .array(box.values.map(JSONValue.double))),
            ])
        }
    }
}
