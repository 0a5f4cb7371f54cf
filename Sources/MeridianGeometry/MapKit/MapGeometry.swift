import RealModule

/// MapKit's flat world: Web Mercator on a grid of 2^28 × 2^28 map points, origin at the top
/// left (longitude −180°, latitude +85.0511°), y growing south. The same numbers as
/// MKMapPoint, MKMapRect and MKMapSizeWorld, so values here can be pasted into MapKit code.
public enum MapWorld {
    /// MKMapSizeWorld's width and height.
    public static let size = 268_435_456.0
    /// The latitude where the square world ends (north and south).
    public static let maximumLatitude = 85.0511287798066
    /// WGS 84, for the metres-per-map-point fit.
    static let semiMajorAxis = 6_378_137.0
    static let eccentricitySquared = 0.00669437999014

    /// Metres per map point at a latitude, as MKMetersPerMapPointAtLatitude gives them: Apple's
    /// values fit 2π·M(φ)·cos φ / W, with M the WGS 84 meridional radius of curvature
    /// (0.123522 m at 33.861315°).
    public static func metersPerMapPoint(atLatitude latitude: Double) -> Double {
        let phi = latitude * .pi / 180
        let s = Double.sin(phi)
        let meridional = semiMajorAxis * (1 - eccentricitySquared) / Double.pow(1 - eccentricitySquared * s * s, 1.5)
        return 2 * .pi * meridional * Double.cos(phi) / size
    }

    /// Map points per metre at a latitude, as MKMapPointsPerMeterAtLatitude gives them: the
    /// inverse of ``metersPerMapPoint(atLatitude:)``. Multiply a distance in metres by it to get map points.
    /// - Parameter latitude: Degrees north.
    /// - Returns: Map points per metre (grows toward the poles).
    public static func mapPointsPerMeter(atLatitude latitude: Double) -> Double {
        1 / metersPerMapPoint(atLatitude: latitude)
    }
}

/// MKMapPoint: a point on the 2^28 world.
public struct MapPoint: Hashable, Sendable, CustomStringConvertible {
    /// Map points east of the world's west edge (longitude −180°), 0…2^28 within the world.
    public var x: Double
    /// Map points south of the world's north edge (latitude +85.0511°), 0…2^28 within the world.
    public var y: Double

    /// Creates a map point from its coordinates in map points.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// MKMapPoint(coordinate): latitudes beyond ±85.0511° are clamped, as Web Mercator must.
    public init(_ position: Position) {
        let latitude = min(max(position.latitude, -MapWorld.maximumLatitude), MapWorld.maximumLatitude)
        let phi = latitude * .pi / 180
        x = (position.longitude + 180) / 360 * MapWorld.size
        y = (0.5 - Double.log(Double.tan(.pi / 4 + phi / 2)) / (2 * .pi)) * MapWorld.size
    }

    /// The coordinate back (x beyond the world's edge gives longitudes beyond ±180°).
    public var position: Position {
        Position(longitude: 360 * x / MapWorld.size - 180,
                 latitude: 90 - 360 / .pi * Double.atan(Double.exp((y / MapWorld.size - 0.5) * 2 * .pi)))
    }

    /// The point written as MapKit prints an MKMapPoint.
    public var description: String { "MKMapPoint(x: \(x), y: \(y))" }
}

/// MKMapSize.
public struct MapSize: Hashable, Sendable {
    /// Width in map points.
    public var width: Double
    /// Height in map points.
    public var height: Double
    /// Creates a size in map points.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
    /// MKMapSizeWorld: the whole world, 2^28 map points square.
    public static let world = MapSize(width: MapWorld.size, height: MapWorld.size)
}

/// MKMapRect: an origin (top left) and a size in map points.
public struct MapRect: Hashable, Sendable, CustomStringConvertible {
    /// The top-left (north-west) corner.
    public var origin: MapPoint
    /// The width and height in map points.
    public var size: MapSize

    /// Creates a rect from its top-left corner and size.
    public init(origin: MapPoint, size: MapSize) {
        self.origin = origin
        self.size = size
    }

