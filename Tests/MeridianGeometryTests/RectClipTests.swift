import Foundation
import Testing
@testable import MeridianGeometry
import MeridianTestSupport

@Suite struct RectClipTests {
    let unit = RectClip(minX: 0, minY: 0, maxX: 10, maxY: 10)

    func ring(_ points: [(Double, Double)]) -> [PlanePoint] {
        let p = points.map { PlanePoint($0.0, $0.1) }
        return p + [p[0]]
    }

    func area(_ rings: [[PlanePoint]]) -> Double { rings.reduce(0) { $0 + Rings.signedArea($1) / 2 } }

    /// No edge doubles back on the one before it (a zero-width spike or bridge).
    func hasZeroWidthEdges(_ ring: [PlanePoint]) -> Bool {
        let open = Array(ring.dropLast())
        let n = open.count
        return (0..<n).contains { i in
            let a = open[(i + n - 1) % n], b = open[i], c = open[(i + 1) % n]
            let cross = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x)
            let dot = (b.x - a.x) * (c.x - b.x) + (b.y - a.y) * (c.y - b.y)
            return cross == 0 && dot < 0
        }
    }

    @Test func aConcaveRingLeavingTwiceBecomesTwoRings() {
        // A "U" open at the top, poking out above y = 10 with both arms.
        let u = ring([(2, 2), (8, 2), (8, 14), (6, 14), (6, 5), (4, 5), (4, 14), (2, 14)])
        let pieces = unit.clip(ring: u)
        #expect(pieces.count == 1)  // the base joins both arms inside the rect
        #expect(abs(area(pieces) - (6 * 3 + 2 * 5 * 2)) < 1e-12)
        #expect(!pieces.contains(where: hasZeroWidthEdges))

        // An "n" whose arms come down into the rect: two separate pieces, no bridge along y = 0... 
        let n = ring([(2, -5), (4, -5), (4, 5), (6, 5), (6, -5), (8, -5), (8, 8), (2, 8)])
        let clipped = RectClip(minX: 0, minY: 6, maxX: 10, maxY: 10).clip(ring: n)
        #expect(clipped.count == 1)
        let bottom = RectClip(minX: 0, minY: -10, maxX: 10, maxY: 0).clip(ring: n)
        #expect(bottom.count == 2)
        #expect(abs(area(bottom) - 2 * (2 * 5)) < 1e-12)
        #expect(!bottom.contains(where: hasZeroWidthEdges))
    }

    @Test func edgesOnTheBoundaryStayAndTouchingDoesNotAddSpikes() {
        let square = ring([(0, 0), (10, 0), (10, 10), (0, 10)])
        #expect(unit.clip(ring: square).count == 1)
        #expect(abs(area(unit.clip(ring: square)) - 100) < 1e-12)
        // A triangle touching the rect at one corner only: nothing with area.
        let outside = ring([(10, 10), (12, 10), (12, 12)])
        #expect(unit.clip(ring: outside).isEmpty)
        // Lines: a segment along an edge stays; one leaving is cut.
        #expect(unit.clip(line: [PlanePoint(0, 0), PlanePoint(10, 0)]) == [[PlanePoint(0, 0), PlanePoint(10, 0)]])
        #expect(unit.clip(line: [PlanePoint(5, 5), PlanePoint(15, 5), PlanePoint(15, 8), PlanePoint(5, 8)])
                == [[PlanePoint(5, 5), PlanePoint(10, 5)], [PlanePoint(10, 8), PlanePoint(5, 8)]])
    }

    @Test func randomStarsAddUpOverAGrid() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            // A star-shaped (simple, often concave) polygon around (50, 50).
            let count = Int.random(in: 5...40, using: &generator)
            let star = ring((0..<count).map { i in
                let angle = Double(i) / Double(count) * 2 * .pi
                let r = Double.random(in: 5...60, using: &generator)
                return (50 + r * cos(angle), 50 + r * sin(angle))
            })
            var sum = 0.0
            for gx in stride(from: -20.0, to: 120, by: 17) {
                for gy in stride(from: -20.0, to: 120, by: 13) {
                    let pieces = RectClip(minX: gx, minY: gy, maxX: gx + 17, maxY: gy + 13).clip(ring: star)
                    #expect(!pieces.contains(where: hasZeroWidthEdges))
                    sum += area(pieces)
                }
            }
            let whole = Rings.signedArea(star) / 2
            #expect(abs(sum - whole) <= 1e-9 * abs(whole), "\(sum) vs \(whole)")
        }
    }
}

import MeridianFormats

@Suite struct ClipCountriesTests {
    /// Planar area in map points (outer rings minus holes).
    func mapArea(_ geometry: Geometry?) -> Double {
        func ring(_ r: [Position]) -> Double { abs(Rings.signedArea(r.map { let m = MapPoint($0); return PlanePoint(m.x, m.y) })) / 2 }
        switch geometry {
        case .polygon(let p)?: return ring(p.rings[0]) - p.rings.dropFirst().reduce(0) { $0 + ring($1) }
        case .multiPolygon(let m)?: return m.polygons.reduce(0) { $0 + mapArea(.polygon($1)) }
        default: return 0
        }
    }

