import MeridianGeometry

/// The area that a group of snapped rings covers, rebuilt as valid rings in the tile's integers:
/// every edge of every ring noded against every other (where two edges cross, both get a vertex
/// at the crossing rounded to the grid; where an edge's end lies on another edge, that edge gets
/// the end as a vertex; until no two edges meet but at their ends), edges laid along each other
/// cancelled or added up, and the faces of that plane graph filled where the winding number is
/// positive: inside more outer rings than holes, as tippecanoe's polygon cleaner (wagyu) fills
/// them. Two islands that snapping made overlap come out as their union, a hole poking out of its
/// outer ring is cut back to it, a hole crossing another polygon's island leaves the island
/// whole. The filled region's boundary is walked with the region on its left, turning as tightly
/// as it can at each vertex, and split where it passes a point twice (``SnappedPolygonCleanup``),
/// so rings only touch at points: outer rings, and holes each given to the smallest outer ring
/// around it.
///
/// This is the job GEOS's MakeValid did for rings of different polygons that cross, at a
/// fraction of its cost: the noding and the face walk are a sort and a sweep, with no
/// floating-point predicates. Nothing is taken on trust: ``PolygonRepair`` keeps the result
/// only when ``SnappedPolygonCheck`` or GEOS finds it valid, and falls back on GEOS otherwise.
enum SnappedPolygonUnion {
    /// How many rounds of noding are tried: rounding a crossing to the grid moves an edge by up
    /// to half a unit, which can make it meet an edge it did not meet; a round nodes those. Past
    /// this many rounds the group is left to GEOS.
    static let nodingRounds = 8

    /// The area `rings` (each outer ring with positive area followed by its holes, unclosed,
    /// as `TileGrid.wound(_:)` makes them) cover, in the same form; empty when no area is left;
    /// nil when the rings cannot be noded in a few rounds, lie beyond ±2^30, or their faces do
    /// not add up (which would be a flaw here: GEOS then repairs).
    static func union(_ rings: [[SIMD2<Int32>]]) -> [[SIMD2<Int32>]]? {
        let limit: Int32 = 1 << 30
        var edges: [(a: SIMD2<Int32>, b: SIMD2<Int32>)] = []
        edges.reserveCapacity(rings.reduce(0) { $0 + $1.count })
        for ring in rings where ring.count >= 3 {
            for i in ring.indices {
                let p = ring[i], q = ring[i + 1 == ring.count ? 0 : i + 1]
                guard abs(p.x) < limit, abs(p.y) < limit else { return nil }
                if p != q { edges.append((p, q)) }
            }
        }
        guard let noded = noded(edges) else { return nil }
        guard let graph = PlaneGraph(netEdges(noded)) else { return nil }
        guard let boundary = graph.filledBoundary() else { return nil }
        return assembled(boundary)
    }

