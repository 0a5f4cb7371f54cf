/// Simplifies geometries at a tolerance in map points, working in MapKit's projection so a
/// tolerance of "5 screen points at this zoom" means the same everywhere on the map.
///
/// Lines keep their first and last positions. Polygons stay valid: rings keep at least four
/// positions and are repaired where simplifying made them cross or touch (see `ChainNetwork`);
/// rings smaller than the tolerance ("smaller than a pixel") are dropped and counted, and so
/// are lines that shrink to a point. A geometry all of whose parts go is dropped whole and
/// counted, unless `keepSmall`. Kept positions are the input's own, bit for bit.
public struct GeometrySimplifier: Sendable {
    /// The tolerance in map points (see ``MapWorld``): a distance for radial and Douglas-Peucker,
    /// its square an area for Visvalingam. Multiply screen points by 1/zoom scale to get it.
    public var tolerance: Double
    /// The line simplification algorithm.
    public var method: SimplifyMethod
    /// Keep every geometry: one whose parts are all smaller than the tolerance keeps its largest
    /// outer ring as a tiny polygon (three of its own positions, closed: valid, with an area),
    /// or a line that would shrink to a point keeps two of its positions, as tippecanoe keeps
    /// polygons below a pixel, so areas and places do not vanish when zoomed out.
    public var keepSmall = false
    /// Asked now and then while simplifying makes a geometry valid again (work that grows fast
    /// with a long ring's positions): when it answers true, the repair stops where it is, and
    /// what is returned may be invalid. A caller that stops on a signal passes its check here,
    /// so a run does not go on for seconds after Ctrl-C; it must then throw the result away.
    public var stopRequested: (@Sendable () -> Bool)? = nil
    /// Rings dropped so far because they were smaller than the tolerance or degenerate.
    public private(set) var droppedRings = 0
    /// Lines dropped so far because they shrank to a point (a closed line smaller than the tolerance).
    public private(set) var droppedLines = 0
    /// Geometries (features) dropped whole so far: nothing of them was left.
    public private(set) var droppedGeometries = 0
    /// The names of per-position arrays that ``simplifyKeepingTopology(_:)`` dropped from some
    /// feature because they could not follow its simplified positions (a polygon's rings).
    public private(set) var droppedPositionData: Set<String> = []

    /// Creates a simplifier. One simplifier can be used for a whole stream of features; its
    /// counters add up across calls.
    /// - Parameters:
    ///   - tolerance: The tolerance in map points.
    ///   - method: The line simplification algorithm.
    ///   - keepSmall: Whether to keep a tiny version of geometries that would vanish (see ``keepSmall``).
    public init(tolerance: Double, method: SimplifyMethod, keepSmall: Bool = false) {
        self.tolerance = tolerance
        self.method = method
        self.keepSmall = keepSmall
    }

    /// The simplified geometry; nil when nothing is left (every outer ring and line dropped).
    /// The rings of one geometry are repaired against each other; lines are simplified on their own.
    public mutating func simplify(_ geometry: Geometry) -> Geometry? {
        let paths = geometry.paths
        let rings = paths.filter(\.isRing)
        // A geometry's lines count toward keeping it: a feature with a line left is not dropped.
        let keepsALine = paths.contains { !$0.isRing && $0.positions.count >= 2 }
        var simplified = simplifyPaths(rings, groups: [rings.indices], shareArcs: false, groupHasOtherParts: [keepsALine])[...]
        var lines: [[Position]?] = []
        for path in paths where !path.isRing { lines.append(finishedLine(self.line(path.positions), input: path.positions)) }
        var keptLines = lines[...]
        let result = geometry.rebuilt { path in
            path.isRing ? simplified.popFirst()! : keptLines.popFirst()!
        }
        if result == nil { droppedGeometries += 1 }
        return result
    }

    /// Simplifies a whole collection keeping its topology: borders that neighbouring polygons
    /// (or lines) share are simplified once and stay shared, and no two features' outlines come
    /// to cross or swallow one another. Features whose geometry vanished are left out (and counted).
    public mutating func simplifyKeepingTopology(_ features: [Feature]) -> [Feature] {
        var paths: [GeometryPath] = [], groups: [Range<Int>] = []
        for feature in features {
            let own = feature.geometry?.paths ?? []
            groups.append(paths.count..<(paths.count + own.count))
            paths += own
        }
        var simplified = simplifyPaths(paths, groups: groups, shareArcs: true, groupHasOtherParts: groups.map { _ in false })[...]
        return features.compactMap { feature in
            guard let geometry = feature.geometry else { return feature }
            guard let changed = geometry.rebuilt({ _ in simplified.popFirst()! }) else {
                droppedGeometries += 1
                return nil
            }
            var feature = feature
            droppedPositionData.formUnion(feature.replaceGeometry(with: changed))
            feature.bbox = nil
            return feature
        }
    }

