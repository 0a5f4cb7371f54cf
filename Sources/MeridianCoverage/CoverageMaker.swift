import MeridianCore
import MeridianFormats
import MeridianGeometry

/// Builds a coverage file that passes `validate --strict` from any geometry: convex hulls of the
/// input's parts (so every input point stays covered: simplification only ever goes outward),
/// merged where they overlap or when there are too many, cut down to Apple's point count by
/// cutting corners outward, split at the antimeridian, rounded outward to 6 decimals.
public struct CoverageMaker: Sendable {
    /// Polygons at most: hulls are merged until there are no more than this (Apple allows 20).
    public var maximumPolygons = 20
    /// Points per polygon at most, reached by cutting corners outward (Apple recommends 20).
    public var maximumPoints = 20
    /// Decimals coordinates are rounded to, outward, so the rounded outline still covers the input.
    public var decimals = 6

    /// Creates a maker with Apple's limits.
    public init() {}

    /// The coverage made, with the areas before and after and what still does not pass.
    public struct Result: Sendable {
        /// The coverage, outer rings only, to write with `CoverageFile.write(_:to:)`.
        public var coverage: MultiPolygon
        /// Area of the input's polygons and of the coverage, in square metres.
        public var inputArea: Double
        /// Area of the coverage made, in square metres.
        public var coverageArea: Double
        /// What `validate --strict` still finds in the file as written (the whole world asked
        /// for is too big an area); empty for every file made from a reasonable region.
        public var remaining: [CoverageIssue]

        /// The written file passes `validate --strict`.
        public var passes: Bool { remaining.isEmpty }
    }

    /// A convex polygon in the plane of unwrapped longitude (may pass ±180) and latitude,
    /// counter-clockwise, not closed.
    typealias Hull = [PlanePoint]

    /// Makes coverage for groups of positions: each group (a polygon's outer ring, a line, a
    /// point's circle) becomes a hull to start with.
    public func make(parts: [[Position]], inputArea: Double = 0) throws -> Result {
        var hulls: [Hull] = parts.compactMap { part in
            guard !part.isEmpty else { return nil }
            return Self.convexHull(Rings.unwrapped(part))
        }
        guard !hulls.isEmpty else { throw MeridianError(.badInput, "the input has no positions to cover") }
        hulls = merge(hulls)
        var polygons: [Polygon] = []
        // A margin of a few times the rounding step keeps every input point inside; checked
        // below, and widened in the (rare) case it was not enough.
        var margin = 4 / pow(10, Double(decimals))
        for _ in 0..<6 {
            polygons = []
            for hull in hulls {
                let crosses = Self.crossesAntimeridian(hull)
                // A cut adds up to two corners to each half.
                let budget = maximumPoints - 1 - (crosses ? 2 : 0)
                let reduced = Self.offset(Self.reduce(hull.count < 3 ? Self.degenerate(hull) : hull, to: max(budget, 3)), by: margin)
                let ring = Self.closedPositions(reduced)
                for piece in crosses ? Antimeridian.cut(ring) : [ring] {
                    polygons.append(Polygon([rounded(piece)]))
                }
            }
            let rings = polygons.map { $0.rings[0] }
            let uncovered = parts.joined().contains { p in !rings.contains { Rings.covers($0, p) } }
            if !uncovered { break }
            margin *= 4
        }
        let coverageArea = polygons.reduce(0) { $0 + Rings.sphericalArea($1.rings[0]) }
        let coverage = MultiPolygon(polygons)
        return Result(coverage: coverage, inputArea: inputArea, coverageArea: coverageArea, remaining: try CoverageFile.issues(in: coverage))
    }

    /// Reads any geometry file: polygons by their outer rings, lines and points as they are,
    /// points grown into circles of `bufferKilometres` when given.
    public func make(path: String?, bufferKilometres: Double? = nil) throws -> Result {
        let source = try FeatureInput(path: path, options: ReadOptions(coordinates: .geographic(for: "a coverage file")))
        var parts: [[Position]] = []
        var area = 0.0
        func add(_ geometry: Geometry) {
            switch geometry {
            case .point(let p): parts.append(circle(p.coordinates, bufferKilometres))
            case .multiPoint(let m): m.coordinates.forEach { parts.append(circle($0, bufferKilometres)) }
            case .lineString(let l): parts.append(l.coordinates)
            case .multiLineString(let m): parts += m.lines
            case .polygon(let p):
                if let exterior = p.exterior { parts.append(exterior); area += Rings.sphericalArea(exterior) }
            case .multiPolygon(let m):
                for p in m.polygons { if let exterior = p.exterior { parts.append(exterior); area += Rings.sphericalArea(exterior) } }
            case .geometryCollection(let c): c.geometries.forEach(add)
            }
        }
        while let feature = try source.reader.next() { feature.geometry.map(add) }
        return try make(parts: parts, inputArea: area)
    }