    /// `edges` split until no two meet but at their ends (two edges along each other become
    /// equal edges); nil when that takes more than ``nodingRounds`` rounds.
    ///
    /// The first round tests every pair of edges whose boxes meet. A piece of an edge split at
    /// points lying on it meets nothing its edge did not, and only at its ends: the later
    /// rounds test just the pieces that rounding a crossing to the grid moved off their edge,
    /// against every edge, while they are few.
    static func noded(_ edges: [(a: SIMD2<Int32>, b: SIMD2<Int32>)]) -> [(a: SIMD2<Int32>, b: SIMD2<Int32>)]? {
        typealias Segment = SnappedPolygonCheck.Segment
        var edges = edges
        var moved: [Bool]? = nil
        for _ in 0..<nodingRounds {
            var splits: [(edge: Int32, along: Int64, point: SIMD2<Int32>)] = []
            func add(_ point: SIMD2<Int32>, to s: Segment) {
                guard point != s.p, point != s.q else { return }
                let along = (Int64(point.x) - Int64(s.p.x)) * (Int64(s.q.x) - Int64(s.p.x)) + (Int64(point.y) - Int64(s.p.y)) * (Int64(s.q.y) - Int64(s.p.y))
                splits.append((s.ring, along, point))
            }
            func node(_ s: Segment, _ t: Segment) {
                SnappedRingNoding.nodePair(s, t) { add($0, to: $1) }
            }
            let segment = { (e: Int) in Segment(p: edges[e].a, q: edges[e].b, ring: Int32(e), index: 0) }
            if let moved, moved.lazy.filter({ $0 }).count <= 512 {
                // Only the moved pieces can meet anything but at their ends; edges outside the
                // box around them all are passed over at once.
                let pieces = edges.indices.filter { moved[$0] }.map(segment)
                var around = SnappedPolygonCheck.Box(minX: .max, minY: .max, maxX: .min, maxY: .min)
                for piece in pieces {
                    around.add(piece.p)
                    around.add(piece.q)
                }
                for e in edges.indices {
                    let t = segment(e)
                    guard t.minX <= around.maxX && around.minX <= t.maxX && t.minY <= around.maxY && around.minY <= t.maxY else { continue }
                    for s in pieces where Int(s.ring) != e && !(moved[e] && e < Int(s.ring)) {
                        if t.minX <= s.maxX && s.minX <= t.maxX && t.minY <= s.maxY && s.minY <= t.maxY { node(s, t) }
                    }
                }
            } else {
                var segments = edges.indices.map(segment)
                _ = BoxSweep.overlappingPairs(&segments) { _, s, t in
                    node(s, t)
                    return true
                }
            }
            if splits.isEmpty { return edges }
            splits.sort { ($0.edge, $0.along) < ($1.edge, $1.along) }
            var split: [(a: SIMD2<Int32>, b: SIMD2<Int32>)] = []
            split.reserveCapacity(edges.count + splits.count)
            var nowMoved: [Bool] = []
            nowMoved.reserveCapacity(edges.count + splits.count)
            var next = 0
            for (e, edge) in edges.enumerated() {
                // A point off the edge (a rounded crossing) moves the pieces on either side of
                // it; a moved edge's pieces are all moved.
                let wasMoved = moved?[e] ?? false
                var from = edge.a
                var off = false
                while next < splits.count && Int(splits[next].edge) == e {
                    let point = splits[next].point
                    if point != from {
                        let pointOff = SnappedPolygonCheck.orientation(edge.a, edge.b, point) != 0
                        split.append((from, point))
                        nowMoved.append(wasMoved || off || pointOff)
                        off = pointOff
                    }
                    from = point
                    next += 1
                }
                if from != edge.b {
                    split.append((from, edge.b))
                    nowMoved.append(wasMoved || off)
                }
            }
            edges = split
            moved = nowMoved
        }
        return nil
    }

    /// A point as one sortable, hashable number.
    @inline(__always)
    static func key(_ p: SIMD2<Int32>) -> UInt64 {
        UInt64(UInt32(bitPattern: p.x)) << 32 | UInt64(UInt32(bitPattern: p.y))
    }

    /// The noded edges with those along each other summed: each as `a` to `b` and how many
    /// more times it runs that way than back, which is how much higher the winding number is
    /// on its left than on its right; edges that cancel out are left out.
    static func netEdges(_ edges: [(a: SIMD2<Int32>, b: SIMD2<Int32>)]) -> [(a: SIMD2<Int32>, b: SIMD2<Int32>, count: Int32)] {
        var keyed = edges.map { edge -> (low: UInt64, high: UInt64, a: SIMD2<Int32>, b: SIMD2<Int32>, count: Int32) in
            let ka = key(edge.a), kb = key(edge.b)
            return ka < kb ? (ka, kb, edge.a, edge.b, 1) : (kb, ka, edge.b, edge.a, -1)
        }
        keyed.sort { ($0.low, $0.high) < ($1.low, $1.high) }
        var out: [(a: SIMD2<Int32>, b: SIMD2<Int32>, count: Int32)] = []
        var i = 0
        while i < keyed.count {
            var count: Int32 = 0
            var j = i
            while j < keyed.count && keyed[j].low == keyed[i].low && keyed[j].high == keyed[i].high {
                count += keyed[j].count
                j += 1
            }
            if count != 0 { out.append((keyed[i].a, keyed[i].b, count)) }
            i = j
        }
        return out
    }

