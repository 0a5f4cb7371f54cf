import Foundation
import MeridianRaster
import Testing

/// What an SVG picture holds, read back for checks: paths (each subpath's points, in the
/// picture's points after the map's turn), markers and labels.
struct SVGPicture {
    /// A point's pin: its tip (on the point) and its head's radius.
    struct Marker {
        var x: Double, y: Double, r: Double, title: String?
        /// What the pin covers: its head, two radii above the tip, with the rim.
        var box: (minX: Double, minY: Double, maxX: Double, maxY: Double) { (x - r - 1, y - 3 * r - 1, x + r + 1, y + 1) }
    }
    struct Label {
        var text: String, x: Double, y: Double, width: Double, fontSize: Double
        /// The text's room: from the baseline up a font size, down a quarter of one.
        var box: (minX: Double, minY: Double, maxX: Double, maxY: Double) { (x, y - fontSize, x + width, y + fontSize / 4) }
    }

    var width = 0.0, height = 0.0
    var paths: [[[(x: Double, y: Double)]]] = []
    var markers: [Marker] = []
    var labels: [Label] = []

    init(_ svg: String) {
        func attribute(_ name: String, in tag: Substring) -> String? {
            tag.firstMatch(of: try! Regex("\\s\(name)=\"([^\"]*)\""))?.output[1].substring.map(String.init)
        }
        func number(_ name: String, in tag: Substring) -> Double? { attribute(name, in: tag).flatMap(Double.init) }
        if let root = svg.firstMatch(of: #/<svg[^>]*>/#)?.output {
            width = number("width", in: root) ?? 0
            height = number("height", in: root) ?? 0
        }
        // The map's turn, from the group's rotate(angle cx cy).
        var turn = (angle: 0.0, cx: 0.0, cy: 0.0)
        if let rotate = svg.firstMatch(of: #/rotate\((-?[0-9.]+) (-?[0-9.]+) (-?[0-9.]+)\)/#) {
            turn = (Double(rotate.output.1)! * .pi / 180, Double(rotate.output.2)!, Double(rotate.output.3)!)
        }
        for path in svg.matches(of: #/<path[^>]*>/#) {
            // A pin's drop (its arc) is a marker, below.
            guard let d = attribute("d", in: path.output), !d.contains("A") else { continue }
            paths.append(d.split(separator: "M").map { part in
                part.split(whereSeparator: { $0 == "L" || $0 == "Z" }).compactMap { pair in
                    let xy = pair.split(separator: " ").compactMap { Double($0) }
                    guard xy.count == 2 else { return nil }
                    let (dx, dy) = (xy[0] - turn.cx, xy[1] - turn.cy)
                    return (turn.cx + dx * cos(turn.angle) - dy * sin(turn.angle), turn.cy + dx * sin(turn.angle) + dy * cos(turn.angle))
                }
            })
        }
        for pin in svg.matches(of: #/<g class="pin">\s*(?:<title>([^<]*)</title>\s*)?(?:<desc>[^<]*</desc>\s*)?<path d="M(-?[0-9.]+) (-?[0-9.]+)L[^A]*A(-?[0-9.]+) /#) {
            markers.append(Marker(x: Double(pin.output.2)!, y: Double(pin.output.3)!, r: Double(pin.output.4)!, title: pin.output.1.map(String.init)))
        }
        for text in svg.matches(of: #/<text([^>]*)>([^<]*)</text>/#) {
            let tag = text.output.1, content = String(text.output.2)
            let fontSize = number("font-size", in: tag) ?? 12
            // Without a stated width, what sans-serif usually takes: 0.6 of the size a letter.
            let width = number("textLength", in: tag) ?? 0.6 * fontSize * Double(content.count)
            labels.append(Label(text: content, x: number("x", in: tag) ?? .nan, y: number("y", in: tag) ?? .nan, width: width, fontSize: fontSize))
        }
    }

    /// Every point of every path.
    var points: [(x: Double, y: Double)] { paths.flatMap { $0.flatMap { $0 } } }
}

/// Renders features given as GeoJSON to SVG with `arguments`, and reads the picture back.
func renderSVG(_ geojson: String, _ arguments: [String]) throws -> SVGPicture {
    let made = try meridian(["render", "--from", "geojson", "--to", "svg"] + arguments, stdin: Data(geojson.utf8))
    #expect(made.status == 0, "\(made.stderr)")
    return SVGPicture(made.stdout)
}

