import Foundation
import MeridianCore
import MeridianGeometry
import Testing
@testable import MeridianFormats

/// Reads a file in any format into features.
func readFeatures(path: String, format: String? = nil) throws -> [Feature] {
    let input = try FeatureInput(path: path, format: format)
    return try FeatureList(reading: input.reader).features
}

/// Writes features in `format` to memory and reads them back with the same format.
func roundTrip(_ features: [Feature], format: String, options: WriteOptions = .init()) throws -> (text: String, features: [Feature]) {
    let registry = FormatRegistry.standard
    let sink = OutputSink(collectingAs: "out")
    let writer = try registry.format(named: format).writer(for: sink, options: options)
    try copyFeatures(from: FeatureList(features), to: writer)
    let text = sink.collectedText()
    if format == "gpx" { #expect(gpxSchemaProblems(text: text) == nil) }
    let reader = try registry.format(named: format).reader(for: BufferedInput(string: text, name: "out.\(format)"))
    return (text, try FeatureList(reading: reader).features)
}

/// The positions of a geometry, bit for bit, in order.
func positions(_ geometry: Geometry?) -> [[UInt64]] {
    var out: [[UInt64]] = []
    geometry?.forEachPosition { out.append([$0.longitude.bitPattern, $0.latitude.bitPattern, $0.altitude?.bitPattern ?? 0]) }
    return out
}

/// Natural Earth's sample countries and every togeojson fixture's features.
func roundTripCorpus() throws -> [Feature] {
    var features = try readFeatures(path: fixture("geojson/ne_10m_countries_sample.geojson"))
    let folder = fixtures.appendingPathComponent("kml/togeojson")
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where name.hasSuffix(".kml") {
        features += try readFeatures(path: folder.appendingPathComponent(name).path)
    }
    return features
}

@Suite struct TextFormatRoundTrips {
    @Test(arguments: ["wkt", "wkb", "csv"])
    func geometryComesBackExactly(_ format: String) throws {
        let features = try roundTripCorpus()
        #expect(features.count > 90)
        let back = try roundTrip(features, format: format).features
        #expect(back.count == features.count)
        for (a, b) in zip(features, back) {
            #expect(a.geometry == b.geometry, "\(format): \(a.properties?["name"] ?? a.properties?["NAME"] ?? "?")")
            #expect(positions(a.geometry) == positions(b.geometry))
        }
    }

    @Test func gpxKeepsEveryPositionOfLinesRingsAndPoints() throws {
        let features = try roundTripCorpus()
        let (text, back) = try roundTrip(features, format: "gpx")
        // GPX has points, routes and tracks: each input position comes back, in order, with
        // longitude 180 written as -180 (the schema's range is [-180, 180)).
        func flattened(_ list: [Feature]) -> [[UInt64]] {
            list.flatMap { positions($0.geometry) }.map { p in
                p[0] == (180.0).bitPattern ? [(-180.0).bitPattern, p[1], p[2]] : p
            }
        }
        let points = features.filter { if case .point = $0.geometry { true } else { false } }
        let others = features.filter { if case .point = $0.geometry { false } else { $0.geometry != nil } }
        // Waypoints come first in GPX, then routes, then tracks.
        #expect(flattened(back).sorted { $0.lexicographicallyPrecedes($1) }
                == flattened(points + others).sorted { $0.lexicographicallyPrecedes($1) })
        #expect(text.contains("<trk>") && text.contains("<wpt "))
        #expect(text.firstMatch(of: #/(lat|lon)="[^"]*[eE]|<ele>[^<]*[eE]/#) == nil, "GPX numbers are xsd:decimal, never exponents")
    }
}