    /// A box as coverage; one whose west is east of its east crosses the antimeridian (RFC 7946
    /// §5.2) and is covered on both sides.
    public func make(covering box: BoundingBox) throws -> Result {
        let (west, south, north) = (box.west, box.south, box.north)
        let east = box.east < west ? box.east + 360 : box.east  // continuing past 180°, cut there later
        return try make(parts: [[Position(longitude: west, latitude: south), Position(longitude: east, latitude: south),
                                 Position(longitude: east, latitude: north), Position(longitude: west, latitude: north)]])
    }

    /// 16 points around `center` at `kilometres` (a point alone when nil), outside the true circle.
    func circle(_ center: Position, _ kilometres: Double?) -> [Position] {
        guard let kilometres, kilometres > 0 else { return [center] }
        let count = 16
        // The polygon's edges must stay outside the circle: put its corners at r / cos(π/n).
        let radius = kilometres * 1000 / cos(.pi / Double(count)) / 6_371_008.8 * 180 / .pi
        return (0..<count).map { i in
            let angle = 2 * .pi * Double(i) / Double(count)
            let dLat = radius * sin(angle)
            let dLon = radius * cos(angle) / max(cos(center.latitude * .pi / 180), 1e-6)
            return Position(longitude: center.longitude + dLon, latitude: min(max(center.latitude + dLat, -90), 90))
        }
    }

    // MARK: - Merging

    /// Merges hulls that overlap or touch, then the pairs that add the least area until the
    /// polygons (counting hulls across ±180 twice) fit Apple's limit. Candidate pairs are each
    /// hull's nearest neighbours, so hundreds of islands (Indonesia) merge in moments.
    func merge(_ start: [Hull]) -> [Hull] {
        // Small hulls make every union cheap; reducing outward keeps every point covered.
        var hulls = Self.mergeTouching(start.map { $0.count < 3 ? Self.degenerate($0) : Self.reduce($0, to: maximumPoints - 1) })
        func count() -> Int { hulls.reduce(0) { $0 + (Self.crossesAntimeridian($1) ? 2 : 1) } }
        while count() > maximumPolygons && hulls.count > 1 {
            // Each hull's cheapest union with one of its nearest neighbours…
            let centers = hulls.map(Self.center)
            var candidates: [(cost: Double, a: Int, b: Int, union: Hull)] = []
            for a in 0..<hulls.count {
                let neighbours = Self.nearest(6, to: a, among: centers)
                var best: (cost: Double, a: Int, b: Int, union: Hull)?
                for b in neighbours {
                    for shift in [0.0, 360, -360] {
                        let union = Self.convexHull(hulls[a] + hulls[b].map { PlanePoint($0.x + shift, $0.y) })
                        let cost = Self.area(union) - Self.area(hulls[a]) - Self.area(hulls[b])
                        if best == nil || cost < best!.cost { best = (cost, min(a, b), max(a, b), union) }
                    }
                }
                if let best { candidates.append(best) }
            }
            // …then the cheapest of those, several at a time while far above the limit.
            let merges = max(1, (count() - maximumPolygons) / 3)
            var used = Set<Int>(), chosen: [(a: Int, b: Int, union: Hull)] = []
            for candidate in candidates.sorted(by: { $0.cost < $1.cost }) where chosen.count < merges {
                guard !used.contains(candidate.a), !used.contains(candidate.b) else { continue }
                used.formUnion([candidate.a, candidate.b])
                chosen.append((candidate.a, candidate.b, candidate.union))
            }
            guard !chosen.isEmpty else { break }
            for merge in chosen { hulls[merge.a] = Self.reduce(merge.union, to: maximumPoints - 1) }
            for index in chosen.map(\.b).sorted(by: >) { hulls.remove(at: index) }
            hulls = Self.mergeTouching(hulls)
        }
        return hulls
    }