@Suite struct RenderHeadingTests {
    static let route = fixtures.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples/data/manele-bay-route.geojson").path

    /// Turned, the data is fitted anew: it all shows, 32 points from the edges, and touches
    /// that margin on one side or the other (the fit is tight).
    @Test(arguments: [30.0, 90.0, 200.0])
    func turnedDataIsFittedWithTheMargin(_ heading: Double) throws {
        let picture = try renderSVG(String(contentsOfFile: Self.route, encoding: .utf8), ["--size", "480x320", "--heading", String(heading)])
        let xs = picture.points.map(\.x), ys = picture.points.map(\.y)
        #expect(xs.count >= 5)
        let left = xs.min()!, right = picture.width - xs.max()!, top = ys.min()!, bottom = picture.height - ys.max()!
        #expect([left, right, top, bottom].allSatisfy { $0 >= 31.9 }, "margins \(left), \(right), \(top), \(bottom)")
        #expect(abs(min(left, right) - 32) < 0.1 || abs(min(top, bottom) - 32) < 0.1, "margins \(left), \(right), \(top), \(bottom)")
    }

    /// A stated view is shown whole whatever the heading: its four corners stay in the picture.
    @Test func aStatedViewStaysWholeWhenTurned() throws {
        let box = """
            {"type":"Polygon","coordinates":[[[-156.8889,20.7385],[-156.8774,20.7385],[-156.8774,20.7449],[-156.8889,20.7449],[-156.8889,20.7385]]]}
            """
        for heading in ["0", "30", "-75"] {
            let picture = try renderSVG(box, ["--size", "480x320", "--heading", heading, "--view", "-156.8889,20.7385,-156.8774,20.7449"])
            let corners = picture.points
            #expect(corners.count >= 4)
            #expect(corners.allSatisfy { $0.x >= -0.02 && $0.x <= picture.width + 0.02 && $0.y >= -0.02 && $0.y <= picture.height + 0.02 },
                    "heading \(heading): \(corners)")
            // And it is not shown smaller than it must be: a corner touches an edge.
            #expect(corners.contains { min($0.x, picture.width - $0.x, $0.y, picture.height - $0.y) < 0.05 }, "heading \(heading): \(corners)")
        }
    }
}

/// Data that reaches over ±180° is drawn as one piece where it is, in a PNG and an SVG alike,
/// not as two pieces at the two ends of a picture of the whole world.
@Suite struct RenderAcrossTheAntimeridianTests {
    /// Fiji's circle (`meridian circle` cuts it at ±180°, RFC 7946's way): one cluster of drawn
    /// pixels in the middle of the PNG, filling the fitted picture, and the SVG's outline the same.
    @Test func fijiIsOneCircle() throws {
        try withTemporaryFolder { folder in
            let circle = folder.appendingPathComponent("fiji.geojson").path, png = folder.appendingPathComponent("fiji.png").path
            #expect(try meridian(["circle", "--center", "-16.5,179.9", "--radius", "50000", "-o", circle]).status == 0)
            let made = try meridian(["render", circle, "-o", png, "--size", "400x300"])
            #expect(made.status == 0, "\(made.stderr)")
            let image = try DecodedImage(path: png)
            var columns = Set<Int>(), rows = Set<Int>()
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let p = image.pixel(x: x, y: y)
                    if p.r < 250 || p.g < 250 || p.b < 250 { columns.insert(x); rows.insert(y) }
                }
            }
            let left = try #require(columns.min()), right = try #require(columns.max())
            // One cluster: no empty column inside it; fitted within the 32-point margin, round.
            #expect(columns.count == right - left + 1, "drawn columns \(left)...\(right) with gaps")
            #expect(left >= 28 && right <= 371 && left < 200 && right > 200, "columns \(left)...\(right)")
            let top = try #require(rows.min()), bottom = try #require(rows.max())
            #expect(abs((right - left) - (bottom - top)) <= 6 && bottom - top > 200, "\(right - left) wide, \(bottom - top) high")

