import ArgumentParser
import MeridianCore
import MeridianFormats
import MeridianGeometry

extension Commands {
    struct Clip: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clip",
            abstract: "Clip features to a box, a map tile or a map rect.",
            discussion: """
                Lines are split where they leave the rectangle (closed intervals: segments lying on \
                an edge stay); polygons are cut without zero-width connecting edges, a ring that \
                leaves and comes back becoming several. Tiles and map rects are clipped in MapKit's \
                map points, a --bbox in degrees. With a tile, --buffer grows the rectangle by screen \
                points at the tile's zoom, and --line-width auto by MapKit's road width there, as \
                Apple's Breadcrumb sample does so lines drawn at a tile's edge are not cut short. \
                Features outside the rectangle (or without geometry) are left out and counted on stderr.

                Examples:
                  meridian clip countries.geojson --tile 3/4/2 -o tile.geojson
                  meridian clip route.geojson --tile 12/655/1583 --line-width auto
                  meridian clip countries.geojson --bbox 5.9,45.8,10.5,47.8
                """
        )

        @OptionGroup var input: InputOptions
        @OptionGroup var output: OutputOptions
        @Option(parsing: .unconditional, help: ArgumentHelp("A box in degrees: west,south,east,north (not across the antimeridian).", valueName: DegreeBox.syntax.valueName))
        var bbox: DegreeBox?
        @Option(help: ArgumentHelp("A map tile, Z/X/Y (XYZ rows, from the top).", valueName: TileAddress.syntax.valueName)) var tile: TileAddress?
        @Flag(help: "The tile's Y counts from the bottom (TMS).") var tms = false
        @Option(parsing: .unconditional, help: ArgumentHelp("A map rect in map points: x,y,width,height.", valueName: MapRectArgument.syntax.valueName))
        var mapRect: MapRectArgument?
        @Option(help: ArgumentHelp("With --tile: grow the tile by this many screen points.", valueName: "px")) var buffer: Double?
        @Option(help: ArgumentHelp("With --tile: 'auto' grows the tile by MapKit's road width at its zoom.", valueName: "auto"))
        var lineWidth: String?
        @OptionGroup var reporting: ReportingOptions

        func validate() throws {
            guard [bbox != nil, tile != nil, mapRect != nil].filter({ $0 }).count == 1 else {
                throw ValidationError("give exactly one of --bbox, --tile and --map-rect")
            }
            _ = try bbox?.requireOneSide(of: "--bbox")
            try requireFinite([(buffer, "--buffer")])
            if (buffer != nil || lineWidth != nil) && tile == nil { throw ValidationError("--buffer and --line-width need --tile") }
            if tms && tile == nil { throw ValidationError("--tms says that --tile counts its rows from the bottom: give it with --tile") }
            try input.refuseFolderTree()
            if let lineWidth, lineWidth != "auto" { throw ValidationError("--line-width takes 'auto'") }
        }

        func clipper() throws -> GeometryClipper {
            if let box = try bbox?.requireOneSide(of: "--bbox") {
                return GeometryClipper(rect: RectClip(minX: box.west, minY: box.south, maxX: box.east, maxY: box.north), plane: .degrees)
            }
            if let mapRect {
                return GeometryClipper(rect: RectClip(mapRect.rect), plane: .mapPoints)
            }
            let tile = tile!.tile(rowsFromBottom: tms)  // validate(): a tile when neither of the others
            let scale = ZoomScale.scale(forLevel: Double(tile.zoom))
            var grow = (buffer ?? 0) / scale
            if lineWidth == "auto" { grow += ZoomScale.roadWidth(atScale: scale) }
            return GeometryClipper(rect: RectClip(tile.mapRect.insetBy(dx: -grow, dy: -grow)), plane: .mapPoints)
        }

        func run() throws {
            let clipper = try clipper()
            let counts = try runGeometryPipeline(input: input, output: output, reporting: reporting, droppingFeaturesWithoutGeometry: true) {
                clipper.clip($0)
            }
            // Features left out are said, as simplify says what it drops: an empty result is then no mystery.
            let reporter = reporting.reporter
            if counts.dropped > 0 {
                let one = counts.dropped == 1
                reporter.report(Diagnostic(.note, "\(counts.dropped) of \(counts.read) features \(one ? "lies" : "lie") outside the rectangle and \(one ? "was" : "were") left out"))
            }
            if counts.droppedWithoutGeometry > 0 {
                let one = counts.droppedWithoutGeometry == 1
                reporter.report(Diagnostic(.note, "\(counts.droppedWithoutGeometry) of \(counts.read) features \(one ? "has" : "have") no geometry and \(one ? "was" : "were") left out"))
            }
        }
    }
}