    func line(_ positions: [Position]) -> [Position] {
        let points = positions.map(MapPoint.init)
        return Simplify.keptIndices(points, tolerance: tolerance, method: method).map { positions[$0] }
    }

    /// A simplified line, or nil (counted) when it shrank to a single point: with `keepSmall`
    /// it keeps its first position and the input's position farthest from it instead.
    mutating func finishedLine(_ kept: [Position], input: [Position]) -> [Position]? {
        guard let first = kept.first, kept.allSatisfy({ $0 == first }) else { return kept }
        let start = MapPoint(first)
        func distance(_ p: Position) -> Double {
            let m = MapPoint(p)
            return (m.x - start.x) * (m.x - start.x) + (m.y - start.y) * (m.y - start.y)
        }
        if keepSmall, let farthest = input.max(by: { distance($0) < distance($1) }), distance(farthest) > 0 {
            return [first, farthest]
        }
        droppedLines += 1
        return nil
    }

    /// Simplifies rings and lines together; nil for a ring that was dropped (or, in a shared
    /// network, a line that shrank to a point). `groups` are the paths of each geometry: one
    /// bigger than the tolerance keeps at least its largest outer ring, even when every ring
    /// alone is smaller (a country of scattered islets); with `keepSmall`, every one does,
    /// unless `groupHasOtherParts` says a line of it is kept anyway.
    mutating func simplifyPaths(_ paths: [GeometryPath], groups: [Range<Int>], shareArcs: Bool,
                                groupHasOtherParts: [Bool]) -> [[Position]?] {
        let topology = ArcTopology(paths: paths.map(\.positions), isRing: paths.map(\.isRing), shareArcs: shareArcs)
        var network = ChainNetwork()
        network.chains = topology.arcs.map { ChainNetwork.Chain($0[...]) }
        // A path's extent from its arcs' map points, projected once for the chains (each
        // position's projection, a logarithm and a tangent, was the simplifier's largest cost
        // after the repair); the same points, so the same rect.
        let extents = topology.paths.map { pieces in
            MapRect(enclosing: pieces.lazy.flatMap { network.chains[$0.arc].map })
        }
        var dropped = paths.indices.map { paths[$0].isRing && (paths[$0].positions.count < 4 || isSmallerThanTolerance(extents[$0])) }
        var keptSmall = Set<Int>()  // rings kept only because of keepSmall: checked for an area below
        for (group, hasOtherParts) in zip(groups, groupHasOtherParts) where group.allSatisfy({ !paths[$0].isOuter || dropped[$0] }) {
            let outers = group.filter { paths[$0].isOuter && paths[$0].positions.count >= 4 }
            guard let largest = outers.max(by: { extents[$0].longerSide < extents[$1].longerSide }) else { continue }
            if !isSmallerThanTolerance(group.reduce(MapRect.null) { $0.union(extents[$1]) }) {
                dropped[largest] = false
            } else if keepSmall && !hasOtherParts && !group.contains(where: { !paths[$0].isRing }) {
                dropped[largest] = false
                keptSmall.insert(largest)
            }
        }
        var networkRing: [Int?] = []  // per path: its index in network.rings, nil if dropped
        for index in paths.indices {
            if paths[index].isRing && !dropped[index] {
                networkRing.append(network.rings.count)
                network.rings.append(topology.paths[index].map(\.arc))
            } else {
                networkRing.append(nil)
            }
        }
        network.simplify(tolerance: tolerance, method: method)
        let degenerate = network.restoreCollapsedRings()
        network.repair(stopRequested: stopRequested)

        let kept = zip(topology.arcs, network.chains).map { arc, chain in chain.keptIndices.map { arc[$0] } }
        return paths.indices.map { index in
            guard paths[index].isRing else {
                return shareArcs ? finishedLine(topology.path(index, kept: kept), input: paths[index].positions) : topology.path(index, kept: kept)
            }
            guard let r = networkRing[index], !degenerate.contains(r) else {
                droppedRings += 1
                return nil
            }
            let ring = topology.path(index, kept: kept)
            // A ring kept small must still enclose an area (its input could be flat).
            if keptSmall.contains(index) && Rings.signedArea(Rings.unwrapped(ring)) == 0 {
                droppedRings += 1
                return nil
            }
            return ring
        }
    }

