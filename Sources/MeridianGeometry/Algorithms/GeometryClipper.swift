/// Clips geometries to a rectangle given in map points (a tile, a map rect) or in degrees (a
/// longitude/latitude box). Vertices that were not cut keep their exact input coordinates;
/// only the new points where edges cross the rectangle are computed.
public struct GeometryClipper: Sendable {
    /// The plane the rectangle is drawn in.
    public enum Plane: Sendable {
        /// MapKit's map points: tile edges are straight here.
        case mapPoints
        /// Longitude and latitude: a --bbox's edges are straight here.
        case degrees
    }

    /// The rectangle clipped to, in ``plane``'s units.
    public let rect: RectClip
    /// Whether ``rect`` is in map points or in degrees.
    public let plane: Plane

    /// Creates a clipper.
    /// - Parameters:
    ///   - rect: The rectangle to keep, in map points or degrees as `plane` says.
    ///   - plane: The plane `rect` is drawn in: `.mapPoints` for tiles and map rects (straight
    ///     edges on the map), `.degrees` for longitude/latitude boxes.
    public init(rect: RectClip, plane: Plane) {
        self.rect = rect
        self.plane = plane
    }

    func project(_ p: Position) -> PlanePoint {
        switch plane {
        case .mapPoints:
            let m = MapPoint(p)
            return PlanePoint(m.x, m.y)
        case .degrees:
            return PlanePoint(p.longitude, p.latitude)
        }
    }

    func unproject(_ q: PlanePoint) -> Position {
        switch plane {
        case .mapPoints: return MapPoint(x: q.x, y: q.y).position
        case .degrees: return Position(longitude: q.x, latitude: q.y)
        }
    }

    /// The geometry's part inside the rectangle; nil when nothing is inside.
    public func clip(_ geometry: Geometry) -> Geometry? {
        switch geometry {
        case .point(let p):
            return inside(p.coordinates) ? geometry : nil
        case .multiPoint(let m):
            let kept = m.coordinates.filter(inside)
            return kept.isEmpty ? nil : .multiPoint(MultiPoint(kept))
        case .lineString(let l):
            return lines(clipLine(l.coordinates))
        case .multiLineString(let m):
            return lines(m.lines.flatMap(clipLine))
        case .polygon(let p):
            return polygons(clipPolygon(p))
        case .multiPolygon(let m):
            return polygons(m.polygons.flatMap(clipPolygon))
        case .geometryCollection(let c):
            let members = c.geometries.compactMap(clip)
            return members.isEmpty ? nil : .geometryCollection(GeometryCollection(members))
        }
    }

    func inside(_ p: Position) -> Bool { rect.contains(project(p)) }

    func lines(_ parts: [[Position]]) -> Geometry? {
        switch parts.count {
        case 0: return nil
        case 1: return .lineString(LineString(parts[0]))
        default: return .multiLineString(MultiLineString(parts))
        }
    }

    func polygons(_ parts: [Polygon]) -> Geometry? {
        switch parts.count {
        case 0: return nil
        case 1: return .polygon(parts[0])
        default: return .multiPolygon(MultiPolygon(parts))
        }
    }

    /// Plane points back to positions: the input's own where the point is an input vertex.
    func positions(_ points: [PlanePoint], originals: [PlanePoint: Position]) -> [Position] {
        points.map { originals[$0] ?? unproject($0) }
    }

    func originals(_ line: [Position]) -> ([PlanePoint], [PlanePoint: Position]) {
        let points = line.map(project)
        var map: [PlanePoint: Position] = [:]
        for (q, p) in zip(points, line) where map[q] == nil { map[q] = p }
        return (points, map)
    }

    func clipLine(_ line: [Position]) -> [[Position]] {
        let (points, map) = originals(line)
        return rect.clip(line: points).map { positions($0, originals: map) }
    }

    /// Each piece of the outer ring becomes a polygon, with the pieces of the holes inside it
    /// (``RectClip/clip(polygon:)``); the input's positions are kept where they were not cut.
    func clipPolygon(_ polygon: Polygon) -> [Polygon] {
        var originals: [PlanePoint: Position] = [:]
        let rings = polygon.rings.map { ring in
            let (points, map) = self.originals(ring)
            originals.merge(map) { first, _ in first }
            return points
        }
        return rect.clip(polygon: rings).map { Polygon($0.map { positions($0, originals: originals) }) }
    }
}
