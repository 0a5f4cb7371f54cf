/// Simplifies geometries at a tolerance in map points, working in MapKit's projection so a
/// tolerance of "5 screen points at this zoom" means the same everywhere on the map.
///
/// Lines keep their first and last positions. Polygons stay valid: rings keep at least four
/// positions and are repaired where simplifying made them cross or touch (see `ChainNetwork`);
/// rings smaller than the tolerance ("smaller than a pixel") are dropped and counted. Kept
/// positions are the input's own, bit for bit.
public struct GeometrySimplifier: Sendable {
    public var tolerance: Double
    public var method: SimplifyMethod
    /// Rings dropped so far because they were smaller than the tolerance or degenerate.
    public private(set) var droppedRings = 0

    public init(tolerance: Double, method: SimplifyMethod) {
        self.tolerance = tolerance
        self.method = method
    }

    /// The simplified geometry; nil when nothing is left (every outer ring dropped). The rings
    /// of one geometry are repaired against each other; lines are simplified on their own.
    public mutating func simplify(_ geometry: Geometry) -> Geometry? {
        let rings = geometry.paths.filter(\.isRing)
        var simplified = simplifyPaths(rings, groups: [rings.indices], shareArcs: false)[...]
        return geometry.rebuilt { path in
            path.isRing ? simplified.popFirst()! : self.line(path.positions)
        }
    }

    /// Simplifies a whole collection keeping its topology: borders that neighbouring polygons
    /// (or lines) share are simplified once and stay shared, and no two features' outlines come
    /// to cross or swallow one another. Features whose geometry vanished are left out.
    public mutating func simplifyKeepingTopology(_ features: [Feature]) -> [Feature] {
        var paths: [GeometryPath] = [], groups: [Range<Int>] = []
        for feature in features {
            let own = feature.geometry?.paths ?? []
            groups.append(paths.count..<(paths.count + own.count))
            paths += own
        }
        var simplified = simplifyPaths(paths, groups: groups, shareArcs: true)[...]
        return features.compactMap { feature in
            guard let geometry = feature.geometry else { return feature }
            guard let changed = geometry.rebuilt({ _ in simplified.popFirst()! }) else { return nil }
            var feature = feature
            feature.geometry = changed
            feature.bbox = nil
            return feature
        }
    }

    func line(_ positions: [Position]) -> [Position] {
        let points = positions.map(MapPoint.init)
        return Simplify.keptIndices(points, tolerance: tolerance, method: method).map { positions[$0] }
    }

    /// Simplifies rings and lines together; nil for a ring that was dropped. `groups` are the
    /// paths of each geometry: one bigger than the tolerance keeps at least its largest outer
    /// ring, even when every ring alone is smaller (a country of scattered islets).
    mutating func simplifyPaths(_ paths: [GeometryPath], groups: [Range<Int>], shareArcs: Bool) -> [[Position]?] {
        let topology = ArcTopology(paths: paths.map(\.positions), isRing: paths.map(\.isRing), shareArcs: shareArcs)
        var network = ChainNetwork()
        network.chains = topology.arcs.map { ChainNetwork.Chain($0[...]) }
        let extents = paths.map { MapRect(enclosing: $0.positions) }
        var dropped = paths.indices.map { paths[$0].isRing && (paths[$0].positions.count < 4 || isSmallerThanTolerance(extents[$0])) }
        for group in groups where group.allSatisfy({ !paths[$0].isOuter || dropped[$0] }) {
            let outers = group.filter { paths[$0].isOuter && paths[$0].positions.count >= 4 }
            guard let largest = outers.max(by: { extents[$0].longerSide < extents[$1].longerSide }),
                  !isSmallerThanTolerance(group.reduce(MapRect.null) { $0.union(extents[$1]) }) else { continue }
            dropped[largest] = false
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
        network.repair()

        let kept = zip(topology.arcs, network.chains).map { arc, chain in chain.keptIndices.map { arc[$0] } }
        return paths.indices.map { index in
            if paths[index].isRing {
                guard let r = networkRing[index], !degenerate.contains(r) else {
                    droppedRings += 1
                    return nil
                }
            }
            return topology.path(index, kept: kept)
        }
    }

    /// Smaller than the tolerance both ways: "smaller than a pixel" (an empty rect is).
    func isSmallerThanTolerance(_ rect: MapRect) -> Bool { rect.longerSide < tolerance }
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
