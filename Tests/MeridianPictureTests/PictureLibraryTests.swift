import CCairo
import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
@testable import MeridianPicture
import MeridianTiles
import MeridianTestSupport
import Testing

/// Features from GeoJSON text.
func features(_ geojson: String) throws -> FeatureList {
    try FeatureList(reading: GeoJSONReader(input: BufferedInput(string: geojson, name: "test.geojson"), layout: .automatic))
}

/// The bytes `format` writes for `geojson` with `picture`, drawn in this process.
func draw(_ geojson: String, as format: FeatureFormat, _ picture: PictureOptions = PictureOptions()) throws -> [UInt8] {
    let sink = OutputSink(collectingAs: "picture")
    let options = WriteOptions(formatOptions: picture)
    try copyFeatures(from: features(geojson), to: format.writer(for: sink, options: options))
    try sink.flush()
    return sink.collected
}

let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

@Suite struct PictureFormatTests {
    static let pier = #"{"type":"Feature","properties":{"name":"Pier","description":"Boats <b>here</b>"},"geometry":{"type":"Point","coordinates":[8.5405,47.3655]}}"#
    static let lake = ##"{"type":"Feature","properties":{"name":"Lake","fill":"#0000ff"},"geometry":{"type":"Polygon","coordinates":[[[8.53,47.35],[8.56,47.35],[8.56,47.37],[8.53,47.35]]]}}"##
    static let collection = #"{"type":"FeatureCollection","features":[\#(pier),\#(lake)]}"#

    /// The library's registry has no pictures; MeridianPicture's formats join it by name and extension.
    @Test func picturesJoinTheRegistry() throws {
        #expect(FormatRegistry.standard.knownFormat(forPath: "x.png") == nil)
        let registry = FormatRegistry.standard.adding(FeatureFormat.pictures)
        #expect(registry.knownFormat(forPath: "map.PNG")?.id == "png")
        #expect(try registry.format(named: "svg") == .svg)
        #expect(FeatureFormat.png.isBinary && !FeatureFormat.svg.isBinary)
        #expect(PictureKind.allCases.map { FeatureFormat.picture($0).id } == ["svg", "png"])
    }

    @Test func svgHoldsShapesWithTheirCaptions() throws {
        let svg = String(decoding: try draw(Self.collection, as: .svg, PictureOptions(width: 400, height: 300)), as: UTF8.self)
        #expect(svg.hasPrefix("<?xml") && svg.contains(#"width="400" height="300""#))
        #expect(svg.contains("<title>Lake</title>") && svg.contains(##"fill="#0000ff""##))
        #expect(svg.contains(#"<g class="pin">"#) && svg.contains("<title>Pier</title>"))
        #expect(svg.contains(">Pier</text>"))
    }

    @Test func pngHasTheSizeTimesTheScale() throws {
        let png = try draw(Self.collection, as: .png, PictureOptions(width: 300, height: 200, scale: 2))
        #expect(Array(png.prefix(8)) == pngSignature)
        // IHDR: width and height, big-endian, from byte 16.
        func word(_ at: Int) -> Int { png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        #expect(word(16) == 600 && word(20) == 400)
    }
}

@Suite struct ViewportTests {
    /// A lone point shows at least a zoom-19 tile's extent, centred.
    @Test func aPointShowsItsSurroundings() {
        var bounds = TurnedBounds(heading: 0)
        bounds.add(MapPoint(Position(longitude: 8.54, latitude: 47.37)))
        let viewport = Viewport.fitting(bounds, width: 800, height: 600)
        let tile = MapWorld.size / Double(1 << 19)
        #expect(viewport.rect.size.height >= tile)
        let centre = viewport.point(Position(longitude: 8.54, latitude: 47.37))
        #expect(abs(centre.x - 400) < 1e-6 && abs(centre.y - 300) < 1e-6)
    }

