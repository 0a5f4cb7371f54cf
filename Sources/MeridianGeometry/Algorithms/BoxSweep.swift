/// An axis-aligned box a sweep along x can pair: a segment's, an edge's.
public protocol SweptBox {
    /// The type of the box's coordinates.
    associatedtype Coordinate: Comparable
    /// The box's west edge.
    var minX: Coordinate { get }
    /// The box's east edge.
    var maxX: Coordinate { get }
    /// The box's south (or top) edge.
    var minY: Coordinate { get }
    /// The box's north (or bottom) edge.
    var maxY: Coordinate { get }
}

/// A sweep along x over boxes: the pairs whose boxes overlap, each found once, without testing
/// every pair. Shared by the simplifier's search for crossing segments (`ChainNetwork`) and
/// the vector tiler's exact check of snapped polygons.
public enum BoxSweep {
    /// Sorts `boxes` by their west edge, then calls `body` with each pair whose boxes overlap
    /// (touching counts), the first of the pair at `index` in the sorted order, the second later.
    /// - Parameters:
    ///   - boxes: The boxes; sorted by `minX` on return.
    ///   - body: Takes the first box's index, the first box and the second; returns false to stop.
    /// - Returns: False when `body` stopped the sweep, true when every pair was seen.
    @inlinable
    public static func overlappingPairs<Box: SweptBox>(_ boxes: inout [Box], _ body: (_ index: Int, _ first: Box, _ second: Box) -> Bool) -> Bool {
        boxes.sort { $0.minX < $1.minX }
        return sweep(boxes, body)
    }

    /// The same sweep for boxes with integer coordinates (a vector tile's edges),
    /// in the same order: the boxes are sorted as one number each (the west edge, then the
    /// place in `boxes`), which costs a fraction of sorting the boxes themselves.
    @inlinable
    public static func overlappingPairs<Box: SweptBox>(_ boxes: inout [Box], _ body: (_ index: Int, _ first: Box, _ second: Box) -> Bool) -> Bool where Box.Coordinate == Int32 {
        if boxes.count < UInt32.max {
            var keys = boxes.indices.map { UInt64(UInt32(bitPattern: boxes[$0].minX) ^ 0x8000_0000) << 32 | UInt64($0) }
            keys.sort()
            boxes = keys.map { boxes[Int($0 & 0xFFFF_FFFF)] }
        } else {
            boxes.sort { $0.minX < $1.minX }
        }
        return sweep(boxes, body)
    }

    /// The same sweep for boxes with floating-point coordinates (the simplifier's
    /// segments), in the same order: the boxes are sorted as a pair of numbers each (the west
    /// edge's bits, ordered as the values are, and the place in `boxes`), which costs a
    /// fraction of sorting the boxes themselves. A run already sorted stays one run, so sorted
    /// boxes with new ones appended still sort as a merge.
    @inlinable
    public static func overlappingPairs<Box: SweptBox>(_ boxes: inout [Box], _ body: (_ index: Int, _ first: Box, _ second: Box) -> Bool) -> Bool where Box.Coordinate == Double {
        sortByWestEdge(&boxes)
        return sweep(boxes, body)
    }

    /// The pairs of the sweep above (for floating-point boxes) that have at least one box
    /// `involving` picks, each found once, first and second in the same order: the others
    /// are not visited. Where few boxes are picked (the simplifier's segments that have dropped
    /// positions to put back, or that are new since its last pass), this passes over the
    /// unpicked ones once each rather than pairing every box with its overlapping neighbours.
    /// - Parameters:
    ///   - boxes: The boxes; sorted by `minX` on return.
    ///   - involving: Which boxes a pair must include one of.
    ///   - body: Takes how many pairs were seen before, the first box and the second; returns false to stop.
    /// - Returns: False when `body` stopped the sweep, true when every such pair was seen.
    @inlinable
    public static func overlappingPairs<Box: SweptBox>(_ boxes: inout [Box], involving: (Box) -> Bool,
                                                       _ body: (_ seen: Int, _ first: Box, _ second: Box) -> Bool) -> Bool where Box.Coordinate == Double {
        sortByWestEdge(&boxes)
        let picked = boxes.indices.filter { involving(boxes[$0]) }
        var seen = 0
        // A picked box with every box after it whose west edge its east edge reaches.
        for i in picked {
            let whole = forEachOverlap(after: i, in: boxes) { s, t in
                guard body(seen, s, t) else { return false }
                seen += 1
                return true
            }
            guard whole else { return false }
        }
        // An unpicked box with the picked boxes after it that it reaches (the pairs of two
        // picked boxes were all seen above).
        var next = 0  // the first picked box after i
        var isPicked = [Bool](repeating: false, count: boxes.count)
        for i in picked { isPicked[i] = true }
        for i in boxes.indices where !isPicked[i] {
            while next < picked.count && picked[next] < i { next += 1 }
            let s = boxes[i]
            var k = next
            while k < picked.count && boxes[picked[k]].minX <= s.maxX {
                let t = boxes[picked[k]]
                k += 1
                guard t.minY <= s.maxY && s.minY <= t.maxY else { continue }
                guard body(seen, s, t) else { return false }
                seen += 1
            }
        }
        return true
    }

    /// Sorts boxes with floating-point coordinates by their west edge as the sweeps above do: as a pair of numbers each (the
    /// west edge's bits, ordered as the values are, and the place in `boxes`), which costs a
    /// fraction of sorting the boxes themselves. A run already sorted stays one run, so sorted
    /// boxes with new ones appended still sort as a merge.
    @inlinable
    static func sortByWestEdge<Box: SweptBox>(_ boxes: inout [Box]) where Box.Coordinate == Double {
        if boxes.count < UInt32.max && !boxes.contains(where: { $0.minX.isNaN }) {
            var keys = boxes.indices.map { (orderedBits(boxes[$0].minX), UInt32(truncatingIfNeeded: $0)) }
            keys.sort { $0 < $1 }
            boxes = keys.map { boxes[Int($0.1)] }
        } else {
            boxes.sort { $0.minX < $1.minX }
        }
    }

    /// A number's bits as an unsigned integer that orders as the numbers do (0 and -0 alike).
    @inlinable
    static func orderedBits(_ value: Double) -> UInt64 {
        let bits = (value + 0.0).bitPattern
        return bits >> 63 == 1 ? ~bits : bits | (1 << 63)
    }

    /// The sweep over boxes sorted by their west edge.
    @inlinable
    static func sweep<Box: SweptBox>(_ boxes: [Box], _ body: (_ index: Int, _ first: Box, _ second: Box) -> Bool) -> Bool {
        for i in boxes.indices {
            guard forEachOverlap(after: i, in: boxes, { body(i, $0, $1) }) else { return false }
        }
        return true
    }

    /// Box `i` of boxes sorted by their west edge with each box after it that it overlaps, in
    /// order: the later boxes its east edge reaches, kept when their north-south spans meet.
    /// Returns false when `body` stopped.
    @inlinable
    static func forEachOverlap<Box: SweptBox>(after i: Int, in boxes: [Box], _ body: (_ first: Box, _ second: Box) -> Bool) -> Bool {
        let s = boxes[i]
        var j = i + 1
        while j < boxes.count && boxes[j].minX <= s.maxX {
            let t = boxes[j]
            j += 1
            guard t.minY <= s.maxY && s.minY <= t.maxY else { continue }
            guard body(s, t) else { return false }
        }
        return true
    }
}