    /// Creates a rect from its top-left corner and size, in map points (MKMapRectMake).
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: MapPoint(x: x, y: y), size: MapSize(width: width, height: height))
    }

    /// MKMapRectWorld: the whole world, from (0, 0) to (2^28, 2^28).
    public static let world = MapRect(x: 0, y: 0, width: MapWorld.size, height: MapWorld.size)
    /// MKMapRectNull.
    public static let null = MapRect(x: .infinity, y: .infinity, width: 0, height: 0)

    /// The west edge (MKMapRectGetMinX).
    public var minX: Double { origin.x }
    /// The north edge (MKMapRectGetMinY; y grows south).
    public var minY: Double { origin.y }
    /// The east edge (MKMapRectGetMaxX).
    public var maxX: Double { origin.x + size.width }
    /// The south edge (MKMapRectGetMaxY).
    public var maxY: Double { origin.y + size.height }
    /// The horizontal centre (MKMapRectGetMidX).
    public var midX: Double { origin.x + size.width / 2 }
    /// The vertical centre (MKMapRectGetMidY).
    public var midY: Double { origin.y + size.height / 2 }
    /// MKMapRectIsNull: true for ``null`` (an empty result), which has an infinite origin.
    public var isNull: Bool { origin.x.isInfinite || origin.y.isInfinite }

    /// The smallest map rect holding every position (null when there are none).
    public init(enclosing positions: some Sequence<Position>) {
        var extent = Extent()
        for p in positions { extent.add(p) }
        self = extent.rect
    }

    /// The smallest map rect holding map points already projected (null when there are none):
    /// the rect their positions give, without projecting them again.
    init(enclosing points: some Sequence<MapPoint>) {
        var extent = Extent()
        for p in points { extent.add(p) }
        self = extent.rect
    }

    /// The smallest map rect holding the geometry (null when it has no position), without
    /// gathering its positions first.
    public init(enclosing geometry: Geometry) {
        var extent = Extent()
        geometry.forEachPosition { extent.add($0) }
        self = extent.rect
    }

    /// Map-point bounds grown one position at a time.
    private struct Extent {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity

        mutating func add(_ p: Position) { add(MapPoint(p)) }

        mutating func add(_ m: MapPoint) {
            minX = min(minX, m.x); maxX = max(maxX, m.x); minY = min(minY, m.y); maxY = max(maxY, m.y)
        }

        var rect: MapRect { minX.isFinite ? MapRect(x: minX, y: minY, width: maxX - minX, height: maxY - minY) : .null }
    }

    /// MKMapRectUnion.
    public func union(_ other: MapRect) -> MapRect {
        if isNull { return other }
        if other.isNull { return self }
        let x = min(minX, other.minX), y = min(minY, other.minY)
        return MapRect(x: x, y: y, width: max(maxX, other.maxX) - x, height: max(maxY, other.maxY) - y)
    }

    /// MKMapRectIntersection: null when they do not meet.
    public func intersection(_ other: MapRect) -> MapRect {
        let x = max(minX, other.minX), y = max(minY, other.minY)
        let right = min(maxX, other.maxX), bottom = min(maxY, other.maxY)
        guard !isNull, !other.isNull, x <= right, y <= bottom else { return .null }
        return MapRect(x: x, y: y, width: right - x, height: bottom - y)
    }

    /// Whether the rects share a point (closed intervals, so rects that touch meet).
    public func intersects(_ other: MapRect) -> Bool { !intersection(other).isNull }

    /// MKMapRectContainsPoint, with closed edges: a point on the rect's edge is inside.
    public func contains(_ point: MapPoint) -> Bool {
        minX <= point.x && point.x <= maxX && minY <= point.y && point.y <= maxY
    }

    /// A rect grown by `dx` and `dy` on every side (MKMapRectInset with negative insets).
    public func insetBy(dx: Double, dy: Double) -> MapRect {
        MapRect(x: minX + dx, y: minY + dy, width: size.width - 2 * dx, height: size.height - 2 * dy)
    }

    /// MKMapRectSpans180thMeridian: part of the rect lies beyond the world's east or west edge.
    public var spans180thMeridian: Bool { minX < 0 || maxX > MapWorld.size }

    /// MKMapRectRemainder: the part beyond the world's edge, moved to the other side.
    public var remainder: MapRect {
        guard spans180thMeridian else { return .null }
        if maxX > MapWorld.size {
            return MapRect(x: 0, y: minY, width: maxX - MapWorld.size, height: size.height)
        }
        return MapRect(x: MapWorld.size + minX, y: minY, width: -minX, height: size.height)
    }

    /// The rect written as MapKit prints an MKMapRect.
    public var description: String { "MKMapRect(x: \(minX), y: \(minY), width: \(size.width), height: \(size.height))" }
}

/// Zoom scales (screen points per map point) and zoom levels, as MapKit and its tile overlays
/// use them with 256-point tiles: level = 20 + log2(scale).
public enum ZoomScale {
    /// The fractional zoom level for a zoom scale: 20 + log2(scale).
    /// - Parameter scale: Screen points per map point (1 at level 20, 2^−20 at level 0).
    /// - Returns: The zoom level, not rounded.
    public static func level(forScale scale: Double) -> Double { 20 + Double.log2(scale) }
    /// The zoom scale for a zoom level: 2^(level − 20), the inverse of ``level(forScale:)``.
    /// - Parameter level: A zoom level, whole or fractional.
    /// - Returns: Screen points per map point.
    public static func scale(forLevel level: Double) -> Double { Double.pow(2, level - 20) }

