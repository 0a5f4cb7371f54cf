/// Local repairs, in the tile's integers, of what snapping to the grid most often breaks in a
/// polygon, so that GEOS's MakeValid (far slower: it nodes and rebuilds the whole feature) runs
/// only where they are not enough:
///
/// - a spike: a vertex where the ring turns straight back along itself (a narrow peninsula or
///   inlet whose two shores snapped onto one line) is cut off, with its zero-width stretch;
/// - a pinch: a ring that passes twice through one grid point (the neck of a narrow isthmus or
///   of a bay's mouth snapped shut) is split there into loops: a loop wound as its ring was (an
///   outer ring's lobe) stays a ring of that kind, one wound the other way (a bay closed off
///   from an outer ring) becomes a hole, which touches its outer ring at that one point, as
///   OGC allows;
/// - a ring left without an area (fewer than three points, or none enclosed) is dropped, an
///   outer ring with its holes.
///
/// Spikes and self-touching rings are invalid by OGC's rules, so a polygon these repairs change
/// was invalid, and one they do not change is left to GEOS as before. What they make is not
/// taken on trust: ``PolygonRepair`` keeps it only when ``SnappedPolygonCheck`` or GEOS finds
/// it valid. tippecanoe cleans every polygon with wagyu (a Vatti union and a topology
/// correction); these repairs are the few cases that union would change, done where they are.
enum SnappedPolygonCleanup {
    /// `rings` (each outer ring with positive area followed by its holes, unclosed, as
    /// `TileGrid.wound(_:)` makes them) with their spikes cut, their pinches split and the
    /// rings without an area dropped, in the same form; nil when a pinch splits a ring into
    /// loops these repairs cannot place (a loop wound as an outer ring inside a hole, a hole
    /// whose outer ring is unclear), which GEOS then repairs.
    static func cleaned(_ rings: [[SIMD2<Int32>]]) -> [[SIMD2<Int32>]]? {
        var out: [[SIMD2<Int32>]] = []
        out.reserveCapacity(rings.count)
        var index = 0
        while index < rings.count {
            let shell = rings[index]
            index += 1
            var holes: [[SIMD2<Int32>]] = []
            while index < rings.count, TileGrid.doubleArea(rings[index]) < 0 {
                holes += loops(of: rings[index])
                index += 1
            }
            var shells: [[SIMD2<Int32>]] = [], turned: [[SIMD2<Int32>]] = []
            for loop in loops(of: shell) {
                if TileGrid.doubleArea(loop) > 0 { shells.append(loop) } else { turned.append(loop) }
            }
            // A lobe inside another lobe of the same ring (a bay whose shores crossed at its
            // mouth comes out wound as land, inside the land) is covered by it: the union keeps the outer.
            if shells.count > 1 {
                let all = shells
                shells = all.indices.filter { n in
                    owner(of: all[n], among: all.indices.filter { $0 != n }.map { all[$0] }) == nil
                }.map { all[$0] }
            }
            // A loop of the outer ring wound the other way is a bay closed off (inside a lobe:
            // a hole) or, outside every lobe, a lobe twisted over at a crossing: land, as GEOS's
            // MakeValid keeps it, so it is turned the right way round.
            for loop in turned {
                if owner(of: loop, among: shells) != nil {
                    holes.append(loop)
                } else if !shells.isEmpty && isOutside(loop, all: shells) {
                    shells.append(Array(loop.reversed()))
                } else {
                    return nil
                }
            }
            // A hole split off a hole wound as an outer ring is an island in a lake, or a twist.
            guard holes.allSatisfy({ TileGrid.doubleArea($0) < 0 }) else { return nil }
            if shells.isEmpty { continue }  // the outer ring had no area left: its holes go with it
            if shells.count == 1 {
                out.append(shells[0])
                out += holes
                continue
            }
            var holesOf = [[[SIMD2<Int32>]]](repeating: [], count: shells.count)
            for hole in holes {
                guard let owner = owner(of: hole, among: shells) else { return nil }
                holesOf[owner].append(hole)
            }
            for (n, loop) in shells.enumerated() {
                out.append(loop)
                out += holesOf[n]
            }
        }
        return out
    }

