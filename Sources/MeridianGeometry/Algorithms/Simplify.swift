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
        while let (first, last) = stack.popLast() {
            guard last - first > 1 else { continue }
            var maxDistance = -1.0, index = first
            for i in (first + 1)..<last {
                let d = segmentDistance(points[i], points[first], points[last])
                if d > maxDistance {
                    maxDistance = d
                    index = i
                }
            }
            if maxDistance > tolerance {
                keep[index] = true
                stack.append((index, last))
                stack.append((first, index))
            }
        }
        return keep.indices.filter { keep[$0] }
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
