import MeridianFormats
import MeridianGeometry

/// Would Maps suggest the app for a route? Both its start and its end must lie in some polygon
/// of the coverage (the boundary counts as inside), across the antimeridian too.
public struct CoverageArea: Sendable {
    /// Each polygon's outer ring.
    public let polygons: [[Position]]

    public init(polygons: [[Position]]) { self.polygons = polygons }

    /// Reads a coverage file's polygons (any readable format; the first ring of each polygon).
    public init(path: String?) throws {
        let source = try FeatureInput(path: path)
        var rings: [[Position]] = []
        while let feature = try source.reader.next() {
            func collect(_ geometry: Geometry) {
                switch geometry {
                case .polygon(let p): if let exterior = p.exterior { rings.append(exterior) }
                case .multiPolygon(let m): rings += m.polygons.compactMap(\.exterior)
                case .geometryCollection(let c): c.geometries.forEach(collect)
                default: break
                }
            }
            feature.geometry.map(collect)
        }
        guard !rings.isEmpty else {
            throw MeridianError(.badInput, "the coverage file has no polygons", at: SourceLocation(file: source.input.name))
        }
        polygons = rings
    }

    /// The polygons (0-based) that cover a position.
    public func polygons(covering position: Position) -> [Int] {
        polygons.indices.filter { Rings.covers(polygons[$0], position) }
    }

    public struct Route: Sendable {
        public var from: Position
        public var to: Position
        public var fromPolygons: [Int]
        public var toPolygons: [Int]
        public var isCovered: Bool { !fromPolygons.isEmpty && !toPolygons.isEmpty }
    }

    public func check(from: Position, to: Position) -> Route {
        Route(from: from, to: to, fromPolygons: polygons(covering: from), toPolygons: polygons(covering: to))
    }
}
