import Foundation
import MeridianCore
import Testing
import MeridianGeometry
@testable import MeridianFormats

/// Reads a KML (or KMZ) file into features, collecting warnings.
func readKML(_ path: String, options: KMLReadOptions = .init(), layer: String? = nil) throws
    -> (features: [Feature], reader: any KMLDocumentReader, warnings: [Diagnostic]) {
    var warnings: [Diagnostic] = []
    let input = try BufferedInput.open(path)
    let readOptions = ReadOptions(diagnostics: { warnings.append($0) }, kml: options, layer: layer)
    let format = try FormatRegistry.standard.inputFormat(for: input, path: path, explicit: nil)
    let reader = try format.reader(for: input, options: readOptions) as! any KMLDocumentReader
    var features: [Feature] = []
    while let feature = try reader.next() { features.append(feature) }
    return (features, reader, warnings)
}

/// JSON equality where 1 and 1.0 are the same number (JavaScript has one number type) and
/// object key order does not matter.
func sameJSON(_ a: JSONValue?, _ b: JSONValue?) -> Bool {
    switch (a, b) {
    case (nil, nil): return true
    case (let x?, let y?):
        if let p = x.doubleValue, let q = y.doubleValue { return p == q }
        switch (x, y) {
        case (.array(let p), .array(let q)): return p.count == q.count && zip(p, q).allSatisfy { sameJSON($0, $1) }
        case (.object(let p), .object(let q)): return Set(p.keys) == Set(q.keys) && p.keys.allSatisfy { sameJSON(p[$0], q[$0]) }
        default: return x == y
        }
    default: return false
    }
}

/// Meridian's deliberate differences from togeojson v7.1.2, as listed in docs/convert.md, so the
/// comparison checks everything else exactly.
enum TogeojsonDifferences {
    /// Properties Meridian adds: the folder path and the geometry's altitudeMode.
    static let addedProperties: Set<String> = ["folder", "altitudeMode"]

    /// togeojson makes a GeometryCollection of any MultiGeometry; Meridian makes Multi* when
    /// every part has one type.
    static func expectedGeometry(_ geometry: Geometry?) -> Geometry? {
        guard case .geometryCollection(let collection)? = geometry else { return geometry }
        let parts = collection.geometries.map { expectedGeometry($0)! }
        var reader = KMLGeometryReader.Result()
        reader.parts = parts
        return reader.geometry
    }

    static func sameGeometry(ours: Geometry?, theirs: Geometry?) -> Bool {
        let expected = expectedGeometry(theirs)
        if ours == expected { return true }
        // A two-point gx:Track is a line in Meridian (and togeojson 7.1.3), a Point at its first
        // coordinate in togeojson 7.1.2.
        if case .lineString(let line)? = ours, line.coordinates.count == 2, case .point(let point)? = expected {
            return line.coordinates[0] == point.coordinates
        }
        return false
    }

    static func sameFeature(ours: Feature, theirs: Feature) -> Bool {
        var properties = ours.properties ?? [:]
        for key in addedProperties { properties.removeValue(forKey: key) }
        return sameGeometry(ours: ours.geometry, theirs: theirs.geometry)
            && sameJSON(.object(properties), theirs.properties.map(JSONValue.object) ?? .object([:]))
            && ours.id == theirs.id && ours.bbox == theirs.bbox
    }
}

let togeojsonFixtures: [String] = {
    let folder = fixture("kml/togeojson")
    return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
        .filter { $0.hasSuffix(".kml") }.map { String($0.dropLast(4)) }.sorted()
}()

@Suite struct KMLReaderTests {
    @Test func allTogeojsonFixturesArePresent() {
        #expect(togeojsonFixtures.count == 35)
    }

    /// `meridian convert X.kml --to geojson` equals togeojson's X.kml.geojson, but for the
    /// deliberate differences in `TogeojsonDifferences`.
    @Test(arguments: togeojsonFixtures)
    func matchesTogeojson(_ name: String) throws {
        let ours = try readKML(fixture("kml/togeojson/\(name).kml")).features
        let theirs = try readAll(path: fixture("kml/togeojson/\(name).kml.geojson")).features
        try #require(ours.count == theirs.count)
        for (index, (a, b)) in zip(ours, theirs).enumerated() {
            #expect(TogeojsonDifferences.sameFeature(ours: a, theirs: b), "feature \(index): \(a) ≠ \(b)")
        }
    }

