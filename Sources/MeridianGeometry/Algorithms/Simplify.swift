import HeapModule

/// Line simplification in map-point space (so it behaves as the map does at every latitude).
public enum SimplifyMethod: String, CaseIterable, Sendable {
    /// Apple's Breadcrumb sample: keep a point when it is at least the tolerance from the last
    /// kept one; the first and last points are always kept.
    case radial
    /// Douglas-Peucker, as GEOS (shapely's `simplify(preserve_topology=False)`) does it.
    case douglasPeucker = "douglas-peucker"
    /// Visvalingam-Whyatt: drop the point making the smallest triangle while that triangle's
    /// area is under tolerance².
    case visvalingam
}

/// Line simplification on bare map points, for callers that want the kept indices rather than a
/// simplified geometry (``GeometrySimplifier`` simplifies whole geometries and keeps polygons valid).
public enum Simplify {
    /// The indices of the points kept, in order (first and last always).
    public static func keptIndices(_ points: [MapPoint], tolerance: Double, method: SimplifyMethod) -> [Int] {
        guard points.count > 2 else { return Array(points.indices) }
        switch method {
        case .radial: return radial(points, tolerance: tolerance)
        case .douglasPeucker: return douglasPeucker(points, tolerance: tolerance)
        case .visvalingam: return visvalingam(points, tolerance: tolerance)
        }
    }

    static func radial(_ points: [MapPoint], tolerance: Double) -> [Int] {
        var kept = [0]
        var last = points[0]
        let squared = tolerance * tolerance
        for i in 1..<(points.count - 1) {
            let p = points[i]
            let dx = p.x - last.x, dy = p.y - last.y
            if dx * dx + dy * dy >= squared {
                kept.append(i)
                last = p
            }
        }
        kept.append(points.count - 1)
        return kept
    }

    /// Distance from p to the segment ab (GEOS measures to the segment, not the infinite line).
    @inline(__always)
    static func segmentDistance(_ p: MapPoint, _ a: MapPoint, _ b: MapPoint) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let length2 = dx * dx + dy * dy
        guard length2 > 0 else { return ((p.x - a.x) * (p.x - a.x) + (p.y - a.y) * (p.y - a.y)).squareRoot() }
        let t = ((p.x - a.x) * dx + (p.y - a.y) * dy) / length2
        if t <= 0 { return ((p.x - a.x) * (p.x - a.x) + (p.y - a.y) * (p.y - a.y)).squareRoot() }
        if t >= 1 { return ((p.x - b.x) * (p.x - b.x) + (p.y - b.y) * (p.y - b.y)).squareRoot() }
        // GEOS's perpendicular distance formula, for bit-equal decisions.
        let s = ((a.y - p.y) * dx - (a.x - p.x) * dy) / length2
        return abs(s) * length2.squareRoot()
    }

    static func douglasPeucker(_ points: [MapPoint], tolerance: Double) -> [Int] {
        var keep = [Bool](repeating: false, count: points.count)
        keep[0] = true
        keep[points.count - 1] = true
        var stack = [(0, points.count - 1)]
        points.withUnsafeBufferPointer { points in
            while let (first, last) = stack.popLast() {
                guard last - first > 1 else { continue }
                let (index, distance) = farthest(points, from: first, to: last)
                if distance > tolerance {
                    keep[index] = true
                    stack.append((index, last))
                    stack.append((first, index))
                }
            }
        }
        return keep.indices.filter { keep[$0] }
    }

    /// The point between `first` and `last` farthest from the segment joining them, and its
    /// distance as `segmentDistance` gives it (the first such point on a tie, as GEOS).
    ///
    /// The hot loop is Douglas-Peucker's whole cost, so it avoids a division and a square root
    /// per point: a cheap estimate (within a few ulps of the exact distance) rules out the points
    /// that cannot beat the best so far, and only the others get GEOS's exact formula. The
    /// points and distances chosen are therefore exactly those of `segmentDistance`.
    static func farthest(_ points: UnsafeBufferPointer<MapPoint>, from first: Int, to last: Int) -> (Int, Double) {
        let a = points[first], b = points[last]
        let dx = b.x - a.x, dy = b.y - a.y
        let length2 = dx * dx + dy * dy
        var best = -1.0, index = first
        guard length2 > 0 else {
            for i in (first + 1)..<last {
                let d = segmentDistance(points[i], a, b)
                if d > best { (best, index) = (d, i) }
            }
            return (index, best)
        }
        let length = length2.squareRoot()
        let estimate = length / length2   // |cross| × estimate ≈ the perpendicular distance
        let slack = 1 - 1e-12             // far wider than the estimate's error
        let nearOne = length2 * slack
        for i in (first + 1)..<last {
            let p = points[i]
            let px = p.x - a.x, py = p.y - a.y
            let along = px * dx + py * dy
            if along <= 0 || (along >= nearOne && along / length2 >= 1) {
                // Nearest to an end: compare squares first, take the root only for a contender.
                let end = along <= 0 ? a : b
                let ex = p.x - end.x, ey = p.y - end.y
                let squared = ex * ex + ey * ey
                guard squared >= best * best * slack || best < 0 else { continue }
                let d = squared.squareRoot()
                if d > best { (best, index) = (d, i) }
            } else {
                let cross = abs(py * dx - px * dy)  // GEOS's numerator, up to its sign
                guard cross * estimate >= best * slack else { continue }
                let d = abs(cross / length2) * length
                if d > best { (best, index) = (d, i) }
            }
        }
        return (index, best)
    }

    static func visvalingam(_ points: [MapPoint], tolerance: Double) -> [Int] {
        let n = points.count
        var previous = Array(-1..<(n - 1)), next = Array(1...n)
        var removed = [Bool](repeating: false, count: n)
        func area(_ i: Int) -> Double {
            let a = points[previous[i]], b = points[i], c = points[next[i]]
            return abs((b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y)) / 2
        }
        struct Entry: Comparable {
            var area: Double
            var index: Int
            static func < (l: Entry, r: Entry) -> Bool { l.area < r.area || (l.area == r.area && l.index < r.index) }
        }
        var heap = Heap<Entry>()
        var current = [Double](repeating: 0, count: n)
        for i in 1..<(n - 1) {
            current[i] = area(i)
            heap.insert(Entry(area: current[i], index: i))
        }
        let threshold = tolerance * tolerance
        while let smallest = heap.popMin() {
            let i = smallest.index
            guard !removed[i], smallest.area == current[i] else { continue }  // stale entry
            guard smallest.area < threshold else { break }
            removed[i] = true
            let p = previous[i], q = next[i]
            next[p] = q
            previous[q] = p
            // A neighbour's area never drops below the area just removed (Visvalingam's rule).
            for j in [p, q] where j > 0 && j < n - 1 {
                current[j] = max(area(j), smallest.area)
                heap.insert(Entry(area: current[j], index: j))
            }
        }
        return (0..<n).filter { !removed[$0] }
    }
}
