// A stand-in for MapKit on Linux: only what `meridian convert --to swift` writes, declared with
// Apple's names and initialiser signatures (MapKit's documentation), so a test can compile and
// run the generated source where MapKit does not exist. Renderers and views only keep what they
// are set to; MKGeoJSONDecoder reads the geometry types Meridian's resource holds. Views, the
// map view and renderers are @MainActor, as UIKit's and AppKit's are, so code that touches them
// off the main actor does not compile here either. Written for Meridian's tests.
@_exported import Foundation

public typealias CLLocationDegrees = Double
public typealias CLLocationDistance = Double

public struct CLLocationCoordinate2D {
    public var latitude: CLLocationDegrees
    public var longitude: CLLocationDegrees
    public init() { self.init(latitude: 0, longitude: 0) }
    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

public protocol MKAnnotation: AnyObject {
    var coordinate: CLLocationCoordinate2D { get }
    var title: String? { get }
    var subtitle: String? { get }
}

public protocol MKOverlay: MKAnnotation {}

open class MKShape {
    open var title: String?
    open var subtitle: String?
    public init() {}
}

open class MKMultiPoint: MKShape {
    public private(set) var coordinates: [CLLocationCoordinate2D] = []
    public var pointCount: Int { coordinates.count }
    init(_ coordinates: UnsafePointer<CLLocationCoordinate2D>, _ count: Int) {
        self.coordinates = Array(UnsafeBufferPointer(start: coordinates, count: count))
    }
    public var coordinate: CLLocationCoordinate2D { coordinates.first ?? CLLocationCoordinate2D(latitude: 0, longitude: 0) }
    public func getCoordinates(_ coords: UnsafeMutablePointer<CLLocationCoordinate2D>, range: NSRange) {
        for i in 0..<range.length { coords[i] = coordinates[range.location + i] }
    }
}

open class MKPolyline: MKMultiPoint, MKOverlay {
    public required init(coordinates: UnsafePointer<CLLocationCoordinate2D>, count: Int) { super.init(coordinates, count) }
}

open class MKGeodesicPolyline: MKPolyline {}

open class MKPolygon: MKMultiPoint, MKOverlay {
    public private(set) var interiorPolygons: [MKPolygon]?
    public init(coordinates: UnsafePointer<CLLocationCoordinate2D>, count: Int) { super.init(coordinates, count) }
    public init(coordinates: UnsafePointer<CLLocationCoordinate2D>, count: Int, interiorPolygons: [MKPolygon]?) {
        self.interiorPolygons = interiorPolygons
        super.init(coordinates, count)
    }
}

open class MKCircle: MKShape, MKOverlay {
    public let coordinate: CLLocationCoordinate2D
    public let radius: CLLocationDistance
    public init(center: CLLocationCoordinate2D, radius: CLLocationDistance) {
        coordinate = center
        self.radius = radius
    }
}

open class MKMultiPolyline: MKShape, MKOverlay {
    public let polylines: [MKPolyline]
    public init(_ polylines: [MKPolyline]) { self.polylines = polylines }
    public var coordinate: CLLocationCoordinate2D { polylines.first?.coordinate ?? CLLocationCoordinate2D() }
}

open class MKMultiPolygon: MKShape, MKOverlay {
    public let polygons: [MKPolygon]
    public init(_ polygons: [MKPolygon]) { self.polygons = polygons }
    public var coordinate: CLLocationCoordinate2D { polygons.first?.coordinate ?? CLLocationCoordinate2D() }
}

open class MKPointAnnotation: MKShape, MKAnnotation {
    open var coordinate = CLLocationCoordinate2D(latitude: 0, longitude: 0)
}

// MARK: - Colours and images (AppKit's names: the generated source uses NSColor where UIKit is missing)

public typealias CGFloat = Foundation.CGFloat

open class NSColor {
    public let redComponent: CGFloat, greenComponent: CGFloat, blueComponent: CGFloat, alphaComponent: CGFloat
    public init(srgbRed red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        (redComponent, greenComponent, blueComponent, alphaComponent) = (red, green, blue, alpha)
    }
    open func withAlphaComponent(_ alpha: CGFloat) -> NSColor {
        NSColor(srgbRed: redComponent, green: greenComponent, blue: blueComponent, alpha: alpha)
    }
}

open class NSImage {
    /// A few SF Symbols' names, so a test can tell a symbol from a name that is none.
    static let symbolNames: Set<String> = ["star.fill", "airplane", "bus", "ferry", "flag", "mappin", "tram"]
    public let symbolName: String
    public init?(systemSymbolName: String, accessibilityDescription: String?) {
        guard Self.symbolNames.contains(systemSymbolName) else { return nil }
        symbolName = systemSymbolName
    }
}

// MARK: - Renderers

public enum MKOverlayLevel: Int, Sendable {  // an NS_ENUM, Sendable as imported
    case aboveRoads = 0
    case aboveLabels = 1
}

@MainActor open class MKOverlayRenderer {
    public let overlay: MKOverlay
    open var alpha: CGFloat = 1
    public init(overlay: MKOverlay) { self.overlay = overlay }
}

open class MKOverlayPathRenderer: MKOverlayRenderer {
    open var fillColor: NSColor?
    open var strokeColor: NSColor?
    open var lineWidth: CGFloat = 0
}

open class MKPolylineRenderer: MKOverlayPathRenderer {
    public init(polyline: MKPolyline) { super.init(overlay: polyline) }
}

open class MKPolygonRenderer: MKOverlayPathRenderer {
    public init(polygon: MKPolygon) { super.init(overlay: polygon) }
}

open class MKCircleRenderer: MKOverlayPathRenderer {
    public init(circle: MKCircle) { super.init(overlay: circle) }
}

open class MKMultiPolylineRenderer: MKOverlayPathRenderer {
    public init(multiPolyline: MKMultiPolyline) { super.init(overlay: multiPolyline) }
}

open class MKMultiPolygonRenderer: MKOverlayPathRenderer {
    public init(multiPolygon: MKMultiPolygon) { super.init(overlay: multiPolygon) }
}

// MARK: - Annotation views and the map view

public struct MKFeatureDisplayPriority: RawRepresentable, Equatable, Sendable {
    public var rawValue: Float
    public init(rawValue: Float) { self.rawValue = rawValue }
    public static let required = MKFeatureDisplayPriority(rawValue: 1000)
    public static let defaultHigh = MKFeatureDisplayPriority(rawValue: 750)
    public static let defaultLow = MKFeatureDisplayPriority(rawValue: 250)
}

@MainActor open class MKAnnotationView {
    open var annotation: MKAnnotation?
    public let reuseIdentifier: String?
    open var clusteringIdentifier: String?
    open var displayPriority = MKFeatureDisplayPriority.required
    public init(annotation: MKAnnotation?, reuseIdentifier: String?) {
        self.annotation = annotation
        self.reuseIdentifier = reuseIdentifier
    }
}

open class MKMarkerAnnotationView: MKAnnotationView {
    open var markerTintColor: NSColor?
    open var glyphText: String?
    open var glyphImage: NSImage?
}

@MainActor open class MKMapView {
    public private(set) var overlays: [MKOverlay] = []
    /// The level each overlay was added at, in the order of `overlays`.
    public private(set) var overlayLevels: [MKOverlayLevel] = []
    public private(set) var annotations: [MKAnnotation] = []
    /// Views handed back with `enqueue` (a stand-in for MapKit's own reuse queue).
    private var reusable: [String: [MKAnnotationView]] = [:]
    public init() {}
    open func addOverlays(_ overlays: [MKOverlay], level: MKOverlayLevel) {
        self.overlays += overlays
        overlayLevels += overlays.map { _ in level }
    }
    open func addAnnotations(_ annotations: [MKAnnotation]) { self.annotations += annotations }
    open func dequeueReusableAnnotationView(withIdentifier identifier: String) -> MKAnnotationView? {
        reusable[identifier]?.popLast()
    }
    /// Not MapKit's: puts a view where `dequeueReusableAnnotationView` finds it, as scrolling does.
    public func enqueue(_ view: MKAnnotationView) {
        if let identifier = view.reuseIdentifier { reusable[identifier, default: []].append(view) }
    }
}

// MARK: - GeoJSON

public protocol MKGeoJSONObject: AnyObject {}

open class MKGeoJSONFeature: MKGeoJSONObject {
    public let identifier: String?
    public let properties: Data?
    public let geometry: [MKShape]
    init(identifier: String?, properties: Data?, geometry: [MKShape]) {
        (self.identifier, self.properties, self.geometry) = (identifier, properties, geometry)
    }
}

extension MKPointAnnotation: MKGeoJSONObject {}
extension MKPolyline: MKGeoJSONObject {}
extension MKPolygon: MKGeoJSONObject {}
extension MKMultiPolyline: MKGeoJSONObject {}
extension MKMultiPolygon: MKGeoJSONObject {}

public enum MKGeoJSONDecoderError: Error { case invalid(String) }

open class MKGeoJSONDecoder {
    public init() {}
    /// A FeatureCollection's features (or one Feature) with their geometry as MapKit's shapes.
    open func decode(_ data: Data) throws -> [MKGeoJSONObject] {
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw MKGeoJSONDecoderError.invalid("not an object") }
        let features = root["type"] as? String == "FeatureCollection" ? root["features"] as? [[String: Any]] ?? [] : [root]
        return try features.map { feature in
            let properties = try (feature["properties"] as? [String: Any]).map { try JSONSerialization.data(withJSONObject: $0) }
            let geometry = try (feature["geometry"] as? [String: Any]).map(Self.shapes) ?? []
            return MKGeoJSONFeature(identifier: feature["id"] as? String, properties: properties, geometry: geometry)
        }
    }