@Suite struct WKTTests {
    @Test func readsTheForms() throws {
        let cases: [(String, Geometry?)] = [
            ("POINT (1 2)", .point(Point(Position(longitude: 1, latitude: 2)))),
            ("point z(1 2 3)", .point(Point(Position(longitude: 1, latitude: 2, altitude: 3)))),
            ("POINTZ (1 2 3)", .point(Point(Position(longitude: 1, latitude: 2, altitude: 3)))),
            ("POINT M (1 2 9)", .point(Point(Position(longitude: 1, latitude: 2)))),
            ("POINT ZM (1 2 3 9)", .point(Point(Position(longitude: 1, latitude: 2, altitude: 3)))),
            ("SRID=4326;POINT(.5 -1.)", .point(Point(Position(longitude: 0.5, latitude: -1)))),
            ("MULTIPOINT (1 2, 3 4)", .multiPoint(MultiPoint([Position(longitude: 1, latitude: 2), Position(longitude: 3, latitude: 4)]))),
            ("MULTIPOINT ((1 2), (3 4))", .multiPoint(MultiPoint([Position(longitude: 1, latitude: 2), Position(longitude: 3, latitude: 4)]))),
            ("POLYGON EMPTY", nil),
            ("GEOMETRYCOLLECTION (POINT (1 2), LINESTRING EMPTY)", .geometryCollection(GeometryCollection([.point(Point(Position(longitude: 1, latitude: 2)))]))),
        ]
        for (text, expected) in cases {
            #expect(try WKT.parse(Array(text.utf8)) == expected, "\(text)")
        }
    }

    @Test func writesISOForm() {
        let line = Geometry.lineString(LineString([Position(longitude: 1, latitude: 2, altitude: 3), Position(longitude: 4.5, latitude: 5)]))
        #expect(WKT.text(line) == "LINESTRING Z (1.0 2.0 3.0, 4.5 5.0 0.0)")
        #expect(WKT.text(.multiPoint(MultiPoint([Position(longitude: 1, latitude: 2)]))) == "MULTIPOINT ((1.0 2.0))")
        #expect(WKT.text(.polygon(Polygon([]))) == "POLYGON EMPTY")
        #expect(WKT.text(.point(Point(Position(longitude: 1.23456789, latitude: 2))), precision: 3) == "POINT (1.235 2.0)")
    }

    @Test(arguments: [("POINT (1 2", 11), ("POINT (1 x)", 10), ("TRIANGLE ((0 0, 1 0, 0 1, 0 0))", 1), ("POINT (1 2) extra", 13)])
    func errorsNameTheColumn(_ text: String, _ column: Int) {
        do {
            _ = try WKT.parse(Array(text.utf8), location: SourceLocation(file: "x.wkt", line: 7, column: 1))
            Issue.record("\(text) parsed")
        } catch let error as MeridianError {
            #expect(error.location?.line == 7)
            #expect(error.location?.column == column, "\(text): \(error)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func wkbReadsBothByteOrdersAndEWKB() throws {
        // POINT (1 2), big-endian; and EWKB with SRID 4326 and the Z flag.
        let big = WKB.bytes(fromHex: Array("00000000013FF00000000000004000000000000000".utf8))!
        #expect(try WKB.decode(big) == .point(Point(Position(longitude: 1, latitude: 2))))
        let ewkb = WKB.bytes(fromHex: Array("01010000A0E6100000000000000000F03F00000000000000400000000000000840".utf8))!
        #expect(try WKB.decode(ewkb) == .point(Point(Position(longitude: 1, latitude: 2, altitude: 3))))
        // A count larger than the bytes left is an error, not a huge allocation.
        let lying = WKB.bytes(fromHex: Array("0102000000FFFFFF7F".utf8))!
        #expect(throws: MeridianError.self) { try WKB.decode(lying) }
    }
}

@Suite struct CSVTests {
    func read(_ text: String) throws -> [Feature] {
        try FeatureList(reading: CSVReader(input: BufferedInput(string: text, name: "t.csv"))).features
    }