    /// Clipping every country to the 64 zoom-3 tiles and adding the pieces' areas gives back
    /// the whole (relative error under 1e-9), and no piece has a zero-width edge.
    @Test func zoomThreeTilesAddUpToTheWhole() throws {
        #expect(try tilesAddUp(fixtures.appendingPathComponent("geojson/ne_10m_countries_sample.geojson").path) == 31)
    }

    /// The same over all 250 Natural Earth countries, from ../shared when it is there.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: Self.shared.path)), .timeLimit(.minutes(10)))
    func allCountriesAddUp() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ne-clip-\(UUID()).geojson").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let xz = Process()
        xz.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        xz.arguments = ["xz", "-dc", Self.shared.path]
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        xz.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try xz.run()
        xz.waitUntilExit()
        #expect(try tilesAddUp(path) == 250)
    }

    static let shared = sharedFixtures.appendingPathComponent("vector/ne_10m_countries.geojson.xz")

    func tilesAddUp(_ path: String) throws -> Int {
        let input = try FeatureInput(path: path)
        var countries = 0
        while let feature = try input.reader.next() {
            guard let geometry = feature.geometry else { continue }
            let world = GeometryClipper(rect: RectClip(MapRect.world), plane: .mapPoints).clip(geometry)
            var sum = 0.0
            for x in 0..<8 {
                for y in 0..<8 {
                    let piece = GeometryClipper(rect: RectClip(MapTile(zoom: 3, x: x, y: y).mapRect), plane: .mapPoints).clip(geometry)
                    sum += mapArea(piece)
                }
            }
            let whole = mapArea(world)
            #expect(abs(sum - whole) <= 1e-9 * whole, "\(feature.properties?["NAME"] ?? "?"): \(sum) vs \(whole)")
            countries += 1
        }
        return countries
    }

    @Test func keepsTheInputsOwnVertices() {
        let square = Polygon([[Position(longitude: 1, latitude: 1), Position(longitude: 3, latitude: 1), Position(longitude: 3, latitude: 3),
                               Position(longitude: 1, latitude: 3), Position(longitude: 1, latitude: 1)]])
        let clipper = GeometryClipper(rect: RectClip(minX: 0, minY: 0, maxX: 2, maxY: 2), plane: .degrees)
        guard case .polygon(let p)? = clipper.clip(.polygon(square)) else {
            Issue.record("expected a polygon")
            return
        }
        #expect(p.rings[0].contains { $0.isIdentical(to: Position(longitude: 1, latitude: 1)) })
        #expect(abs(Rings.signedArea(p.rings[0].map { PlanePoint($0.longitude, $0.latitude) }) / 2 - 1) < 1e-12)
    }

    /// A 3D polygon cut by the rectangle stays 3D: a point where an edge leaves gets the
    /// altitude in proportion along that edge (a hole's too), a corner of the rectangle inside
    /// the polygon the altitude of the plane its positions lie on.
    @Test(arguments: [GeometryClipper.Plane.degrees, .mapPoints])
    func aThreeDPolygonsCutsAndCornersGetAltitudes(plane: GeometryClipper.Plane) throws {
        func p(_ x: Double, _ y: Double, _ z: Double) -> Position { Position(longitude: x, latitude: y, altitude: z) }
        // Altitude 100 + 10x + 20y on each corner: a plane, so every new point is on it too.
        func z(_ x: Double, _ y: Double) -> Double { 100 + 10 * x + 20 * y }
        let outer = [(0.0, 0.0), (10, 0), (10, 10), (0, 10), (0, 0)].map { p($0.0, $0.1, z($0.0, $0.1)) }
        let hole = [(1.0, 4.0), (1, 6), (3, 6), (3, 4), (1, 4)].map { p($0.0, $0.1, z($0.0, $0.1)) }
        let box = BoundingBox(west: 2, south: -5, east: 8, north: 5)
        let rect = plane == .degrees ? RectClip(minX: box.west, minY: box.south, maxX: box.east, maxY: box.north)
            : RectClip(minX: MapPoint(Position(longitude: 2, latitude: 5)).x, minY: MapPoint(Position(longitude: 2, latitude: 5)).y,
                       maxX: MapPoint(Position(longitude: 8, latitude: -5)).x, maxY: MapPoint(Position(longitude: 8, latitude: -5)).y)
        let clipped = try #require(GeometryClipper(rect: rect, plane: plane).clip(.polygon(Polygon([outer, hole]))))
        guard case .polygon(let piece) = clipped else {
            Issue.record("expected one polygon, got \(clipped)")
            return
        }
        #expect(piece.rings.count == 1)  // the hole crosses the cut edge at longitude 2: it opens the outer ring
        for ring in piece.rings {
            for position in ring {
                let altitude = try #require(position.altitude, "\(position) has no altitude")
                // Map points: edges straight on the map, a little off a straight line in degrees.
                #expect(abs(altitude - z(position.longitude, position.latitude)) < (plane == .degrees ? 1e-9 : 0.2), "\(position)")
            }
        }
    }
}