    static func coordinate(_ value: Any) throws -> CLLocationCoordinate2D {
        guard let pair = value as? [Double], pair.count >= 2 else { throw MKGeoJSONDecoderError.invalid("position") }
        return CLLocationCoordinate2D(latitude: pair[1], longitude: pair[0])
    }

    static func polyline(_ value: Any) throws -> MKPolyline {
        let c = try (value as? [Any] ?? []).map(coordinate)
        return MKPolyline(coordinates: c, count: c.count)
    }

    static func polygon(_ value: Any) throws -> MKPolygon {
        let rings = try (value as? [Any] ?? []).map { try ($0 as? [Any] ?? []).map(coordinate) }
        let holes = rings.dropFirst().map { MKPolygon(coordinates: $0, count: $0.count) }
        let outer = rings.first ?? []
        return MKPolygon(coordinates: outer, count: outer.count, interiorPolygons: holes)
    }

    static func shapes(_ geometry: [String: Any]) throws -> [MKShape] {
        let coordinates = geometry["coordinates"] ?? []
        switch geometry["type"] as? String {
        case "Point":
            let point = MKPointAnnotation()
            point.coordinate = try coordinate(coordinates)
            return [point]
        case "LineString": return [try polyline(coordinates)]
        case "MultiLineString": return [MKMultiPolyline(try (coordinates as? [Any] ?? []).map(polyline))]
        case "Polygon": return [try polygon(coordinates)]
        case "MultiPolygon": return [MKMultiPolygon(try (coordinates as? [Any] ?? []).map(polygon))]
        default: throw MKGeoJSONDecoderError.invalid("geometry type \(geometry["type"] ?? "none")")
        }
    }
}
