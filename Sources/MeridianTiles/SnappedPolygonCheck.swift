import MeridianGeometry

/// A quick and exact test, in the tile's integers, that a snapped polygon is plainly valid:
/// no two of its edges meet anywhere (but consecutive edges of a ring at their shared vertex,
/// without folding back along each other), every hole lies inside its own outer ring and in no
/// other hole, and no outer ring lies inside another. Such a polygon is valid by GEOS's rules
/// (and OGC's), so ``PolygonRepair`` keeps it without asking GEOS, whose check costs far more
/// (it builds the geometry, an index of monotone chains and its noder for every tile polygon).
///
/// The test is one-sided: a polygon it does not call plainly valid may still be valid (a hole
/// touching its shell at one point, an island in a lake). ``isValid(_:)`` decides most of those
/// too, by OGC's rules for rings that touch; what it is unsure of goes to GEOS, so what is
/// written does not change.
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

    /// Whether `rings` (as ``isPlainlyValid(_:)`` takes them) is valid by OGC's rules, as GEOS
    /// checks them, told exactly in integers; false when invalid or unsure. It accepts all that
    /// ``isPlainlyValid(_:)`` does, at the same cost, and what snapping and the repair often
    /// make that it does not: rings of different polygons, or a hole and its outer ring, that
    /// touch at points, and an island in another polygon's lake.
    ///
    /// OGC's rules for such rings: no ring meets itself (but consecutive edges at their joint);
    /// two rings meet only at points, where neither crosses the other; each hole lies inside its
    /// outer ring and in no other hole of it; a polygon's outer ring lies outside every other
    /// polygon or inside one of its holes; and each polygon's interior is connected: its rings,
    /// joined where they touch, make no cycle (a hole touching its outer ring at two points, or
    /// two holes touching each other and the outer ring, cut the interior in two). Unsure, and
    /// so left to GEOS: three rings or more through one point, a ring whose every vertex is a
    /// point where it touches another, rings touching along a stretch (invalid).
    static func isValid(_ rings: [[SIMD2<Int32>]]) -> Bool {
        guard !rings.isEmpty, let edges = edges(of: rings) else { return false }
        var segments = edges.segments
        var touches: [Touch] = []
        let edgesApart = BoxSweep.overlappingPairs(&segments) { _, s, t in
            if apart(s, t, rings) { return true }
            // A ring meeting itself is invalid; two rings may meet at a point, where they must not cross.
            guard s.ring != t.ring, let point = touchPoint(s, t) else { return false }
            touches.append(s.ring < t.ring ? Touch(point: point, first: s, second: t) : Touch(point: point, first: t, second: s))
            return true
        }
        guard edgesApart else { return false }
        if touches.isEmpty { return nestedAllowingLakes(rings, edges.boxes, probes: rings.map { $0[0] }) }
        // Each touch once: a point where a vertex of one ring lies on the other is seen by up to
        // four pairs of edges.
        touches.sort { ($0.key, $0.first.ring, $0.second.ring) < ($1.key, $1.first.ring, $1.second.ring) }
        var unique: [Touch] = []
        unique.reserveCapacity(touches.count)
        for touch in touches {
            guard let last = unique.last, last.key == touch.key else {
                unique.append(touch)
                continue
            }
            // A second pair of rings through a point already touched: three rings or more meet there.
            guard last.first.ring == touch.first.ring && last.second.ring == touch.second.ring else { return false }
        }
        var polygonOf: [Int32] = []
        polygonOf.reserveCapacity(rings.count)
        var polygons: Int32 = 0
        for (r, ring) in rings.enumerated() {
            if r == 0 || TileGrid.doubleArea(ring) > 0 { polygons += 1 }
            polygonOf.append(polygons - 1)
        }
        // The rings of a polygon joined where they touch: a touch joining two already joined closes a cycle.
        var joined = Array(Int32(0)..<Int32(rings.count))
        for touch in unique {
            guard !crosses(touch, rings) else { return false }
            let a = touch.first.ring, b = touch.second.ring
            guard polygonOf[Int(a)] == polygonOf[Int(b)] else { continue }
            let ra = PlaneGraph.root(a, &joined), rb = PlaneGraph.root(b, &joined)
            guard ra != rb else { return false }
            joined[Int(max(ra, rb))] = min(ra, rb)
        }
        // Where one ring lies against another is told at a vertex of it off every other ring: one
        // where it touches nothing.
        var touched = Set<UInt64>(minimumCapacity: unique.count)
        for touch in unique { touched.insert(touch.key) }
        var probes: [SIMD2<Int32>] = []
        probes.reserveCapacity(rings.count)
        for ring in rings {
            guard let probe = ring.first(where: { !touched.contains(SnappedPolygonUnion.key($0)) }) else { return false }
            probes.append(probe)
        }
        return nestedAllowingLakes(rings, edges.boxes, probes: probes)
    }

    /// Two edges of different rings that meet, at one point: an end of one of them.
    struct Touch {
        let point: SIMD2<Int32>
        /// The edge of the ring that comes first in the feature, and the other ring's.
        let first: Segment, second: Segment
        var key: UInt64 { SnappedPolygonUnion.key(point) }
    }

    /// Where two edges of different rings that meet have their one point in common; nil when
    /// they cross or lie along each other for a stretch.
    static func touchPoint(_ s: Segment, _ t: Segment) -> SIMD2<Int32>? {
        let o1 = orientation(s.p, s.q, t.p), o2 = orientation(s.p, s.q, t.q)
        let o3 = orientation(t.p, t.q, s.p), o4 = orientation(t.p, t.q, s.q)
        if o1 * o2 < 0 && o3 * o4 < 0 { return nil }
        if o1 == 0 && o2 == 0 {
            // In line: they share one point only when the stretch they share has no length.
            let alongX = s.minX != s.maxX || t.minX != t.maxX
            let overlap = alongX ? min(s.maxX, t.maxX) - max(s.minX, t.minX) : min(s.maxY, t.maxY) - max(s.minY, t.minY)
            guard overlap == 0 else { return nil }
        }
        if o1 == 0 && onSegment(s.p, s.q, t.p) { return t.p }
        if o2 == 0 && onSegment(s.p, s.q, t.q) { return t.q }
        if o3 == 0 && onSegment(t.p, t.q, s.p) { return s.p }
        if o4 == 0 && onSegment(t.p, t.q, s.q) { return s.q }
        return nil
    }

    /// Whether the two rings of `touch` cross at its point (or run along each other from it):
    /// around the point, the ways the second ring leaves it must both lie between two
    /// consecutive ways of the first's, not one on either side.
    static func crosses(_ touch: Touch, _ rings: [[SIMD2<Int32>]]) -> Bool {
        let a = ways(from: touch.point, along: touch.first, rings), b = ways(from: touch.point, along: touch.second, rings)
        var around: [(way: SIMD2<Int64>, first: Bool)] = [(a.0, true), (a.1, true), (b.0, false), (b.1, false)]
        around.sort { PlaneGraph.turnsBefore($0.way, $1.way) }
        for i in 0..<4 where around[i].first != around[(i + 1) % 4].first {
            // Two rings leaving the point the same way overlap along a stretch.
            let d = around[i].way, e = around[(i + 1) % 4].way
            if d.x * e.y - d.y * e.x == 0 && d.x * e.x + d.y * e.y > 0 { return true }
        }
        // Round the point, one ring's two ways then the other's: apart; alternating: crossing.
        return around[0].first != around[1].first && around[1].first != around[2].first && around[2].first != around[3].first
    }

    /// The two ways a ring leaves `point`, which lies on its edge `edge`: to the vertices before
    /// and after it when it is one of the ring's vertices, else to the edge's ends.
    static func ways(from point: SIMD2<Int32>, along edge: Segment, _ rings: [[SIMD2<Int32>]]) -> (SIMD2<Int64>, SIMD2<Int64>) {
        let ring = rings[Int(edge.ring)], count = ring.count, i = Int(edge.index)
        let (before, after): (SIMD2<Int32>, SIMD2<Int32>)
        if point == edge.p {
            (before, after) = (ring[(i + count - 1) % count], edge.q)
        } else if point == edge.q {
            (before, after) = (edge.p, ring[(i + 2) % count])
        } else {
            (before, after) = (edge.p, edge.q)
        }
        func way(_ to: SIMD2<Int32>) -> SIMD2<Int64> { SIMD2(Int64(to.x) - Int64(point.x), Int64(to.y) - Int64(point.y)) }
        return (way(before), way(after))
    }

    /// For rings whose edges meet only where they touch without crossing, and `probes` a vertex
    /// of each ring on no other ring: whether each hole lies inside its outer ring and in no
    /// other hole of it, and each outer ring outside every other polygon or inside a hole of it.
    static func nestedAllowingLakes(_ rings: [[SIMD2<Int32>]], _ boxes: [Box], probes: [SIMD2<Int32>]) -> Bool {
        func within(_ r: Int, _ container: Int) -> Bool {
            boxes[container].contains(probes[r]) && inside(probes[r], rings[container])
        }
        var shells: [Int] = [], holesOf: [Range<Int>] = []
        var index = 0
        while index < rings.count {
            let shell = index
            index += 1
            while index < rings.count, TileGrid.doubleArea(rings[index]) < 0 { index += 1 }
            let holes = (shell + 1)..<index
            for hole in holes {
                guard within(hole, shell), !holes.contains(where: { $0 != hole && within(hole, $0) }) else { return false }
            }
            shells.append(shell)
            holesOf.append(holes)
        }
        let order = shells.indices.sorted { boxes[shells[$0]].minX < boxes[shells[$1]].minX }
        for (n, a) in order.enumerated() {
            for b in order[(n + 1)...] {
                if boxes[shells[b]].minX > boxes[shells[a]].maxX { break }
                // One inside the other's outer ring is valid only inside one of its holes: an island in a lake.
                for (inner, outer) in [(b, a), (a, b)] where within(shells[inner], shells[outer]) {
                    guard holesOf[outer].contains(where: { within(shells[inner], $0) }) else { return false }
                }
            }
        }
        return true
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

/// The polygons of a feature that a repair keeps as they are (plainly valid and apart from
/// everything), ready to tell whether what the repair made of the others stays apart from
/// them: only their rings whose boxes reach what was made are looked at, so a mainland's long
/// outline is not swept again for each small repair beside it.
struct KeptPolygons {
    /// The kept rings, as ``SnappedPolygonCheck/isPlainlyValid(_:)`` takes them.
    let rings: [[SIMD2<Int32>]]
    /// Each ring's box.
    private let boxes: [SnappedPolygonCheck.Box]
    /// Whether each ring is an outer ring.
    private let isShell: [Bool]

    /// `rings`: polygons plainly valid and apart from each other.
    init(_ rings: [[SIMD2<Int32>]]) {
        self.rings = rings
        boxes = rings.map { ring in
            var box = SnappedPolygonCheck.Box(minX: .max, minY: .max, maxX: .min, maxY: .min)
            for p in ring { box.add(p) }
            return box
        }
        isShell = rings.indices.map { $0 == 0 || TileGrid.doubleArea(rings[$0]) > 0 }
    }

    /// Whether `made` (rings as ``SnappedPolygonCheck/isPlainlyValid(_:)`` takes them) stays
    /// apart from the kept polygons, as ``SnappedPolygonCheck/polygonsNotPlainlyValid(_:)`` would
    /// find of the two together: no edge of one meets an edge of the other, and no outer ring of
    /// one lies inside an outer ring of the other. Whether `made` is valid in itself is not asked.
    func areApart(from made: [[SIMD2<Int32>]]) -> Bool {
        guard let madeEdges = SnappedPolygonCheck.edges(of: made) else { return false }
        var around = SnappedPolygonCheck.Box(minX: .max, minY: .max, maxX: .min, maxY: .min)
        for box in madeEdges.boxes {
            around.add(SIMD2(box.minX, box.minY))
            around.add(SIMD2(box.maxX, box.maxY))
        }
        // The kept rings' edges within the box around what was made, numbered after its rings.
        var segments = madeEdges.segments
        let firstKept = Int32(made.count)
        var near: [Int] = []
        for (r, box) in boxes.enumerated() where box.minX <= around.maxX && around.minX <= box.maxX && box.minY <= around.maxY && around.minY <= box.maxY {
            near.append(r)
            let ring = rings[r]
            for i in ring.indices {
                let edge = SnappedPolygonCheck.Segment(p: ring[i], q: ring[i + 1 == ring.count ? 0 : i + 1], ring: firstKept + Int32(r), index: Int32(i))
                if edge.minX <= around.maxX && around.minX <= edge.maxX && edge.minY <= around.maxY && around.minY <= edge.maxY {
                    segments.append(edge)
                }
            }
        }
        guard !near.isEmpty else { return true }
        let edgesApart = BoxSweep.overlappingPairs(&segments) { _, s, t in
            // Only an edge of what was made against a kept one: each side is tested on its own.
            (s.ring < firstKept) == (t.ring < firstKept) || !SnappedPolygonCheck.meet(s, t)
        }
        guard edgesApart else { return false }
        // With no edges meeting, an outer ring inside another is told at any of its points.
        for (m, shell) in made.enumerated() where m == 0 || TileGrid.doubleArea(shell) > 0 {
            let box = madeEdges.boxes[m]
            for r in near where isShell[r] {
                if (boxes[r].contains(shell[0]) && SnappedPolygonCheck.inside(shell[0], rings[r]))
                    || (box.contains(rings[r][0]) && SnappedPolygonCheck.inside(rings[r][0], shell)) {
                    return false
                }
            }
        }
        return true
    }
}