    @Test func pointsGetLongitudeAndLatitudeColumns() throws {
        let features = [
            Feature(geometry: .point(Point(Position(longitude: -122.5, latitude: 37.75))), properties: ["name": .string("a, \"quoted\"\nline"), "n": .integer(3)]),
            Feature(geometry: nil, properties: ["name": .string(" padded "), "ok": .bool(true)]),
        ]
        let (text, back) = try roundTrip(features, format: "csv")
        #expect(text.hasPrefix("longitude,latitude,name,n,ok\r\n-122.5,37.75,\"a, \"\"quoted\"\"\nline\",3,\r\n"))
        #expect(back[0].geometry == features[0].geometry)
        #expect(back[0].properties?["name"] == .string("a, \"quoted\"\nline"))
        #expect(back[0].properties?["n"] == .integer(3))
        #expect(back[1].geometry == nil)
        #expect(back[1].properties?["name"] == .string(" padded "))
        #expect(back[1].properties?["ok"] == .bool(true))
    }

    /// A cell beyond a double's range stays text (it was read as infinity and written as
    /// `inf`, which no JSON reader takes), and whatever holds a NaN or an infinity (a GDAL
    /// field, a vector tile's value) is written to GeoJSON as null, so the output always reads back.
    @Test func numbersBeyondRangeStayTextAndNonFiniteIsWrittenAsNull() throws {
        let features = try read("name,big,small,fine\na,1e999,-1e999,1e308\n")
        #expect(features.first?.properties?["big"] == .string("1e999"))
        #expect(features.first?.properties?["small"] == .string("-1e999"))
        #expect(features.first?.properties?["fine"] == .double(1e308))
        let nonFinite = [Feature(geometry: nil, properties: ["nan": .double(.nan), "inf": .double(.infinity), "neg": .double(-.infinity), "one": .double(1.5)])]
        for format in ["geojson", "geojsonseq"] {
            let (text, back) = try roundTrip(nonFinite, format: format)
            #expect(text.contains("\"nan\":null") && text.contains("\"inf\":null") && text.contains("\"neg\":null"), "\(text)")
            #expect(back.first?.properties?["one"] == .double(1.5) && back.first?.properties?["nan"] == .null)
        }
    }

    @Test func readsSemicolonsTabsAndOtherColumnNames() throws {
        let semicolons = try read("lat;lng;label\n48.85;2.35;Paris\n")
        #expect(semicolons.first?.geometry == .point(Point(Position(longitude: 2.35, latitude: 48.85))))
        let tabs = try read("the_geom\tlabel\nPOINT (1 2)\tx\n")
        #expect(tabs.first?.geometry == .point(Point(Position(longitude: 1, latitude: 2))))
        #expect(tabs.first?.properties?["label"] == .string("x"))
    }

    @Test func anUnclosedQuoteNamesItsLine() {
        do {
            _ = try read("WKT,name\nPOINT (1 2),ok\nPOINT (3 4),\"never closed\n")
            Issue.record("parsed")
        } catch let error as MeridianError {
            #expect(error.kind == .badInput)
            #expect(error.location?.line == 3)
        } catch {
            Issue.record("\(error)")
        }
    }
}

@Suite struct GPXTests {
    /// An elevation beyond a double's range is no altitude (it was read as infinity and written
    /// into GeoJSON's coordinates as `inf`), as an elevation that is not a number is not.
    @Test func anElevationBeyondRangeIsNoAltitude() throws {
        let gpx = "<gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\"><wpt lat=\"1\" lon=\"2\"><ele>1e999</ele></wpt></gpx>"
        let features = try FeatureList(reading: FormatRegistry.standard.format(named: "gpx").reader(for: BufferedInput(string: gpx, name: "t.gpx"))).features
        #expect(features.first?.geometry == .point(Point(Position(longitude: 2, latitude: 1))))
    }

