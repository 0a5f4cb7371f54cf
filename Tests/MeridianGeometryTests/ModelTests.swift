import Testing
@testable import MeridianGeometry

@Suite struct PositionTests {
    @Test func identityTellsSignedZerosApart() {
        let a = Position(longitude: 0.0, latitude: 1)
        let b = Position(longitude: -0.0, latitude: 1)
        #expect(a == b)  // IEEE equality
        #expect(!a.isIdentical(to: b))
        #expect(a.isIdentical(to: a))
        #expect(!Position(longitude: 1, latitude: 2).isIdentical(to: Position(longitude: 1, latitude: 2, altitude: 0)))
    }

    @Test func describesInGeoJSONOrder() {
        #expect(Position(longitude: 8.5, latitude: 47.25).description == "[8.5, 47.25]")
        #expect(Position(longitude: 8.5, latitude: 47.25, altitude: 400).description == "[8.5, 47.25, 400.0]")
    }
}

@Suite struct GeometryTests {
    static let square: [Position] = [
        .init(longitude: 0, latitude: 0), .init(longitude: 1, latitude: 0),
        .init(longitude: 1, latitude: 1), .init(longitude: 0, latitude: 0),
    ]

    @Test func countsPositionsOfEveryType() {
        let line = Geometry.lineString(LineString(Self.square))
        let polygon = Geometry.polygon(Polygon([Self.square, Self.square]))
        let multi = Geometry.multiPolygon(MultiPolygon([Polygon([Self.square]), Polygon([Self.square, Self.square])]))
        let collection = Geometry.geometryCollection(GeometryCollection([
            .point(Point(.init(longitude: 5, latitude: 5))), line, polygon, multi,
            .multiPoint(MultiPoint(Self.square)), .multiLineString(MultiLineString([Self.square])),
        ]))
        #expect(line.positionCount == 4)
        #expect(polygon.positionCount == 8)
        #expect(multi.positionCount == 12)
        #expect(collection.positionCount == 1 + 4 + 8 + 12 + 4 + 4)
        var visited = 0
        collection.forEachPosition { _ in visited += 1 }
        #expect(visited == collection.positionCount)
        #expect(collection.type == .geometryCollection)
        #expect(Geometry.multiPoint(MultiPoint([])).isEmpty)
    }

    @Test func coordinateDepthFollowsTheType() {
        #expect(GeometryType.point.coordinateDepth == 0)
        #expect(GeometryType.multiPoint.coordinateDepth == 1)
        #expect(GeometryType.polygon.coordinateDepth == 2)
        #expect(GeometryType.multiPolygon.coordinateDepth == 3)
        #expect(GeometryType.geometryCollection.coordinateDepth == nil)
    }

    @Test func boundingBoxOfAGeometry() throws {
        let box = try #require(Geometry.lineString(LineString([
            .init(longitude: -10, latitude: 5), .init(longitude: 20, latitude: -7),
        ])).boundingBox)
        #expect(box == BoundingBox(west: -10, south: -7, east: 20, north: 5))
        #expect(Geometry.multiPoint(MultiPoint([])).boundingBox == nil)
    }
}

@Suite struct BoundingBoxTests {
    @Test func altitudeOnlyWhenEveryPositionHasOne() throws {
        var all3D = BoundingBox.Accumulator()
        all3D.add(Position(longitude: 1, latitude: 2, altitude: 10))
        all3D.add(Position(longitude: 3, latitude: 4, altitude: -5))
        let box = try #require(all3D.result)
        #expect(box.values == [1, 2, -5, 3, 4, 10])

        var mixed = all3D
        mixed.add(Position(longitude: 0, latitude: 0))
        #expect(try #require(mixed.result).values == [0, 0, 3, 4])
    }

    @Test func readsFourOrSixNumbers() {
        #expect(BoundingBox(values: [1, 2, 3, 4]) == BoundingBox(west: 1, south: 2, east: 3, north: 4))
        #expect(BoundingBox(values: [1, 2, 0, 3, 4, 9])?.maxAltitude == 9)
        #expect(BoundingBox(values: [1, 2, 3]) == nil)
    }

    @Test func acrossTheAntimeridianOnlyWhenNoPositionIsNearGreenwich() throws {
        func box(_ longitudes: [Double]) -> BoundingBox? {
            var accumulator = BoundingBox.Accumulator()
            for (index, longitude) in longitudes.enumerated() { accumulator.add(Position(longitude: longitude, latitude: Double(-index))) }
            return accumulator.resultAcrossAntimeridian
        }
        // Fiji: both sides of 180°, west > east as RFC 7946 §5.2 writes it.
        #expect(box([177.2, -179.8, 179.9, -178.5]) == BoundingBox(west: 177.2, south: -3, east: -178.5, north: 0))
        // One side only, or data within 90° of Greenwich: an ordinary box.
        #expect(box([170, 175, 180]) == BoundingBox(west: 170, south: -2, east: 180, north: 0))
        #expect(box([-120, 140, -89.5]) == BoundingBox(west: -120, south: -2, east: 140, north: 0))
        #expect(box([]) == nil)
        // `result` never crosses.
        var accumulator = BoundingBox.Accumulator()
        accumulator.add(Position(longitude: 179, latitude: 0))
        accumulator.add(Position(longitude: -179, latitude: 0))
        #expect(accumulator.result == BoundingBox(west: -179, south: 0, east: 179, north: 0))
        let line = Geometry.lineString(LineString([.init(longitude: 179, latitude: -16), .init(longitude: -179, latitude: -17)]))
        #expect(line.boundingBox == BoundingBox(west: 179, south: -17, east: -179, north: -16))
    }

    @Test func union() {
        let a = BoundingBox(west: 0, south: 0, east: 1, north: 1)
        let b = BoundingBox(west: -5, south: 0.5, east: 0.5, north: 3)
        #expect(a.union(b) == BoundingBox(west: -5, south: 0, east: 1, north: 3))
    }
}

@Suite struct JSONValueTests {
    @Test func literalsKeepIntegersApartFromDoubles() {
        let value: JSONValue = ["a": 1, "b": 1.0, "c": [nil, true, "x"]]
        let object = value.objectValue!
        #expect(Array(object.keys) == ["a", "b", "c"])
        #expect(object["a"] == .integer(1))
        #expect(object["b"] == .double(1.0))
        #expect(object["a"] != object["b"])
        #expect(object["a"]?.doubleValue == 1.0)
        #expect(object["c"]?.arrayValue?.map(\.typeName) == ["null", "boolean", "string"])
    }
}

@Suite struct DatasetSummaryTests {
    @Test func summarisesFeatures() throws {
        var summary = DatasetSummary()
        summary.add(Feature(geometry: .point(Point(.init(longitude: 1, latitude: 2, altitude: 3))),
                            properties: ["name": "a", "n": 1]))
        summary.add(Feature(geometry: nil, properties: ["name": nil, "other": 2.5]))
        summary.add(Feature(geometry: .lineString(LineString(GeometryTests.square)), properties: nil))
        #expect(summary.featureCount == 3)
        #expect(summary.nullGeometryCount == 1)
        #expect(summary.geometryTypes.elements.map(\.key) == [.point, .lineString])
        #expect(summary.positionCount == 5)
        #expect(summary.positionsWithAltitude == 1)
        #expect(summary.boundingBox == BoundingBox(west: 0, south: 0, east: 1, north: 2))
        #expect(Array(summary.propertyKeys.keys) == ["name", "n", "other"])
        #expect(Array(try #require(summary.propertyKeys["name"]).types) == ["string", "null"])
        #expect(summary.propertyKeys["name"]?.count == 2)
    }
}
