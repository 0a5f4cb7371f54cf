import Foundation
import Testing
@testable import MeridianGeometry

let geometryFixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures")

@Suite struct SimplifyTests {
    /// A direct transcription of Apple's Breadcrumb sample (CrumbPath's simplification): walk the
    /// points, keep one when its distance from the last kept point reaches the minimum; the last
    /// point is always added.
    func breadcrumb(_ points: [MapPoint], minimumDistance: Double) -> [Int] {
        var result = [0]
        var lastKept = points[0]
        for index in 1..<points.count {
            let p = points[index]
            let distance = hypot(p.x - lastKept.x, p.y - lastKept.y)
            if distance >= minimumDistance || index == points.count - 1 {
                if index != points.count - 1 { lastKept = p }
                result.append(index)
            }
        }
        return result
    }

    func randomTrack(_ count: Int, seed: UInt64) -> [MapPoint] {
        var state = seed
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53) - 0.5
        }
        var x = 1e8, y = 1e8
        return (0..<count).map { _ in
            x += next() * 80
            y += next() * 80
            return MapPoint(x: x, y: y)
        }
    }

    @Test(arguments: [1.0, 5.0, 20.0, 160.0])
    func radialEqualsBreadcrumb(_ tolerance: Double) {
        for seed in 1...5 as ClosedRange<UInt64> {
            let track = randomTrack(5_000, seed: seed)
            #expect(Simplify.keptIndices(track, tolerance: tolerance, method: .radial) == breadcrumb(track, minimumDistance: tolerance))
        }
    }

    @Test func radialOnARealTrack() throws {
        // The gx:Track of togeojson's multitrack fixture, in map points.
        let text = try String(contentsOf: geometryFixtures.appendingPathComponent("kml/togeojson/multitrack.kml"), encoding: .utf8)
        let coords = text.components(separatedBy: "<gx:coord>").dropFirst().compactMap { part -> MapPoint? in
            let numbers = part.prefix { $0 != "<" }.split(separator: " ").compactMap { Double($0) }
            return numbers.count >= 2 ? MapPoint(Position(longitude: numbers[0], latitude: numbers[1])) : nil
        }
        #expect(coords.count > 10)
        for tolerance in [2.0, 10.0, 50.0, 200.0] {
            #expect(Simplify.keptIndices(coords, tolerance: tolerance, method: .radial) == breadcrumb(coords, minimumDistance: tolerance))
        }
    }

    /// Douglas-Peucker keeps exactly what shapely/GEOS keeps (fixtures made once with shapely).
    @Test func douglasPeuckerEqualsShapely() throws {
        let data = try Data(contentsOf: geometryFixtures.appendingPathComponent("simplify/douglas-peucker-shapely.json"))
        let fixture = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let tracks = try #require(fixture["tracks"] as? [[String: Any]])
        #expect(tracks.count == 4)
        for track in tracks {
            let points = (track["input"] as! [[Double]]).map { MapPoint(x: $0[0], y: $0[1]) }
            for (tolerance, kept) in track["kept"] as! [String: [Int]] {
                #expect(Simplify.keptIndices(points, tolerance: Double(tolerance)!, method: .douglasPeucker) == kept, "tolerance \(tolerance)")
            }
        }
    }

    @Test func visvalingamDropsSmallTrianglesOnly() {
        let track = randomTrack(2_000, seed: 9)
        let kept = Simplify.keptIndices(track, tolerance: 40, method: .visvalingam)
        #expect(kept.first == 0 && kept.last == track.count - 1)
        #expect(kept.count < track.count / 2 && kept.count > 10)
        #expect(kept == kept.sorted())
        // Nothing to drop under a tiny tolerance.
        #expect(Simplify.keptIndices(track, tolerance: 1e-9, method: .visvalingam).count == track.count)
    }
}

@Suite struct GeometrySimplifierTests {
    static let square: [Position] = [
        .init(longitude: 0, latitude: 0), .init(longitude: 1, latitude: 0), .init(longitude: 1, latitude: 1),
        .init(longitude: 0, latitude: 1), .init(longitude: 0, latitude: 0),
    ]

    @Test func ringsStayClosedOrAreDropped() {
        // A ring far smaller than the tolerance goes; the polygon around it stays.
        let hole = Self.square.map { Position(longitude: 0.5 + $0.longitude * 1e-6, latitude: 0.5 + $0.latitude * 1e-6) }
        var simplifier = GeometrySimplifier(tolerance: 100, method: .douglasPeucker)
        let result = simplifier.simplify(.polygon(Polygon([Self.square, hole])))
        #expect(result == .polygon(Polygon([Self.square])))
        #expect(simplifier.droppedRings == 1)

        // A thin triangle bigger than the tolerance but collapsing under it keeps its extremes.
        let sliver: [Position] = [.init(longitude: 0, latitude: 0), .init(longitude: 1, latitude: 0.00001),
                                  .init(longitude: 2, latitude: 0), .init(longitude: 0, latitude: 0)]
        let kept = simplifier.simplify(.polygon(Polygon([sliver])))
        if case .polygon(let p)? = kept { #expect(p.rings[0].count >= 4 && p.rings[0].first == p.rings[0].last) } else {
            Issue.record("the sliver vanished")
        }
    }

    @Test func keptPositionsAreTheInputsOwn() {
        let line = (0..<500).map { i in Position(longitude: Double(i) * 0.001, latitude: sin(Double(i) / 20) * 0.01) }
        var simplifier = GeometrySimplifier(tolerance: 50, method: .visvalingam)
        guard case .lineString(let out)? = simplifier.simplify(.lineString(LineString(line))) else { return }
        #expect(out.coordinates.count < line.count)
        #expect(out.coordinates.allSatisfy { p in line.contains { $0.isIdentical(to: p) } })
    }
}
