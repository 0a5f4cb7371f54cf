import RealModule

/// A point in the plane of longitude (x) and latitude (y), in degrees.
public struct PlanePoint: Hashable, Sendable {
    /// Longitude (or a map point's x, when a clip works in map points).
    public var x: Double
    /// Latitude (or a map point's y, when a clip works in map points).
    public var y: Double
    /// Creates a point from its x and y.
    public init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }
}

/// Planar computations on rings of longitude/latitude, with the antimeridian in mind: a ring
/// that crosses ±180° is first "unwrapped" so its longitudes run on continuously (179 → 181).
public enum Rings {
    /// The ring's points with longitudes made continuous: each step moves less than 180°.
    public static func unwrapped(_ ring: [Position]) -> [PlanePoint] {
        var out: [PlanePoint] = []
        out.reserveCapacity(ring.count)
        var offset = 0.0
        var previous: Double?
        for p in ring {
            if let previous, jumpsAntimeridian(previous, p.longitude) {
                offset += p.longitude > previous ? -360 : 360
            }
            previous = p.longitude
            out.append(PlanePoint(p.longitude + offset, p.latitude))
        }
        return out
    }

    /// True when some edge jumps more than 180° of longitude: it crosses the antimeridian.
    public static func crossesAntimeridian(_ ring: [Position]) -> Bool {
        zip(ring, ring.dropFirst()).contains { jumpsAntimeridian($0.longitude, $1.longitude) }
    }

    /// An edge between longitudes more than 180° apart takes the short way, across ±180°;
    /// except an edge from -180 to 180 (or back), which is the whole parallel of a ring that was
    /// already cut at the antimeridian (or a world-wide band).
    static func jumpsAntimeridian(_ a: Double, _ b: Double) -> Bool {
        abs(b - a) > 180 && !(abs(a) == 180 && abs(b) == 180)
    }

    /// Twice the signed area (shoelace): positive when the ring runs counter-clockwise.
    public static func signedArea(_ ring: [PlanePoint]) -> Double {
        guard ring.count >= 3 else { return 0 }
        var sum = 0.0
        for i in 0..<ring.count {
            let a = ring[i], b = ring[(i + 1) % ring.count]
            sum += a.x * b.y - b.x * a.y
        }
        return sum
    }

    /// Counter-clockwise (RFC 7946's right-hand rule for exterior rings)?
    public static func isCounterClockwise(_ ring: [Position]) -> Bool {
        signedArea(unwrapped(ring)) > 0
    }

    /// Twice the signed area of triangle pqr: positive when r is left of p→q, zero when collinear.
    static func orientation(_ p: PlanePoint, _ q: PlanePoint, _ r: PlanePoint) -> Double {
        (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x)
    }

    /// Whether r lies within the box of segment pq (with orientation zero: on the segment).
    static func inBox(_ p: PlanePoint, _ q: PlanePoint, _ r: PlanePoint) -> Bool {
        min(p.x, q.x) <= r.x && r.x <= max(p.x, q.x) && min(p.y, q.y) <= r.y && r.y <= max(p.y, q.y)
    }

    /// Whether r lies on segment pq.
    static func onSegment(_ p: PlanePoint, _ q: PlanePoint, _ r: PlanePoint) -> Bool {
        orientation(p, q, r) == 0 && inBox(p, q, r)
    }

    /// Whether segments ab and cd share a point (touching counts).
    public static func segmentsIntersect(_ a: PlanePoint, _ b: PlanePoint, _ c: PlanePoint, _ d: PlanePoint) -> Bool {
        segmentsCross(a, b, c, d) || onSegment(c, d, a) || onSegment(c, d, b) || onSegment(a, b, c) || onSegment(a, b, d)
    }