    /// The filled region's boundary rings taken apart where they pass a point twice, wound
    /// as tiles want them: each outer ring followed by the holes it holds. Nil when a hole's
    /// outer ring cannot be told.
    static func assembled(_ boundary: [(ring: [SIMD2<Int32>], pinched: Bool)]) -> [[SIMD2<Int32>]]? {
        var shells: [[SIMD2<Int32>]] = [], holes: [[SIMD2<Int32>]] = []
        for (ring, pinched) in boundary {
            for loop in pinched ? SnappedPolygonCleanup.loops(of: ring) : [ring] {
                if TileGrid.doubleArea(loop) > 0 { shells.append(loop) } else { holes.append(loop) }
            }
        }
        if shells.count == 1 && holes.isEmpty { return shells }
        let boxes: [SnappedPolygonCheck.Box] = shells.map { shell in
            var box = SnappedPolygonCheck.Box(minX: .max, minY: .max, maxX: .min, maxY: .min)
            for p in shell { box.add(p) }
            return box
        }
        let areas = shells.map { TileGrid.doubleArea($0) }
        var holesOf = [[[SIMD2<Int32>]]](repeating: [], count: shells.count)
        for hole in holes {
            var owner: Int?
            // The smallest outer ring around the hole, told at a point of it on no outer ring's edge.
            points: for p in hole {
                owner = nil
                for n in shells.indices where boxes[n].contains(p) {
                    switch SnappedPolygonCleanup.locate(p, in: shells[n]) {
                    case .onEdge: continue points
                    case .inside: if owner.map({ areas[n] < areas[$0] }) ?? true { owner = n }
                    case .outside: break
                    }
                }
                break
            }
            guard let owner else { return nil }
            holesOf[owner].append(hole)
        }
        var out: [[SIMD2<Int32>]] = []
        for (n, shell) in shells.enumerated() {
            out.append(shell)
            out += holesOf[n]
        }
        return out
    }
}

/// The plane graph of noded edges: each edge as two half-edges, the half-edges out of each
/// vertex in order of angle, the faces they bound, and each face's winding number.
struct PlaneGraph {
    /// The half-edges: `2k` runs along edge k as it was given, `2k + 1` back.
    private let origin: [Int32]
    /// For each half-edge, how much higher the winding number is on its left than on its right.
    private let rise: [Int32]
    /// The vertices.
    private let points: [SIMD2<Int32>]
    /// The half-edges out of each vertex, counterclockwise: vertex v's are `around[first[v]..<first[v + 1]]`.
    private let first: [Int32]
    private let around: [Int32]
    /// Where each half-edge is in `around`.
    private let slot: [Int32]

    /// The graph of `edges` (noded: no two meet but at their ends, none repeated); nil when two
    /// edges out of a vertex run the same way (they were not noded).
    init?(_ edges: [(a: SIMD2<Int32>, b: SIMD2<Int32>, count: Int32)]) {
        var index: [UInt64: Int32] = [:]
        index.reserveCapacity(edges.count)
        var points: [SIMD2<Int32>] = []
        var origin: [Int32] = [], rise: [Int32] = []
        origin.reserveCapacity(2 * edges.count)
        rise.reserveCapacity(2 * edges.count)
        for edge in edges {
            for p in [edge.a, edge.b] {
                let k = SnappedPolygonUnion.key(p)
                if let v = index[k] {
                    origin.append(v)
                } else {
                    index[k] = Int32(points.count)
                    origin.append(Int32(points.count))
                    points.append(p)
                }
            }
            rise.append(edge.count)
            rise.append(-edge.count)
        }
        var first = [Int32](repeating: 0, count: points.count + 1)
        for v in origin { first[Int(v) + 1] += 1 }
        for v in 0..<points.count { first[v + 1] += first[v] }
        var filling = Array(first.dropLast())
        var around = [Int32](repeating: 0, count: origin.count)
        for h in origin.indices {
            let v = Int(origin[h])
            around[Int(filling[v])] = Int32(h)
            filling[v] += 1
        }
        var slot = [Int32](repeating: 0, count: origin.count)
        for v in 0..<points.count {
            let range = Int(first[v])..<Int(first[v + 1])
            let from = points[v]
            func direction(_ h: Int32) -> SIMD2<Int64> {
                let to = points[Int(origin[Int(h ^ 1)])]
                return SIMD2(Int64(to.x) - Int64(from.x), Int64(to.y) - Int64(from.y))
            }
            around[range].sort { PlaneGraph.turnsBefore(direction($0), direction($1)) }
            for i in range {
                // Two half-edges out of a vertex the same way: the edges were not noded.
                if i > range.lowerBound && !PlaneGraph.turnsBefore(direction(around[i - 1]), direction(around[i])) { return nil }
                slot[Int(around[i])] = Int32(i)
            }
        }
        (self.origin, self.rise, self.points, self.first, self.around, self.slot) = (origin, rise, points, first, around, slot)
    }