    /// `--folders tree` equals togeojson's kmlWithFolders output (X.kml.folders.json).
    @Test(arguments: togeojsonFixtures)
    func folderTreeMatchesTogeojson(_ name: String) throws {
        let (_, reader, _) = try readKML(fixture("kml/togeojson/\(name).kml"), options: KMLReadOptions(folders: .tree))
        let sink = OutputSink(collectingAs: "tree.json")
        try #require(reader.folderTree).write(to: sink)
        let ours = try parseJSON(sink.collectedText())
        let theirs = try parseJSON(String(contentsOfFile: fixture("kml/togeojson/\(name).kml.folders.json"), encoding: .utf8))
        #expect(try sameTree(ours, theirs))
    }

    @Test func keepsFolderPathsAndStyles() throws {
        let (features, reader, _) = try readKML(fixture("kml/togeojson/ground_overlay.kml"))
        #expect(features[0].properties?["folder"] == "Ground Overlays")
        #expect(reader.statistics.folders == 1)
        let styled = try readKML(fixture("kml/togeojson/styles.kml"))
        #expect(styled.reader.statistics.styles >= 3)
    }

    /// `--layer` keeps one Folder or Document; issue 13: a name the file has no layer of gave
    /// no features and no error. Now it is a usage error that lists the layers there are.
    @Test func layerKeepsOneFolder() throws {
        let all = try readKML(fixture("kml/togeojson/timespan.kml")).features
        let layer = try readKML(fixture("kml/togeojson/timespan.kml"), layer: "Features").features
        #expect(!all.isEmpty && layer.count == all.count)
        let walk = fixtures.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples/data/lake-walk.kml").path
        let stops = try readKML(walk, layer: "Stops").features
        #expect(stops.count == 1 && stops[0].properties?["name"] == "Bürkliplatz")
        #expect(try readKML(walk, layer: "Route").features.count == 2)  // the walk, and the stop in Route/Stops
        #expect {
            try readKML(walk, layer: "No such folder")
        } throws: { error in
            guard let error = error as? LayerSelection, let hint = error.hint else { return false }
            return error.kind == .usage && hint.contains("\"Route\"") && hint.contains("\"Stops\"") && hint.contains("\"Lake walk\"")
        }
        // A format without layers refuses --layer rather than ignoring it.
        #expect(throws: LayerSelection.unsupported(by: .geoJSON, in: fixture("geojson/ne_10m_countries_sample.geojson"))) {
            try FeatureInput(path: fixture("geojson/ne_10m_countries_sample.geojson"), options: ReadOptions(layer: "countries"))
        }
    }

    @Test(arguments: ["utf-8", "utf-16", "iso-8859-1", "windows-1252"])
    func honoursDeclaredEncodings(_ encoding: String) throws {
        let features = try readKML(fixture("kml/encodings/\(encoding).kml")).features
        let expected = encoding == "iso-8859-1" ? "Café \"Zürich\" - naïve" : "Café “Zürich” – naïve"
        #expect(features.first?.properties?["name"] == .string(expected))
    }

    @Test func toleratesSloppyFilesWithWarnings() throws {
        let (features, _, warnings) = try readKML(fixture("kml/encodings/sloppy.kml"))
        try #require(features.count == 4)
        // Lower-case element names, spaces after commas, an unclosed ring, a byte-order mark.
        #expect(features[0].geometry == .polygon(Polygon([[
            Position(longitude: 0, latitude: 0, altitude: 0), Position(longitude: 1, latitude: 0, altitude: 0),
            Position(longitude: 1, latitude: 1, altitude: 0), Position(longitude: 0, latitude: 0, altitude: 0),
        ]])))
        // gx: used without its namespace declaration; gx:SimpleArrayData kept per point.
        #expect(features[1].geometry?.type == .lineString)
        #expect(features[1].properties?["coordinateProperties"] == ["times": ["2020-01-01T00:00:00Z", "2020-01-01T00:01:00Z"],
                                                                   "heartrate": ["90", "95"]])
        // A Model is placed at its Location, with its altitudeMode.
        #expect(features[2].geometry == .point(Point(Position(longitude: 7.5, latitude: 46.9, altitude: 12))))
        #expect(features[2].properties?["altitudeMode"] == "relativeToGround")
        #expect(features[3].geometry == nil)
        #expect(warnings.contains { $0.message.contains("<placemark> read as <Placemark>") && $0.location?.line == 3 })
        #expect(warnings.contains { $0.message.contains("not closed") })
    }

    @Test func refusesEntityDeclarations() throws {
        let bomb = """
            <?xml version="1.0"?>
            <!DOCTYPE kml [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
            <kml><Document><name>&b;</name></Document></kml>
            """
        let reader = KMLReader(input: BufferedInput(string: bomb, name: "bomb.kml"))
        #expect {
            _ = try reader.next()
        } throws: { error in
            guard let error = error as? MeridianError else { return false }
            return error.kind == .badInput && error.message.contains("entity") && error.location?.line == 2
        }
    }

    @Test func reportsMalformedXMLWithItsPlace() throws {
        let reader = KMLReader(input: BufferedInput(string: "<kml>\n<Document>\n<Placemark><name>x</nam></Placemark>", name: "bad.kml"))
        #expect {
            _ = try reader.next()
        } throws: { error in
            guard let error = error as? MeridianError else { return false }
            return error.kind == .badInput && error.location?.line == 3 && error.location?.column != nil
        }
    }
}

