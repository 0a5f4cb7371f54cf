import Foundation
import Testing
@testable import MeridianGeometry

@Suite struct GreatCircleTests {
    static let lax = Position(longitude: -118.4085, latitude: 33.9416)
    static let jfk = Position(longitude: -73.7781, latitude: 40.6413)

    @Test func laxToJFKLikeMKGeodesicPolyline() {
        let line = GreatCircle.points(from: Self.lax, to: Self.jfk, spacing: 1000)
        // MKGeodesicPolyline gives 3,984 points for this route.
        #expect(abs(line.count - 3_980) < 10)
        #expect(line.first == Self.lax && line.last == Self.jfk)
        // The middle vertex is the great circle's midpoint (even segment count: t = 0.5 exactly).
        let middle = line[(line.count - 1) / 2]
        let expected = GreatCircle.midpoint(Self.lax, Self.jfk)
        #expect(GreatCircle.distance(middle, expected) < 1 + GreatCircle.distance(Self.lax, Self.jfk) / Double(line.count - 1))
        // Every step is about a kilometre.
        for (a, b) in zip(line, line.dropFirst()) { #expect(GreatCircle.distance(a, b) <= 1000.001) }
        // A great circle bows north of the straight line in longitude/latitude.
        #expect(middle.latitude > (Self.lax.latitude + Self.jfk.latitude) / 2)
    }

    @Test func laToTokyoCrossesThePacific() {
        let tokyo = Position(longitude: 139.7798, latitude: 35.5494)
        let line = GreatCircle.points(from: Self.lax, to: tokyo, spacing: 10_000)
        let parts = Antimeridian.split(line)
        #expect(parts.count == 2)
        #expect(parts[0].last?.longitude == -180 && parts[1].first?.longitude == 180)
        #expect(parts[0].last?.latitude == parts[1].first?.latitude)
        let continuous = Antimeridian.continuous(line)
        #expect(continuous.last!.longitude == 139.7798 - 360)
        #expect(zip(continuous, continuous.dropFirst()).allSatisfy { abs($1.longitude - $0.longitude) < 180 })
    }

    @Test func circlesAreRoundOnTheMap() {
        let center = Position(longitude: -122.009, latitude: 37.3349)
        let ring = MapCircle.ring(center: center, radius: 5000, segments: 64)
        #expect(ring.count == 65 && ring.first == ring.last)
        let c = MapPoint(center)
        let expected = 5000 * MapWorld.mapPointsPerMeter(atLatitude: center.latitude)
        for p in ring {
            let m = MapPoint(p)
            #expect(abs(((m.x - c.x) * (m.x - c.x) + (m.y - c.y) * (m.y - c.y)).squareRoot() - expected) < 1e-6 * expected)
        }
        #expect(Rings.isCounterClockwise(ring))
        // One across the antimeridian is cut in two.
        let fiji = MapCircle.ring(center: Position(longitude: 179.9, latitude: -16.5), radius: 50_000)
        let pieces = Antimeridian.cut(fiji)
        #expect(pieces.count == 2)
        #expect(pieces.allSatisfy { $0.allSatisfy { abs($0.longitude) <= 180 } })
    }

    /// A square from 170°E over ±180° to 170°W, its edges densified along great circles.
    static let pacificRing = [
        Position(longitude: 170, latitude: -10), Position(longitude: -170, latitude: -10), Position(longitude: -170, latitude: 10),
        Position(longitude: 170, latitude: 10), Position(longitude: 170, latitude: -10),
    ]
    static let pacificSquare = Geometry.polygon(Polygon([pacificRing]))

    @Test func aPolygonAcrossTheAntimeridianIsCutWhenSplit() throws {
        let dense = GreatCircle.densify(Self.pacificSquare, spacing: 100_000, antimeridian: .split)
        guard case .multiPolygon(let pieces) = dense else { Issue.record("not cut: \(dense)"); return }
        #expect(pieces.polygons.count == 2)
        for piece in pieces.polygons {
            let ring = try #require(piece.exterior)
            #expect(ring.count > 10 && ring.first == ring.last)
            #expect(ring.allSatisfy { abs($0.longitude) <= 180 })
            #expect(!Rings.crossesAntimeridian(ring))
            #expect(ring.contains { abs($0.longitude) == 180 })  // each piece ends on the antimeridian
        }
        // The pieces together cover what the square covers.
        let area = pieces.polygons.map { Rings.sphericalArea($0.exterior!) }.reduce(0, +)
        let whole = Rings.sphericalArea(GreatCircle.densify(Self.pacificRing, spacing: 100_000))
        #expect(abs(area - whole) < 1e-6 * whole)
    }

    @Test func aPolygonAcrossTheAntimeridianRunsOnWhenContinuous() throws {
        let dense = GreatCircle.densify(Self.pacificSquare, spacing: 100_000, antimeridian: .continuous)
        guard case .polygon(let polygon) = dense else { Issue.record("not one polygon: \(dense)"); return }
        let ring = try #require(polygon.exterior)
        #expect(ring.count > 10 && ring.first == ring.last)
        #expect(zip(ring, ring.dropFirst()).allSatisfy { abs($1.longitude - $0.longitude) < 180 })
        #expect(ring.allSatisfy { (170...190).contains($0.longitude) })
        // The great-circle edges bow away from the equator, as a geodesic does.
        #expect(ring.contains { $0.latitude > 10 } && ring.contains { $0.latitude < -10 })
    }

    @Test func aHoleStaysWithItsOuterRingWhenContinuous() throws {
        let hole = [Position(longitude: -178, latitude: -2), Position(longitude: -178, latitude: 2), Position(longitude: -175, latitude: 2),
                    Position(longitude: -175, latitude: -2), Position(longitude: -178, latitude: -2)]
        let dense = GreatCircle.densify(.polygon(Polygon([Self.pacificRing, hole])), spacing: 100_000, antimeridian: .continuous)
        guard case .polygon(let polygon) = dense else { Issue.record("not one polygon: \(dense)"); return }
        let denseHole = try #require(polygon.holes.first)
        #expect(polygon.holes.count == 1 && denseHole.allSatisfy { (180...190).contains($0.longitude) })
    }
}
