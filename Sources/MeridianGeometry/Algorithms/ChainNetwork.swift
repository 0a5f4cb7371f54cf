/// Lines and rings simplified together so that the result stays valid: no two kept segments
/// cross or touch where the input's did not, no simplified segment sweeps over another part of
/// the network (a hole or an island left outside its shell), and every ring keeps at least
/// three distinct positions.
///
/// Each chain is simplified on its own first (any `SimplifyMethod`); then repairs put back
/// input positions, the one farthest from the offending segment first, until nothing
/// conflicts. This is the idea of GEOS's TopologyPreservingSimplifier applied after the fact,
/// so one repair serves radial, Douglas-Peucker and Visvalingam alike. Distances are measured
/// in map points (MapKit's plane, where the tolerance lives); conflicts are tested in
/// longitude/latitude, the plane the output is written and validated in.
struct ChainNetwork {
    struct Chain {
        /// Where the tolerance is measured.
        var map: [MapPoint]
        /// Where validity is checked: the output's own coordinates.
        var plane: [PlanePoint]
        /// Which positions are kept; the first and the last always are.
        var keep: [Bool]
        var keptCount: Int

        init(_ positions: ArraySlice<Position>) {
            map = positions.map(MapPoint.init)
            plane = positions.map { PlanePoint($0.longitude, $0.latitude) }
            keep = [Bool](repeating: false, count: map.count)
            keptCount = 0
            mark(0)
            mark(map.count - 1)
        }

        mutating func mark(_ index: Int) {
            if !keep[index] {
                keep[index] = true
                keptCount += 1
            }
        }

        var keptIndices: [Int] { keep.indices.filter { keep[$0] } }

        /// The dropped position farthest from the kept segment a–b (nil when none lies between).
        func farthest(from a: Int, to b: Int) -> (index: Int, distance: Double)? {
            guard b - a > 1 else { return nil }
            var best = (index: a + 1, distance: -1.0)
            for i in (a + 1)..<b {
                let d = Simplify.segmentDistance(map[i], map[a], map[b])
                if d > best.distance { best = (i, d) }
            }
            return best
        }

        /// The dropped position farthest from its kept segment, over the whole chain.
        func farthestDropped() -> (index: Int, distance: Double)? {
            var best: (index: Int, distance: Double)?
            var a = 0
            for b in 1..<keep.count where keep[b] {
                if let f = farthest(from: a, to: b), f.distance > (best?.distance ?? -1) { best = f }
                a = b
            }
            return best
        }
    }

    var chains: [Chain] = []
    /// Rings as lists of chains; a closed chain alone, or arcs end to end.
    var rings: [[Int]] = []

    /// Simplifies every chain on its own.
    mutating func simplify(tolerance: Double, method: SimplifyMethod) {
        for c in chains.indices {
            for index in Simplify.keptIndices(chains[c].map, tolerance: tolerance, method: method) {
                chains[c].mark(index)
            }
        }
    }

    /// Distinct positions of a ring as kept now: each of its chains adds all but one of its
    /// kept positions (a closed chain repeats its first; arcs share their ends).
    func distinctPositions(ofRing ring: [Int]) -> Int {
        ring.reduce(0) { $0 + chains[$1].keptCount - 1 }
    }

    /// Puts positions back into rings left with fewer than three distinct ones, the farthest
    /// first. Returns the rings that cannot get there (their input is degenerate).
    mutating func restoreCollapsedRings() -> Set<Int> {
        var degenerate = Set<Int>()
        for (r, ring) in rings.enumerated() {
            while distinctPositions(ofRing: ring) < 3 {
                let candidates = ring.compactMap { c in chains[c].farthestDropped().map { (c, $0) } }
                guard let (c, f) = candidates.max(by: { $0.1.distance < $1.1.distance }) else {
                    degenerate.insert(r)
                    break
                }
                chains[c].mark(f.index)
            }
        }
        return degenerate
    }

    /// A kept segment: chain, first and last input index, its box in the plane, and whether it
    /// is new since the last pass of ``repair(stopRequested:)`` (made by putting a position back).
    struct Segment: SweptBox {
        var chain: Int
        var a: Int
        var b: Int
        var minX: Double, maxX: Double, minY: Double, maxY: Double
        var fresh = true
    }