            let svg = SVGPicture(try meridian(["render", circle, "--to", "svg", "--size", "400x300"]).stdout)
            let xs = svg.points.map(\.x)
            #expect(!xs.isEmpty && xs.allSatisfy { $0 >= 28 && $0 <= 372 }, "SVG x \(xs.min() ?? .nan)...\(xs.max() ?? .nan)")
            #expect((xs.max() ?? 0) - (xs.min() ?? 0) > 200, "the circle fills the picture")
            // One outline: no wide empty stretch between its points.
            let sorted = xs.sorted()
            #expect(zip(sorted, sorted.dropFirst()).allSatisfy { $1 - $0 < 40 }, "SVG x \(sorted)")
        }
    }

    /// Features on both sides of ±180° (the Aleutians and the rest of Alaska): they lie together,
    /// the western one east of 180° drawn beside the rest, not at the picture's other end.
    @Test func featuresOnBothSidesLieTogether() throws {
        func square(_ west: Double) -> String {
            let ring = [[west, 52.0], [west + 1, 52.0], [west + 1, 53.0], [west, 53.0], [west, 52.0]]
            return #"{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[\#(ring)]}}"#
        }
        let collection = #"{"type":"FeatureCollection","features":["# + [square(172), square(-170), square(-160)].joined(separator: ",") + "]}"
        let svg = try renderSVG(collection, ["--size", "400x300"])
        #expect(svg.paths.count == 3)
        let wests = svg.paths.map { $0.flatMap { $0 }.map(\.x).min() ?? .nan }
        // West to east: 172°E, 170°W, 160°W, in 29 degrees of the picture's width.
        #expect(wests[0] < wests[1] && wests[1] < wests[2], "\(wests)")
        #expect(svg.points.allSatisfy { $0.x >= 28 && $0.x <= 372 }, "\(svg.points.map(\.x))")
    }
}

/// A point is one symbol, the same in every picture: the PNG's pin covers the pixels the SVG's
/// pin says, its tip on the point and its head above it.
@Suite struct PinSymbolTests {
    @Test func pointsAreTheSamePinInPNGAndSVG() throws {
        let point = ##"{"type":"Feature","properties":{"marker-color":"#ff0000","marker-size":"large"},"geometry":{"type":"Point","coordinates":[8.54,47.37]}}"##
        let svg = try renderSVG(point, ["--size", "200x160"])
        let pin = try #require(svg.markers.first, "no pin in the SVG")
        #expect(svg.markers.count == 1)
        // The tip is on the point, which a picture of one point centres.
        #expect(abs(pin.x - 100) < 0.01 && abs(pin.y - 80) < 0.01, "tip at \(pin.x),\(pin.y)")
        try withTemporaryFolder { folder in
            let png = folder.appendingPathComponent("point.png").path
            let made = try meridian(["render", "--from", "geojson", "--size", "200x160", "-o", png], stdin: Data(point.utf8))
            #expect(made.status == 0, "\(made.stderr)")
            let image = try DecodedImage(path: png)
            // The red pixels: the drop, less its white dot and rim.
            var red = (minX: Int.max, minY: Int.max, maxX: Int.min, maxY: Int.min)
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let p = image.pixel(x: x, y: y)
                    guard p.r > 200 && p.g < 80 && p.b < 80 else { continue }
                    red = (min(red.minX, x), min(red.minY, y), max(red.maxX, x), max(red.maxY, y))
                }
            }
            let box = pin.box
            // Within two pixels of the SVG pin's box (which holds the rim and a point more).
            #expect(abs(Double(red.minX) - box.minX) <= 3 && abs(Double(red.maxX + 1) - box.maxX) <= 3, "PNG \(red), SVG \(box)")
            // The drop narrows to the tip under the white rim: its red ends a few pixels above it.
            #expect(abs(Double(red.minY) - box.minY) <= 3 && Double(red.maxY) < pin.y && Double(red.maxY) > pin.y - 8, "PNG \(red), SVG \(box)")
        }
    }
}

