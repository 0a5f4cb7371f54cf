import Foundation
import Testing
@testable import MeridianGeometry
import MeridianTestSupport

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
        let text = try String(contentsOf: fixtures.appendingPathComponent("kml/togeojson/multitrack.kml"), encoding: .utf8)
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
        let data = try Data(contentsOf: fixtures.appendingPathComponent("simplify/douglas-peucker-shapely.json"))
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

        // A thin triangle bigger than the tolerance but collapsing under it gets its farthest
        // position back, so it still shows.
        let sliver: [Position] = [.init(longitude: 0, latitude: 0), .init(longitude: 1, latitude: 0.00001),
                                  .init(longitude: 2, latitude: 0), .init(longitude: 0, latitude: 0)]
        let kept = simplifier.simplify(.polygon(Polygon([sliver])))
        if case .polygon(let p)? = kept { #expect(p.rings[0].count >= 4 && p.rings[0].first == p.rings[0].last) } else {
            Issue.record("the sliver vanished")
        }
    }

    /// A polygon smaller than the tolerance goes, and is counted; with keepSmall it stays as a
    /// triangle of its own positions. A closed line shrinking to a point goes, or keeps two.
    @Test func smallFeaturesAreCountedOrKept() throws {
        let islet = Self.square.map { Position(longitude: 3 + $0.longitude * 1e-4, latitude: 3 + $0.latitude * 1e-4) }
        var plain = GeometrySimplifier(tolerance: 100, method: .douglasPeucker)
        #expect(plain.simplify(.polygon(Polygon([islet]))) == nil)
        #expect(plain.droppedGeometries == 1 && plain.droppedRings == 1)

        var small = GeometrySimplifier(tolerance: 100, method: .douglasPeucker, keepSmall: true)
        guard case .polygon(let kept)? = small.simplify(.polygon(Polygon([islet]))) else {
            Issue.record("the islet vanished")
            return
        }
        #expect(kept.rings.count == 1 && kept.rings[0].count == 4 && kept.rings[0].first == kept.rings[0].last)
        #expect(kept.rings[0].allSatisfy { p in islet.contains { $0.isIdentical(to: p) } })
        #expect(Rings.signedArea(Rings.unwrapped(kept.rings[0])) != 0)
        #expect(small.droppedGeometries == 0 && small.droppedRings == 0)

        // A flat ring has no area to keep: it still goes.
        let flat = [Position(longitude: 0, latitude: 0), Position(longitude: 1e-5, latitude: 0), Position(longitude: 2e-5, latitude: 0),
                    Position(longitude: 0, latitude: 0)]
        #expect(small.simplify(.polygon(Polygon([flat]))) == nil)

        // A closed line within the tolerance of its start.
        let loop = Self.square.map { Position(longitude: 3 + $0.longitude * 1e-5, latitude: 3 + $0.latitude * 1e-5) }
        #expect(plain.simplify(.lineString(LineString(loop))) == nil)
        #expect(plain.droppedLines == 1)
        guard case .lineString(let line)? = small.simplify(.lineString(LineString(loop))) else {
            Issue.record("the loop vanished")
            return
        }
        #expect(line.coordinates.count == 2 && line.coordinates[0] != line.coordinates[1])
    }

    @Test func keptPositionsAreTheInputsOwn() {
        let line = (0..<500).map { i in Position(longitude: Double(i) * 0.001, latitude: sin(Double(i) / 20) * 0.01) }
        var simplifier = GeometrySimplifier(tolerance: 50, method: .visvalingam)
        guard case .lineString(let out)? = simplifier.simplify(.lineString(LineString(line))) else { return }
        #expect(out.coordinates.count < line.count)
        #expect(out.coordinates.allSatisfy { p in line.contains { $0.isIdentical(to: p) } })
    }

    @Test func holesStayInsideTheirShell() {
        // The shell's bump (0.5°, about 380,000 map points) is under the tolerance; the hole,
        // wider than the tolerance, sits in the bump.
        let shell: [Position] = [.init(longitude: 0, latitude: 0), .init(longitude: 10, latitude: 0), .init(longitude: 10, latitude: 10),
                                 .init(longitude: 5.8, latitude: 10), .init(longitude: 5, latitude: 10.5), .init(longitude: 4.2, latitude: 10),
                                 .init(longitude: 0, latitude: 10), .init(longitude: 0, latitude: 0)]
        let hole: [Position] = [.init(longitude: 4.5, latitude: 10.05), .init(longitude: 5, latitude: 10.3), .init(longitude: 5.5, latitude: 10.05),
                                .init(longitude: 4.5, latitude: 10.05)]
        let plain = Simplify.keptIndices(shell.map(MapPoint.init), tolerance: 4e5, method: .douglasPeucker)
        #expect(plain.count == 5, "the case must bite: the bump goes")
        var simplifier = GeometrySimplifier(tolerance: 4e5, method: .douglasPeucker)
        guard case .polygon(let p)? = simplifier.simplify(.polygon(Polygon([shell, hole]))) else {
            Issue.record("the polygon vanished")
            return
        }
        #expect(p.rings.count == 2)
        let outer = p.rings[0].map { PlanePoint($0.longitude, $0.latitude) }
        #expect(hole.allSatisfy { Rings.contains(outer, PlanePoint($0.longitude, $0.latitude)) })
        #expect(p.rings[0].count < shell.count)
    }

    @Test func sharedBordersStayShared() {
        // Two countries with a wiggly common border; each simplified alone, they would part.
        let border = (0...200).map { i in Position(longitude: 1 + sin(Double(i) / 7) * 0.02, latitude: Double(i) * 0.01) }
        // The west ring starts a third of the way down the border, so alone it splits elsewhere.
        let westOpen = border.reversed() + [Position(longitude: 0, latitude: 0), Position(longitude: 0, latitude: 2)]
        let west = Array(westOpen[70...] + westOpen[..<70]) + [westOpen[70]]
        let east = border + [Position(longitude: 2, latitude: 2), Position(longitude: 2, latitude: 0), border[0]]
        let features = [west, east].map { Feature(geometry: .polygon(Polygon([$0]))) }
        var simplifier = GeometrySimplifier(tolerance: 2000, method: .douglasPeucker)
        let out = simplifier.simplifyKeepingTopology(features)
        func onBorder(_ feature: Feature) -> Set<ArcTopology.Key> {
            guard case .polygon(let p)? = feature.geometry else { return [] }
            return Set(p.rings[0].filter { $0.longitude > 0.5 && $0.longitude < 1.5 }.map(ArcTopology.Key.init))
        }
        #expect(out.count == 2)
        #expect(onBorder(out[0]) == onBorder(out[1]))
        #expect(onBorder(out[0]).count > 2 && onBorder(out[0]).count < border.count)
        var alone = GeometrySimplifier(tolerance: 2000, method: .douglasPeucker)
        let separately = features.map { Feature(geometry: alone.simplify($0.geometry!)) }
        #expect(onBorder(separately[0]) != onBorder(separately[1]), "the case must bite")
    }

    @Test func anEnclaveAndItsHoleAreOneArc() {
        let enclave = Self.square.map { Position(longitude: 4 + $0.longitude, latitude: 4 + $0.latitude) }
        let outer: [Position] = [.init(longitude: 0, latitude: 0), .init(longitude: 10, latitude: 0), .init(longitude: 10, latitude: 10),
                                 .init(longitude: 0, latitude: 10), .init(longitude: 0, latitude: 0)]
        // The hole runs the other way round and starts elsewhere.
        let hole = Array(enclave.dropLast().reversed().dropFirst()) + [enclave[3], enclave[2]]
        let topology = ArcTopology(paths: [outer, hole, enclave], isRing: [true, true, true], shareArcs: true)
        #expect(topology.arcs.count == 2)
        #expect(topology.paths[1][0].arc == topology.paths[2][0].arc)
    }
}
