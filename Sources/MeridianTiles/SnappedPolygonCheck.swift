import MeridianGeometry

/// A quick and exact test, in the tile's integers, that a snapped polygon is plainly valid:
/// no two of its edges meet anywhere (but consecutive edges of a ring at their shared vertex,
/// without folding back along each other), every hole lies inside its own outer ring and in no
/// other hole, and no outer ring lies inside another. Such a polygon is valid by GEOS's rules
/// (and OGC's), so ``PolygonRepair`` keeps it without asking GEOS, whose check costs far more
/// (it builds the geometry, an index of monotone chains and its noder for every tile polygon).
///
/// The test is one-sided: a polygon it does not call plainly valid may still be valid (a hole
/// touching its shell at one point, an island in a lake); those, a few in a thousand once
/// snapped, go to GEOS as before, so what is written does not change.
enum SnappedPolygonCheck {
    /// Whether `rings` (each outer ring with positive area followed by its holes, with negative
    /// area, unclosed, no point repeated in a row, at least three points each, as
    /// `TileGrid.wound(_:)` makes them) is plainly valid; false when unsure.
    static func isPlainlyValid(_ rings: [[SIMD2<Int32>]]) -> Bool {
        guard !rings.isEmpty else { return false }
        guard let edges = edges(of: rings) else { return false }
        var segments = edges.segments
        guard noEdgesMeet(&segments, rings) else { return false }
        return nested(rings, edges.boxes)
    }

    /// The edges of `rings` and each ring's box, or nil when a ring has fewer than three points
    /// or a point lies beyond ±2^30 (kept within it, every product the tests take fits in an
    /// Int64).
    static func edges(of rings: [[SIMD2<Int32>]]) -> (segments: [Segment], boxes: [Box])? {
        let limit: Int32 = 1 << 30
        var segments: [Segment] = []
        segments.reserveCapacity(rings.reduce(0) { $0 + $1.count })
        var boxes: [Box] = []
        boxes.reserveCapacity(rings.count)
        for (r, ring) in rings.enumerated() {
            guard ring.count >= 3 else { return nil }
            var box = Box(minX: .max, minY: .max, maxX: .min, maxY: .min)
            for i in ring.indices {
                let p = ring[i], q = ring[i + 1 == ring.count ? 0 : i + 1]
                guard abs(p.x) < limit, abs(p.y) < limit else { return nil }
                box.add(p)
                segments.append(Segment(p: p, q: q, ring: Int32(r), index: Int32(i)))
            }
            boxes.append(box)
        }
        return (segments, boxes)
    }

    struct Box {
        var minX: Int32, minY: Int32, maxX: Int32, maxY: Int32
        mutating func add(_ p: SIMD2<Int32>) {
            minX = min(minX, p.x); minY = min(minY, p.y); maxX = max(maxX, p.x); maxY = max(maxY, p.y)
        }
        func contains(_ p: SIMD2<Int32>) -> Bool { minX <= p.x && p.x <= maxX && minY <= p.y && p.y <= maxY }
    }

    struct Segment: SweptBox {
        let p: SIMD2<Int32>, q: SIMD2<Int32>
        let ring: Int32, index: Int32
        let minX: Int32, maxX: Int32, minY: Int32, maxY: Int32
        init(p: SIMD2<Int32>, q: SIMD2<Int32>, ring: Int32, index: Int32) {
            (self.p, self.q, self.ring, self.index) = (p, q, ring, index)
            (minX, maxX) = (min(p.x, q.x), max(p.x, q.x))
            (minY, maxY) = (min(p.y, q.y), max(p.y, q.y))
        }
    }

    /// The sign of the turn a → b → c: positive one way, negative the other, 0 when in line.
    @inline(__always)
    static func orientation(_ a: SIMD2<Int32>, _ b: SIMD2<Int32>, _ c: SIMD2<Int32>) -> Int {
        let value = (Int64(b.x) - Int64(a.x)) * (Int64(c.y) - Int64(a.y)) - (Int64(b.y) - Int64(a.y)) * (Int64(c.x) - Int64(a.x))
        return value > 0 ? 1 : (value < 0 ? -1 : 0)
    }

    /// Whether `c`, in line with a–b, lies on the segment a–b (its ends included).
    @inline(__always)
    static func onSegment(_ a: SIMD2<Int32>, _ b: SIMD2<Int32>, _ c: SIMD2<Int32>) -> Bool {
        min(a.x, b.x) <= c.x && c.x <= max(a.x, b.x) && min(a.y, b.y) <= c.y && c.y <= max(a.y, b.y)
    }

