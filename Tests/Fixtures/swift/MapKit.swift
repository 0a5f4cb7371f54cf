// A stand-in for MapKit on Linux: only what `meridian convert --to swift` writes, declared with
// Apple's names and initialiser signatures (MapKit's documentation), so a test can compile and
// run the generated source where MapKit does not exist. Written for Meridian's tests.
public typealias CLLocationDegrees = Double
public typealias CLLocationDistance = Double

public struct CLLocationCoordinate2D {
    public var latitude: CLLocationDegrees
    public var longitude: CLLocationDegrees
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

open class MKPointAnnotation: MKShape, MKAnnotation {
    open var coordinate = CLLocationCoordinate2D(latitude: 0, longitude: 0)
}
