import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry

/// A point on the picture, in points from its top-left corner.
public struct PixelPoint: Sendable {
    /// Points from the picture's left edge.
    public var x: Double
    /// Points from the picture's top edge (downwards).
    public var y: Double
}

/// Map points to picture points: Web Mercator, as MapKit and every web map draw it, with the
/// rect shown fitted into the picture and centred (the same scale both ways). The picture turns
/// by `heading` about its centre; `point` gives the place on the map before the turn (canvases
/// turn lines and polygons themselves), `screenPoint` after it (for pins, which stay upright as
/// MapKit's annotations do).
public struct Viewport: Sendable {
    /// The map rect the picture shows before it turns, in Web Mercator map points (`MapRect`); it has the picture's proportions.
    public let rect: MapRect
    /// The picture's width in points (pixels for a PNG).
    public let width: Double
    /// The picture's height in points (pixels for a PNG).
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

    /// Where a map point is on the picture before it turns by ``heading`` (the frame in which lines and polygons are drawn).
    /// - Parameter m: A Web Mercator map point.
    /// - Returns: Its place in picture points from the top-left corner; outside the picture when the point is not shown.
    public func point(_ m: MapPoint) -> PixelPoint {
        PixelPoint(x: (m.x - rect.minX) * pointsPerMapPoint, y: (m.y - rect.minY) * pointsPerMapPoint)
    }

    /// Where a position (longitude, latitude in degrees) is on the picture before it turns by ``heading``.
    /// - Parameter p: A position on Earth.
    /// - Returns: Its place in picture points from the top-left corner.
    public func point(_ p: Position) -> PixelPoint { point(MapPoint(p)) }

    /// Where a map point shows on the turned picture.
    public func screenPoint(_ m: MapPoint) -> PixelPoint {
        let p = point(m)
        guard heading.truncatingRemainder(dividingBy: 360) != 0 else { return p }
        let turn = Turn(heading: heading)
        let (u, v) = turn.apply(p.x - width / 2, p.y - height / 2)
        return PixelPoint(x: u + width / 2, y: v + height / 2)
    }

    /// Where a position (longitude, latitude in degrees) shows on the turned picture (where a pin goes).
    /// - Parameter p: A position on Earth.
    /// - Returns: Its place in picture points from the top-left corner, after the turn.
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
    /// Degrees clockwise from north of the direction that points up on the picture.
    public let heading: Double
    private let turn: Turn
    private var minU = Double.infinity, maxU = -Double.infinity, minV = Double.infinity, maxV = -Double.infinity

    /// Empty bounds along the axes of a picture turned so that `heading` points up.
    /// - Parameter heading: Degrees clockwise from north (0: north up).
    public init(heading: Double) {
        self.heading = heading
        turn = Turn(heading: heading)
    }

    /// Whether no point has been added yet.
    public var isEmpty: Bool { !minU.isFinite }
    /// Extents along the turned picture's horizontal and vertical axes, in map points.
    public var spanU: Double { isEmpty ? 0 : maxU - minU }
    /// Extent along the turned picture's vertical axis, in map points (``spanU`` is the horizontal one).
    public var spanV: Double { isEmpty ? 0 : maxV - minV }
    /// The middle of the bounds, in map points.
    public var centre: MapPoint {
        let (x, y) = turn.undo((minU + maxU) / 2, (minV + maxV) / 2)
        return MapPoint(x: x, y: y)
    }

    /// Widens the bounds to hold a map point.
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
    /// The colour of lines and polygon outlines (`stroke`).
    public var stroke = RGB(0x55, 0x55, 0x55)
    /// The outline's opacity, 0 to 1 (`stroke-opacity`).
    public var strokeOpacity = 1.0
    /// The outline's width in points (`stroke-width`, at least 0).
    public var strokeWidth = 2.0
    /// The colour inside polygons (`fill`).
    public var fill = RGB(0x55, 0x55, 0x55)
    /// The fill's opacity, 0 to 1 (`fill-opacity`).
    public var fillOpacity = 0.6
    /// The colour of point markers (`marker-color`).
    public var markerColor = RGB(0x7E, 0x7E, 0x7E)
    /// Marker radius in points: small 4, medium 6, large 9.
    public var markerRadius = 6.0

    /// simplestyle's defaults: gray lines 2 points wide, gray fills at 60 %, medium gray markers.
    public init() {}

    /// The style a feature's properties give: simplestyle keys over the defaults.
    /// - Parameter properties: A feature's properties; colours are CSS colours, opacities are clamped to 0 to 1, `marker-size` is `small`, `medium` or `large`. Missing or unreadable values keep the defaults.
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