    /// Whether direction `d` comes before `e` counting counterclockwise (as positive areas run)
    /// from the positive x axis.
    @inline(__always)
    static func turnsBefore(_ d: SIMD2<Int64>, _ e: SIMD2<Int64>) -> Bool {
        let hd = d.y < 0 || (d.y == 0 && d.x < 0), he = e.y < 0 || (e.y == 0 && e.x < 0)
        if hd != he { return !hd }
        return d.x * e.y - d.y * e.x > 0
    }

    /// The half-edge after `h` around the face on its left: out of `h`'s end, the first one
    /// clockwise from the way back.
    @inline(__always)
    private func next(_ h: Int32) -> Int32 {
        let back = h ^ 1
        let v = Int(origin[Int(back)])
        let s = Int(slot[Int(back)])
        return around[s == Int(first[v]) ? Int(first[v + 1]) - 1 : s - 1]
    }

    /// The boundary of where the winding number is positive, as rings with that region on
    /// their left, each with whether it passes a vertex twice; nil when the faces' winding
    /// numbers do not agree (the graph was not planar).
    func filledBoundary() -> [(ring: [SIMD2<Int32>], pinched: Bool)]? {
        let halves = origin.count
        guard halves > 0 else { return [] }
        // Faces: each half-edge's left face, walked; the signed area tells a component's outer face.
        var face = [Int32](repeating: -1, count: halves)
        var faceStart: [Int32] = [], faceArea: [Int64] = []
        for h in 0..<halves where face[h] < 0 {
            let f = Int32(faceStart.count)
            faceStart.append(Int32(h))
            var area: Int64 = 0
            var e = Int32(h)
            repeat {
                face[Int(e)] = f
                let p = points[Int(origin[Int(e)])], q = points[Int(origin[Int(e ^ 1)])]
                area = area &+ (Int64(p.x) &* Int64(q.y) &- Int64(q.x) &* Int64(p.y))
                e = next(e)
            } while e != Int32(h)
            faceArea.append(area)
        }
        // Components: vertices joined by edges, each named by one of its vertices.
        var component = Array(Int32(0)..<Int32(points.count))
        for k in 0..<(halves / 2) {
            let a = PlaneGraph.root(origin[2 * k], &component), b = PlaneGraph.root(origin[2 * k + 1], &component)
            if a != b { component[Int(max(a, b))] = min(a, b) }
        }
        for v in component.indices { component[v] = PlaneGraph.root(Int32(v), &component) }
        // Winding numbers within each component, from its outer face (0 there), across edges.
        var winding = [Int32](repeating: 0, count: faceStart.count)
        var known = [Bool](repeating: false, count: faceStart.count)
        // Per component (by the vertex naming it), its outer face.
        var outerFace = [Int32](repeating: -1, count: points.count)
        var components: [Int32] = []
        for f in faceStart.indices where faceArea[f] < 0 {
            let c = component[Int(origin[Int(faceStart[f])])]
            guard outerFace[Int(c)] < 0 else { return nil }
            outerFace[Int(c)] = Int32(f)
            components.append(c)
        }
        var queue: [Int32] = []
        queue.reserveCapacity(faceStart.count)
        for c in components {
            let f = outerFace[Int(c)]
            known[Int(f)] = true
            queue.append(f)
        }
        var head = 0
        while head < queue.count {
            let f = queue[head]
            head += 1
            var e = faceStart[Int(f)]
            repeat {
                let g = face[Int(e ^ 1)]
                let w = winding[Int(f)] - rise[Int(e)]
                if !known[Int(g)] {
                    known[Int(g)] = true
                    winding[Int(g)] = w
                    queue.append(g)
                } else if winding[Int(g)] != w {
                    return nil
                }
                e = next(e)
            } while e != faceStart[Int(f)]
        }
        guard !known.contains(false) else { return nil }
        // Each component lies inside one face of every other: what the others wind around it is
        // the same all over it, found at one of its vertices.
        var offset = [Int32](repeating: 0, count: components.count > 1 ? points.count : 0)
        if components.count > 1 {
            var boxes = [SnappedPolygonCheck.Box](repeating: SnappedPolygonCheck.Box(minX: .max, minY: .max, maxX: .min, maxY: .min), count: points.count)
            var edgesOf = [[Int32]](repeating: [], count: points.count)
            for k in 0..<(halves / 2) {
                let c = Int(component[Int(origin[2 * k])])
                edgesOf[c].append(Int32(2 * k))
                boxes[c].add(points[Int(origin[2 * k])])
                boxes[c].add(points[Int(origin[2 * k + 1])])
            }
            for c in components {
                let p = points[Int(c)]
                var total: Int32 = 0
                for d in components where d != c && boxes[Int(d)].contains(p) {
                    for h in edgesOf[Int(d)] {
                        total += rise[Int(h)] * PlaneGraph.crossing(points[Int(origin[Int(h)])], points[Int(origin[Int(h ^ 1)])], p)
                    }
                }
                offset[Int(c)] = total
            }
        }
        let filled = faceStart.indices.map { f in
            winding[f] + (offset.isEmpty ? 0 : offset[Int(component[Int(origin[Int(faceStart[f])])])]) > 0
        }
        // The boundary: half-edges with the filled region on their left only, walked turning tightly.
        var boundary = [Bool](repeating: false, count: halves)
        for h in 0..<halves where filled[Int(face[h])] && !filled[Int(face[h ^ 1])] { boundary[h] = true }
        var used = [Bool](repeating: false, count: halves)
        var rings: [(ring: [SIMD2<Int32>], pinched: Bool)] = []
        var lastRing = [Int32](repeating: -1, count: points.count)
        for h in 0..<halves where boundary[h] && !used[h] {
            var ring: [SIMD2<Int32>] = []
            var pinched = false
            let number = Int32(rings.count)
            var e = Int32(h)
            while !used[Int(e)] {
                used[Int(e)] = true
                let v = Int(origin[Int(e)])
                if lastRing[v] == number { pinched = true }
                lastRing[v] = number
                ring.append(points[v])
                // Around the vertex, the first half-edge clockwise with the region on its left
                // only; there is one before the way back, unless the windings were inconsistent.
                var n = next(e)
                var turns = 0
                while !boundary[Int(n)] {
                    n = next(n ^ 1)
                    turns += 1
                    if turns > halves { return nil }
                }
                e = n
            }
            guard e == Int32(h) else { return nil }
            rings.append((ring, pinched))
        }
        return rings
    }

    /// The vertex naming `v`'s component in a union-find forest, the path to it shortened on the way.
    @inline(__always)
    static func root(_ v: Int32, _ parent: inout [Int32]) -> Int32 {
        var v = v
        while parent[Int(v)] != v {
            parent[Int(v)] = parent[Int(parent[Int(v)])]
            v = parent[Int(v)]
        }
        return v
    }

    /// How an edge from `a` to `b` winds around `p` (on no edge of its component): 1 when it
    /// crosses the line through `p` going up with `p` on its left, -1 going down with `p` on
    /// its right, else 0.
    @inline(__always)
    static func crossing(_ a: SIMD2<Int32>, _ b: SIMD2<Int32>, _ p: SIMD2<Int32>) -> Int32 {
        if a.y <= p.y {
            if b.y > p.y && SnappedPolygonCheck.orientation(a, b, p) > 0 { return 1 }
        } else if b.y <= p.y && SnappedPolygonCheck.orientation(a, b, p) < 0 {
            return -1
        }
        return 0
    }
}
