import MeridianGeometry

/// Where snapping made a ring's own edges cross or touch (a narrow neck or a bay's mouth whose
/// shores crossed on the grid), a vertex is put into both edges at the point where they meet:
/// the crossing rounded to the grid, or the end of one edge lying on the other. The ring then
/// passes twice through that point, and ``SnappedPolygonCleanup`` takes it apart there into
/// loops that only touch (a lobe, a bay closed off as a hole, a twisted lobe turned the right
/// way round, a zero-width stretch dropped). This is the snap-rounding step of a polygon
/// cleaner such as wagyu's (tippecanoe's), done only on the rings found at fault, in integers:
/// GEOS's MakeValid on a country's whole outline took most of the repair's time for a few
/// crossings of a few units.
///
/// Nothing here is taken on trust: ``PolygonRepair`` keeps what comes out only when
/// ``SnappedPolygonCheck`` or GEOS finds it valid, and otherwise repairs with GEOS as before.
/// Edges of two different rings that meet (two islands overlapping, a hole poking out of its
/// outer ring) need a union, not a split: those are left to GEOS.
enum SnappedRingNoding {
    /// `rings` (as `TileGrid.wound(_:)` makes them) with a vertex added to each pair of edges
    /// of one ring that meet elsewhere than at a joint of consecutive edges; nil when edges of
    /// two different rings meet, or when a ring has fewer than three points or points too far
    /// out for exact integer tests.
    static func noded(_ rings: [[SIMD2<Int32>]]) -> [[SIMD2<Int32>]]? {
        guard let edges = SnappedPolygonCheck.edges(of: rings) else { return nil }
        var segments = edges.segments
        // Per ring, the points to put into its edges: the edge's index, how far along it, the point.
        var additions = [[(edge: Int32, along: Int64, point: SIMD2<Int32>)]](repeating: [], count: rings.count)
        func add(_ point: SIMD2<Int32>, _ s: SnappedPolygonCheck.Segment) {
            guard point != s.p, point != s.q else { return }
            let along = (Int64(point.x) - Int64(s.p.x)) * (Int64(s.q.x) - Int64(s.p.x)) + (Int64(point.y) - Int64(s.p.y)) * (Int64(s.q.y) - Int64(s.p.y))
            additions[Int(s.ring)].append((s.index, along, point))
        }
        let ringsApart = BoxSweep.overlappingPairs(&segments) { _, s, t in
            if SnappedPolygonCheck.apart(s, t, rings) { return true }
            guard s.ring == t.ring else { return false }
            nodePair(s, t, add: add)
            return true
        }
        guard ringsApart else { return nil }
        return rings.indices.map { r in
            let ring = rings[r]
            guard !additions[r].isEmpty else { return ring }
            let sorted = additions[r].sorted { ($0.edge, $0.along) < ($1.edge, $1.along) }
            var out: [SIMD2<Int32>] = []
            out.reserveCapacity(ring.count + sorted.count)
            var next = 0
            for (i, p) in ring.enumerated() {
                if out.last != p { out.append(p) }
                while next < sorted.count && Int(sorted[next].edge) == i {
                    if out.last != sorted[next].point { out.append(sorted[next].point) }
                    next += 1
                }
            }
            while out.count > 1 && out.first == out.last { out.removeLast() }
            return out
        }
    }

    /// Nodes two edges that meet: a crossing, rounded to the grid, goes into both (as
    /// snap-rounding does); where they touch or overlap along a stretch, each end lying on the
    /// other edge goes into that edge. `add` takes a point and the edge it goes into.
    static func nodePair(_ s: SnappedPolygonCheck.Segment, _ t: SnappedPolygonCheck.Segment,
                         add: (SIMD2<Int32>, SnappedPolygonCheck.Segment) -> Void) {
        let o1 = SnappedPolygonCheck.orientation(s.p, s.q, t.p), o2 = SnappedPolygonCheck.orientation(s.p, s.q, t.q)
        let o3 = SnappedPolygonCheck.orientation(t.p, t.q, s.p), o4 = SnappedPolygonCheck.orientation(t.p, t.q, s.q)
        if o1 * o2 < 0 && o3 * o4 < 0 {
            let crossing = crossingPoint(s, t)
            add(crossing, s)
            add(crossing, t)
        } else {
            if o1 == 0 && SnappedPolygonCheck.onSegment(s.p, s.q, t.p) { add(t.p, s) }
            if o2 == 0 && SnappedPolygonCheck.onSegment(s.p, s.q, t.q) { add(t.q, s) }
            if o3 == 0 && SnappedPolygonCheck.onSegment(t.p, t.q, s.p) { add(s.p, t) }
            if o4 == 0 && SnappedPolygonCheck.onSegment(t.p, t.q, s.q) { add(s.q, t) }
        }
    }

    /// Where two edges that cross (each one's ends strictly on either side of the other) meet,
    /// rounded to the nearest grid point.
    static func crossingPoint(_ s: SnappedPolygonCheck.Segment, _ t: SnappedPolygonCheck.Segment) -> SIMD2<Int32> {
        let r = SIMD2(Double(s.q.x) - Double(s.p.x), Double(s.q.y) - Double(s.p.y))
        // Exact in integers (the coordinates are under 2^30), then one division.
        let denominator = (Int64(s.q.x) - Int64(s.p.x)) * (Int64(t.q.y) - Int64(t.p.y)) - (Int64(s.q.y) - Int64(s.p.y)) * (Int64(t.q.x) - Int64(t.p.x))
        let numerator = (Int64(t.p.x) - Int64(s.p.x)) * (Int64(t.q.y) - Int64(t.p.y)) - (Int64(t.p.y) - Int64(s.p.y)) * (Int64(t.q.x) - Int64(t.p.x))
        let fraction = Double(numerator) / Double(denominator)
        return SIMD2(Int32((Double(s.p.x) + fraction * r.x).rounded()), Int32((Double(s.p.y) + fraction * r.y).rounded()))
    }
}