    /// Data is fitted inside a margin of 32 points, touching it on the tighter axis.
    @Test func dataIsFittedWithAMargin() {
        var bounds = TurnedBounds(heading: 0)
        bounds.add(MapRect(x: 1000, y: 1000, width: 2000, height: 1000))
        let viewport = Viewport.fitting(bounds, width: 464, height: 300)
        let topLeft = viewport.point(MapPoint(x: 1000, y: 1000)), bottomRight = viewport.point(MapPoint(x: 3000, y: 2000))
        #expect(abs(topLeft.x - 32) < 1e-9 && abs(bottomRight.x - 432) < 1e-9)
        #expect(topLeft.y > 32 && bottomRight.y < 268)
    }
}

@Suite struct OverlayStyleTests {
    @Test func simplestylePropertiesWithTheirLimits() {
        let style = OverlayStyle(["stroke": .string("#f00"), "stroke-opacity": .double(1.5), "stroke-width": .integer(-2),
                                  "fill": .string("navy"), "fill-opacity": .double(0.25), "marker-size": .string("large")])
        #expect(style.stroke == RGB(0xFF, 0, 0) && style.strokeOpacity == 1 && style.strokeWidth == 0)
        #expect(style.fill == RGB(0, 0, 0x80) && style.fillOpacity == 0.25 && style.markerRadius == 9)
        #expect(OverlayStyle([:]) == OverlayStyle())
    }
}

@Suite struct BasemapTests {
    static let nothing = #"{"type":"FeatureCollection","features":[]}"#

    /// Tiles pictures cannot draw are a typed error carrying the facts, worded without any
    /// command-line option (the executables add those).
    @Test func tilesInAnotherFormatAreATypedError() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.path
            try FileManager.default.createDirectory(atPath: folder + "/14/8580", withIntermediateDirectories: true)
            try Data([0x1A, 0x02]).write(to: URL(fileURLWithPath: folder + "/14/8580/5738.pbf"))
            let options = PictureOptions(view: MapTile(zoom: 14, x: 8580, y: 5738).mapRect, basemap: folder)
            #expect(throws: BasemapError.unreadableTiles(format: "pbf", basemap: folder)) { try draw(Self.nothing, as: .png, options) }
            let error = BasemapError.unreadableTiles(format: "pbf", basemap: folder)
            #expect(error.exitCode == 65 && error.location?.file == folder)
            let tooFine = BasemapError.zoomLevelsTooFine(zooms: 18...20, maximumTiles: Basemap.maximumTiles)
            for failure in [error, tooFine] {
                #expect(!failure.message.contains("--") && !(failure.hint ?? "").contains("--") && !(failure.hint ?? "").contains("meridian"))
            }
        }
    }

    /// A basemap from an MBTiles file (written by MeridianTiles) is drawn under the picture:
    /// one red tile fills a picture of that tile.
    @Test func drawsAnMBTilesBasemap() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.path
            // A 256×256 PNG of one red polygon over its whole view: the tile's image.
            let tile = MapTile(zoom: 3, x: 4, y: 2)
            let square = #"{"type":"Polygon","coordinates":[[[-180,-85],[180,-85],[180,85],[-180,85],[-180,-85]]]}"#
            let red = try draw(##"{"type":"Feature","properties":{"fill":"#ff0000","fill-opacity":1,"stroke-width":0},"geometry":\##(square)}"##,
                               as: .png, PictureOptions(width: 256, height: 256, view: tile.mapRect))
            let path = folder + "/red.mbtiles"
            let writer = try MBTilesWriter(path: path, resume: false, run: []) { _ in }
            try writer.write(tile, data: red)
            try writer.markCompleted(block: tile, tiles: 1)
            try writer.finish(metadata: MBTilesMetadata(name: "red", description: "", format: "png", bounds: BoundingBox(west: 0, south: 0, east: 45, north: 41),
                                                        center: (22, 20, 3), minZoom: 3, maxZoom: 3))
            let picture = try draw(Self.nothing, as: .png, PictureOptions(width: 64, height: 64, view: tile.mapRect, basemap: path))
            let image = try TileDecoder.surface(picture, name: "picture")
            defer { cairo_surface_destroy(image) }
            let stride = Int(cairo_image_surface_get_stride(image)), pixels = cairo_image_surface_get_data(image)!
            for (x, y) in [(1, 1), (32, 32), (62, 62)] {
                // ARGB32, native-endian words: blue, green, red, alpha in memory on little-endian machines.
                let word = UnsafeRawPointer(pixels + y * stride + 4 * x).loadUnaligned(as: UInt32.self)
                #expect(word == 0xFFFF_0000, "pixel \(x),\(y): \(String(word, radix: 16))")
            }
        }
    }
}