    /// Whether two closed segments have any point in common.
    static func meet(_ s: Segment, _ t: Segment) -> Bool {
        let o1 = orientation(s.p, s.q, t.p), o2 = orientation(s.p, s.q, t.q)
        let o3 = orientation(t.p, t.q, s.p), o4 = orientation(t.p, t.q, s.q)
        if o1 * o2 < 0 && o3 * o4 < 0 { return true }
        return (o1 == 0 && onSegment(s.p, s.q, t.p)) || (o2 == 0 && onSegment(s.p, s.q, t.q))
            || (o3 == 0 && onSegment(t.p, t.q, s.p)) || (o4 == 0 && onSegment(t.p, t.q, s.q))
    }

    /// Whether consecutive edges a → b → c of a ring meet only at b: they do unless c lies
    /// back along b → a.
    static func meetOnlyAtJoint(_ a: SIMD2<Int32>, _ b: SIMD2<Int32>, _ c: SIMD2<Int32>) -> Bool {
        guard orientation(a, b, c) == 0 else { return true }
        let dot = (Int64(a.x) - Int64(b.x)) * (Int64(c.x) - Int64(b.x)) + (Int64(a.y) - Int64(b.y)) * (Int64(c.y) - Int64(b.y))
        return dot < 0
    }

    /// A sweep along x over the edges' boxes: true when no two edges meet but consecutive ones
    /// of a ring at their joint.
    static func noEdgesMeet(_ segments: inout [Segment], _ rings: [[SIMD2<Int32>]]) -> Bool {
        BoxSweep.overlappingPairs(&segments) { _, s, t in apart(s, t, rings) }
    }

    /// Whether two edges whose boxes overlap meet nowhere but, for consecutive edges of a
    /// ring, at their joint.
    @inline(__always)
    static func apart(_ s: Segment, _ t: Segment, _ rings: [[SIMD2<Int32>]]) -> Bool {
        if s.ring == t.ring {
            let count = Int32(rings[Int(s.ring)].count)
            // Consecutive edges (in a triangle, every pair is, both ways round: with
            // an area, none of its corners is flat, so one joint's test is enough).
            if (s.index + 1) % count == t.index { return meetOnlyAtJoint(s.p, s.q, t.q) }
            if (t.index + 1) % count == s.index { return meetOnlyAtJoint(t.p, t.q, s.q) }
        }
        return !meet(s, t)
    }

    /// For each polygon of `rings` (an outer ring and its holes, as ``isPlainlyValid(_:)``
    /// takes them), whether it takes part in what keeps `rings` from being plainly valid: an
    /// edge of it meets another edge (of it or of another polygon: both are marked), a hole of
    /// it is not plainly inside it, or its outer ring and another's are nested (both marked).
    /// The polygons left unmarked are apart from everything else and plainly valid each, so
    /// only the marked ones need a repair.
    static func polygonsNotPlainlyValid(_ rings: [[SIMD2<Int32>]]) -> [Bool] {
        var polygonOf: [Int32] = []
        polygonOf.reserveCapacity(rings.count)
        var polygons = 0
        for (r, ring) in rings.enumerated() {
            if r == 0 || TileGrid.doubleArea(ring) > 0 { polygons += 1 }
            polygonOf.append(Int32(polygons - 1))
        }
        var marked = [Bool](repeating: false, count: polygons)
        guard let edges = edges(of: rings) else { return [Bool](repeating: true, count: polygons) }
        var segments = edges.segments
        let boxes = edges.boxes
        _ = BoxSweep.overlappingPairs(&segments) { _, s, t in
            if !apart(s, t, rings) {
                marked[Int(polygonOf[Int(s.ring)])] = true
                marked[Int(polygonOf[Int(t.ring)])] = true
            }
            return true
        }
        // Nesting, as `nested` tests it.
        forEachNestingFault(rings, boxes) { shell, other in
            marked[Int(polygonOf[shell])] = true
            if let other { marked[Int(polygonOf[other])] = true }
            return true
        }
        return marked
    }

    /// The polygons of `rings` (as ``isPlainlyValid(_:)`` takes them): each one's rings, an
    /// outer ring and the holes after it.
    static func polygons(of rings: [[SIMD2<Int32>]]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var start = 0
        for r in rings.indices.dropFirst() where TileGrid.doubleArea(rings[r]) > 0 {
            out.append(start..<r)
            start = r
        }
        if !rings.isEmpty { out.append(start..<rings.count) }
        return out
    }

