import MeridianCore
import MeridianFormats
import MeridianGeometry

/// Would Maps suggest the app for a route? Both its start and its end must lie in some polygon
/// of the coverage (the boundary counts as inside), across the antimeridian too.
public struct CoverageArea: Sendable {
    /// Each polygon's outer ring.
    public let polygons: [[Position]]

    /// Creates an area from outer rings (closed, longitude/latitude), numbered in the order given.
    public init(polygons: [[Position]]) { self.polygons = polygons }

    /// Reads a coverage file's polygons (any readable format; the first ring of each polygon).
    public init(path: String?) throws {
        let source = try FeatureInput(path: path, options: ReadOptions(coordinates: .geographic(for: "a coverage file")))
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

    /// A route checked against the area: its ends and the polygons that cover each.
    public struct Route: Sendable {
        /// Where the route starts.
        public var from: Position
        /// Where the route ends.
        public var to: Position
        /// The polygons (0-based) that cover the start; empty when none does.
        public var fromPolygons: [Int]
        /// The polygons (0-based) that cover the end; empty when none does.
        public var toPolygons: [Int]
        /// Whether Maps would suggest the app: both ends lie in some polygon (not necessarily the same).
        public var isCovered: Bool { !fromPolygons.isEmpty && !toPolygons.isEmpty }
    }

    /// Checks a route against the area.
    /// - Parameters:
    ///   - from: Where the route starts.
    ///   - to: Where the route ends.
    /// - Returns: The route with the polygons covering each end; see ``Route/isCovered``.
    public func check(from: Position, to: Position) -> Route {
        Route(from: from, to: to, fromPolygons: polygons(covering: from), toPolygons: polygons(covering: to))
    }
}
