/// Cutting rings at the antimeridian (RFC 7946 §3.1.9): the ring is unwrapped to continuous
/// longitudes, clipped against each 360°-wide band, and each piece moved back into ±180°.
public enum Antimeridian {
    /// The pieces of a closed ring, each within ±180°, each closed.
    public static func cut(_ ring: [Position]) -> [[Position]] {
        let plane = Rings.unwrapped(ring)
        let low = plane.map(\.x).min() ?? 0, high = plane.map(\.x).max() ?? 0
        var pieces: [[Position]] = []
        var band = ((low + 180) / 360).rounded(.down)
        while band * 360 - 180 < high {
            let west = band * 360 - 180, east = west + 360
            var piece = clip(plane, keepingAbove: west)
            piece = clip(piece, keepingBelow: east)
            if piece.count >= 3 {
                var positions = piece.map { Position(longitude: $0.x - band * 360, latitude: $0.y) }
                if let first = positions.first, first != positions.last { positions.append(first) }
                pieces.append(positions)
            }
            band += 1
        }
        return pieces
    }

    /// Sutherland–Hodgman against the half-plane x ≥ `limit` (a convex region, so any simple ring works).
    static func clip(_ ring: [PlanePoint], keepingAbove limit: Double) -> [PlanePoint] {
        clip(ring) { $0.x >= limit } crossing: { a, b in
            let t = (limit - a.x) / (b.x - a.x)
            return PlanePoint(limit, a.y + t * (b.y - a.y))
        }
    }

    static func clip(_ ring: [PlanePoint], keepingBelow limit: Double) -> [PlanePoint] {
        clip(ring) { $0.x <= limit } crossing: { a, b in
            let t = (limit - a.x) / (b.x - a.x)
            return PlanePoint(limit, a.y + t * (b.y - a.y))
        }
    }

    private static func clip(_ ring: [PlanePoint], inside: (PlanePoint) -> Bool,
                             crossing: (PlanePoint, PlanePoint) -> PlanePoint) -> [PlanePoint] {
        var points = ring
        if points.count > 1, points.first == points.last { points.removeLast() }
        var out: [PlanePoint] = []
        for i in 0..<points.count {
            let current = points[i], previous = points[(i + points.count - 1) % points.count]
            switch (inside(previous), inside(current)) {
            case (true, true): out.append(current)
            case (true, false): out.append(crossing(previous, current))
            case (false, true): out.append(crossing(previous, current)); out.append(current)
            case (false, false): break
            }
        }
        return out
    }
}

extension Antimeridian {
    /// MapKit's view of a line: longitudes continue past ±180° (179 → 181) so it draws unbroken.
    public static func continuous(_ line: [Position]) -> [Position] {
        zip(line, Rings.unwrapped(line)).map { Position(longitude: $1.x, latitude: $1.y, altitude: $0.altitude) }
    }

    /// RFC 7946's view: a line cut where it crosses ±180°, each part within ±180°, the
    /// crossing point interpolated (in longitude/latitude) and added to both parts.
    public static func split(_ line: [Position]) -> [[Position]] {
        let plane = Rings.unwrapped(line)
        var parts: [[Position]] = []
        var current: [Position] = []
        func band(_ x: Double) -> Double { ((x + 180) / 360).rounded(.down) }
        for (i, point) in plane.enumerated() {
            let altitude = line[i].altitude
            if i > 0 {
                let previous = plane[i - 1]
                var b = band(previous.x)
                // Each 180° line crossed between the two points ends a part.
                while band(point.x) != b {
                    let edge = point.x > previous.x ? (b + 1) * 360 - 180 : b * 360 - 180
                    let t = (edge - previous.x) / (point.x - previous.x)
                    let latitude = previous.y + t * (point.y - previous.y)
                    current.append(Position(longitude: edge - b * 360, latitude: latitude))
                    parts.append(current)
                    b += point.x > previous.x ? 1 : -1
                    current = [Position(longitude: edge - b * 360, latitude: latitude)]
                }
            }
            current.append(Position(longitude: point.x - band(point.x) * 360, latitude: point.y, altitude: altitude))
        }
        parts.append(current)
        return parts.filter { $0.count >= 2 }
    }
}