    /// The whole level Apple's TileMap sample picks for a scale: max(0, 20 + floor(log2(s) + 0.5)).
    public static func roundedLevel(forScale scale: Double) -> Int { max(0, 20 + Int((Double.log2(scale) + 0.5).rounded(.down))) }

    /// MKRoadWidthAtZoomScale, in map points: the screen widths Apple's function gives for
    /// scales 2^0 … 2^−9 (21, 16, 15, 12, 11, 9, 7, 6, 6, 4 points), divided by the scale.
    public static func roadWidth(atScale scale: Double) -> Double {
        let widths: [Double] = [21, 16, 15, 12, 11, 9, 7, 6, 6, 4]
        let index = min(max(Int((-Double.log2(scale)).rounded()), 0), widths.count - 1)
        return widths[index] / scale
    }
}

/// A map tile: zoom, column and row, counted XYZ-style (rows from the top) or TMS-style (from
/// the bottom).
public struct MapTile: Hashable, Sendable, CustomStringConvertible {
    /// The zoom level, 0…30 for a valid tile: the world is 2^zoom tiles across.
    public var zoom: Int
    /// The column, counted from the west (longitude −180°).
    public var x: Int
    /// The XYZ row (from the top, as MapKit's MKTileOverlayPath and OpenStreetMap count).
    public var y: Int

    /// Creates a tile from its XYZ address (row counted from the top). Not checked: see ``isValid``.
    public init(zoom: Int, x: Int, y: Int) {
        self.zoom = zoom
        self.x = x
        self.y = y
    }

    /// Creates a tile from its TMS address (row counted from the bottom, as MBTiles stores it).
    /// Not checked: see ``isValid``.
    public init(zoom: Int, x: Int, tmsY: Int) {
        self.init(zoom: zoom, x: x, y: (1 << zoom) - 1 - tmsY)
    }

    /// A tile written `Z/X/Y` (Y counted from the bottom when `tms`); nil unless it is one of
    /// the world's tiles (0 <= X, Y < 2^Z, Z up to 30).
    public init?(address: String, tms: Bool = false) {
        let parts = address.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 3, let z = parts[0], let x = parts[1], let y = parts[2], Self.zoomLevels.contains(z) else { return nil }
        self = tms ? MapTile(zoom: z, x: x, tmsY: y) : MapTile(zoom: z, x: x, y: y)
        guard isValid else { return nil }
    }

    /// The tile holding a point at a zoom level.
    public init(containing point: MapPoint, zoom: Int) {
        let size = MapWorld.size / Double(1 << zoom)
        let count = (1 << zoom) - 1
        self.init(zoom: zoom, x: min(max(Int((point.x / size).rounded(.down)), 0), count),
                  y: min(max(Int((point.y / size).rounded(.down)), 0), count))
    }

    /// The TMS row (from the bottom).
    public var tmsY: Int { (1 << zoom) - 1 - y }

    /// The four tiles one level down, in the order: top left, top right, bottom left, bottom right.
    public var children: [MapTile] {
        [MapTile(zoom: zoom + 1, x: 2 * x, y: 2 * y), MapTile(zoom: zoom + 1, x: 2 * x + 1, y: 2 * y),
         MapTile(zoom: zoom + 1, x: 2 * x, y: 2 * y + 1), MapTile(zoom: zoom + 1, x: 2 * x + 1, y: 2 * y + 1)]
    }

    /// Whether the tile is one of the world's: zoom in ``zoomLevels`` and 0 <= x, y < 2^zoom.
    public var isValid: Bool { Self.zoomLevels.contains(zoom) && (0..<(1 << zoom)).contains(x) && (0..<(1 << zoom)).contains(y) }

    /// The zoom levels tiles are counted at: from the whole world in one tile to about 4 cm.
    public static let zoomLevels = 0...30

    /// The tile's MKMapRect.
    public var mapRect: MapRect {
        let size = MapWorld.size / Double(1 << zoom)
        return MapRect(x: Double(x) * size, y: Double(y) * size, width: size, height: size)
    }

    /// The tile's bounds in degrees.
    public var boundingBox: BoundingBox {
        let rect = mapRect
        let northWest = MapPoint(x: rect.minX, y: rect.minY).position
        let southEast = MapPoint(x: rect.maxX, y: rect.maxY).position
        return BoundingBox(west: northWest.longitude, south: southEast.latitude, east: southEast.longitude, north: northWest.latitude)
    }

    /// The tile's XYZ address, `zoom/x/y`.
    public var description: String { "\(zoom)/\(x)/\(y)" }
}