    /// Smaller than the tolerance both ways: "smaller than a pixel" (an empty rect is).
    func isSmallerThanTolerance(_ rect: MapRect) -> Bool { rect.longerSide < tolerance }

    /// Whether ``simplify(_:)`` is sure to leave something of `geometry`, told without
    /// simplifying it (its positions are only measured): points; a line whose ends differ (its
    /// ends are kept); rings whose extent together is not smaller than the tolerance with an
    /// outer ring of four positions or more (`simplifyPaths(_:groups:shareArcs:groupHasOtherParts:)`
    /// keeps the largest such, and a ring of four positions cannot collapse). False when it
    /// cannot tell: a tiler that needs to know whether a geometry vanishes (its area then adds
    /// to tiny polygons' squares) simplifies those.
    public func certainlyKeepsSomething(of geometry: Geometry) -> Bool {
        let paths = geometry.paths
        if paths.isEmpty {
            // Points are kept as they are; an empty collection is not.
            var hasPositions = false
            geometry.forEachPosition { _ in hasPositions = true }
            return hasPositions
        }
        if paths.contains(where: { !$0.isRing && $0.positions.count >= 2 && $0.positions.first != $0.positions.last }) { return true }
        let rings = paths.filter(\.isRing)
        guard rings.contains(where: { $0.isOuter && $0.positions.count >= 4 }) else { return false }
        return !isSmallerThanTolerance(rings.reduce(MapRect.null) { $0.union(MapRect(enclosing: $1.positions)) })
    }
}

extension MapRect {
    var longerSide: Double { max(size.width, size.height) }
}

/// A ring or a line of a geometry, in the order `Geometry.rebuilt` asks for them back.
struct GeometryPath {
    var positions: [Position]
    var isRing: Bool
    /// A polygon's first ring.
    var isOuter = false
}

extension Geometry {
    /// The geometry's rings and lines, in order.
    var paths: [GeometryPath] {
        switch self {
        case .point, .multiPoint: return []
        case .lineString(let l): return [GeometryPath(positions: l.coordinates, isRing: false)]
        case .multiLineString(let m): return m.lines.map { GeometryPath(positions: $0, isRing: false) }
        case .polygon(let p): return p.paths
        case .multiPolygon(let m): return m.polygons.flatMap(\.paths)
        case .geometryCollection(let c): return c.geometries.flatMap(\.paths)
        }
    }

    /// The geometry with each path replaced, in the order of `paths`: a nil ring is dropped, a
    /// polygon without its outer ring is dropped, and nil comes back when nothing is left.
    func rebuilt(_ replacement: (GeometryPath) -> [Position]?) -> Geometry? {
        func polygon(_ p: Polygon) -> Polygon? {
            let rings = p.rings.map { replacement(GeometryPath(positions: $0, isRing: true)) }
            guard let outer = rings.first, let outer else { return nil }
            return Polygon([outer] + rings.dropFirst().compactMap { $0 })
        }
        switch self {
        case .point, .multiPoint:
            return self
        case .lineString(let l):
            return replacement(GeometryPath(positions: l.coordinates, isRing: false)).map { .lineString(LineString($0)) }
        case .multiLineString(let m):
            let lines = m.lines.compactMap { replacement(GeometryPath(positions: $0, isRing: false)) }
            return lines.isEmpty ? nil : .multiLineString(MultiLineString(lines))
        case .polygon(let p):
            return polygon(p).map(Geometry.polygon)
        case .multiPolygon(let m):
            let polygons = m.polygons.compactMap(polygon)
            return polygons.isEmpty ? nil : .multiPolygon(MultiPolygon(polygons))
        case .geometryCollection(let c):
            let members = c.geometries.compactMap { $0.rebuilt(replacement) }
            return members.isEmpty ? nil : .geometryCollection(GeometryCollection(members))
        }
    }
}

extension Polygon {
    var paths: [GeometryPath] {
        rings.enumerated().map { GeometryPath(positions: $1, isRing: true, isOuter: $0 == 0) }
    }
}
