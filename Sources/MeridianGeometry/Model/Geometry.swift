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

    /// The 2D (and altitude, when every position has one) bounds, or nil for an empty geometry.
    public var boundingBox: BoundingBox? {
        var box = BoundingBox.Accumulator()
        forEachPosition { box.add($0) }
        return box.result
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

public struct Point: Hashable, Sendable {
    public var coordinates: Position
    public init(_ coordinates: Position) { self.coordinates = coordinates }
}

public struct LineString: Hashable, Sendable {
    public var coordinates: [Position]
    public init(_ coordinates: [Position]) { self.coordinates = coordinates }
}

/// A polygon: the first ring is the exterior, the others are holes.
public struct Polygon: Hashable, Sendable {
    public var rings: [[Position]]
    public init(_ rings: [[Position]]) { self.rings = rings }

    public var exterior: [Position]? { rings.first }
    public var holes: ArraySlice<[Position]> { rings.dropFirst() }
}

public struct MultiPoint: Hashable, Sendable {
    public var coordinates: [Position]
    public init(_ coordinates: [Position]) { self.coordinates = coordinates }
}

public struct MultiLineString: Hashable, Sendable {
    public var lines: [[Position]]
    public init(_ lines: [[Position]]) { self.lines = lines }
}

public struct MultiPolygon: Hashable, Sendable {
    public var polygons: [Polygon]
    public init(_ polygons: [Polygon]) { self.polygons = polygons }
}

public struct GeometryCollection: Hashable, Sendable {
    public var geometries: [Geometry]
    public init(_ geometries: [Geometry]) { self.geometries = geometries }
}
