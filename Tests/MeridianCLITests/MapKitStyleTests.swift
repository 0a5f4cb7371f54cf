import Foundation
import MeridianTestSupport
import Testing

/// Compiles generated MapKit sources with a `main.swift` against the stand-in MapKit module
/// (MapKit is not on Linux) and runs the program; returns its output lines. Code of `main` that
/// touches views runs inside `MainActor.assumeIsolated`, as an app's delegate runs on the main actor.
func runMapKitProgram(_ sources: [String], main: String, in folder: URL) throws -> [Substring] {
    let stub = folder.appendingPathComponent("MapKit.swift").path
    if !FileManager.default.fileExists(atPath: stub) { try FileManager.default.copyItem(atPath: fixture("swift/MapKit.swift"), toPath: stub) }
    try main.write(to: folder.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
    let module = try run("swiftc", ["-parse-as-library", "-emit-library", "-static", "-emit-module", "-module-name", "MapKit",
                                    "MapKit.swift", "-o", "libMapKit.a"], in: folder)
    #expect(module.status == 0, "\(module.stderr)")
    // Swift 6 mode: the generated source must pass strict concurrency checking, as in a new app.
    let app = try run("swiftc", sources + ["main.swift", "-swift-version", "6", "-I", ".", "-L", ".", "-lMapKit", "-o", "app"], in: folder)
    #expect(app.status == 0, "\(app.stderr)")
    let output = try run(folder.appendingPathComponent("app").path, [], in: folder)
    #expect(output.status == 0, "\(output.stderr)")
    return output.stdout.split(separator: "\n")
}

/// Prints, tab-separated, what each renderer and marker view of a generated type was set to:
/// `overlay TYPE RENDERER TITLE STROKE WIDTH FILL` and `marker TYPE TITLE TINT GLYPH SYMBOL
/// CLUSTER PRIORITY`, colours as `r,g,b,alpha` (0–255, alpha to 3 places) or `nil`.
let describeMapKitTypes = """
    import MapKit

    func rgba(_ color: NSColor?) -> String {
        guard let c = color else { return "nil" }
        let channels = [c.redComponent, c.greenComponent, c.blueComponent].map { String(Int(($0 * 255).rounded())) }
        return channels.joined(separator: ",") + "," + String(Double((c.alphaComponent * 1000).rounded()) / 1000)
    }

    /// A title on one line: KML names may hold line breaks.
    func oneLine(_ text: String?) -> String { (text ?? "").replacingOccurrences(of: "\\n", with: "\\\\n") }

    @MainActor func describe(_ name: String, _ overlays: [MKOverlay], _ annotations: [MKAnnotation],
                             _ renderer: @MainActor (MKOverlay) -> MKOverlayRenderer,
                             _ view: @MainActor (MKAnnotation, MKMapView) -> MKAnnotationView?) {
        for overlay in overlays {
            let r = renderer(overlay) as! MKOverlayPathRenderer
            print("overlay", name, type(of: r), oneLine(overlay.title), rgba(r.strokeColor), Double(r.lineWidth), rgba(r.fillColor), separator: "\\t")
        }
        let map = MKMapView()
        for annotation in annotations {
            let v = view(annotation, map) as! MKMarkerAnnotationView
            print("marker", name, oneLine(annotation.title), rgba(v.markerTintColor), v.glyphText ?? "nil", v.glyphImage?.symbolName ?? "nil",
                  v.clusteringIdentifier ?? "nil", v.displayPriority.rawValue, separator: "\\t")
        }
    }

    """

/// A KML with two folders of points and a two-part polygon, its styles and ExtendedData
/// (`kind`, `rank`, `marker-symbol`) chosen for the clustering, priority and glyph tests.
let harboursKML = """
    <?xml version="1.0" encoding="UTF-8"?>
    <kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>Harbours</name>
      <Folder><name>Ferries</name>
        <Placemark><name>Manele</name><ExtendedData><Data name="kind"><value>ferry</value></Data><Data name="rank"><value>900</value></Data>
          <Data name="marker-symbol"><value>ferry</value></Data><Data name="marker-color"><value>#0000ff</value></Data></ExtendedData>
          <Point><coordinates>-156.887,20.743</coordinates></Point></Placemark>
        <Placemark><name>Lahaina</name><ExtendedData><Data name="kind"><value>ferry</value></Data><Data name="rank"><value>low</value></Data>
          <Data name="marker-symbol"><value>1</value></Data></ExtendedData>
          <Point><coordinates>-156.679,20.872</coordinates></Point></Placemark>
      </Folder>
      <Folder><name>Marinas</name>
        <Placemark><name>Kaumalapau</name><ExtendedData><Data name="kind"><value>cargo</value></Data>
          <Data name="marker-symbol"><value>harbor</value></Data></ExtendedData>
          <Point><coordinates>-156.990,20.785</coordinates></Point></Placemark>
        <Placemark><name>Two basins</name><Style><LineStyle><color>ff00ff00</color><width>4</width></LineStyle><PolyStyle><color>7f0000ff</color></PolyStyle></Style>
          <MultiGeometry>
            <Polygon><outerBoundaryIs><LinearRing><coordinates>-156.89,20.74 -156.88,20.74 -156.88,20.75 -156.89,20.74</coordinates></LinearRing></outerBoundaryIs></Polygon>
            <Polygon><outerBoundaryIs><LinearRing><coordinates>-156.68,20.87 -156.67,20.87 -156.67,20.88 -156.68,20.87</coordinates></LinearRing></outerBoundaryIs></Polygon>
          </MultiGeometry></Placemark>
      </Folder>
    </Document></kml>
    """

@Suite struct MapKitStyleTests {
    static let styleKeys: Set<String> = ["stroke", "stroke-width", "stroke-opacity", "fill", "fill-opacity", "marker-color", "icon-color", "marker-symbol"]

    /// `#rgb` or `#rrggbb` as `r,g,b,alpha`, as the program prints it.
    static func rgba(_ css: Any?, opacity: Any?) -> String {
        guard var hex = (css as? String)?.dropFirst(), (css as? String)?.first == "#" else { return "nil" }
        if hex.count == 3 { hex = Substring(hex.flatMap { [$0, $0] }) }
        guard hex.count == 6, let value = Int(hex, radix: 16) else { return "nil" }
        let alpha = (opacity as? Double).map { min(max($0, 0), 1) } ?? 1
        return "\(value >> 16),\(value >> 8 & 0xFF),\(value & 0xFF),\((alpha * 1000).rounded() / 1000)"
    }

    /// The rows the program should print for one feature, from the properties Meridian read: the
    /// renderer's class follows the geometry, a style absent leaves the stand-in's defaults (no
    /// colour, width 0), and markers cluster by KML folder, else by the type.
    static func expectedRows(type: String, feature: [String: Any]) -> [String] {
        guard let geometry = feature["geometry"] as? [String: Any] else { return [] }
        let p = feature["properties"] as? [String: Any] ?? [:]
        let title = (p["name"] as? String ?? "").replacingOccurrences(of: "\n", with: "\\n")
        let stroke = rgba(p["stroke"], opacity: p["stroke-opacity"])
        let width = String((p["stroke-width"] as? Double) ?? 0)
        let fill = rgba(p["fill"], opacity: p["fill-opacity"])
        let coordinates = geometry["coordinates"] as? [Any] ?? []
        func overlay(_ renderer: String, fills: Bool) -> [String] { [["overlay", type, renderer, title, stroke, width, fills ? fill : "nil"].joined(separator: "\t")] }
        let marker = ["marker", type, title, rgba(p["marker-color"] ?? p["icon-color"], opacity: nil), "nil", "nil", p["folder"] as? String ?? type, "1000.0"].joined(separator: "\t")
        switch geometry["type"] as? String {
        case "Point": return [marker]
        case "MultiPoint": return coordinates.map { _ in marker }
        case "LineString": return overlay("MKPolylineRenderer", fills: false)
        case "MultiLineString": return overlay(coordinates.count == 1 ? "MKPolylineRenderer" : "MKMultiPolylineRenderer", fills: false)
        case "Polygon": return overlay("MKPolygonRenderer", fills: true)
        case "MultiPolygon": return overlay(coordinates.count == 1 ? "MKPolygonRenderer" : "MKMultiPolygonRenderer", fills: true)
        default: return ["unexpected \(geometry["type"] ?? "")"]
        }
    }

    /// Issue 19: every togeojson fixture with simplestyle properties, and KMLViewer's sample,
    /// converted to Swift, compiles
    /// (all of them into one program: each generated type declares the same nested helpers) and,
    /// run, gives its renderers the colours, opacities and widths, and its markers the tints, that
    /// Meridian read from the KML.
    @Test(.timeLimit(.minutes(10))) func styledFixturesDrawAsTheirKMLAsks() throws {
        try withTemporaryFolder { folder in
            let togeojson = URL(fileURLWithPath: fixture("kml/togeojson"))
            let kmlFiles = try FileManager.default.contentsOfDirectory(atPath: togeojson.path).filter { $0.hasSuffix(".kml") }.sorted()
                .map { togeojson.appendingPathComponent($0) } + [URL(fileURLWithPath: fixture("kml/kmlviewer/KML_Sample.kml"))]
            var sources: [String] = [], calls: [String] = [], expected: [String] = []
            for kml in kmlFiles {
                let file = kml.lastPathComponent
                let geojson = try meridian(["convert", kml.path, "--to", "geojson"])
                let root = try JSONSerialization.jsonObject(with: geojson.stdoutData) as? [String: Any]
                let features = root?["features"] as? [[String: Any]] ?? []
                let styled = features.contains { feature in
                    feature["geometry"] is [String: Any] && !Self.styleKeys.isDisjoint(with: (feature["properties"] as? [String: Any] ?? [:]).keys)
                }
                guard styled else { continue }
                let source = file.replacingOccurrences(of: ".kml", with: ".swift")
                let result = try meridian(["convert", kml.path, "-o", folder.appendingPathComponent(source).path])
                #expect(result.status == 0, "\(file): \(result.stderr)")
                let type = try #require(String(contentsOf: folder.appendingPathComponent(source), encoding: .utf8)
                    .split(separator: "\n").first { $0.hasPrefix("enum ") }?.dropFirst(5).split(separator: " ").first).description
                sources.append(source)
                calls.append("describe(\"\(type)\", \(type).overlays(), \(type).annotations(), \(type).renderer(for:), \(type).annotationView(for:in:))")
                // Overlays come first, then markers, each in the features' order.
                let rows = features.flatMap { Self.expectedRows(type: type, feature: $0) }
                expected += rows.filter { $0.hasPrefix("overlay") } + rows.filter { $0.hasPrefix("marker") }
            }
            #expect(sources.count >= 10, "\(sources)")
            #expect(sources.contains("inline_style.swift") && sources.contains("style.swift") && sources.contains("KML_Sample.swift"))
            let output = try runMapKitProgram(sources, main: describeMapKitTypes + "MainActor.assumeIsolated {\n" + calls.joined(separator: "\n") + "\n}", in: folder)
            #expect(output.map(String.init) == expected)
            // inline_style.kml's three lines, as togeojson reads them: red 3 points wide, red at the
            // default width, and MapKit's default.
            #expect(output.contains("overlay\tInlineStyle\tMKPolylineRenderer\tWith all inline styles\t255,0,0,1.0\t3.0\tnil"), "\(output)")
            #expect(output.contains("overlay\tInlineStyle\tMKPolylineRenderer\tWithout inline style\tnil\t0.0\tnil"), "\(output)")
        }
    }

    /// A KML MultiGeometry of two polygons is one MKMultiPolygon drawn by one
    /// MKMultiPolygonRenderer; markers cluster by KML folder by default, by a property with
    /// --cluster-by, take --display-priority-by's value, a short marker-symbol as glyph text and a
    /// long one as an SF Symbol when it is one; --overlay-level reaches add(to:); a reused view
    /// keeps nothing of its last annotation.
    @Test(.timeLimit(.minutes(10))) func multiPartFeaturesClusteringAndMarkers() throws {
        try withTemporaryFolder { folder in
            func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
            try harboursKML.write(toFile: path("harbours.kml"), atomically: true, encoding: .utf8)
            #expect(try meridian(["convert", path("harbours.kml"), "-o", path("ByFolder.swift")]).status == 0)
            let byKind = try meridian(["convert", path("harbours.kml"), "-o", path("by-kind.swift"), "--cluster-by", "kind",
                                       "--display-priority-by", "rank", "--overlay-level", "above-labels"])
            #expect(byKind.status == 0, "\(byKind.stderr)")
            #expect(try meridian(["convert", path("harbours.kml"), "-o", path("x.swift"), "--overlay-level", "above-water"]).status == ExitStatus.usage)
            let main = describeMapKitTypes + """
                MainActor.assumeIsolated {
                describe("ByFolder", ByFolder.overlays(), ByFolder.annotations(), ByFolder.renderer(for:), ByFolder.annotationView(for:in:))
                describe("ByKind", ByKind.overlays(), ByKind.annotations(), ByKind.renderer(for:), ByKind.annotationView(for:in:))
                let basins = ByFolder.overlays()[0] as! MKMultiPolygon
                print("parts", basins.polygons.count, basins.polygons.map(\\.pointCount))
                let adders: [(String, @MainActor (MKMapView) -> Void)] = [("ByFolder", ByFolder.add(to:)), ("ByKind", ByKind.add(to:))]
                for (name, add) in adders {
                    let map = MKMapView()
                    add(map)
                    print("added", name, map.overlays.count, map.overlayLevels.map { $0 == .aboveLabels ? "above-labels" : "above-roads" }, map.annotations.count)
                }
                let map = MKMapView()
                let first = ByFolder.annotationView(for: ByFolder.annotations()[1], in: map) as! MKMarkerAnnotationView
                map.enqueue(first)
                let second = ByFolder.annotationView(for: ByFolder.annotations()[0], in: map) as! MKMarkerAnnotationView
                print("reused", first === second, second.glyphText ?? "nil", second.glyphImage?.symbolName ?? "nil", second.reuseIdentifier ?? "")
                print("foreign", ByFolder.annotationView(for: MKPointAnnotation(), in: map) == nil, type(of: ByKind.renderer(for: ByFolder.overlays()[0])))
                }
                """
            let output = try runMapKitProgram(["ByFolder.swift", "by-kind.swift"], main: main, in: folder).map(String.init)
            #expect(output == [
                "overlay\tByFolder\tMKMultiPolygonRenderer\tTwo basins\t0,255,0,1.0\t4.0\t255,0,0,0.498",
                "marker\tByFolder\tManele\t0,0,255,1.0\tnil\tferry\tFerries\t1000.0",
                "marker\tByFolder\tLahaina\tnil\t1\tnil\tFerries\t1000.0",
                "marker\tByFolder\tKaumalapau\tnil\tnil\tnil\tMarinas\t1000.0",
                "overlay\tByKind\tMKMultiPolygonRenderer\tTwo basins\t0,255,0,1.0\t4.0\t255,0,0,0.498",
                "marker\tByKind\tManele\t0,0,255,1.0\tnil\tferry\tferry\t900.0",
                "marker\tByKind\tLahaina\tnil\t1\tnil\tferry\t250.0",
                "marker\tByKind\tKaumalapau\tnil\tnil\tnil\tcargo\t1000.0",
                "parts 2 [4, 4]",
                "added ByFolder 1 [\"above-roads\"] 3",
                "added ByKind 1 [\"above-labels\"] 3",
                "reused true nil ferry ByFolder.marker",
                "foreign true MKOverlayRenderer",
            ], "\(output)")
        }
    }

    /// Past the literal limit the geometry goes into a GeoJSON resource beside the Swift file,
    /// read through MKGeoJSONDecoder, with the same renderers and views as the literals: the
    /// harbours written both ways print the same; a large line set writes a small source; the
    /// resource form has no folder on standard output (64).
    @Test(.timeLimit(.minutes(10))) func largeInputsGoIntoAGeoJSONResource() throws {
        try withTemporaryFolder { folder in
            func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
            try harboursKML.write(toFile: path("harbours.kml"), atomically: true, encoding: .utf8)
            #expect(try meridian(["convert", path("harbours.kml"), "-o", path("Literal.swift")]).status == 0)
            #expect(try meridian(["convert", path("harbours.kml"), "-o", path("Resource.swift"), "--swift-geometry", "resource"]).status == 0)
            #expect(FileManager.default.fileExists(atPath: path("Resource.geometry.geojson")))
            #expect(!FileManager.default.fileExists(atPath: path("Literal.geometry.geojson")))
            let stdout = try meridian(["convert", path("harbours.kml"), "--to", "swift", "--swift-geometry", "resource"])
            #expect(stdout.status == ExitStatus.usage && stdout.stderr.contains("-o PATH.swift"), "\(stdout.stderr)")

            // 60,000 positions, more than the limit: 120 lines of 500, every tenth red.
            let lines = (0..<120).map { line in
                let coordinates = (0..<500).map { "[\(-122 + Double($0) / 1000),\(37 + Double(line) / 100)]" }.joined(separator: ",")
                return "{\"type\":\"Feature\",\"properties\":{\"name\":\"line \(line)\"\(line % 10 == 0 ? ",\"stroke\":\"#ff0000\"" : "")},\"geometry\":{\"type\":\"LineString\",\"coordinates\":[\(coordinates)]}}"
            }
            try "{\"type\":\"FeatureCollection\",\"features\":[\(lines.joined(separator: ","))]}".write(toFile: path("big.geojson"), atomically: true, encoding: .utf8)
            let big = try meridian(["convert", path("big.geojson"), "-o", path("Big.swift")])
            #expect(big.status == 0, "\(big.stderr)")
            let sourceSize = try FileManager.default.attributesOfItem(atPath: path("Big.swift"))[.size] as? Int ?? 0
            #expect(sourceSize < 20_000, "\(sourceSize) bytes")
            #expect(FileManager.default.fileExists(atPath: path("Big.geometry.geojson")))
            let forced = try meridian(["convert", path("big.geojson"), "-o", path("BigLiterals.swift"), "--swift-geometry", "literals"])
            #expect(forced.status == 0 && !FileManager.default.fileExists(atPath: path("BigLiterals.geometry.geojson")), "\(forced.stderr)")

            let main = describeMapKitTypes + """
                try MainActor.assumeIsolated {
                describe("Harbours", Literal.overlays(), Literal.annotations(), Literal.renderer(for:), Literal.annotationView(for:in:))
                let loaded = try Resource.load(contentsOf: URL(fileURLWithPath: "Resource.geometry.geojson"))
                describe("Harbours", loaded.overlays, loaded.annotations, Resource.renderer(for:), Resource.annotationView(for:in:))
                let big = try Big.load(contentsOf: URL(fileURLWithPath: "Big.geometry.geojson"))
                let red = big.overlays.filter { rgba((Big.renderer(for: $0) as! MKOverlayPathRenderer).strokeColor) == "255,0,0,1.0" }
                print("big", big.overlays.count, big.overlays.map { ($0 as! MKPolyline).pointCount }.reduce(0, +), red.count)
                let fromBundle = try Resource.load(from: Bundle.main)  // on Linux, the executable's folder
                print("bundle", fromBundle.overlays.count, fromBundle.annotations.count)
                do { _ = try Resource.load(from: Bundle(path: "/")!) } catch { print("elsewhere", error) }
                }
                """
            let output = try runMapKitProgram(["Literal.swift", "Resource.swift", "Big.swift"], main: main, in: folder).map(String.init)
            let rows = output.filter { $0.hasPrefix("overlay") || $0.hasPrefix("marker") }
            #expect(rows.count == 8 && Array(rows[0..<4]) == Array(rows[4...]), "\(output)")
            #expect(output.contains("big 120 60000 12"), "\(output)")
            #expect(output.contains("bundle 1 3") && output.contains("elsewhere missingResource(\"Resource.geometry.geojson\")"), "\(output)")
        }
    }
}
