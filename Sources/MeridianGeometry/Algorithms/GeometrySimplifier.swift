/// Simplifies geometries at a tolerance in map points, working in MapKit's projection so a
/// tolerance of "5 screen points at this zoom" means the same everywhere on the map.
/// Lines keep their first and last positions; rings stay closed with at least 4 positions, and
/// rings that would not (or that are smaller than the tolerance, "smaller than a pixel") are
/// dropped and counted. Kept positions are the input's own, bit for bit.
public struct GeometrySimplifier: Sendable {
    public var tolerance: Double
    public var method: SimplifyMethod
    /// Rings dropped so far because they collapsed.
    public private(set) var droppedRings = 0

    public init(tolerance: Double, method: SimplifyMethod) {
        self.tolerance = tolerance
        self.method = method
    }

    /// The simplified geometry; nil when nothing is left (a polygon whose outer ring collapsed).
    public mutating func simplify(_ geometry: Geometry) -> Geometry? {
        switch geometry {
        case .point, .multiPoint:
            return geometry
        case .lineString(let l):
            return .lineString(LineString(line(l.coordinates)))
        case .multiLineString(let m):
            return .multiLineString(MultiLineString(m.lines.map(line)))
        case .polygon(let p):
            return polygon(p).map(Geometry.polygon)
        case .multiPolygon(let m):
            let polygons = m.polygons.compactMap { polygon($0) }
            return polygons.isEmpty ? nil : .multiPolygon(MultiPolygon(polygons))
        case .geometryCollection(let c):
            let members = c.geometries.compactMap { simplify($0) }
            return members.isEmpty ? nil : .geometryCollection(GeometryCollection(members))
        }
    }

    func line(_ positions: [Position]) -> [Position] {
        let points = positions.map(MapPoint.init)
        return Simplify.keptIndices(points, tolerance: tolerance, method: method).map { positions[$0] }
    }

    mutating func polygon(_ polygon: Polygon) -> Polygon? {
        var rings: [[Position]] = []
        for (index, ring) in polygon.rings.enumerated() {
            let points = ring.map(MapPoint.init)
            let xs = points.map(\.x), ys = points.map(\.y)
            let tiny = (xs.max() ?? 0) - (xs.min() ?? 0) < tolerance && (ys.max() ?? 0) - (ys.min() ?? 0) < tolerance
            var indices = tiny ? [] : Simplify.keptIndices(points, tolerance: tolerance, method: method)
            if !tiny && indices.count < 4 {
                // Larger than a pixel but collapsed: keep its extreme points, so it still shows.
                let extremes = [xs.indices.min { xs[$0] < xs[$1] }!, xs.indices.max { xs[$0] < xs[$1] }!,
                                ys.indices.min { ys[$0] < ys[$1] }!, ys.indices.max { ys[$0] < ys[$1] }!]
                indices = Array(Set(extremes + [0]).filter { $0 != ring.count - 1 }).sorted() + [ring.count - 1]
            }
            let kept = indices.map { ring[$0] }
            if kept.count >= 4 {
                rings.append(kept)
            } else {
                droppedRings += 1
                if index == 0 { return nil }  // no outer ring, no polygon
            }
        }
        return Polygon(rings)
    }
}
