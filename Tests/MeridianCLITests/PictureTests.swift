import Foundation
import MeridianRaster
import Testing

/// What an SVG picture holds, read back for checks: paths (each subpath's points, in the
/// picture's points after the map's turn), markers and labels.
struct SVGPicture {
    struct Marker { var x: Double, y: Double, r: Double, title: String? }
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
            guard let d = attribute("d", in: path.output) else { continue }
            paths.append(d.split(separator: "M").map { part in
                part.split(whereSeparator: { $0 == "L" || $0 == "Z" }).compactMap { pair in
                    let xy = pair.split(separator: " ").compactMap { Double($0) }
                    guard xy.count == 2 else { return nil }
                    let (dx, dy) = (xy[0] - turn.cx, xy[1] - turn.cy)
                    return (turn.cx + dx * cos(turn.angle) - dy * sin(turn.angle), turn.cy + dx * sin(turn.angle) + dy * cos(turn.angle))
                }
            })
        }
        for circle in svg.matches(of: #/<circle([^>]*?)(/>|>\s*<title>([^<]*)</title>)/#) {
            let tag = circle.output.1
            markers.append(Marker(x: number("cx", in: tag) ?? .nan, y: number("cy", in: tag) ?? .nan, r: number("r", in: tag) ?? 0,
                                  title: circle.output.3.map(String.init)))
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
                let overlap = box.minX < marker.x + marker.r && marker.x - marker.r < box.maxX && box.minY < marker.y + marker.r && marker.y - marker.r < box.maxY
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
                                         "--view", "8.53,47.355,8.57,47.375", "--heading", heading], stdin: empty)
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
