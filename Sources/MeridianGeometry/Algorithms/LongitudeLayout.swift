/// Data that reaches over ±180° laid out in one plane (a picture, the world of a tile pyramid)
/// as one piece: each line and ring with continuous longitudes (179 → 181, never a jump round
/// the world), each hole on its outer ring's turn, and each part (a point, a line, a polygon)
/// moved by whole turns of longitude to where a `LongitudeCut` puts it, so that parts on the
/// two sides of ±180° lie together. `render`, image tiles of vector data and
/// `coverage validate --preview` all lay data out so.
public enum ContinuousLongitudes {
    /// `geometry` laid out: its lines and rings continuous, and each part moved east by
    /// `shift(middle)` degrees (whole turns), `middle` being the middle of the part's longitudes.
    public static func placed(_ geometry: Geometry, shift: (Double) -> Double) -> Geometry {
        func line(_ positions: [Position]) -> [Position] {
            let continuous = Antimeridian.continuous(positions)
            guard let middle = middle(of: continuous) else { return continuous }
            return moved(continuous, by: shift(middle))
        }
        func polygon(_ polygon: Polygon) -> Polygon {
            let continuous = Antimeridian.continuous(polygon)
            guard let middle = middle(of: continuous.rings.flatMap { $0 }) else { return continuous }
            let degrees = shift(middle)
            return degrees == 0 ? continuous : Polygon(continuous.rings.map { moved($0, by: degrees) })
        }
        switch geometry {
        case .point(let p): return .point(Point(line([p.coordinates])[0]))
        case .multiPoint(let m): return .multiPoint(MultiPoint(m.coordinates.map { line([$0])[0] }))
        case .lineString(let l): return .lineString(LineString(line(l.coordinates)))
        case .multiLineString(let m): return .multiLineString(MultiLineString(m.lines.map(line)))
        case .polygon(let p): return .polygon(polygon(p))
        case .multiPolygon(let m): return .multiPolygon(MultiPolygon(m.polygons.map(polygon)))
        case .geometryCollection(let c): return .geometryCollection(GeometryCollection(c.geometries.map { placed($0, shift: shift) }))
        }
    }

    /// The middle of each part's continuous longitudes (each point, line and polygon), in
    /// order: what a `LongitudeLayout` is made of.
    public static func forEachPartMiddle(of geometry: Geometry, _ body: (Double) -> Void) {
        _ = placed(geometry) { middle in
            body(middle)
            return 0
        }
    }

    private static func middle(of positions: [Position]) -> Double? {
        guard let first = positions.first else { return nil }
        var west = first.longitude, east = first.longitude
        for p in positions.dropFirst() {
            west = min(west, p.longitude)
            east = max(east, p.longitude)
        }
        return (west + east) / 2
    }

    private static func moved(_ positions: [Position], by degrees: Double) -> [Position] {
        degrees == 0 ? positions : positions.map { Position(longitude: $0.longitude + degrees, latitude: $0.latitude, altitude: $0.altitude) }
    }

    /// A longitude in [-180, 180).
    public static func normalised(_ longitude: Double) -> Double {
        let turned = (longitude + 180).truncatingRemainder(dividingBy: 360)
        return (turned < 0 ? turned + 360 : turned) - 180
    }
}

/// Where a plane showing the whole circle of longitudes is cut, chosen from the middles of the
/// parts it shows (`add`, then `cut()`): at ±180° as usual, unless the data lies across
/// ±180° (less than `acrossLimit` of empty longitude there) and leaves a wider empty stretch
/// elsewhere (at least `acrossLimit`), where the plane is cut instead. Fiji's two halves, the
/// Aleutians and a route from Japan to California then lie together, while data round the
/// whole world keeps the usual map. Middles are kept in bins of a tenth of a degree, so the
/// memory is the same whatever the number of geometries.
public struct LongitudeLayout: Sendable {
    static let binsPerDegree = 10
    static let bins = 360 * binsPerDegree
    /// The empty longitude at ±180° below which the data is taken to lie across it, and the
    /// least empty stretch elsewhere worth cutting at instead.
    public static let acrossLimit = 90.0

    private var occupied = [Bool](repeating: false, count: bins)

    /// An empty layout.
    public init() {}

    /// Adds a part by the middle of its longitudes (`ContinuousLongitudes.forEachPartMiddle`).
    public mutating func add(middle: Double) {
        guard middle.isFinite else { return }
        occupied[Self.bin(middle)] = true
    }

    static func bin(_ longitude: Double) -> Int {
        min(Self.bins - 1, max(0, Int(((ContinuousLongitudes.normalised(longitude) + 180) * Double(binsPerDegree)).rounded(.down))))
    }

    /// Where to cut, from the middles added.
    public func cut() -> LongitudeCut {
        let filled = occupied.indices.filter { occupied[$0] }
        guard let first = filled.first, let last = filled.last, filled.count > 1 else { return LongitudeCut(startBin: 0) }
        // The empty bins after each filled one, going east; the last one's wraps round ±180°.
        let across = first + Self.bins - last - 1
        var widest = (gap: across, start: first)
        for (previous, next) in zip(filled, filled.dropFirst()) where next - previous - 1 > widest.gap {
            widest = (next - previous - 1, next)
        }
        let limit = Int(Self.acrossLimit) * Self.binsPerDegree
        return LongitudeCut(startBin: across < limit && widest.gap >= limit ? widest.start : 0)
    }
}

/// Where a plane of longitudes is cut (`LongitudeLayout.cut()`): it runs east from its start.
public struct LongitudeCut: Sendable, Equatable {
    let startBin: Int

    /// The usual cut, at ±180°.
    public static let usual = LongitudeCut(startBin: 0)

    /// Degrees (whole turns) to move a part whose longitudes have `middle` in the middle, so
    /// that it lies east of the cut, within one turn of it (`ContinuousLongitudes.placed`).
    public func shift(forMiddle middle: Double) -> Double {
        var wanted = ContinuousLongitudes.normalised(middle)
        if LongitudeLayout.bin(middle) < startBin { wanted += 360 }
        return ((wanted - middle) / 360).rounded() * 360
    }
}
