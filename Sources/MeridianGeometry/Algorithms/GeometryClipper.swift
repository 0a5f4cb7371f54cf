/// Clips geometries to a rectangle given in map points (a tile, a map rect) or in degrees (a
/// longitude/latitude box). Vertices that were not cut keep their exact input coordinates;
/// only the new points where edges cross the rectangle are computed.
public struct GeometryClipper: Sendable {
    /// The plane the rectangle is drawn in.
    public enum Plane: Sendable {
        /// MapKit's map points: tile edges are straight here.
        case mapPoints
        /// Longitude and latitude: a --bbox's edges are straight here.
        case degrees
    }

    /// The rectangle clipped to, in ``plane``'s units.
    public let rect: RectClip
    /// Whether ``rect`` is in map points or in degrees.
    public let plane: Plane

    /// Creates a clipper.
    /// - Parameters:
    ///   - rect: The rectangle to keep, in map points or degrees as `plane` says.
    ///   - plane: The plane `rect` is drawn in: `.mapPoints` for tiles and map rects (straight
    ///     edges on the map), `.degrees` for longitude/latitude boxes.
    public init(rect: RectClip, plane: Plane) {
        self.rect = rect
        self.plane = plane
    }

    func project(_ p: Position) -> PlanePoint {
        switch plane {
        case .mapPoints:
            let m = MapPoint(p)
            return PlanePoint(m.x, m.y)
        case .degrees:
            return PlanePoint(p.longitude, p.latitude)
        }
    }

    func unproject(_ q: PlanePoint) -> Position {
        switch plane {
        case .mapPoints: return MapPoint(x: q.x, y: q.y).position
        case .degrees: return Position(longitude: q.x, latitude: q.y)
        }
    }

    /// The geometry's part inside the rectangle; nil when nothing is inside.
    public func clip(_ geometry: Geometry) -> Geometry? {
        switch geometry {
        case .point(let p):
            return inside(p.coordinates) ? geometry : nil
        case .multiPoint(let m):
            let kept = m.coordinates.filter(inside)
            return kept.isEmpty ? nil : .multiPoint(MultiPoint(kept))
        case .lineString(let l):
            return lines(clipLine(l.coordinates))
        case .multiLineString(let m):
            return lines(m.lines.flatMap(clipLine))
        case .polygon(let p):
            return polygons(clipPolygon(p))
        case .multiPolygon(let m):
            return polygons(m.polygons.flatMap(clipPolygon))
        case .geometryCollection(let c):
            let members = c.geometries.compactMap(clip)
            return members.isEmpty ? nil : .geometryCollection(GeometryCollection(members))
        }
    }

    func inside(_ p: Position) -> Bool { rect.contains(project(p)) }

    func lines(_ parts: [[Position]]) -> Geometry? {
        switch parts.count {
        case 0: return nil
        case 1: return .lineString(LineString(parts[0]))
        default: return .multiLineString(MultiLineString(parts))
        }
    }

    func polygons(_ parts: [Polygon]) -> Geometry? {
        switch parts.count {
        case 0: return nil
        case 1: return .polygon(parts[0])
        default: return .multiPolygon(MultiPolygon(parts))
        }
    }

    /// Plane points back to positions: the input's own where the point is an input vertex.
    func positions(_ points: [PlanePoint], originals: [PlanePoint: Position]) -> [Position] {
        points.map { originals[$0] ?? unproject($0) }
    }

    func originals(_ line: [Position]) -> ([PlanePoint], [PlanePoint: Position]) {
        let points = line.map(project)
        var map: [PlanePoint: Position] = [:]
        for (q, p) in zip(points, line) where map[q] == nil { map[q] = p }
        return (points, map)
    }

    func clipLine(_ line: [Position]) -> [[Position]] {
        let (points, map) = originals(line)
        return rect.clip(line: points).map { positions($0, originals: map) }
    }

