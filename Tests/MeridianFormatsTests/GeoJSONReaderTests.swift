import Foundation
import MeridianCore
import Testing
import MeridianGeometry
@testable import MeridianFormats

@Suite struct GeoJSONReaderTests {
    @Test func readsEveryEdgeCase() throws {
        let result = try readAll(path: fixture("geojson/edge-cases.geojson"))
        let f = result.features
        try #require(f.count == 6)

        // Unicode and nested objects in properties; a string id; 3D position.
        #expect(f[0].id == .string("a-1"))
        #expect(f[0].properties?["name"] == .string("Zürich ☃ 東京 🗺"))
        #expect(f[0].properties?["nested"] == ["list": [1, 2.5, "x", nil, true, ["deep": [[]]]], "empty": [:]])
        #expect(f[0].geometry == .point(Point(Position(longitude: 8.5417, latitude: 47.3769, altitude: 408))))

        // Numeric id; null properties kept apart from {}; null geometry.
        #expect(f[1].id == .integer(42))
        #expect(f[1].properties == nil)
        #expect(f[1].geometry == nil)
        #expect(f[2].id == .double(1.5))
        #expect(f[2].properties == [:])

        // GeometryCollection, nested, with 1e-7, -0.0 and an empty MultiPoint.
        guard case .geometryCollection(let collection)? = f[2].geometry else {
            Issue.record("expected a GeometryCollection")
            return
        }
        #expect(collection.geometries.count == 3)
        guard case .point(let point) = collection.geometries[0] else { return }
        #expect(point.coordinates.longitude == 1e-7)
        #expect(point.coordinates.latitude.bitPattern == (-0.0).bitPattern)
        #expect(collection.geometries[2] == .geometryCollection(GeometryCollection([.multiPoint(MultiPoint([]))])))

        // Members in any order ("type" last), escapes, foreign members kept in order.
        #expect(f[3].properties?["escapes"] == .string("quote \" backslash \\ slash / tab \t newline \n nul \u{0} é é clef 𝄞"))
        #expect(f[3].geometry?.type == .polygon)
        #expect(f[3].geometry?.positionCount == 8)
        #expect(Array(f[3].foreignMembers.keys) == ["title", "extra"])
        #expect(f[3].foreignMembers["extra"] == ["kept": true])

        // bbox, numbers at the edges of their types.
        #expect(f[4].bbox == BoundingBox(west: 100, south: 0, east: 101, north: 1))
        let numbers = try #require(f[4].properties)
        #expect(numbers["big"] == .double(1.2345678901234567e19))  // beyond Int64: the nearest double
        #expect(numbers["min"] == .integer(.min))
        #expect(numbers["tiny"] == .double(.leastNonzeroMagnitude))
        #expect(numbers["huge"] == .double(.greatestFiniteMagnitude))
        #expect(numbers["neg"]?.doubleValue?.sign == .minus)
        #expect(f[4].geometry?.type == .multiPolygon)
        #expect(f[5].geometry?.type == .multiLineString)

        // Collection members before and after "features".
        #expect(result.metadata.members == ["name": "edge cases"])
        #expect(Array(result.trailing.members.keys) == ["crs", "generator"])
        // Latitude 1e+2 is off the globe: kept, with one warning at its feature.
        #expect(result.warnings.map(\.location?.line) == [7])
        #expect(result.warnings.first?.message.hasPrefix("the position [1e-07, 100.0] lies outside ±90° latitude and ±180° longitude") == true)
    }

    @Test func everyChunkBoundaryGivesTheSameFeatures() throws {
        for file in ["geojson/edge-cases.geojson", "geojson/ne_10m_countries_sample.geojson"] {
            let whole = try readAll(path: fixture(file))
            for chunkSize in [1, 2, 3, 7, 64, 1000] where file.contains("edge") || chunkSize >= 7 {
                let chunked = try readAll(path: fixture(file), chunkSize: chunkSize)
                #expect(identical(chunked.features, whole.features), "\(file) read \(chunkSize) bytes at a time")
                #expect(chunked.trailing == whole.trailing)
            }
        }
    }

    @Test func memoryHoldsOneFeatureNotTheFile() throws {
        // 20,000 features (about 2 MB) stream through a buffer that never grows past 64 KiB.
        var text = "{\"type\":\"FeatureCollection\",\"features\":["
        for i in 0..<20_000 {
            if i > 0 { text += ",\n" }
            text += "{\"type\":\"Feature\",\"properties\":{\"i\":\(i)},\"geometry\":{\"type\":\"LineString\",\"coordinates\":[[\(i).5,1.25],[2.5,3.75]]}}"
        }
        text += "]}"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-stream-\(UUID()).geojson").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let input = try BufferedInput.open(path)
        let reader = GeoJSONReader(input: input)
        var count = 0
        while try reader.next() != nil { count += 1 }
        #expect(count == 20_000)
        #expect(input.capacity <= 1 << 16)
    }

