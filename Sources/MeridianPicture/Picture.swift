import Foundation
import MeridianFormats
import MeridianGeometry

/// A point on the picture, in points from its top-left corner.
public struct PixelPoint: Sendable {
    public var x: Double
    public var y: Double
}

/// Map points to picture points: Web Mercator, as MapKit and every web map draw it, with the
/// rect shown fitted into the picture and centred (the same scale both ways). The picture turns
/// by `heading` about its centre; `point` gives the place on the map before the turn (canvases
/// turn lines and polygons themselves), `screenPoint` after it (for pins, which stay upright as
/// MapKit's annotations do).
public struct Viewport: Sendable {
    public let rect: MapRect
    public let width: Double
    public let height: Double
    /// Picture points per map point.
    public let pointsPerMapPoint: Double
    /// Degrees clockwise from north that point up.
    public let heading: Double

    /// A viewport that shows all of `rect`: turned by `heading`, the whole rect fits in the
    /// picture (so a stated view keeps every corner it asked for).
    public init(showing rect: MapRect, width: Int, height: Int, heading: Double = 0) {
        var bounds = TurnedBounds(heading: heading)
        bounds.add(rect)
        self.init(fitting: bounds, width: width, height: height, margin: 0, minimumSpan: 1e-9)
    }

    /// A viewport around data: its bounds along the turned picture's axes fitted inside the
    /// picture less a margin of 32 points each side (room for pins and labels), and at least the
    /// extent of a zoom-19 tile (about 75 m), so a single point shows its surroundings.
    public static func fitting(_ bounds: TurnedBounds, width: Int, height: Int) -> Viewport {
        var shown = bounds
        if bounds.isEmpty {
            shown = TurnedBounds(heading: bounds.heading)
            shown.add(MapRect.world)
        }
        return Viewport(fitting: shown, width: width, height: height, margin: 32, minimumSpan: MapWorld.size / Double(1 << 19))
    }

    private init(fitting bounds: TurnedBounds, width: Int, height: Int, margin: Double, minimumSpan: Double) {
        self.width = Double(width)
        self.height = Double(height)
        heading = bounds.heading
        let inner = (width: max(self.width - 2 * margin, self.width / 2), height: max(self.height - 2 * margin, self.height / 2))
        let scale = min(inner.width / max(bounds.spanU, minimumSpan), inner.height / max(bounds.spanV, minimumSpan))
        pointsPerMapPoint = scale
        // The picture's centre is the bounds' centre; its rect before the turn has the
        // picture's proportions.
        let centre = bounds.centre
        let w = self.width / scale, h = self.height / scale
        rect = MapRect(x: centre.x - w / 2, y: centre.y - h / 2, width: w, height: h)
    }

    public func point(_ m: MapPoint) -> PixelPoint {
        PixelPoint(x: (m.x - rect.minX) * pointsPerMapPoint, y: (m.y - rect.minY) * pointsPerMapPoint)
    }

    public func point(_ p: Position) -> PixelPoint { point(MapPoint(p)) }

    /// Where a map point shows on the turned picture.
    public func screenPoint(_ m: MapPoint) -> PixelPoint {
        let p = point(m)
        guard heading.truncatingRemainder(dividingBy: 360) != 0 else { return p }
        let turn = Turn(heading: heading)
        let (u, v) = turn.apply(p.x - width / 2, p.y - height / 2)
        return PixelPoint(x: u + width / 2, y: v + height / 2)
    }

    public func screenPoint(_ p: Position) -> PixelPoint { screenPoint(MapPoint(p)) }

    /// The map rect drawn: `rect`, or when the picture turns, the circle around it.
    public var drawnRect: MapRect {
        guard heading.truncatingRemainder(dividingBy: 360) != 0 else { return rect }
        let r = (rect.size.width * rect.size.width + rect.size.height * rect.size.height).squareRoot() / 2
        return MapRect(x: rect.midX - r, y: rect.midY - r, width: 2 * r, height: 2 * r)
    }
}

