import Testing
@testable import MeridianGeometry

/// Per-position arrays (coordinateProperties) follow their positions through every transform
/// that drops, adds or moves positions, or are dropped, never left on the wrong positions.
@Suite struct PositionDataTests {
    /// A zigzag track heading east, a minute between positions, with a heart rate at each.
    func track(_ count: Int = 40) -> Feature {
        let positions = (0..<count).map { (i: Int) -> Position in
            let north: Double = i % 2 == 0 ? 0 : 0.002 * Double(i % 7)
            return Position(longitude: 8 + Double(i) * 0.001, latitude: 47 + north)
        }
        let times: [JSONValue] = (0..<count).map { .string(Self.time(minutes: $0)) }
        let rates: [JSONValue] = (0..<count).map { .integer(Int64(100 + $0)) }
        return Feature(geometry: .lineString(LineString(positions)),
                       properties: [PositionData.member: .object(["times": .array(times), "hr": .array(rates)])])
    }

    static func time(minutes: Int, seconds: Int = 0) -> String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "2024-05-04T\(two(7 + minutes / 60)):\(two(minutes % 60)):\(two(seconds))Z"
    }

    func arrays(_ feature: Feature) -> JSONObject? { feature.properties?[PositionData.member]?.objectValue }

    /// The index in `original` of each position of `line` that is one of its positions.
    func indices(of line: [Position], in original: [Position]) -> [Int?] {
        line.map { p in original.firstIndex(of: p) }
    }

    @Test(arguments: SimplifyMethod.allCases)
    func simplifyKeepsEachKeptPositionsValues(_ method: SimplifyMethod) throws {
        var feature = track()
        guard case .lineString(let before)? = feature.geometry else { Issue.record("no line"); return }
        var simplifier = GeometrySimplifier(tolerance: 3000, method: method)
        let dropped = feature.replaceGeometry(with: simplifier.simplify(feature.geometry!))
        #expect(dropped.isEmpty)
        guard case .lineString(let after)? = feature.geometry else { Issue.record("not a line"); return }
        #expect(after.coordinates.count < before.coordinates.count)
        let times = try #require(arrays(feature)?["times"]?.arrayValue)
        let rates = try #require(arrays(feature)?["hr"]?.arrayValue)
        #expect(times.count == after.coordinates.count && rates.count == after.coordinates.count)
        for (i, index) in indices(of: after.coordinates, in: before.coordinates).enumerated() {
            let index = try #require(index)
            #expect(times[i] == .string(Self.time(minutes: index)))
            #expect(rates[i] == .integer(Int64(100 + index)))
        }
        // The issue's example: the end point keeps the end time.
        #expect(times.last == .string(Self.time(minutes: 39)))
    }

    @Test func topologySimplifyKeepsValuesToo() throws {
        var simplifier = GeometrySimplifier(tolerance: 3000, method: .douglasPeucker)
        let before = track()
        let after = try #require(simplifier.simplifyKeepingTopology([before]).first)
        guard case .lineString(let line)? = after.geometry, case .lineString(let original)? = before.geometry else { Issue.record("not a line"); return }
        let times = try #require(arrays(after)?["times"]?.arrayValue)
        #expect(times.count == line.coordinates.count)
        for (i, index) in indices(of: line.coordinates, in: original.coordinates).enumerated() {
            #expect(times[i] == .string(Self.time(minutes: try #require(index))))
        }
    }

    @Test func clipInterpolatesAtTheCutsAndSplitsArraysPerPiece() throws {
        // East along the equator 0…4°, one position a degree, ten minutes apart; the box keeps 0.5…1.5 and 2.5…3.5
        // where the line dips into it twice.
        let positions = [0.0, 1, 2, 3, 4].map { Position(longitude: $0, latitude: $0 == 1 || $0 == 3 ? 0 : 2) }
        var feature = Feature(geometry: .lineString(LineString(positions)), properties: [
            PositionData.member: .object(["times": .array([0, 10, 20, 30, 40].map { .string(Self.time(minutes: $0)) }),
                                          "label": .array(["a", "b", "c", "d", "e"])]),
        ])
        let clipper = GeometryClipper(rect: RectClip(minX: -1, minY: -1, maxX: 5, maxY: 1), plane: .degrees)
        feature.replaceGeometry(with: clipper.clip(feature.geometry!))
        guard case .multiLineString(let pieces)? = feature.geometry else { Issue.record("not two pieces: \(String(describing: feature.geometry))"); return }
        #expect(pieces.lines.map(\.count) == [3, 3])
        let times = try #require(arrays(feature)?["times"]?.arrayValue)
        #expect(times == [
            .array([.string(Self.time(minutes: 5)), .string(Self.time(minutes: 10)), .string(Self.time(minutes: 15))]),
            .array([.string(Self.time(minutes: 25)), .string(Self.time(minutes: 30)), .string(Self.time(minutes: 35))]),
        ])
        // Text between two different values is unknown, not borrowed from a neighbour.
        #expect(arrays(feature)?["label"] == .array([.array([.null, "b", .null]), .array([.null, "d", .null])]))
    }

    @Test func antimeridianSplitAddsTheCrossingOnBothSides() throws {
        let line = [Position(longitude: 178, latitude: 0), Position(longitude: -178, latitude: 4), Position(longitude: -177, latitude: 4)]
        var feature = Feature(geometry: .lineString(LineString(line)), properties: [
            PositionData.member: .object(["hr": [100, 140, 150], "times": ["2024-05-04T07:00:00.5+02:00", "2024-05-04T07:00:10.5+02:00", "2024-05-04T07:00:20.5+02:00"]]),
        ])
        feature.replaceGeometry(with: Antimeridian.cut(feature.geometry!))
        guard case .multiLineString(let parts)? = feature.geometry else { Issue.record("not cut"); return }
        #expect(parts.lines.map(\.count) == [2, 3])
        #expect(arrays(feature)?["hr"] == [[100, 120], [120, 140, 150]])
        #expect(arrays(feature)?["times"] == [["2024-05-04T07:00:00.5+02:00", "2024-05-04T07:00:05.5+02:00"],
                                              ["2024-05-04T07:00:05.5+02:00", "2024-05-04T07:00:10.5+02:00", "2024-05-04T07:00:20.5+02:00"]])
    }

    @Test func densifyInterpolatesBetweenTheInputsPositions() throws {
        let line = [Position(longitude: 0, latitude: 0), Position(longitude: 1, latitude: 0)]
        var feature = Feature(geometry: .lineString(LineString(line)), properties: [
            PositionData.member: .object(["ele": [0.0, 100.0]]),
        ])
        feature.replaceGeometry(with: GreatCircle.densify(feature.geometry!, spacing: 20_000, antimeridian: .split))
        guard case .lineString(let dense)? = feature.geometry else { Issue.record("not a line"); return }
        let values = try #require(arrays(feature)?["ele"]?.arrayValue).compactMap(\.doubleValue)
        #expect(values.count == dense.coordinates.count && dense.coordinates.count > 2)
        for (value, p) in zip(values, dense.coordinates) { #expect(abs(value - p.longitude * 100) < 1e-6) }
    }

    /// A line that goes back over itself (out and back on the same positions): each clipped
    /// piece takes its values from the pass it belongs to, where the return piece took the
    /// outward pass's values (the same points lie on both).
    @Test func aLineBackOverItselfKeepsEachPassesValues() throws {
        let line = [Position(longitude: 0, latitude: 0), Position(longitude: 10, latitude: 10), Position(longitude: 0, latitude: 0)]
        var feature = Feature(geometry: .lineString(LineString(line)), properties: [PositionData.member: .object(["minute": [0, 10, 20]])])
        let clipper = GeometryClipper(rect: RectClip(minX: 4, minY: 4, maxX: 6, maxY: 6), plane: .degrees)
        #expect(feature.replaceGeometry(with: clipper.clip(feature.geometry!)).isEmpty)
        guard case .multiLineString(let pieces)? = feature.geometry else { Issue.record("not two pieces: \(String(describing: feature.geometry))"); return }
        #expect(pieces.lines.map(\.count) == [2, 2])
        #expect(arrays(feature)?["minute"] == [[4, 6], [14, 16]])
    }

    /// A 3D line's new positions (a clip's cut ends, the antimeridian crossing, densified
    /// points) get altitudes in proportion along their input segment, never none among 3D ones.
    @Test func newPositionsOfA3DLineGetAltitudesInProportion() throws {
        let line = [Position(longitude: 0, latitude: 0, altitude: 100), Position(longitude: 2, latitude: 0, altitude: 300),
                    Position(longitude: 4, latitude: 0, altitude: 100)]
        var clipped = Feature(geometry: .lineString(LineString(line)), properties: [:])
        let clipper = GeometryClipper(rect: RectClip(minX: 1, minY: -1, maxX: 3.5, maxY: 1), plane: .degrees)
        clipped.replaceGeometry(with: clipper.clip(clipped.geometry!))
        guard case .lineString(let piece)? = clipped.geometry else { Issue.record("not a line"); return }
        #expect(piece.coordinates == [Position(longitude: 1, latitude: 0, altitude: 200), line[1], Position(longitude: 3.5, latitude: 0, altitude: 150)])

        let crossing = [Position(longitude: 178, latitude: 0, altitude: 10), Position(longitude: -178, latitude: 0, altitude: 50)]
        var cut = Feature(geometry: .lineString(LineString(crossing)), properties: [:])
        cut.replaceGeometry(with: Antimeridian.cut(cut.geometry!))
        guard case .multiLineString(let parts)? = cut.geometry else { Issue.record("not cut"); return }
        #expect(parts.lines.map { $0.map(\.altitude) } == [[10, 30], [30, 50]])

        var dense = Feature(geometry: .lineString(LineString([Position(longitude: 0, latitude: 0, altitude: 0),
                                                               Position(longitude: 1, latitude: 0, altitude: 100)])), properties: [:])
        dense.replaceGeometry(with: GreatCircle.densify(dense.geometry!, spacing: 20_000, antimeridian: .split))
        guard case .lineString(let densified)? = dense.geometry else { Issue.record("not a line"); return }
        #expect(densified.coordinates.count > 2)
        for p in densified.coordinates { #expect(abs(try #require(p.altitude) - p.longitude * 100) < 1e-6) }
    }

    /// A 2D line stays 2D, and a position between a 3D and a 2D one gets no altitude made up.
    @Test func noAltitudeIsMadeUpWhereTheInputHasNone() {
        let line = [Position(longitude: 0, latitude: 0), Position(longitude: 2, latitude: 0, altitude: 5), Position(longitude: 4, latitude: 0, altitude: 7)]
        var feature = Feature(geometry: .lineString(LineString(line)), properties: [:])
        let clipper = GeometryClipper(rect: RectClip(minX: 1, minY: -1, maxX: 3, maxY: 1), plane: .degrees)
        feature.replaceGeometry(with: clipper.clip(feature.geometry!))
        guard case .lineString(let piece)? = feature.geometry else { Issue.record("not a line"); return }
        #expect(piece.coordinates.map(\.altitude) == [nil, 5, 6])
    }

    @Test func ringsThatChangeDropTheirArrays() {
        let ring = [Position(longitude: 0, latitude: 0), Position(longitude: 2, latitude: 0), Position(longitude: 2, latitude: 2),
                    Position(longitude: 0, latitude: 2), Position(longitude: 0, latitude: 0)]
        var feature = Feature(geometry: .polygon(Polygon([ring])), properties: [PositionData.member: .object(["hr": [[1, 2, 3, 4, 1]]])])
        let clipper = GeometryClipper(rect: RectClip(minX: 1, minY: -1, maxX: 3, maxY: 3), plane: .degrees)
        #expect(feature.replaceGeometry(with: clipper.clip(feature.geometry!)) == ["hr"])
        #expect(feature.properties?[PositionData.member] == nil)
    }

    @Test func arraysThatDoNotFitTheGeometryAreRemoved() {
        let line = LineString([Position(longitude: 0, latitude: 0), Position(longitude: 1, latitude: 1)])
        var feature = Feature(geometry: .multiLineString(MultiLineString([line.coordinates, line.coordinates])), properties: [
            PositionData.member: .object(["times": [["a", "b"], ["c", "d"]], "hr": [1, 2], "cad": [[1, 2], [3]]]),
        ])
        #expect(feature.removeMisalignedPositionData() == ["hr", "cad"])
        #expect(feature.properties?[PositionData.member] == .object(["times": [["a", "b"], ["c", "d"]]]))
    }

    @Test(arguments: ["2024-02-29T23:59:59Z", "1969-12-31T23:59:59.250-03:30", "2024-05-04T07:00:00", "0800-01-01T00:00:00Z"])
    func timesReadAndWriteBackTheSame(_ text: String) throws {
        #expect(try #require(ISOTime(text)).text == text)
    }

    /// A fraction of any length reads; it is written to nanoseconds, without overflowing.
    @Test func longFractionsAreWrittenToNanoseconds() {
        let start = "9999-12-31T23:59:58.0000000000000000000001Z", end = "9999-12-31T23:59:59.9999999999999999999999Z"
        #expect(PositionData.interpolate(.string(start), .string(end), 0.5) == "9999-12-31T23:59:59.000000000Z")
    }

    @Test(arguments: ["", "2024-05-04", "2024-13-01T00:00:00Z", "2024-05-04T07:00:00ZZ", "noon"])
    func textThatIsNotATimeIsNotInterpolated(_ text: String) {
        #expect(ISOTime(text) == nil)
        #expect(PositionData.interpolate(.string(text), .string("2024-05-04T07:00:00Z"), 0.5) == .null)
    }
}
