/// Clipping to an axis-aligned rectangle (a tile's map rect, or a longitude/latitude box),
/// with closed intervals: what lies on an edge stays.
///
/// Polygons are cut one half-plane at a time. Within a half-plane, each ring splits into the
/// runs that lie inside; a run that leaves is joined, along the cut line, to the next run that
/// comes back in, walking so the inside stays on the ring's left. Runs are never joined by going
/// out and back along the line, so no zero-width connecting edges appear (lineclip#1,
/// tilemaker#594), and a ring that leaves and re-enters becomes several rings.
public struct RectClip: Sendable {
    /// The rectangle's edges, in the plane's units (map points or degrees); y grows south in map
    /// points and north in degrees, and the clip does not care which.
    public var minX: Double, minY: Double, maxX: Double, maxY: Double

    /// Creates a clip rectangle from its edges (each `min` no greater than its `max`).
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// Creates a clip rectangle in map points from a map rect (a tile's ``MapTile/mapRect``, say).
    public init(_ rect: MapRect) {
        self.init(minX: rect.minX, minY: rect.minY, maxX: rect.maxX, maxY: rect.maxY)
    }

    /// Whether a point lies in the rect or on its edge.
    public func contains(_ p: PlanePoint) -> Bool {
        minX <= p.x && p.x <= maxX && minY <= p.y && p.y <= maxY
    }

    // MARK: Lines

    /// The parts of a line inside the rect: split where it leaves, segments on an edge kept.
    public func clip(line: [PlanePoint]) -> [[PlanePoint]] {
        var parts: [[PlanePoint]] = []
        var current: [PlanePoint] = []
        for (a, b) in zip(line, line.dropFirst()) {
            guard let (p, q) = clipSegment(a, b) else {
                if current.count >= 2 { parts.append(current) }
                current = []
                continue
            }
            if current.last != p {
                if current.count >= 2 { parts.append(current) }
                current = [p]
            }
            current.append(q)
            if q != b {  // left the rect
                parts.append(current)
                current = []
            }
        }
        if current.count >= 2 { parts.append(current) }
        return parts
    }

    /// Liang–Barsky, closed: nil when the segment misses the rect.
    func clipSegment(_ a: PlanePoint, _ b: PlanePoint) -> (PlanePoint, PlanePoint)? {
        var t0 = 0.0, t1 = 1.0
        let dx = b.x - a.x, dy = b.y - a.y
        for (p, q) in [(-dx, a.x - minX), (dx, maxX - a.x), (-dy, a.y - minY), (dy, maxY - a.y)] {
            if p == 0 {
                if q < 0 { return nil }
            } else {
                let r = q / p
                if p < 0 { if r > t1 { return nil }; t0 = max(t0, r) } else { if r < t0 { return nil }; t1 = min(t1, r) }
            }
        }
        let start = t0 == 0 ? a : PlanePoint(a.x + t0 * dx, a.y + t0 * dy)
        let end = t1 == 1 ? b : PlanePoint(a.x + t1 * dx, a.y + t1 * dy)
        return (start, end)
    }

    // MARK: Rings

    /// The pieces of a closed ring inside the rect, each closed, keeping the ring's orientation.
    public func clip(ring: [PlanePoint]) -> [[PlanePoint]] {
        halfPlanes([ring], counterClockwise: Rings.signedArea(ring) > 0)
    }

    /// `rings` (one region's boundary: each with the region on its left) cut by the rect's four
    /// half-planes in turn: x ≥ minX, x ≤ maxX, y ≥ minY, y ≤ maxY, each written "value(p) ≥ limit".
    func halfPlanes(_ rings: [[PlanePoint]], counterClockwise: Bool) -> [[PlanePoint]] {
        // A half-plane that holds every point gives closed rings back as they are: it is passed
        // over (a piece on its way down a quadtree is mostly cut by one or two of the rect's
        // edges, and each cut copied every ring). Told by the very comparisons the cut makes;
        // rings not closed, or too short, go through every cut, which closes or drops them.
        var keepsMinX = true, keepsMaxX = true, keepsMinY = true, keepsMaxY = true
        var closed = true
        for ring in rings {
            guard ring.count >= 4, ring.first == ring.last else {
                closed = false
                break
            }
            for p in ring {
                keepsMinX = keepsMinX && p.x >= minX
                keepsMaxX = keepsMaxX && -p.x >= -maxX
                keepsMinY = keepsMinY && p.y >= minY
                keepsMaxY = keepsMaxY && -p.y >= -maxY
            }
        }
        var rings = rings
        if !closed || !keepsMinX { rings = Self.clip(rings, counterClockwise: counterClockwise, keeping: { $0.x }, atLeast: minX) }
        if !closed || !keepsMaxX { rings = Self.clip(rings, counterClockwise: counterClockwise, keeping: { -$0.x }, atLeast: -maxX) }
        if !closed || !keepsMinY { rings = Self.clip(rings, counterClockwise: counterClockwise, keeping: { $0.y }, atLeast: minY) }
        if !closed || !keepsMaxY { rings = Self.clip(rings, counterClockwise: counterClockwise, keeping: { -$0.y }, atLeast: -maxY) }
        return rings
    }