    /// Whether segments ab and cd cross at a single point inside both (a proper crossing;
    /// touching at an end or running along each other does not count).
    public static func segmentsCross(_ a: PlanePoint, _ b: PlanePoint, _ c: PlanePoint, _ d: PlanePoint) -> Bool {
        let d1 = orientation(c, d, a), d2 = orientation(c, d, b)
        let d3 = orientation(a, b, c), d4 = orientation(a, b, d)
        return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))
    }

    /// Whether `point` lies on one of the ring's edges.
    public static func onBoundary(_ ring: [PlanePoint], _ point: PlanePoint) -> Bool {
        guard ring.count >= 2 else { return false }
        return (0..<(ring.count - 1)).contains { onSegment(ring[$0], ring[$0 + 1], point) }
    }

    /// The first pair of non-adjacent edges of a closed ring that meet, as edge indices.
    public static func selfIntersection(_ ring: [PlanePoint]) -> (Int, Int)? {
        let n = ring.count - 1  // edges of a closed ring
        guard n >= 3 else { return nil }
        for i in 0..<(n - 2) {
            for j in (i + 2)..<n where !(i == 0 && j == n - 1) {
                if segmentsIntersect(ring[i], ring[i + 1], ring[j], ring[j + 1]) { return (i, j) }
            }
        }
        return nil
    }

    /// A point segments ab and cd share: where they cross, or where one ends on the other (for
    /// segments along each other, the first such end); nil when they do not meet.
    public static func meetingPoint(_ a: PlanePoint, _ b: PlanePoint, _ c: PlanePoint, _ d: PlanePoint) -> PlanePoint? {
        if segmentsCross(a, b, c, d) {
            // ab and cd cross properly, so they are not parallel: a + t (b - a) with t in (0, 1).
            let t = orientation(c, d, a) / (orientation(c, d, a) - orientation(c, d, b))
            return PlanePoint(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y))
        }
        if onSegment(c, d, a) { return a }
        if onSegment(c, d, b) { return b }
        if onSegment(a, b, c) { return c }
        if onSegment(a, b, d) { return d }
        return nil
    }

    /// Where a ring first crosses ±180° of longitude (the side it leaves from), or nil.
    public static func antimeridianCrossing(_ ring: [Position]) -> Position? {
        guard let i = ring.indices.dropLast().first(where: { jumpsAntimeridian(ring[$0].longitude, ring[$0 + 1].longitude) }) else { return nil }
        let a = ring[i], b = ring[i + 1]
        let edge = a.longitude > 0 ? 180.0 : -180.0
        // The far end, one turn round so the edge runs continuously across `edge`.
        let far = b.longitude + (a.longitude > 0 ? 360 : -360)
        let t = (edge - a.longitude) / (far - a.longitude)
        return Position(longitude: edge, latitude: a.latitude + t * (b.latitude - a.latitude))
    }

    /// Whether `point` lies inside the ring or on its boundary (which counts as inside).
    public static func contains(_ ring: [PlanePoint], _ point: PlanePoint) -> Bool {
        guard ring.count >= 3 else { return false }
        var inside = false
        var j = ring.count - 1
        for i in 0..<ring.count {
            let a = ring[i], b = ring[j]
            if onSegment(a, b, point) { return true }  // the boundary counts as inside
            if (a.y > point.y) != (b.y > point.y) {
                let x = (b.x - a.x) * (point.y - a.y) / (b.y - a.y) + a.x
                if point.x < x { inside.toggle() }
            }
            j = i
        }
        return inside
    }

    /// Even-odd test of a point against a closed path (the closing edge is implied); points on
    /// the boundary may fall either way.
    static func containsEvenOdd<C: RandomAccessCollection>(_ path: C, _ point: PlanePoint) -> Bool
    where C.Element == PlanePoint {
        guard var b = path.last else { return false }
        var inside = false
        for a in path {
            if (a.y > point.y) != (b.y > point.y) {
                let x = (b.x - a.x) * (point.y - a.y) / (b.y - a.y) + a.x
                if point.x < x { inside.toggle() }
            }
            b = a
        }
        return inside
    }

    /// Whether a ring given in longitude/latitude (possibly crossing ±180°) covers a position:
    /// the point is tried at its longitude and one turn either side, against the unwrapped ring.
    public static func covers(_ ring: [Position], _ position: Position) -> Bool {
        let plane = unwrapped(ring)
        return [0.0, 360, -360, 720, -720].contains { shift in
            contains(plane, PlanePoint(position.longitude + shift, position.latitude))
        }
    }

    /// The area a ring encloses on the WGS 84 authalic sphere, in square metres (always positive).
    public static func sphericalArea(_ ring: [Position]) -> Double {
        let radius = 6_371_007.2
        let points = unwrapped(ring)
        guard points.count >= 3 else { return 0 }
        var sum = 0.0
        for i in 0..<points.count {
            let a = points[i], b = points[(i + 1) % points.count]
            sum += (b.x - a.x) * .pi / 180 * (2 + Double.sin(a.y * .pi / 180) + Double.sin(b.y * .pi / 180))
        }
        return abs(sum * radius * radius / 2)
    }
}