private func parseJSON(_ text: String) throws -> JSONValue {
    let scanner = JSONScanner(input: BufferedInput(string: text))
    return try scanner.parseValue()
}

/// Trees are equal when their folders match and their features match under the same rules.
private func sameTree(_ ours: JSONValue, _ theirs: JSONValue) throws -> Bool {
    guard let a = ours.objectValue, let b = theirs.objectValue else { return false }
    if a["type"] == "Feature" {
        let fa = try readAll(text: writeJSONText(ours)).features[0], fb = try readAll(text: writeJSONText(theirs)).features[0]
        return TogeojsonDifferences.sameFeature(ours: fa, theirs: fb)
    }
    guard a["type"] == b["type"], sameJSON(a["meta"], b["meta"]),
          let ca = a["children"]?.arrayValue, let cb = b["children"]?.arrayValue, ca.count == cb.count else { return false }
    return try zip(ca, cb).allSatisfy { try sameTree($0, $1) }
}

private func writeJSONText(_ value: JSONValue) -> String {
    let sink = OutputSink(collectingAs: "x")
    writeJSON(value, to: sink, pretty: false)
    return sink.collectedText()
}

/// GroundOverlays come out typed beside their features: the image and its corners from the
/// upper-left, clockwise, for a LatLonBox (turned or not) and a gx:LatLonQuad (which KML lists
/// from the lower-left, counter-clockwise); nothing for other features.
@Suite struct KMLGroundOverlayTests {
    @Test func overlaysAreTyped() throws {
        let kml = """
            <kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><Document>
            <Placemark><name>pin</name><Point><coordinates>1,2</coordinates></Point></Placemark>
            <GroundOverlay><name>box</name><Icon><href>a.png</href></Icon>
              <LatLonBox><north>10</north><south>0</south><east>20</east><west>0</west><rotation>0</rotation></LatLonBox></GroundOverlay>
            <GroundOverlay><name>turned</name><Icon><href>b.png</href></Icon>
              <LatLonBox><north>10</north><south>0</south><east>20</east><west>0</west><rotation>90</rotation></LatLonBox></GroundOverlay>
            <GroundOverlay><name>quad</name><Icon><href>c.png</href></Icon>
              <gx:LatLonQuad><coordinates>0,0 20,1 21,11 1,10</coordinates></gx:LatLonQuad></GroundOverlay>
            <GroundOverlay><name>no image</name><LatLonBox><north>1</north><south>0</south><east>1</east><west>0</west></LatLonBox></GroundOverlay>
            </Document></kml>
            """
        let reader = KMLReader(input: BufferedInput(string: kml, name: "overlays.kml"))
        _ = try reader.readMetadata()
        var overlays: [String: KMLGroundOverlay?] = [:]
        while let feature = try reader.next() { overlays[feature.properties?["name"]?.stringValue ?? ""] = reader.groundOverlay }
        func p(_ lon: Double, _ lat: Double) -> Position { Position(longitude: lon, latitude: lat) }
        #expect(overlays["pin"]! == nil && overlays["no image"]! == nil)
        #expect(overlays["box"]??.corners == [p(0, 10), p(20, 10), p(20, 0), p(0, 0)])
        #expect(overlays["box"]??.imageHref == "a.png")
        #expect(overlays["quad"]??.corners == [p(1, 10), p(21, 11), p(20, 1), p(0, 0)])
        // Turned 90° counter-clockwise about (10, 5): the north-west corner goes to the south-west.
        let turned = try #require(overlays["turned"] ?? nil)
        #expect(abs(turned.corners[0].longitude - 5) < 1e-9 && abs(turned.corners[0].latitude + 5) < 1e-9, "\(turned.corners)")
    }
}