extension PinSymbolTests {
    /// A point any distance outside a deep view has no pin there, and its place, beyond what a
    /// picture's coordinates hold, never crashes the drawing (it trapped in SVG's numbers).
    @Test(arguments: ["svg", "png"])
    func pointsFarOutsideTheViewAreLeftOut(_ format: String) throws {
        let point = #"{"type":"Point","coordinates":[179,-80]}"#
        let made = try meridian(["render", "--from", "geojson", "--to", format, "--size", "800x600", "--view", "0,0,1e-300,1e-300"], stdin: Data(point.utf8))
        #expect(made.status == 0, "\(made.stderr)")
        if format == "svg" { #expect(SVGPicture(made.stdout).markers.isEmpty) }
    }
}

@Suite struct LabelPlacementTests {
    /// Points close together with names (the report's "Pier" and "Bürkliplatz"): no label
    /// covers another label or a pin; the labels that fit are there.
    @Test(arguments: ["0", "40"])
    func labelsCoverNeitherLabelsNorPins(_ heading: String) throws {
        let names = ["Pier", "Bürkliplatz", "Ferry landing", "Lakeside park entrance", "Kiosk", "Boat rental"]
        let points = names.enumerated().map { i, name in
            #"{"type":"Feature","properties":{"name":"\#(name)"},"geometry":{"type":"Point","coordinates":[\#(8.5405 + 0.0004 * Double(i % 3)),\#(47.3655 + 0.0002 * Double(i / 3))]}}"#
        }
        let line = #"{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[8.5402,47.3663],[8.5436,47.3627]]}}"#
        let collection = #"{"type":"FeatureCollection","features":["# + (points + [line]).joined(separator: ",") + "]}"
        let picture = try renderSVG(collection, ["--size", "480x320", "--heading", heading])
        #expect(picture.markers.count == names.count)
        #expect(picture.labels.count >= 3, "\(picture.labels.map(\.text))")
        for (i, a) in picture.labels.enumerated() {
            let box = a.box
            #expect(box.minX >= 0 && box.maxX <= picture.width && box.minY >= 0 && box.maxY <= picture.height, "\(a.text) leaves the picture")
            for b in picture.labels[(i + 1)...] {
                let other = b.box
                let overlap = box.minX < other.maxX && other.minX < box.maxX && box.minY < other.maxY && other.minY < box.maxY
                #expect(!overlap, "\"\(a.text)\" \(box) and \"\(b.text)\" \(other) overlap")
            }
            for marker in picture.markers {
                let pin = marker.box
                let overlap = box.minX < pin.maxX && pin.minX < box.maxX && box.minY < pin.maxY && pin.minY < box.maxY
                #expect(!overlap, "\"\(a.text)\" covers the pin of \(marker.title ?? "?")")
            }
        }
    }
}

@Suite struct BasemapTests {
    /// A raster of one colour (30, 60, 140) over part of Zürich, made with gdal_create.
    static func uniformRaster(in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("uniform.tif").path
        let made = try run("gdal_create", ["-q", "-of", "GTiff", "-outsize", "512", "512", "-bands", "3", "-burn", "30", "-burn", "60", "-burn", "140",
                                           "-a_srs", "EPSG:4326", "-a_ullr", "8.50", "47.40", "8.60", "47.33", path])
        #expect(made.status == 0, "\(made.stderr)")
        return path
    }

