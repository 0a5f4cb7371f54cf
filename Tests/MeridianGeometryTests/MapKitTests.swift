import Foundation
import Testing
@testable import MeridianGeometry

@Suite struct MapKitMathTests {
    @Test func metersPerMapPointMatchApple() {
        // MKMetersPerMapPointAtLatitude(33.861315) == 0.123522 (Apple's documented example).
        #expect(abs(MapWorld.metersPerMapPoint(atLatitude: 33.861315) - 0.123522) < 5e-6)
        #expect(MapWorld.metersPerMapPoint(atLatitude: 0) > MapWorld.metersPerMapPoint(atLatitude: 60))
    }

    @Test func pointsRoundTripToANanoDegree() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let p = Position(longitude: .random(in: -180...180, using: &rng), latitude: .random(in: -85...85, using: &rng))
            let back = MapPoint(p).position
            #expect(abs(back.longitude - p.longitude) < 1e-9 && abs(back.latitude - p.latitude) < 1e-9, "\(p) → \(back)")
        }
        #expect(MapPoint(Position(longitude: -180, latitude: MapWorld.maximumLatitude)).x == 0)
        #expect(abs(MapPoint(Position(longitude: -180, latitude: MapWorld.maximumLatitude)).y) < 1e-6)
        #expect(MapPoint(Position(longitude: 0, latitude: 0)) == MapPoint(x: MapWorld.size / 2, y: MapWorld.size / 2))
    }

    /// Tile bounds against the standard XYZ formulas (OpenStreetMap's slippy-map maths).
    @Test func tileBoundsMatchTheXYZFormulas() {
        func lon(_ x: Int, _ z: Int) -> Double { Double(x) / pow(2, Double(z)) * 360 - 180 }
        func lat(_ y: Int, _ z: Int) -> Double { atan(sinh(.pi * (1 - 2 * Double(y) / pow(2, Double(z))))) * 180 / .pi }
        for (z, x, y) in [(0, 0, 0), (1, 1, 0), (3, 5, 2), (12, 655, 1583), (17, 16000, 90000), (20, 1, 1048575)] {
            let box = MapTile(zoom: z, x: x, y: y).boundingBox
            #expect(abs(box.west - lon(x, z)) < 1e-9 && abs(box.east - lon(x + 1, z)) < 1e-9)
            #expect(abs(box.north - lat(y, z)) < 1e-9 && abs(box.south - lat(y + 1, z)) < 1e-9, "\(z)/\(x)/\(y)")
        }
        let tile = MapTile(zoom: 12, x: 655, y: 1583)
        #expect(tile.tmsY == 4096 - 1 - 1583)
        #expect(MapTile(zoom: 12, x: 655, tmsY: tile.tmsY) == tile)
        #expect(MapTile(containing: MapPoint(Position(longitude: -122.4194, latitude: 37.7749)), zoom: 12) == tile)
    }

    @Test func zoomScalesAndLevels() {
        #expect(ZoomScale.level(forScale: 1) == 20)
        #expect(ZoomScale.level(forScale: pow(2, -8)) == 12)
        #expect(ZoomScale.scale(forLevel: 12) == pow(2, -8))
        #expect(ZoomScale.roundedLevel(forScale: pow(2, -8) * 1.3) == 12)
        #expect(ZoomScale.roundedLevel(forScale: pow(2, -8) * 1.5) == 13)
        #expect(ZoomScale.roundedLevel(forScale: pow(2, -25)) == 0)
        #expect(ZoomScale.roadWidth(atScale: 1) == 21)
        #expect(ZoomScale.roadWidth(atScale: pow(2, -9)) == 4 * 512)
        #expect(ZoomScale.roadWidth(atScale: pow(2, -12)) == 4 * 4096)
    }

    @Test func rectsUnionIntersectAndWrap() {
        let a = MapRect(x: 0, y: 0, width: 10, height: 10), b = MapRect(x: 5, y: 5, width: 10, height: 10)
        #expect(a.union(b) == MapRect(x: 0, y: 0, width: 15, height: 15))
        #expect(a.intersection(b) == MapRect(x: 5, y: 5, width: 5, height: 5))
        #expect(a.intersection(MapRect(x: 20, y: 20, width: 1, height: 1)).isNull)
        #expect(a.intersects(MapRect(x: 10, y: 0, width: 5, height: 5)))  // touching counts
        #expect(MapRect.null.union(a) == a)
        let across = MapRect(x: MapWorld.size - 100, y: 50, width: 300, height: 10)
        #expect(across.spans180thMeridian)
        #expect(across.remainder == MapRect(x: 0, y: 50, width: 200, height: 10))
        #expect(MapRect(x: -50, y: 0, width: 100, height: 1).remainder == MapRect(x: MapWorld.size - 50, y: 0, width: 50, height: 1))
        #expect(!a.spans180thMeridian && a.remainder.isNull)
    }
}