    func segment(_ c: Int, _ a: Int, _ b: Int) -> Segment {
        let p = chains[c].plane[a], q = chains[c].plane[b]
        return Segment(chain: c, a: a, b: b, minX: min(p.x, q.x), maxX: max(p.x, q.x), minY: min(p.y, q.y), maxY: max(p.y, q.y))
    }

    func keptSegments() -> [Segment] {
        var segments: [Segment] = []
        for (c, chain) in chains.enumerated() {
            var a = 0
            for b in 1..<chain.keep.count where chain.keep[b] {
                segments.append(segment(c, a, b))
                a = b
            }
        }
        return segments
    }

    /// Repairs until no kept segment conflicts with another. Segments that are the input's
    /// own (nothing left to put back) and still conflict were invalid in the input; they stay.
    /// `stopRequested`, asked every 4,096 segments, ends the repair early (the result may then
    /// be invalid: the caller throws it away).
    ///
    /// Each pass tests only what changed since the last: pairs with a new segment, the new
    /// segments' stretches against every chain, and the others' stretches against the chains
    /// whose test point moved. Two segments the last pass found apart are still apart (neither
    /// moved), and the segments stay sorted by their west edge from pass to pass (the new ones
    /// merged in), so the sweep's sort is a merge. Nor is a pair of two of the input's own
    /// segments (nothing between their ends to put back) tested: whatever it finds, neither
    /// changes. The sweep visits only pairs with a box of the scarcer of the two kinds that
    /// count (new, or with positions to put back), and the segments to refine are flagged
    /// by their first position in one array.
    mutating func repair(stopRequested: (() -> Bool)? = nil) {
        var segments = keptSegments()
        var probes = self.probes()
        var movedProbes = probes
        // Where each chain's positions start in `splitting`, one flag per input position: the
        // segments to refine, by their first position (a flat array, not a set of keys: the
        // pass looks every kept segment up in it).
        var start: [Int] = [], total = 0
        for chain in chains {
            start.append(total)
            total += chain.keep.count
        }
        var splitting = [Bool](repeating: false, count: total), flagged = 0
        while true {
            if stopRequested?() == true { return }
            func flag(_ s: Segment) {
                if s.b - s.a > 1 && !splitting[start[s.chain] + s.a] {
                    splitting[start[s.chain] + s.a] = true
                    flagged += 1
                }
            }
            // Only a pair with a new segment can conflict anew, and only one with a segment
            // that has dropped positions can be refined: the sweep visits the pairs that have
            // a box of the scarcer kind (at a deep zoom most segments are the input's own).
            var fresh = 0, refinable = 0
            for s in segments {
                if s.fresh { fresh += 1 }
                if s.b - s.a > 1 { refinable += 1 }
            }
            let pickFresh = fresh <= refinable
            let swept = BoxSweep.overlappingPairs(&segments, involving: { pickFresh ? $0.fresh : $0.b - $0.a > 1 }) { seen, s, t in
                // Asked every 4,096 pairs (a long ring's repair can take minutes).
                if seen & 4095 == 4095, stopRequested?() == true { return false }
                if (s.fresh || t.fresh) && (s.b - s.a > 1 || t.b - t.a > 1) && conflict(s, t) {
                    flag(s)
                    flag(t)
                }
                return true
            }
            guard swept else { return }  // stopped
            for s in sweepingSegments(segments.lazy.filter(\.fresh), probes: probes) { flag(s) }
            if !movedProbes.isEmpty {
                for s in sweepingSegments(segments.lazy.filter { !$0.fresh }, probes: movedProbes) { flag(s) }
            }
            if flagged == 0 { return }
            var split: [Segment] = []
            var firstMoved: [Int] = []
            segments.removeAll { s in
                guard splitting[start[s.chain] + s.a] else { return false }
                splitting[start[s.chain] + s.a] = false
                let f = chains[s.chain].farthest(from: s.a, to: s.b)!.index
                chains[s.chain].mark(f)
                split.append(segment(s.chain, s.a, f))
                split.append(segment(s.chain, f, s.b))
                if s.a == 0 { firstMoved.append(s.chain) }
                return true
            }
            flagged = 0
            for i in segments.indices { segments[i].fresh = false }
            split.sort { $0.minX < $1.minX }
            segments += split  // two sorted runs: the sweep's sort merges them
            if firstMoved.isEmpty {
                movedProbes = []
            } else {
                probes = self.probes()
                let moved = Set(firstMoved)
                movedProbes = probes.filter { moved.contains($0.chain) }
            }
        }
    }