    /// Tiles of one colour, drawn at a scale between two zoom levels, make a picture of that
    /// colour: no light seams where tiles meet, and JPEG and WebP tiles are drawn like PNG.
    @Test(arguments: ["png", "jpeg", "webp"])
    func tilesMeetWithoutSeams(_ format: String) throws {
        try withTemporaryFolder { folder in
            let tiles = folder.appendingPathComponent("tiles").path, png = folder.appendingPathComponent("picture.png").path
            let tiled = try meridian(["tile", try Self.uniformRaster(in: folder), tiles, "--zoom", "13-16", "--tile-format", format, "-q"])
            #expect(tiled.status == 0, "\(tiled.stderr)")
            let empty = Data(#"{"type":"FeatureCollection","features":[]}"#.utf8)
            for heading in ["0", "30"] {
                let made = try meridian(["render", "--from", "geojson", "--basemap", tiles, "-o", png, "--size", "480x320",
                                         "--view", "8.53,47.355,8.57,47.375", "--heading", heading, "--force"], stdin: empty)
                #expect(made.status == 0, "\(made.stderr)")
                let image = try DecodedImage(path: png)
                var off: [(x: Int, y: Int)] = []
                for y in 0..<image.height {
                    for x in 0..<image.width {
                        let p = image.pixel(x: x, y: y)
                        if abs(Int(p.r) - 30) > 4 || abs(Int(p.g) - 60) > 4 || abs(Int(p.b) - 140) > 4 { off.append((x, y)) }
                    }
                }
                #expect(off.isEmpty, "heading \(heading): \(off.count) pixels differ from the tiles' colour, first at \(off.prefix(3)): \(off.first.map { "\(image.pixel(x: $0.x, y: $0.y))" } ?? "")")
            }
        }
    }

    /// One pyramid of tiles drawn under a picture from every container the tile-archive layer
    /// reads gives the same picture, pixel for pixel: the folder `meridian tile` wrote (XYZ and
    /// TMS), that folder without its metadata.json (as another tool's), and its copies into an
    /// MBTiles file and a PMTiles archive.
    @Test func everyContainerDrawsTheSameBasemap() throws {
        try withTemporaryFolder { folder in
            func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
            for (name, options) in [("xyz", [String]()), ("tms", ["--tms"])] {
                let tiled = try meridian(["tile", fixture("raster/rgbsmall.tif"), path(name), "--zoom", "8-11", "-q"] + options)
                #expect(tiled.status == 0, "\(tiled.stderr)")
            }
            for copy in ["copy.mbtiles", "copy.pmtiles"] {
                let copied = try meridian(["tile-copy", path("xyz"), path(copy), "-q"])
                #expect(copied.status == 0, "\(copied.stderr)")
            }
            for (bare, from) in [("bare-xyz", "xyz"), ("bare-tms", "tms")] {
                try FileManager.default.copyItem(atPath: path(from), toPath: path(bare))
                try FileManager.default.removeItem(atPath: path(bare) + "/metadata.json")
            }
            #expect(FileManager.default.fileExists(atPath: path("bare-tms") + "/tilemapresource.xml"))
            let empty = Data(#"{"type":"FeatureCollection","features":[]}"#.utf8)
            func picture(over basemap: String) throws -> DecodedImage {
                let png = path("over-\(basemap).png")
                let made = try meridian(["render", "--from", "geojson", "--basemap", path(basemap), "-o", png, "--size", "300x300",
                                         "--view", "-44.84,-23.10,-44.67,-22.93", "--heading", "20"], stdin: empty)
                #expect(made.status == 0, "\(basemap): \(made.stderr)")
                return try DecodedImage(path: png)
            }
            let reference = try picture(over: "xyz")
            // The tiles were drawn: the raster's many colours, not a blank picture.
            let colours = Set(stride(from: 0, to: reference.rgba.count, by: 4).map { Array(reference.rgba[$0..<$0 + 4]) })
            #expect(colours.count > 100, "\(colours.count) colours")
            for basemap in ["tms", "bare-xyz", "bare-tms", "copy.mbtiles", "copy.pmtiles"] {
                let image = try picture(over: basemap)
                let differing = zip(image.rgba, reference.rgba).filter { $0 != $1 }.count
                #expect(image.width == reference.width && image.height == reference.height && differing == 0,
                        "\(basemap): \(differing) channel values differ from the XYZ folder's picture")
            }
        }
    }

    /// A folder of tiles the picture cannot draw is refused with a reason, not drawn as nothing.
    @Test func refusesTilesItCannotDraw() throws {
        try withTemporaryFolder { folder in
            let tiles = folder.appendingPathComponent("vector/14/8580")
            try FileManager.default.createDirectory(at: tiles, withIntermediateDirectories: true)
            try Data([0x1A, 0x02]).write(to: tiles.appendingPathComponent("5738.pbf"))
            let empty = Data(#"{"type":"FeatureCollection","features":[]}"#.utf8)
            let made = try meridian(["render", "--from", "geojson", "--basemap", folder.appendingPathComponent("vector").path,
                                     "-o", folder.appendingPathComponent("x.png").path, "--view-tile", "14/8580/5738"], stdin: empty)
            #expect(made.status == ExitStatus.badInput, "\(made.stderr)")
            #expect(made.stderr.contains("pbf") && made.stderr.contains("PNG, JPEG and WebP"), "\(made.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("x.png").path))
        }
    }
}