    /// The part of a region where `value(p) ≥ limit`, as closed rings. The region is bounded by
    /// `rings` (closed), all wound with the region on their left: counter-clockwise outer rings
    /// and clockwise holes, or the reverse, as `counterClockwise` says of the outer ones. Rings
    /// wholly inside are kept as they are; the runs of those that cross the line are linked along
    /// it, whichever ring each came from, so a hole that crosses the line opens into its outer
    /// ring (one ring, going round the notch) instead of becoming a hole touching it.
    static func clip(_ rings: [[PlanePoint]], counterClockwise: Bool, keeping value: (PlanePoint) -> Double, atLeast limit: Double) -> [[PlanePoint]] {
        // Runs of the rings inside the half-plane, each from its entry to its exit on the line.
        struct Run { var points: [PlanePoint] }
        var runs: [Run] = []
        var result: [[PlanePoint]] = []
        for ring in rings {
            var points = ring
            if points.count > 1, points.first == points.last { points.removeLast() }
            guard points.count >= 3 else { continue }
            let inside = points.map { value($0) >= limit }
            if inside.allSatisfy({ $0 }) {
                result.append(points + [points[0]])
                continue
            }
            if !inside.contains(true) { continue }
            let n = points.count
            let start = (0..<n).first { !inside[$0] }!  // begin outside, so every run is whole
            var current: [PlanePoint]?
            for k in 1...n {
                let i = (start + k) % n, previous = (start + k - 1) % n
                let a = points[previous], b = points[i]
                switch (inside[previous], inside[i]) {
                case (false, true):
                    let entry = value(b) == limit ? b : crossing(a, b, value, limit)
                    current = entry == b ? [b] : [entry, b]
                case (true, true):
                    current?.append(b)
                case (true, false):
                    let exit = value(a) == limit ? a : crossing(a, b, value, limit)
                    if var run = current {
                        if run.last != exit { run.append(exit) }
                        runs.append(Run(points: run))
                    }
                    current = nil
                case (false, false):
                    break
                }
            }
        }
        // A run that only touches the line at one point has no area: drop it.
        // (Two distinct points: one differing from the first; a Set hashed every point of every run.)
        runs = runs.filter { run in run.points.contains { $0 != run.points[0] } && !run.points.allSatisfy { value($0) == limit } }
        guard !runs.isEmpty else { return result }

        // Along the line, the inside is on the rings' left: counter-clockwise outer rings (in
        // these coordinates) walk one way from an exit to the next entry, clockwise ones the other.
        func along(_ p: PlanePoint) -> Double { position(alongLineOf: p, value) }
        var used = [Bool](repeating: false, count: runs.count)
        var entries = RunEntries(runs.map { along($0.points.first!) })
        for first in runs.indices where !used[first] {
            var ring: [PlanePoint] = []
            var index = first
            while !used[index] {
                used[index] = true
                entries.remove(index)
                ring += runs[index].points
                let exit = along(runs[index].points.last!)
                // The next entry in the walking direction (the nearest one; the ring's own first
                // when it is as near, closing the ring).
                var next = entries.nearest(to: exit, below: counterClockwise)
                let firstEntry = entries.positions[first]
                if counterClockwise ? firstEntry <= exit : firstEntry >= exit,
                   next.map({ abs(firstEntry - exit) <= abs(entries.positions[$0] - exit) }) ?? true {
                    next = first
                }
                guard let next else { break }
                index = next
            }
            var cleaned: [PlanePoint] = []
            for p in ring where cleaned.last != p { cleaned.append(p) }
            if cleaned.count > 1, cleaned.first == cleaned.last { cleaned.removeLast() }
            if cleaned.count >= 3 { result.append(cleaned + [cleaned[0]]) }
        }
        return result
    }

    /// The runs' entry positions along a cut line, sorted, for finding the nearest entry not yet
    /// linked in either direction in logarithmic time (a ring crossing the line thousands of
    /// times made scanning every run for each link quadratic: minutes).
    struct RunEntries {
        /// Each run's entry position along the line.
        let positions: [Double]
        /// The runs by (position, index), and where each run is in that order.
        private let order: [Int]
        private var slot: [Int]
        /// Skip pointers over the removed slots: the nearest slot at or below (above) one that
        /// is still there, found by following them (with path halving).
        private var below: [Int], above: [Int]

