import Foundation
import Testing
import MeridianGeometry
@testable import MeridianFormats

/// Writes features as KML into memory.
func writeKML(_ features: [Feature], metadata: CollectionMetadata = .init()) throws -> String {
    let sink = OutputSink(collectingAs: "out.kml")
    let writer = try KMLWriter(sink: sink)
    try writer.begin(metadata)
    for feature in features { try writer.write(feature) }
    try writer.finish(.init())
    return sink.collectedText()
}

func readKML(text: String) throws -> [Feature] {
    let reader = KMLReader(input: BufferedInput(string: text, name: "written.kml"))
    var features: [Feature] = []
    while let feature = try reader.next() { features.append(feature) }
    return features
}

@Suite struct KMLWriterTests {
    /// GeoJSON → KML → GeoJSON: geometry bit for bit, properties with their values and types
    /// (numbers, booleans and nulls through typed SchemaData).
    @Test func naturalEarthRoundTripsThroughKML() throws {
        let original = try readAll(path: fixture("geojson/ne_10m_countries_sample.geojson")).features
        let back = try readKML(text: try writeKML(original))
        try #require(back.count == original.count)
        for (a, b) in zip(original, back) {
            var pa: [Position] = [], pb: [Position] = []
            a.geometry?.forEachPosition { pa.append($0) }
            b.geometry?.forEachPosition { pb.append($0) }
            #expect(pa.count == pb.count && zip(pa, pb).allSatisfy { $0.isIdentical(to: $1) })
            #expect(a.geometry?.type == b.geometry?.type)
            #expect(sameJSON(a.properties.map(JSONValue.object), b.properties.map(JSONValue.object)),
                    "\(a.properties?["NAME"] ?? "?")")
        }
    }

    /// KML → KML → GeoJSON keeps what the first reading found, styles included (styleUrl aside:
    /// the writer names its shared styles itself).
    @Test(arguments: togeojsonFixtures)
    func togeojsonFixturesRoundTrip(_ name: String) throws {
        let first = try readKML(fixture("kml/togeojson/\(name).kml")).features
        let second = try readKML(text: try writeKML(first))
        try #require(first.count == second.count)
        for (a, b) in zip(first, second) {
            #expect(a.geometry == b.geometry)
            var pa = a.properties ?? [:], pb = b.properties ?? [:]
            pa["styleUrl"] = nil
            pb["styleUrl"] = nil
            // Known losses: arrays become JSON text; a 3-digit colour comes back as 6 digits, with
            // the opacity KML requires.
            for key in pa.keys where pa[key]?.arrayValue != nil && key != "icon-offset" && key != "icon-offset-units" {
                pa[key] = .string(KMLWriter.text(pa[key]!))
            }
            if let fill = pa["fill"]?.stringValue, fill.count == 7, pb["fill-opacity"] == .integer(1), pa["fill-opacity"] == nil {
                pb["fill-opacity"] = nil
            }
            for key in ["stroke", "fill"] {
                if let short = pa[key]?.stringValue, short.count == 4 {
                    pa[key] = .string("#" + short.dropFirst().map { "\($0)\($0)" }.joined())
                }
            }
            #expect(sameJSON(.object(pa), .object(pb)), "\(name): \(pa) ≠ \(pb)")
        }
    }

    @Test func writesSharedStylesFoldersAndTracks() throws {
        let line = Geometry.lineString(LineString([Position(longitude: 1, latitude: 2, altitude: 3),
                                                    Position(longitude: 4, latitude: 5, altitude: 6)]))
        let features = [
            Feature(geometry: line, properties: ["name": "a & b", "stroke": "#ff0000", "stroke-width": 2, "folder": "Trips/2024",
                                                 "coordinateProperties": ["times": ["2024-01-01T00:00:00Z", "2024-01-01T00:01:00Z"],
                                                                          "hr": [90, 95]]]),
            Feature(geometry: line, properties: ["stroke": "#ff0000", "stroke-width": 2, "folder": "Trips/2024", "visibility": false]),
            Feature(geometry: nil, properties: ["folder": "Other", "count": 3, "flag": true, "missing": nil]),
        ]
        let kml = try writeKML(features)
        #expect(kml.components(separatedBy: "<Style id=").count == 2)  // one shared style for both lines
        #expect(kml.components(separatedBy: "<Folder>").count == 4)     // Trips, 2024, Other
        #expect(kml.contains("<gx:Track>") && kml.contains("<when>2024-01-01T00:00:00Z</when>"))
        #expect(kml.contains("<name>a &amp; b</name>"))
        let back = try readKML(text: kml)
        #expect(back[0].properties?["folder"] == "Trips/2024")
        #expect(back[0].properties?["stroke"] == "#ff0000")
        #expect(back[0].properties?["coordinateProperties"]?.objectValue?["times"]?.arrayValue?.count == 2)
        #expect(back[0].geometry == line)
        #expect(back[1].properties?["visibility"] == .bool(false))
        #expect(back[2].properties?["folder"] == "Other")
        #expect(back[2].properties?["count"] == .integer(3))
        #expect(back[2].properties?["flag"] == .bool(true))
        #expect(back[2].properties?["missing"] == .null)
    }

    /// A track's per-position arrays come back with their types: the Schema types each as a
    /// gx:SimpleArrayField (they came back as strings without one), a name that is also a
    /// property gets one type for both, and a null stays null.
    @Test func trackArraysRoundTripWithTheirTypes() throws {
        let line = Geometry.lineString(LineString([Position(longitude: 1, latitude: 2), Position(longitude: 4, latitude: 5),
                                                    Position(longitude: 6, latitude: 7)]))
        let arrays: JSONObject = ["times": ["2024-01-01T00:00:00Z", "2024-01-01T00:01:00Z", "2024-01-01T00:02:00Z"],
                                  "hr": [90, 95, nil], "speed": [1.5, 2.0, 2.25], "moving": [true, false, true],
                                  "note": ["a", "b c", "d"], "cadence": [80, 81, 82]]
        let features = [Feature(geometry: line, properties: ["name": "run", "cadence": 1.5, PositionData.member: .object(arrays)])]
        let kml = try writeKML(features)
        #expect(kml.contains("<gx:SimpleArrayField name=\"hr\" type=\"int\"/>"), "\(kml)")
        let back = try readKML(text: kml)
        let data = try #require(back.first?.properties?[PositionData.member]?.objectValue)
        #expect(data["hr"] == [90, 95, nil])
        #expect(data["speed"] == [1.5, 2.0, 2.25])
        #expect(data["moving"] == [true, false, true])
        #expect(data["note"] == ["a", "b c", "d"])
        #expect(data["times"] == arrays["times"])
        // `cadence` is a double property and an integer array: both are doubles' field, read back as numbers.
        #expect(data["cadence"]?.arrayValue?.compactMap(\.doubleValue) == [80, 81, 82])
        #expect(back.first?.properties?["cadence"] == .double(1.5))
    }

    @Test func kmzRoundTrips() throws {
        let original = try readAll(path: fixture("geojson/edge-cases.geojson")).features.filter { $0.geometry?.type == .polygon }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kmz-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("out.kmz").path
        let output = try FeatureOutput(path: path)
        try copyFeatures(from: FeatureList(original), to: output.writer)
        try output.commit()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).starts(with: [0x50, 0x4B, 0x03, 0x04]))
        let back = try readKML(path).features
        #expect(back.map(\.geometry) == original.map(\.geometry))
    }
}
