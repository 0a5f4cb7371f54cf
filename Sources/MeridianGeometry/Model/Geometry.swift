/// A GeoJSON geometry (RFC 7946 §3.1): an enum of small value types, one per geometry type.
public enum Geometry: Hashable, Sendable {
    case point(Point)
    case lineString(LineString)
    case polygon(Polygon)
    case multiPoint(MultiPoint)
    case multiLineString(MultiLineString)
    case multiPolygon(MultiPolygon)
    case geometryCollection(GeometryCollection)

    /// The geometry's type as GeoJSON spells it.
    public var type: GeometryType {
        switch self {
        case .point: .point
        case .lineString: .lineString
        case .polygon: .polygon
        case .multiPoint: .multiPoint
        case .multiLineString: .multiLineString
        case .multiPolygon: .multiPolygon
        case .geometryCollection: .geometryCollection
        }
    }

    /// Calls `body` with every position, in document order, descending into collections.
    @inlinable
    public func forEachPosition(_ body: (Position) throws -> Void) rethrows {
        switch self {
        case .point(let p): try body(p.coordinates)
        case .lineString(let l): for p in l.coordinates { try body(p) }
        case .multiPoint(let m): for p in m.coordinates { try body(p) }
        case .polygon(let p): for ring in p.rings { for q in ring { try body(q) } }
        case .multiLineString(let m): for line in m.lines { for p in line { try body(p) } }
        case .multiPolygon(let m):
            for polygon in m.polygons { for ring in polygon.rings { for p in ring { try body(p) } } }
        case .geometryCollection(let c): for g in c.geometries { try g.forEachPosition(body) }
        }
    }

    /// Number of positions (vertices), counting ring closures and collection members.
    public var positionCount: Int {
        switch self {
        case .point: 1
        case .lineString(let l): l.coordinates.count
        case .multiPoint(let m): m.coordinates.count
        case .polygon(let p): p.rings.reduce(0) { $0 + $1.count }
        case .multiLineString(let m): m.lines.reduce(0) { $0 + $1.count }
        case .multiPolygon(let m): m.polygons.reduce(0) { $0 + $1.rings.reduce(0) { $0 + $1.count } }
        case .geometryCollection(let c): c.geometries.reduce(0) { $0 + $1.positionCount }
        }
    }

    /// True when the geometry has no positions at all (e.g. `"coordinates": []`).
    public var isEmpty: Bool { positionCount == 0 }

    /// Whether any position carries an altitude (3D output formats then need one everywhere).
    public var hasAltitude: Bool {
        var found = false
        forEachPosition { if $0.altitude != nil { found = true } }
        return found
    }

    /// The 2D (and altitude, when every position has one) bounds, or nil for an empty geometry;
    /// across the antimeridian (`west > east`) when the positions lie about it
    /// (``BoundingBox/Accumulator/resultAcrossAntimeridian``).
    public var boundingBox: BoundingBox? {
        var box = BoundingBox.Accumulator()
        forEachPosition { box.add($0) }
        return box.resultAcrossAntimeridian
    }
}

/// GeoJSON's geometry type names.
public enum GeometryType: String, CaseIterable, Hashable, Sendable, Codable {
    case point = "Point"
    case lineString = "LineString"
    case polygon = "Polygon"
    case multiPoint = "MultiPoint"
    case multiLineString = "MultiLineString"
    case multiPolygon = "MultiPolygon"
    case geometryCollection = "GeometryCollection"

    /// How deeply `coordinates` nests arrays of positions: 0 for a Point, 3 for a MultiPolygon;
    /// nil for a GeometryCollection, which has `geometries` instead.
    public var coordinateDepth: Int? {
        switch self {
        case .point: 0
        case .lineString, .multiPoint: 1
        case .polygon, .multiLineString: 2
        case .multiPolygon: 3
        case .geometryCollection: nil
        }
    }
}

/// A single position (GeoJSON `Point`).
public struct Point: Hashable, Sendable {
    /// The point's position.
    public var coordinates: Position
    /// Creates a point at a position.
    public init(_ coordinates: Position) { self.coordinates = coordinates }
}

/// A line through positions in order (GeoJSON `LineString`; valid ones have two or more).
public struct LineString: Hashable, Sendable {
    /// The line's positions, first to last.
    public var coordinates: [Position]
    /// Creates a line from its positions, in order.
    public init(_ coordinates: [Position]) { self.coordinates = coordinates }
}

/// A polygon: the first ring is the exterior, the others are holes.
public struct Polygon: Hashable, Sendable {
    /// The rings, exterior first. Each ring lists its positions as GeoJSON does, ending where it
    /// starts (the closing position is stored, not implied).
    public var rings: [[Position]]
    /// Creates a polygon from closed rings, the exterior first and then any holes.
    public init(_ rings: [[Position]]) { self.rings = rings }

    /// The outer ring, or nil for a polygon with no rings.
    public var exterior: [Position]? { rings.first }
    /// The inner rings (holes): every ring after the first.
    public var holes: ArraySlice<[Position]> { rings.dropFirst() }
}

/// Several unconnected positions (GeoJSON `MultiPoint`).
public struct MultiPoint: Hashable, Sendable {
    /// The points' positions.
    public var coordinates: [Position]
    /// Creates a multipoint from its positions.
    public init(_ coordinates: [Position]) { self.coordinates = coordinates }
}

/// Several lines (GeoJSON `MultiLineString`).
public struct MultiLineString: Hashable, Sendable {
    /// Each line's positions, first to last.
    public var lines: [[Position]]
    /// Creates a multiline from each line's positions.
    public init(_ lines: [[Position]]) { self.lines = lines }
}

/// Several polygons (GeoJSON `MultiPolygon`); coverage files are one of these.
public struct MultiPolygon: Hashable, Sendable {
    /// The polygons, each with its exterior ring first.
    public var polygons: [Polygon]
    /// Creates a multipolygon from its polygons.
    public init(_ polygons: [Polygon]) { self.polygons = polygons }
}

/// Geometries of any types grouped as one (GeoJSON `GeometryCollection`); may nest.
public struct GeometryCollection: Hashable, Sendable {
    /// The member geometries, in document order.
    public var geometries: [Geometry]
    /// Creates a collection of geometries.
    public init(_ geometries: [Geometry]) { self.geometries = geometries }
}