    @Test func readsTextSequencesWithAndWithoutRS() throws {
        let lines = try readAll(path: fixture("geojson/sequence.geojsonl"))
        #expect(lines.features.count == 3)
        #expect(lines.features[2].geometry?.type == .lineString)
        #expect(lines.features[1].properties == ["n": 2])

        let rs = try readAll(path: fixture("geojson/sequence-rs.geojsons"), layout: .sequence)
        #expect(rs.features.count == 2)
        #expect(rs.features[1].geometry == nil)

        // Sniffed: the RS byte alone says "sequence".
        let sniffed = try readAll(path: fixture("geojson/sequence-rs.geojsons"))
        #expect(sniffed.features == rs.features)
    }

    @Test func readsABareGeometryAndAnEmptyCollection() throws {
        let bare = try readAll(path: fixture("geojson/bare-geometry.geojson"))
        #expect(bare.features.count == 1)
        #expect(bare.features[0].geometry?.positionCount == 2)
        #expect(try readAll(path: fixture("geojson/empty-collection.geojson")).features.isEmpty)
        #expect(try readAll(text: "\u{FEFF}{\"type\":\"FeatureCollection\",\"features\":[]}").features.isEmpty)
    }

    @Test func warnsButKeepsGoing() throws {
        let result = try readAll(text: """
            {"type": "FeatureCollection", "crs": {"type": "name", "properties": {"name": "EPSG:3857"}},
             "features": [{"type": "Feature", "properties": {"a": 1, "a": 2},
                           "geometry": {"type": "Point", "coordinates": [1, 2, 3, 4]}}]}
            """)
        #expect(result.features[0].properties == ["a": 2])
        #expect(result.features[0].geometry == .point(Point(Position(longitude: 1, latitude: 2, altitude: 3))))
        let messages = result.warnings.map(\.message)
        #expect(messages.contains { $0.contains("duplicate key \"a\"") })
        #expect(messages.contains { $0.contains("more than three numbers") })
        #expect(messages.contains { $0.contains("EPSG:3857") })
        #expect(result.warnings.first { $0.message.contains("duplicate") }?.location?.line == 2)
    }

    @Test func severalObjectsOnOneLineAreTrailingData() throws {
        #expect {
            try readAll(text: #"{"type":"Point","coordinates":[1,2]} {"type":"Point","coordinates":[3,4]}"#)
        } throws: { error in
            guard let error = error as? GeoJSONTrailingData else { return false }
            return error.kind == .badInput && error.nextStartsObject && !error.afterCollection && error.location?.line == 1
        }
        #expect(throws: GeoJSONTrailingData.self) {
            try readAll(text: "{\"type\":\"Point\",\"coordinates\":[1,2]}\n{\"type\":\"Point\",\"coordinates\":[3,4]}", layout: .document)
        }
    }

    /// Tests/Fixtures/malformed/expected.tsv: each broken file (read by the format its extension
    /// names), where the error is ("line:column", or "line" where a format has no columns or
    /// expat's column is not stable), what it says.
    @Test(arguments: try malformedCases())
    func malformedInputIsRejectedWithItsLocation(_ testCase: MalformedCase) throws {
        do {
            let input = try FeatureInput(path: fixture("malformed/\(testCase.file)"))
            _ = try FeatureList(reading: input.reader)
            Issue.record("\(testCase.file) was accepted")
        } catch let error as any MeridianFailure {
            #expect(error.kind == .badInput)
            if testCase.isExpats {
                // expat's words and column vary with its version; its line does not.
                #expect(error.location?.line.map(String.init) == testCase.lineColumn)
            } else {
                #expect(error.location.map { [$0.line, $0.column].compactMap { $0.map(String.init) }.joined(separator: ":") } == testCase.lineColumn)
                #expect(error.message.contains(testCase.message), "\(error.message)")
            }
        }
    }
}

struct MalformedCase: CustomTestStringConvertible, Sendable {
    var file: String
    var lineColumn: String
    var message: String
    var testDescription: String { file }
    /// The fault is expat's to find, in words of its own.
    var isExpats: Bool { message == "(expat's words)" }
}

func malformedCases() throws -> [MalformedCase] {
    try fixtureTable("malformed/expected.tsv").map { fields in
        MalformedCase(file: fields[0], lineColumn: fields[1], message: fields[2])
    }
}