    struct SegmentKey: Hashable {
        var chain: Int
        var a: Int
    }

    /// Whether two kept segments meet anywhere but at a position they both end at.
    func conflict(_ s: Segment, _ t: Segment) -> Bool {
        let p1 = chains[s.chain].plane[s.a], p2 = chains[s.chain].plane[s.b]
        let q1 = chains[t.chain].plane[t.a], q2 = chains[t.chain].plane[t.b]
        if p1 == p2 || q1 == q2 { return false }  // a repeated position draws nothing
        let o1 = Rings.orientation(p1, p2, q1), o2 = Rings.orientation(p1, p2, q2)
        let o3 = Rings.orientation(q1, q2, p1), o4 = Rings.orientation(q1, q2, p2)
        if o1 == 0 && o2 == 0 {
            // Collinear: they may share one end, but must not overlap along a stretch.
            let alongX = p1.x != p2.x
            func key(_ p: PlanePoint) -> Double { alongX ? p.x : p.y }
            let overlap = min(max(key(p1), key(p2)), max(key(q1), key(q2))) - max(min(key(p1), key(p2)), min(key(q1), key(q2)))
            return overlap > 0
        }
        if ((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0)) { return true }
        // Touching: fine only where an end of one is an end of the other.
        if o1 == 0 && Rings.inBox(p1, p2, q1) && q1 != p1 && q1 != p2 { return true }
        if o2 == 0 && Rings.inBox(p1, p2, q2) && q2 != p1 && q2 != p2 { return true }
        if o3 == 0 && Rings.inBox(q1, q2, p1) && p1 != q1 && p1 != q2 { return true }
        if o4 == 0 && Rings.inBox(q1, q2, p2) && p2 != q1 && p2 != q2 { return true }
        return false
    }

    /// A point of each chain to test whether a stretch encloses it: the middle of the chain's
    /// first kept segment, which lies on no other chain when nothing conflicts. Sorted by x.
    struct Probe {
        var chain: Int
        var point: PlanePoint
    }

    func probes() -> [Probe] {
        var probes: [Probe] = chains.indices.compactMap { c in
            let chain = chains[c]
            guard chain.keep.count > 1, let b = chain.keep[1...].firstIndex(of: true) else { return nil }
            let p = chain.plane[0], q = chain.plane[b]
            return Probe(chain: c, point: PlanePoint((p.x + q.x) / 2, (p.y + q.y) / 2))
        }
        probes.sort { $0.point.x < $1.point.x }
        return probes
    }

    /// Of `segments`, those whose stretch of dropped positions, closed by the segment, encloses
    /// the probe of another chain (`probes`, sorted by x): flattening it would move that chain
    /// to the other side (an island swallowed by a coast, a hole left outside its shell).
    func sweepingSegments<Segments: Sequence<Segment>>(_ segments: Segments, probes: [Probe]) -> [Segment] {
        var sweeping: [Segment] = []
        for s in segments where s.b - s.a > 1 {
            let chain = chains[s.chain]
            // The stretch's own box, which the segment's may not cover.
            var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
            for p in chain.plane[s.a...s.b] {
                minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y)
            }
            var lower = 0, upper = probes.count
            while lower < upper {
                let middle = (lower + upper) / 2
                if probes[middle].point.x < minX { lower = middle + 1 } else { upper = middle }
            }
            for probe in probes[lower...] {
                if probe.point.x > maxX { break }
                guard probe.chain != s.chain, probe.point.y >= minY, probe.point.y <= maxY else { continue }
                if Rings.containsEvenOdd(chain.plane[s.a...s.b], probe.point) {
                    sweeping.append(s)
                    break
                }
            }
        }
        return sweeping
    }
}