    /// The rings of the polygons (`polygons`, as ``polygons(of:)`` gives them) for which `chosen` is true, in order.
    static func rings(of rings: [[SIMD2<Int32>]], _ polygons: [Range<Int>], where chosen: [Bool]) -> [[SIMD2<Int32>]] {
        var out: [[SIMD2<Int32>]] = []
        for (n, range) in polygons.enumerated() where chosen[n] { out += rings[range] }
        return out
    }

    /// The polygons `marked` and every polygon whose box (around all its rings) meets the box
    /// of one of them, and so on: nothing made of these within their boxes can meet the others.
    static func reaching(_ marked: [Bool], _ rings: [[SIMD2<Int32>]], _ polygons: [Range<Int>]) -> [Bool] {
        guard marked.contains(false) else { return marked }
        struct PolygonBox: SweptBox {
            var minX: Int32, maxX: Int32, minY: Int32, maxY: Int32
            let polygon: Int32
        }
        var boxes = polygons.enumerated().map { n, range in
            var box = PolygonBox(minX: .max, maxX: .min, minY: .max, maxY: .min, polygon: Int32(n))
            for ring in rings[range] {
                for p in ring {
                    box.minX = min(box.minX, p.x); box.maxX = max(box.maxX, p.x)
                    box.minY = min(box.minY, p.y); box.maxY = max(box.maxY, p.y)
                }
            }
            return box
        }
        var parent = Array(0..<polygons.count)
        func root(_ n: Int) -> Int {
            var n = n
            while parent[n] != n {
                parent[n] = parent[parent[n]]
                n = parent[n]
            }
            return n
        }
        _ = BoxSweep.overlappingPairs(&boxes) { _, a, b in
            let ra = root(Int(a.polygon)), rb = root(Int(b.polygon))
            if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
            return true
        }
        var reached = [Bool](repeating: false, count: polygons.count)
        for n in polygons.indices where marked[n] { reached[root(n)] = true }
        return polygons.indices.map { reached[root($0)] }
    }

    /// Whether `p`, on no edge of `ring`, lies inside it (even-odd rule, exact).
    static func inside(_ p: SIMD2<Int32>, _ ring: [SIMD2<Int32>]) -> Bool {
        var inside = false
        var a = ring[ring.count - 1]
        for b in ring {
            if (a.y > p.y) != (b.y > p.y) {
                let cross = (Int64(b.x) - Int64(a.x)) * (Int64(p.y) - Int64(a.y)) - (Int64(b.y) - Int64(a.y)) * (Int64(p.x) - Int64(a.x))
                if (cross > 0) == (b.y > a.y) { inside.toggle() }
            }
            a = b
        }
        return inside
    }

    /// With no edges meeting, rings are apart: each hole must be inside its outer ring and in no
    /// other hole of it, and no outer ring inside another (an island in a lake goes to GEOS).
    static func nested(_ rings: [[SIMD2<Int32>]], _ boxes: [Box]) -> Bool {
        var nested = true
        forEachNestingFault(rings, boxes) { _, _ in
            nested = false
            return false
        }
        return nested
    }

    /// Finds what breaks `nested`'s rule, for rings whose edges are apart: calls `fault` with a
    /// polygon's outer ring and nil where one of its holes is not plainly inside it or lies in
    /// another of its holes (once a polygon), and with two outer rings where one lies inside the
    /// other; stops when `fault` returns false. One walk for both the yes-or-no test and the
    /// marking of polygons to repair.
    static func forEachNestingFault(_ rings: [[SIMD2<Int32>]], _ boxes: [Box], _ fault: (_ shell: Int, _ other: Int?) -> Bool) {
        var shells: [Int] = []
        var index = 0
        while index < rings.count {
            let shell = index
            shells.append(shell)
            index += 1
            let firstHole = index
            while index < rings.count, TileGrid.doubleArea(rings[index]) < 0 { index += 1 }
            let holes = firstHole..<index
            for hole in holes {
                let probe = rings[hole][0]
                let outsideItsShell = !(boxes[shell].contains(probe) && inside(probe, rings[shell]))
                if outsideItsShell || holes.contains(where: { $0 != hole && boxes[$0].contains(probe) && inside(probe, rings[$0]) }) {
                    guard fault(shell, nil) else { return }
                    break
                }
            }
        }
        shells.sort { boxes[$0].minX < boxes[$1].minX }
        for (n, a) in shells.enumerated() {
            for b in shells[(n + 1)...] {
                if boxes[b].minX > boxes[a].maxX { break }
                if (boxes[a].contains(rings[b][0]) && inside(rings[b][0], rings[a]))
                    || (boxes[b].contains(rings[a][0]) && inside(rings[a][0], rings[b])) {
                    guard fault(a, b) else { return }
                }
            }
        }
    }
}