    /// A ring without spikes, split at every point it passes through twice into loops that
    /// pass through each point once, those with an area kept (each wound as it runs).
    static func loops(of ring: [SIMD2<Int32>]) -> [[SIMD2<Int32>]] {
        let despiked = withoutSpikes(ring)
        guard despiked.count >= 3 else { return [] }
        var pieces: [[SIMD2<Int32>]] = []
        // Most rings pass through each point once: a set tells, and only those that do not are split.
        var seen = Set<SIMD2<Int32>>(minimumCapacity: despiked.count)
        var pinched = false
        for p in despiked where !seen.insert(p).inserted {
            pinched = true
            break
        }
        if !pinched {
            pieces = [despiked]
        } else {
            // Walk the ring with a stack of the open path: coming back to a point on it closes
            // the loop from there, which leaves the path.
            var path: [SIMD2<Int32>] = []
            var at: [SIMD2<Int32>: Int] = [:]
            for p in despiked {
                if let start = at[p] {
                    pieces.append(Array(path[start...]))
                    for q in path[start...] { at[q] = nil }
                    path.removeSubrange(start...)
                }
                at[p] = path.count
                path.append(p)
            }
            pieces.append(path)
        }
        return pieces.compactMap { piece in
            let loop = pinched ? withoutSpikes(piece) : piece
            return loop.count >= 3 && TileGrid.doubleArea(loop) != 0 ? loop : nil
        }
    }

    /// The ring (unclosed, as a cycle) without its spikes: vertices where the ring turns straight
    /// back along the edge it came by (the point after lies on the way back), and points
    /// repeated in a row. A spike encloses nothing, so the area does not change.
    static func withoutSpikes(_ ring: [SIMD2<Int32>]) -> [SIMD2<Int32>] {
        var out: [SIMD2<Int32>] = []
        out.reserveCapacity(ring.count)
        for p in ring {
            if out.last == p { continue }
            out.append(p)
            while out.count >= 3, folds(out[out.count - 3], out[out.count - 2], out[out.count - 1]) {
                out.remove(at: out.count - 2)
                if out.count >= 2, out[out.count - 2] == out[out.count - 1] { out.removeLast() }
            }
        }
        // Where the ring closes, the same: the last point against the first ones.
        var changed = true
        while changed, out.count >= 3 {
            changed = false
            if out[0] == out[out.count - 1] {
                out.removeLast()
                changed = true
            } else if folds(out[out.count - 2], out[out.count - 1], out[0]) {
                out.removeLast()
                changed = true
            } else if folds(out[out.count - 1], out[0], out[1]) {
                out.removeFirst()
                changed = true
            }
        }
        return out.count >= 3 ? out : []
    }

    /// Whether the ring turns straight back at `b`: a, b and c in line, and c on b's side of
    /// the way back to a (the two edges overlap along a stretch).
    @inline(__always)
    static func folds(_ a: SIMD2<Int32>, _ b: SIMD2<Int32>, _ c: SIMD2<Int32>) -> Bool {
        !SnappedPolygonCheck.meetOnlyAtJoint(a, b, c)
    }

    /// The outer ring, among `shells` (apart but for points they may share), that holds `hole`:
    /// found at the first of the hole's points on no outer ring's edge.
    static func owner(of hole: [SIMD2<Int32>], among shells: [[SIMD2<Int32>]]) -> Int? {
        for p in hole {
            var onEdge = false
            for (n, shell) in shells.enumerated() {
                switch locate(p, in: shell) {
                case .inside: return n
                case .onEdge: onEdge = true
                case .outside: break
                }
                if onEdge { break }
            }
            if !onEdge { return nil }  // outside every outer ring
        }
        return nil
    }

    /// Whether `loop` lies outside each of `shells` (apart but for points they may share): told
    /// at its first point on no outer ring's edge; false when every point is on one.
    static func isOutside(_ loop: [SIMD2<Int32>], all shells: [[SIMD2<Int32>]]) -> Bool {
        for p in loop {
            var onEdge = false, inside = false
            for shell in shells {
                switch locate(p, in: shell) {
                case .inside: inside = true
                case .onEdge: onEdge = true
                case .outside: break
                }
            }
            if inside { return false }
            if !onEdge { return true }
        }
        return false
    }

    enum Location { case inside, onEdge, outside }

    /// Where `p` is against `ring`: inside, on one of its edges, or outside (exact).
    static func locate(_ p: SIMD2<Int32>, in ring: [SIMD2<Int32>]) -> Location {
        var a = ring[ring.count - 1]
        for b in ring {
            if SnappedPolygonCheck.orientation(a, b, p) == 0, SnappedPolygonCheck.onSegment(a, b, p) { return .onEdge }
            a = b
        }
        return SnappedPolygonCheck.inside(p, ring) ? .inside : .outside
    }
}