    /// Each piece of the outer ring becomes a polygon, with the pieces of the holes inside it
    /// (``RectClip/clip(polygon:)``); the input's positions are kept where they were not cut.
    /// A 3D polygon's new positions get altitudes (``ringAltitudes(_:_:input:inputPoints:)``),
    /// so its rings stay 3D, never 2D positions among 3D ones (which GDAL reads as altitude 0).
    func clipPolygon(_ polygon: Polygon) -> [Polygon] {
        var originals: [PlanePoint: Position] = [:]
        let rings = polygon.rings.map { ring in
            let (points, map) = self.originals(ring)
            originals.merge(map) { first, _ in first }
            return points
        }
        let threeD = polygon.rings.contains { $0.contains { $0.altitude != nil } }
        return rect.clip(polygon: rings).map { piece in
            Polygon(piece.map { ring in
                let kept = positions(ring, originals: originals)
                return threeD ? Self.ringAltitudes(kept, ring, input: polygon.rings, inputPoints: rings) : kept
            })
        }
    }

    /// `ring` (a clipped ring's positions, `points` in the clip's plane) with altitudes for its
    /// new positions: one where an input edge crosses the rectangle gets the altitude in
    /// proportion along that edge (`input`, `inputPoints` in the plane); a corner of the
    /// rectangle, on no input edge, the altitude there of the plane that best fits the input's
    /// positions (least squares in longitude and latitude: exact for a flat or tilted flat
    /// polygon, a roof or an airspace's floor), kept within the input's lowest and highest.
    static func ringAltitudes(_ ring: [Position], _ points: [PlanePoint], input: [[Position]], inputPoints: [[PlanePoint]]) -> [Position] {
        var ring = ring
        var corners: [Int] = []
        for index in ring.indices where ring[index].altitude == nil {
            let p = points[index]
            var best: (distance: Double, altitude: Double)?
            for (positions, plane) in zip(input, inputPoints) {
                for k in plane.indices.dropLast() {
                    guard let a = positions[k].altitude, let b = positions[k + 1].altitude else { continue }
                    let (u, v) = (plane[k], plane[k + 1])
                    let dx = v.x - u.x, dy = v.y - u.y, length = dx * dx + dy * dy
                    let t = length > 0 ? min(1, max(0, ((p.x - u.x) * dx + (p.y - u.y) * dy) / length)) : 0
                    let (ex, ey) = (u.x + t * dx - p.x, u.y + t * dy - p.y)
                    let distance = (ex * ex + ey * ey).squareRoot()
                    if distance < (best?.distance ?? .infinity) { best = (distance, a + (b - a) * t) }
                }
            }
            // A point a clip put on an input edge is on it but for rounding.
            if let best, best.distance <= 1e-9 * max(1, abs(p.x), abs(p.y)) {
                ring[index].altitude = best.altitude
            } else {
                corners.append(index)
            }
        }
        if !corners.isEmpty, let fit = AltitudePlane(input.flatMap { $0.dropLast() }) {  // a ring's closing position once
            for index in corners { ring[index].altitude = fit.altitude(at: ring[index]) }
        }
        return ring
    }
}

/// The plane z = a + b·(longitude - x0) + c·(latitude - y0) that best fits positions' altitudes
/// (least squares; the mean altitude when they lie on a line), its values kept within theirs.
struct AltitudePlane {
    let a: Double, b: Double, c: Double, x0: Double, y0: Double
    let lowest: Double, highest: Double

    init?(_ positions: some Sequence<Position>) {
        let known = positions.compactMap { p in p.altitude.map { (p.longitude, p.latitude, $0) } }
        guard !known.isEmpty else { return nil }
        let n = Double(known.count)
        (x0, y0) = (known.reduce(0) { $0 + $1.0 } / n, known.reduce(0) { $0 + $1.1 } / n)
        let mean = known.reduce(0) { $0 + $1.2 } / n
        (lowest, highest) = (known.map(\.2).min()!, known.map(\.2).max()!)
        var (sxx, sxy, syy, sxz, syz) = (0.0, 0.0, 0.0, 0.0, 0.0)
        for (x, y, z) in known {
            let (dx, dy, dz) = (x - x0, y - y0, z - mean)
            sxx += dx * dx; sxy += dx * dy; syy += dy * dy; sxz += dx * dz; syz += dy * dz
        }
        let determinant = sxx * syy - sxy * sxy
        if abs(determinant) <= 1e-12 * max(1, sxx * syy) {
            (a, b, c) = (mean, 0, 0)
        } else {
            (a, b, c) = (mean, (sxz * syy - syz * sxy) / determinant, (syz * sxx - sxz * sxy) / determinant)
        }
    }

    func altitude(at p: Position) -> Double {
        min(highest, max(lowest, a + b * (p.longitude - x0) + c * (p.latitude - y0)))
    }
}