    /// The indices of the `k` centres nearest to centre `index` (the shorter way around the globe).
    static func nearest(_ k: Int, to index: Int, among centers: [PlanePoint]) -> [Int] {
        var best: [(Double, Int)] = []
        for (i, c) in centers.enumerated() where i != index {
            let dx = abs(c.x - centers[index].x).truncatingRemainder(dividingBy: 360)
            let wrapped = min(dx, 360 - dx), dy = c.y - centers[index].y
            let d = wrapped * wrapped + dy * dy
            if best.count < k {
                best.append((d, i))
                best.sort { $0.0 < $1.0 }
            } else if d < best[k - 1].0 {
                best[k - 1] = (d, i)
                best.sort { $0.0 < $1.0 }
            }
        }
        return best.map(\.1)
    }

    /// Merges hulls that overlap or touch (coverage polygons must not overlap), checking only
    /// `changed` against the others when only that one is new.
    static func mergeTouching(_ start: [Hull], changed: Int? = nil) -> [Hull] {
        var hulls = start
        var pending: [Int] = changed.map { [$0] } ?? Array(hulls.indices)
        while let a = pending.popLast() {
            guard a < hulls.count else { continue }
            for b in hulls.indices where b != a {
                guard let shift = [0.0, 360, -360].first(where: { shift in
                    touch(hulls[a], hulls[b].map { PlanePoint($0.x + shift, $0.y) })
                }) else { continue }
                let union = convexHull(hulls[a] + hulls[b].map { PlanePoint($0.x + shift, $0.y) })
                let (keep, drop) = (min(a, b), max(a, b))
                hulls[keep] = union
                hulls.remove(at: drop)
                pending = pending.filter { $0 != drop }.map { $0 > drop ? $0 - 1 : $0 }
                pending.append(keep)
                break
            }
        }
        return hulls
    }

    static func center(_ hull: Hull) -> PlanePoint {
        PlanePoint(hull.map(\.x).reduce(0, +) / Double(hull.count), hull.map(\.y).reduce(0, +) / Double(hull.count))
    }

    static func touch(_ a: Hull, _ b: Hull) -> Bool {
        // Boxes first: most pairs are far apart.
        guard let ax = a.map(\.x).min(), let bx = b.map(\.x).min(),
              ax <= b.map(\.x).max()!, bx <= a.map(\.x).max()!,
              a.map(\.y).min()! <= b.map(\.y).max()!, b.map(\.y).min()! <= a.map(\.y).max()! else { return false }
        let ca = a + [a[0]], cb = b + [b[0]]
        guard a.count > 1, b.count > 1 else {
            return Rings.contains(ca, b[0]) || Rings.contains(cb, a[0])
        }
        for i in 0..<(ca.count - 1) {
            for j in 0..<(cb.count - 1) where Rings.segmentsIntersect(ca[i], ca[i + 1], cb[j], cb[j + 1]) { return true }
        }
        return Rings.contains(ca, b[0]) || Rings.contains(cb, a[0])
    }

    // MARK: - Hulls