        init(_ positions: [Double]) {
            self.positions = positions
            order = positions.indices.sorted { (positions[$0], $0) < (positions[$1], $1) }
            slot = [Int](repeating: 0, count: positions.count)
            for (k, run) in order.enumerated() { slot[run] = k }
            below = Array(0..<positions.count)
            above = Array(0..<positions.count + 1)  // the last: past the end
        }

        /// Takes `run` out of those to be found.
        mutating func remove(_ run: Int) {
            let k = slot[run]
            below[k] = k - 1
            above[k] = k + 1
        }

        private mutating func remaining(atOrBelow k: Int) -> Int {
            var k = k
            while k >= 0 && below[k] != k {
                let next = below[k]
                if next >= 0 { below[k] = below[next] }
                k = next
            }
            return k
        }

        private mutating func remaining(atOrAbove k: Int) -> Int {
            var k = k
            while k < order.count && above[k] != k {
                let next = above[k]
                if next < order.count { above[k] = above[next] }
                k = next
            }
            return k
        }

        /// The first slot whose position is not below `value` (`orAbove`: above it).
        private func firstSlot(after value: Double, orAt: Bool) -> Int {
            var low = 0, high = order.count
            while low < high {
                let middle = (low + high) / 2
                if orAt ? positions[order[middle]] < value : positions[order[middle]] <= value { low = middle + 1 } else { high = middle }
            }
            return low
        }

        /// The remaining run whose entry is nearest `value` at or below it (`below`), else at or
        /// above it; of several at that position, the first run.
        mutating func nearest(to value: Double, below: Bool) -> Int? {
            if below {
                let k = remaining(atOrBelow: firstSlot(after: value, orAt: false) - 1)
                guard k >= 0 else { return nil }
                return order[remaining(atOrAbove: firstSlot(after: positions[order[k]], orAt: true))]
            }
            let k = remaining(atOrAbove: firstSlot(after: value, orAt: true))
            return k < order.count ? order[k] : nil
        }
    }

    /// The pieces of a polygon (its exterior ring, then holes; each closed) inside the rect:
    /// each piece of the exterior becomes a polygon, with the holes that lie in it. A hole the
    /// rect cuts opens into the exterior piece around it (a notch in its outline), so no piece
    /// has a hole touching its outer ring. Holes wound like the exterior are turned round.
    public func clip(polygon rings: [[PlanePoint]]) -> [[[PlanePoint]]] {
        guard let exterior = rings.first else { return [] }
        let counterClockwise = Rings.signedArea(exterior) > 0
        let wound = [exterior] + rings.dropFirst().map { (Rings.signedArea($0) > 0) == counterClockwise ? Array($0.reversed()) : $0 }
        let pieces = halfPlanes(wound, counterClockwise: counterClockwise)
        let outers = pieces.filter { (Rings.signedArea($0) > 0) == counterClockwise }
        var result = outers.map { [$0] }
        for hole in pieces where (Rings.signedArea(hole) > 0) != counterClockwise {
            // The hole belongs to the piece that holds a point of it away from the edges (its
            // centroid, then its edges' midpoints, tried in turn).
            let probes = [Self.centroid(hole)] + zip(hole, hole.dropFirst()).map { PlanePoint(($0.x + $1.x) / 2, ($0.y + $1.y) / 2) }
            if let owner = outers.indices.first(where: { index in
                probes.contains { Rings.contains(outers[index], $0) && !Rings.onBoundary(outers[index], $0) }
            }) {
                result[owner].append(hole)
            }
        }
        return result
    }

    static func centroid(_ ring: [PlanePoint]) -> PlanePoint {
        let open = ring.dropLast()
        return PlanePoint(open.map(\.x).reduce(0, +) / Double(open.count), open.map(\.y).reduce(0, +) / Double(open.count))
    }

    /// Where segment ab crosses value = limit.
    static func crossing(_ a: PlanePoint, _ b: PlanePoint, _ value: (PlanePoint) -> Double, _ limit: Double) -> PlanePoint {
        let t = (limit - value(a)) / (value(b) - value(a))
        let p = PlanePoint(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y))
        // Put it exactly on the line, whatever the rounding.
        if value(PlanePoint(1, 0)) != 0 {  // the line is x = ±limit
            return PlanePoint(value(PlanePoint(1, 0)) > 0 ? limit : -limit, p.y)
        }
        return PlanePoint(p.x, value(PlanePoint(0, 1)) > 0 ? limit : -limit)
    }

    /// A point's coordinate along the cut line, increasing to the left of the inward normal, so
    /// a counter-clockwise ring walks from an exit towards smaller values.
    static func position(alongLineOf p: PlanePoint, _ value: (PlanePoint) -> Double) -> Double {
        let nx = value(PlanePoint(1, 0)), ny = value(PlanePoint(0, 1))  // the inward normal
        return -ny * p.x + nx * p.y  // the normal turned a quarter to the left
    }
}