/// The turn of a picture by a heading: map axes (x east, y south, as on the picture) to the
/// turned picture's axes (u right, v down). The picture turns counter-clockwise by `heading`,
/// so that `heading` points up.
struct Turn: Sendable {
    let cos: Double, sin: Double

    init(heading: Double) {
        let radians = heading * .pi / 180
        (cos, sin) = (Foundation.cos(radians), Foundation.sin(radians))
    }

    func apply(_ x: Double, _ y: Double) -> (u: Double, v: Double) { (x * cos + y * sin, -x * sin + y * cos) }
    func undo(_ u: Double, _ v: Double) -> (x: Double, y: Double) { (u * cos - v * sin, u * sin + v * cos) }
}

/// The bounds of map points along the axes of a picture turned by `heading` (the ordinary
/// bounding box for heading 0): what the picture must hold, so turned data is fitted whole.
public struct TurnedBounds: Sendable {
    public let heading: Double
    private let turn: Turn
    private var minU = Double.infinity, maxU = -Double.infinity, minV = Double.infinity, maxV = -Double.infinity

    public init(heading: Double) {
        self.heading = heading
        turn = Turn(heading: heading)
    }

    public var isEmpty: Bool { !minU.isFinite }
    /// Extents along the turned picture's horizontal and vertical axes, in map points.
    public var spanU: Double { isEmpty ? 0 : maxU - minU }
    public var spanV: Double { isEmpty ? 0 : maxV - minV }
    /// The middle of the bounds, in map points.
    public var centre: MapPoint {
        let (x, y) = turn.undo((minU + maxU) / 2, (minV + maxV) / 2)
        return MapPoint(x: x, y: y)
    }

    public mutating func add(_ m: MapPoint) {
        let (u, v) = turn.apply(m.x, m.y)
        minU = min(minU, u); maxU = max(maxU, u); minV = min(minV, v); maxV = max(maxV, v)
    }

    /// The rect's four corners.
    public mutating func add(_ rect: MapRect) {
        guard !rect.isNull else { return }
        for (x, y) in [(rect.minX, rect.minY), (rect.maxX, rect.minY), (rect.minX, rect.maxY), (rect.maxX, rect.maxY)] {
            add(MapPoint(x: x, y: y))
        }
    }

    /// Every position of the geometry.
    public mutating func add(_ geometry: Geometry) {
        geometry.forEachPosition { add(MapPoint($0)) }
    }
}

/// How a feature is drawn: the simplestyle-spec 1.1 properties, with its defaults.
public struct OverlayStyle: Sendable, Equatable {
    public var stroke = RGB(0x55, 0x55, 0x55)
    public var strokeOpacity = 1.0
    public var strokeWidth = 2.0
    public var fill = RGB(0x55, 0x55, 0x55)
    public var fillOpacity = 0.6
    public var markerColor = RGB(0x7E, 0x7E, 0x7E)
    /// Marker radius in points: small 4, medium 6, large 9.
    public var markerRadius = 6.0

    public init() {}

    public init(_ properties: JSONObject) {
        func color(_ key: String) -> RGB? { properties[key]?.stringValue.flatMap(RGB.init(css:)) }
        func number(_ key: String) -> Double? { properties[key]?.doubleValue }
        stroke = color("stroke") ?? stroke
        strokeOpacity = number("stroke-opacity").map { min(max($0, 0), 1) } ?? strokeOpacity
        strokeWidth = number("stroke-width").map { max($0, 0) } ?? strokeWidth
        fill = color("fill") ?? fill
        fillOpacity = number("fill-opacity").map { min(max($0, 0), 1) } ?? fillOpacity
        markerColor = color("marker-color") ?? markerColor
        switch properties["marker-size"]?.stringValue {
        case "small": markerRadius = 4
        case "large": markerRadius = 9
        default: break
        }
    }
}
