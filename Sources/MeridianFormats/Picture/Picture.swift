import MeridianGeometry

/// What a picture (SVG or PNG) shows and how big it is.
public struct PictureOptions: Sendable {
    /// Size in points (CSS pixels); PNG multiplies by `scale`.
    public var width: Int
    public var height: Int
    /// Pixels per point for PNG: 1, 2 or 3, as on Apple's screens.
    public var scale: Int
    /// Degrees clockwise from north that point up (MKMapCamera's heading).
    public var heading: Double
    /// The part of the world to show, in map points; nil fits the data.
    public var view: MapRect?
    /// A tile folder (z/x/y.png, XYZ or TMS with tilemapresource.xml) or an MBTiles file drawn
    /// under the overlays (PNG only).
    public var basemap: String?

    public init(width: Int = 800, height: Int = 600, scale: Int = 1, heading: Double = 0, view: MapRect? = nil, basemap: String? = nil) {
        self.width = width
        self.height = height
        self.scale = scale
        self.heading = heading
        self.view = view
        self.basemap = basemap
    }
}

/// A point on the picture, in points from its top-left corner.
public struct PixelPoint: Sendable {
    public var x: Double
    public var y: Double
}

/// Map points to picture points: Web Mercator, as MapKit and every web map draw it, with the
/// rect shown fitted into the picture and centred (the same scale both ways).
public struct Viewport: Sendable {
    public let rect: MapRect
    public let width: Double
    public let height: Double
    /// Picture points per map point.
    public let pointsPerMapPoint: Double

    public init(showing rect: MapRect, width: Int, height: Int) {
        self.width = Double(width)
        self.height = Double(height)
        let scale = min(self.width / max(rect.size.width, 1e-9), self.height / max(rect.size.height, 1e-9))
        pointsPerMapPoint = scale
        // Grow the rect to the picture's proportions, about its centre.
        let w = self.width / scale, h = self.height / scale
        self.rect = MapRect(x: rect.midX - w / 2, y: rect.midY - h / 2, width: w, height: h)
    }

    /// A viewport around data: its bounds fitted inside the picture less a margin of 32 points
    /// each side (room for pins and labels), and at least the extent of a zoom-19 tile (about
    /// 75 m), so a single point shows its surroundings.
    public static func fitting(_ bounds: MapRect, width: Int, height: Int) -> Viewport {
        let rect = bounds.isNull ? MapRect.world : bounds
        let minimum = MapWorld.size / Double(1 << 19)
        let w = max(rect.size.width, minimum), h = max(rect.size.height, minimum)
        let margin = 32.0
        let inner = (width: max(Double(width) - 2 * margin, Double(width) / 2), height: max(Double(height) - 2 * margin, Double(height) / 2))
        let scale = min(inner.width / w, inner.height / h)
        let shown = MapRect(x: rect.midX - Double(width) / scale / 2, y: rect.midY - Double(height) / scale / 2,
                            width: Double(width) / scale, height: Double(height) / scale)
        return Viewport(showing: shown, width: width, height: height)
    }

    public func point(_ m: MapPoint) -> PixelPoint {
        PixelPoint(x: (m.x - rect.minX) * pointsPerMapPoint, y: (m.y - rect.minY) * pointsPerMapPoint)
    }

    public func point(_ p: Position) -> PixelPoint { point(MapPoint(p)) }

    /// The map rect drawn when the picture turns by `heading`: the circle around the picture.
    public func rectCovering(heading: Double) -> MapRect {
        guard heading.truncatingRemainder(dividingBy: 360) != 0 else { return rect }
        let r = (rect.size.width * rect.size.width + rect.size.height * rect.size.height).squareRoot() / 2
        return MapRect(x: rect.midX - r, y: rect.midY - r, width: 2 * r, height: 2 * r)
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

/// A colour from `#rgb` or `#rrggbb` (simplestyle's forms).
public struct RGB: Sendable, Equatable {
    public var red: UInt8, green: UInt8, blue: UInt8

    public init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
        (self.red, self.green, self.blue) = (red, green, blue)
    }

    public init?(css text: String) {
        var hex = Substring(text.trimmingWhitespace())
        guard hex.first == "#" else { return nil }
        hex = hex.dropFirst()
        if hex.count == 3 { hex = Substring(hex.flatMap { [$0, $0] }) }
        guard hex.count == 6, let value = UInt32(hex, radix: 16) else { return nil }
        self.init(UInt8(value >> 16), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF))
    }

    public var css: String {
        let digits = Array("0123456789abcdef")
        return "#" + String([red, green, blue].flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }
}