extension Antimeridian {
    /// Any geometry cut at ±180° per RFC 7946 §3.1.9: lines and polygons that cross become
    /// Multi* of their parts; what does not cross is returned as it is.
    public static func cut(_ geometry: Geometry) -> Geometry {
        switch geometry {
        case .point, .multiPoint:
            return geometry
        case .lineString(let l):
            guard Rings.crossesAntimeridian(l.coordinates) else { return geometry }
            return .multiLineString(MultiLineString(split(l.coordinates)))
        case .multiLineString(let m):
            guard m.lines.contains(where: Rings.crossesAntimeridian) else { return geometry }
            return .multiLineString(MultiLineString(m.lines.flatMap { Rings.crossesAntimeridian($0) ? split($0) : [$0] }))
        case .polygon(let p):
            let parts = cut(p)
            return parts.count == 1 ? .polygon(parts[0]) : .multiPolygon(MultiPolygon(parts))
        case .multiPolygon(let m):
            guard m.polygons.contains(where: { $0.rings.contains(where: Rings.crossesAntimeridian) }) else { return geometry }
            return .multiPolygon(MultiPolygon(m.polygons.flatMap(cut)))
        case .geometryCollection(let c):
            return .geometryCollection(GeometryCollection(c.geometries.map(cut)))
        }
    }

    /// A polygon's pieces: its outer ring cut, each hole cut and given to the piece that covers it.
    static func cut(_ polygon: Polygon) -> [Polygon] {
        guard polygon.rings.contains(where: Rings.crossesAntimeridian) else { return [polygon] }
        return pieces(of: polygon)
    }

    /// The pieces within ±180° of a polygon whose rings may jump over ±180° or run on past it.
    static func pieces(of polygon: Polygon) -> [Polygon] {
        guard let exterior = polygon.exterior else { return [polygon] }
        var pieces = cut(exterior).map { [$0] }
        for hole in polygon.holes {
            for part in reachesOver(hole) ? cut(hole) : [hole] {
                let probe = part[0]
                if let owner = pieces.indices.first(where: { Rings.covers(pieces[$0][0], probe) }) { pieces[owner].append(part) }
            }
        }
        return pieces.map(Polygon.init)
    }
}

extension Antimeridian {
    /// The two ways to write a line or polygon that reaches over ±180°.
    public enum Style: String, Sendable, CaseIterable {
        /// Cut into parts within ±180° (RFC 7946 §3.1.9).
        case split
        /// Longitudes continue past ±180° (MapKit's view: one unbroken overlay).
        case continuous
    }

    /// Whether a line or ring jumps over ±180° or runs on past it (a continuous one).
    static func reachesOver(_ ring: [Position]) -> Bool {
        Rings.crossesAntimeridian(ring) || ring.contains { abs($0.longitude) > 180 }
    }

    /// A line in `style`: split, one LineString, or a MultiLineString of the parts it was cut
    /// into; continuous, one LineString.
    public static func line(_ line: [Position], style: Style) -> Geometry {
        switch style {
        case .continuous: return .lineString(LineString(continuous(line)))
        case .split:
            let parts = split(line)
            return parts.count == 1 ? .lineString(LineString(parts[0])) : .multiLineString(MultiLineString(parts))
        }
    }

    /// Lines in `style`: split, each one's parts; continuous, each one unbroken.
    public static func lines(_ lines: [[Position]], style: Style) -> [[Position]] {
        switch style {
        case .continuous: return lines.map(continuous)
        case .split: return lines.flatMap(split)
        }
    }

    /// A polygon in `style`: split, its pieces within ±180° (itself when it reaches over
    /// nowhere); continuous, one polygon whose rings run on past ±180° without a jump, each
    /// hole on the same side of the antimeridian as its outer ring.
    public static func polygon(_ polygon: Polygon, style: Style) -> [Polygon] {
        switch style {
        case .split: return polygon.rings.contains(where: reachesOver) ? pieces(of: polygon) : [polygon]
        case .continuous: return [continuous(polygon)]
        }
    }

    /// One polygon, or the MultiPolygon of several pieces.
    public static func geometry(of pieces: [Polygon]) -> Geometry {
        pieces.count == 1 ? .polygon(pieces[0]) : .multiPolygon(MultiPolygon(pieces))
    }

    static func continuous(_ polygon: Polygon) -> Polygon {
        guard let exterior = polygon.exterior else { return polygon }
        let outer = continuous(exterior)
        func middle(_ ring: [Position]) -> Double { ring.reduce(0) { $0 + $1.longitude } / Double(max(ring.count, 1)) }
        let holes = polygon.holes.map { hole -> [Position] in
            let ring = continuous(hole)
            // Each ring is unwrapped from its own first position: bring the hole within 180° of its outer ring.
            let shift = ((middle(outer) - middle(ring)) / 360).rounded() * 360
            return shift == 0 ? ring : ring.map { Position(longitude: $0.longitude + shift, latitude: $0.latitude, altitude: $0.altitude) }
        }
        return Polygon([outer] + holes)
    }
}