    @Test func readsWaypointsRoutesAndTracksAsTogeojsonDoes() throws {
        let features = try readFeatures(path: fixture("gpx/mixed.gpx"))
        #expect(features.map { $0.properties?["_gpxType"]?.stringValue } == ["wpt", "rte", "trk"])
        #expect(features[0].geometry == .point(Point(Position(longitude: -122.4177, latitude: 37.808, altitude: 3.5))))
        #expect(features[0].properties?["name"] == .string("Pier 39"))
        #expect(features[0].properties?["time"] == .string("2026-05-01T09:00:00Z"))
        guard case .multiLineString(let track)? = features[2].geometry else {
            Issue.record("the two-segment track is not a MultiLineString")
            return
        }
        #expect(track.lines.count == 2)
        let times = features[2].properties?["coordinateProperties"]?.objectValue?["times"]?.arrayValue
        #expect(times?.count == 2 && times?[1].arrayValue?.last == .string("2026-05-01T09:06:00Z"))
    }

    @Test func writesInTheSchemasOrderAndReadsBack() throws {
        let original = try readFeatures(path: fixture("gpx/mixed.gpx"))
        // Tracks first, to check the writer puts waypoints, then routes, then tracks.
        let (text, back) = try roundTrip(original.reversed(), format: "gpx")
        let wpt = text.range(of: "<wpt")!.lowerBound, rte = text.range(of: "<rte>")!.lowerBound, trk = text.range(of: "<trk>")!.lowerBound
        #expect(wpt < rte && rte < trk)
        #expect(back.map(\.geometry) == original.map(\.geometry))
        #expect(back.map { $0.properties?["coordinateProperties"] } == original.map { $0.properties?["coordinateProperties"] })
        #expect(back[0].properties?["sym"] == .string("Flag"))
    }
}

/// Each format's own write settings go to its writer only: another format's writer refuses
/// them, before any output is opened, rather than ignore them.
@Suite struct FormatWriteOptionsTests {
    @Test func anotherFormatsSettingsAreRefused() throws {
        let sink = OutputSink(collectingAs: "out")
        #expect(throws: FormatOptionsMismatch.self) {
            try FeatureFormat.kml.writer(for: sink, options: WriteOptions(formatOptions: GPXWriteOptions(routes: true)))
        }
        #expect(throws: FormatOptionsMismatch.self) {
            try FeatureFormat.geoJSONSeq.writer(for: sink, options: WriteOptions(formatOptions: GeoJSONWriteOptions(pretty: true)))
        }
        _ = try FeatureFormat.gpx.writer(for: sink, options: WriteOptions(formatOptions: GPXWriteOptions(routes: true)))
        try withTemporaryFolderPath { folder in
            #expect(throws: FormatOptionsMismatch.self) {
                try FeatureOutput(path: folder + "/out.csv", options: WriteOptions(formatOptions: MapKitSourceOptions()))
            }
            let left = try FileManager.default.contentsOfDirectory(atPath: folder)
            #expect(left.isEmpty)
        }
    }

    /// Every registered format names a media type, and the type of settings it declares is the
    /// one it takes.
    @Test func everyFormatDeclaresItself() {
        for format in FormatRegistry.standard.formats {
            #expect(format.mediaType.contains("/"), "\(format.id)")
            if let type = format.writeOptionsType { #expect(format.takes(type.init()), "\(format.id)") }
        }
    }

    /// GPX's own setting reaches its writer: lines become routes.
    @Test func gpxRoutesReachTheWriter() throws {
        let line = Feature(geometry: .lineString(LineString([Position(longitude: 1, latitude: 2), Position(longitude: 3, latitude: 4)])))
        let (routes, _) = try roundTrip([line], format: "gpx", options: WriteOptions(formatOptions: GPXWriteOptions(routes: true)))
        let (tracks, _) = try roundTrip([line], format: "gpx")
        #expect(routes.contains("<rte>") && !routes.contains("<trk>"))
        #expect(tracks.contains("<trk>") && !tracks.contains("<rte>"))
    }
}
