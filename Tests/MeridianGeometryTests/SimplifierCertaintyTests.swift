import Foundation
import MeridianGeometry
import Testing

/// `GeometrySimplifier.certainlyKeepsSomething(of:)`, which lets a shard pass over a feature
/// without simplifying it, must never say so of a geometry that simplifies to nothing.
@Suite struct SimplifierCertaintyTests {
    /// A small linear congruential generator: the same shapes every run.
    struct Numbers {
        var state: UInt64
        mutating func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
    }

    @Test func itIsNeverSureOfAGeometryThatVanishes() {
        var numbers = Numbers(state: 31)
        let tolerance = 1_000.0  // map points
        let degreesPerMapPoint = 360.0 / MapWorld.size
        func ring(around lon: Double, _ lat: Double, radius: Double, count: Int) -> [Position] {
            var ring = (0..<count).map { i -> Position in
                let angle = Double(i) / Double(count) * 2 * .pi + numbers.next() * 0.5
                let r = radius * (0.3 + numbers.next()) * degreesPerMapPoint
                return Position(longitude: lon + r * cos(angle), latitude: lat + r * sin(angle))
            }
            ring.append(ring[0])
            return ring
        }
        var sure = 0, vanished = 0
        for i in 0..<3_000 {
            let lon = numbers.next() * 300 - 150, lat = numbers.next() * 140 - 70
            let radius = tolerance * pow(10, numbers.next() * 3 - 2)  // 0.01 to 10 tolerances
            let count = 2 + Int(numbers.next() * 10)
            let geometry: Geometry
            switch i % 4 {
            case 0: geometry = .polygon(Polygon([ring(around: lon, lat, radius: radius, count: count)]))
            case 1: geometry = .multiPolygon(MultiPolygon((0..<3).map { k in
                Polygon([ring(around: lon + Double(k) * radius * 3 * degreesPerMapPoint, lat, radius: radius / 3, count: count)]) }))
            case 2: geometry = .polygon(Polygon([ring(around: lon, lat, radius: radius, count: count),
                                                 ring(around: lon, lat, radius: radius / 4, count: 4)]))
            default:
                let line = ring(around: lon, lat, radius: radius, count: count)
                geometry = .lineString(LineString(i % 8 == 3 ? line : Array(line.dropLast())))
            }
            var simplifier = GeometrySimplifier(tolerance: tolerance, method: [SimplifyMethod.radial, .douglasPeucker, .visvalingam][i % 3])
            let certain = simplifier.certainlyKeepsSomething(of: geometry)
            let kept = simplifier.simplify(geometry) != nil
            if certain { sure += 1 }
            if !kept { vanished += 1 }
            #expect(!certain || kept, "\(geometry)")
        }
        // Neither answer is vacuous.
        #expect(sure > 500 && vanished > 200, "sure \(sure), vanished \(vanished)")
    }
}
