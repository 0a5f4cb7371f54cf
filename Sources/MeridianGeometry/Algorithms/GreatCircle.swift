import RealModule

/// Great circles on a sphere of the Earth's mean radius, as MKGeodesicPolyline draws them.
public enum GreatCircle {
    /// The IUGG mean Earth radius, in metres.
    public static let earthRadius = 6_371_008.8

    /// The great-circle distance in metres (haversine).
    public static func distance(_ a: Position, _ b: Position) -> Double {
        let phi1 = a.latitude * .pi / 180, phi2 = b.latitude * .pi / 180
        let dPhi = phi2 - phi1, dLambda = (b.longitude - a.longitude) * .pi / 180
        let h = Double.sin(dPhi / 2) * Double.sin(dPhi / 2) + Double.cos(phi1) * Double.cos(phi2) * Double.sin(dLambda / 2) * Double.sin(dLambda / 2)
        return 2 * earthRadius * Double.asin(min(1, h.squareRoot()))
    }

    /// Points along the great circle from `a` to `b`, both included, about `spacing` metres
    /// apart (MKGeodesicPolyline puts about one per kilometre).
    public static func points(from a: Position, to b: Position, spacing: Double = 1000) -> [Position] {
        let d = distance(a, b)
        let segments = max(1, Int((d / spacing).rounded(.up)))
        let omega = d / earthRadius
        guard omega > 1e-12, abs(Double.sin(omega)) > 1e-12 else { return [a, b] }
        let va = vector(a), vb = vector(b)
        return (0...segments).map { i in
            if i == 0 { return a }
            if i == segments { return b }
            let t = Double(i) / Double(segments)
            let wa = Double.sin((1 - t) * omega) / Double.sin(omega), wb = Double.sin(t * omega) / Double.sin(omega)
            return position((wa * va.0 + wb * vb.0, wa * va.1 + wb * vb.1, wa * va.2 + wb * vb.2))
        }
    }

    /// A line densified along great circles between its points.
    public static func densify(_ line: [Position], spacing: Double = 1000) -> [Position] {
        guard var out = line.first.map({ [$0] }) else { return [] }
        for (a, b) in zip(line, line.dropFirst()) { out += points(from: a, to: b, spacing: spacing).dropFirst() }
        return out
    }

    /// A geometry with its lines and polygon rings densified along great circles, a point
    /// about every `spacing` metres, as MKGeodesicPolyline draws them; where they reach over
    /// ±180°, written in `style` (cut there, or with longitudes running on). Points are kept
    /// as they are.
    public static func densify(_ geometry: Geometry, spacing: Double = 1000, antimeridian style: Antimeridian.Style) -> Geometry {
        func dense(_ polygon: Polygon) -> [Polygon] {
            Antimeridian.polygon(Polygon(polygon.rings.map { densify($0, spacing: spacing) }), style: style)
        }
        switch geometry {
        case .point, .multiPoint:
            return geometry
        case .lineString(let l):
            return Antimeridian.line(densify(l.coordinates, spacing: spacing), style: style)
        case .multiLineString(let m):
            return .multiLineString(MultiLineString(Antimeridian.lines(m.lines.map { densify($0, spacing: spacing) }, style: style)))
        case .polygon(let p):
            return Antimeridian.geometry(of: dense(p))
        case .multiPolygon(let m):
            return .multiPolygon(MultiPolygon(m.polygons.flatMap(dense)))
        case .geometryCollection(let c):
            return .geometryCollection(GeometryCollection(c.geometries.map { densify($0, spacing: spacing, antimeridian: style) }))
        }
    }

    /// The point halfway along the great circle (a closed formula, to check interpolation by).
    public static func midpoint(_ a: Position, _ b: Position) -> Position {
        let va = vector(a), vb = vector(b)
        return position((va.0 + vb.0, va.1 + vb.1, va.2 + vb.2))
    }

    static func vector(_ p: Position) -> (Double, Double, Double) {
        let phi = p.latitude * .pi / 180, lambda = p.longitude * .pi / 180
        return (Double.cos(phi) * Double.cos(lambda), Double.cos(phi) * Double.sin(lambda), Double.sin(phi))
    }

    static func position(_ v: (Double, Double, Double)) -> Position {
        Position(longitude: Double.atan2(y: v.1, x: v.0) * 180 / .pi, latitude: Double.atan2(y: v.2, x: (v.0 * v.0 + v.1 * v.1).squareRoot()) * 180 / .pi)
    }
}

/// MKCircle: a circle in map-point space (round on the map, not on the ground), its radius in
/// map points taken at the centre's latitude.
public enum MapCircle {
    /// The ring of `segments` points (closed), longitudes continuing past ±180° where the circle
    /// reaches over the antimeridian.
    public static func ring(center: Position, radius meters: Double, segments: Int = 64) -> [Position] {
        let c = MapPoint(center)
        let r = meters * MapWorld.mapPointsPerMeter(atLatitude: center.latitude)
        var ring = (0..<segments).map { i -> Position in
            let angle = 2 * .pi * Double(i) / Double(segments)
            // Counter-clockwise on the map: map y grows south, so go the other way round.
            return MapPoint(x: c.x + r * Double.cos(angle), y: c.y - r * Double.sin(angle)).position
        }
        ring.append(ring[0])
        return ring
    }
}