    /// Andrew's monotone chain: counter-clockwise, no repeated or collinear points.
    static func convexHull(_ points: [PlanePoint]) -> Hull {
        let sorted = Array(Set(points)).sorted { $0.x < $1.x || ($0.x == $1.x && $0.y < $1.y) }
        guard sorted.count > 2 else { return sorted }
        func cross(_ o: PlanePoint, _ a: PlanePoint, _ b: PlanePoint) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var lower: [PlanePoint] = [], upper: [PlanePoint] = []
        for p in sorted {
            while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }
            lower.append(p)
        }
        for p in sorted.reversed() {
            while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }
            upper.append(p)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }

    static func area(_ hull: Hull) -> Double { Rings.signedArea(hull) / 2 }

    /// Fewer corners, never a smaller polygon: two neighbouring corners are replaced by the point
    /// where the edges before and after them meet, choosing each time the cut that adds least area.
    static func reduce(_ start: Hull, to limit: Int) -> Hull {
        var hull = start
        while hull.count > limit {
            var best: (added: Double, index: Int, point: PlanePoint)?
            let n = hull.count
            for i in 0..<n {
                let a = hull[(i + n - 1) % n], b = hull[i], c = hull[(i + 1) % n], d = hull[(i + 2) % n]
                guard let e = intersection(a, b, d, c) else { continue }
                // e must lie beyond b along a→b and beyond c along d→c (outside the hull).
                let beyondB = (e.x - b.x) * (b.x - a.x) + (e.y - b.y) * (b.y - a.y) >= 0
                let beyondC = (e.x - c.x) * (c.x - d.x) + (e.y - c.y) * (c.y - d.y) >= 0
                guard beyondB && beyondC else { continue }
                let added = abs((c.x - b.x) * (e.y - b.y) - (c.y - b.y) * (e.x - b.x)) / 2
                if best == nil || added < best!.added { best = (added, i, e) }
            }
            guard let best else { break }
            let i = best.index
            hull[i] = best.point
            hull.remove(at: (i + 1) % n)
        }
        return hull
    }

    /// A point or a segment has no area: give it a small box around it (about 10 m).
    static func degenerate(_ points: Hull) -> Hull {
        let xs = points.map(\.x), ys = points.map(\.y)
        let m = 1e-4
        return [PlanePoint(xs.min()! - m, ys.min()! - m), PlanePoint(xs.max()! + m, ys.min()! - m),
                PlanePoint(xs.max()! + m, ys.max()! + m), PlanePoint(xs.min()! - m, ys.max()! + m)]
    }

    /// Where the lines through a→b and d→c meet (nil when parallel).
    static func intersection(_ a: PlanePoint, _ b: PlanePoint, _ d: PlanePoint, _ c: PlanePoint) -> PlanePoint? {
        let r = PlanePoint(b.x - a.x, b.y - a.y), s = PlanePoint(c.x - d.x, c.y - d.y)
        let denominator = r.x * s.y - r.y * s.x
        guard abs(denominator) > 1e-15 else { return nil }
        let t = ((d.x - a.x) * s.y - (d.y - a.y) * s.x) / denominator
        return PlanePoint(a.x + t * r.x, a.y + t * r.y)
    }

    static func crossesAntimeridian(_ hull: Hull) -> Bool {
        let xs = hull.map(\.x)
        let low = xs.min() ?? 0, high = xs.max() ?? 0
        return (low < 180 && high > 180) || (low < -180 && high > -180)
    }

    /// The hull as closed positions, shifted so most of it lies within ±180.
    static func closedPositions(_ hull: Hull) -> [Position] {
        let center = (hull.map(\.x).min()! + hull.map(\.x).max()!) / 2
        let shift = center > 180 ? -360.0 : center < -180 ? 360 : 0
        var ring = hull.map { Position(longitude: $0.x + shift, latitude: min(max($0.y, -90), 90)) }
        ring.append(ring[0])
        return ring
    }

    /// Each edge moved outward by `margin` degrees (corners where the moved edges meet), so
    /// that rounding to `decimals` cannot bring the outline inside what it must cover.
    static func offset(_ hull: Hull, by margin: Double) -> Hull {
        let n = hull.count
        guard n >= 3 else { return hull }
        // Outward normal of edge i (counter-clockwise ring: to the right of the direction).
        func shifted(_ i: Int) -> (PlanePoint, PlanePoint) {
            let a = hull[i], b = hull[(i + 1) % n]
            let dx = b.x - a.x, dy = b.y - a.y
            let length = (dx * dx + dy * dy).squareRoot()
            let nx = dy / length * margin, ny = -dx / length * margin
            return (PlanePoint(a.x + nx, a.y + ny), PlanePoint(b.x + nx, b.y + ny))
        }
        return (0..<n).map { i in
            let (a, b) = shifted((i + n - 1) % n), (d, c) = shifted(i)
            return intersection(a, b, c, d) ?? b
        }
    }

    func rounded(_ ring: [Position]) -> [Position] {
        var out: [Position] = []
        for p in ring.dropLast() {
            let r = p.rounded(toDecimals: decimals)
            let q = Position(longitude: min(max(r.longitude, -180), 180), latitude: min(max(r.latitude, -90), 90))
            if out.last != q { out.append(q) }
        }
        if out.count > 1, out.first == out.last { out.removeLast() }
        out.append(out[0])
        return out
    }
}
