import RealModule

/// One position: longitude and latitude in degrees (WGS 84), and an optional altitude in metres.
///
/// GeoJSON writes positions `[longitude, latitude, altitude]`; people type `LAT,LON` (MapKit's order).
/// The field names say which is which so the two orders never get mixed up.
public struct Position: Hashable, Sendable {
    /// Degrees east of Greenwich, usually −180…180 (values beyond are kept as written, for rings
    /// that cross the antimeridian).
    public var longitude: Double
    /// Degrees north of the equator, −90…90.
    public var latitude: Double
    /// Metres above the WGS 84 ellipsoid (GeoJSON's third number), or nil for a 2D position.
    public var altitude: Double?

    /// Creates a position from its longitude and latitude, named so they cannot be swapped.
    /// - Parameters:
    ///   - longitude: Degrees east (x).
    ///   - latitude: Degrees north (y).
    ///   - altitude: Metres, or nil (the default) for a 2D position.
    @inlinable
    public init(longitude: Double, latitude: Double, altitude: Double? = nil) {
        self.longitude = longitude
        self.latitude = latitude
        self.altitude = altitude
    }

    /// True when the position carries an altitude (a 3D position).
    @inlinable public var hasAltitude: Bool { altitude != nil }

    /// The position with longitude and latitude rounded to `decimals` places (half away from
    /// zero); the altitude is dropped, as coverage files want.
    public func rounded(toDecimals decimals: Int) -> Position {
        let scale = Double.pow(10, Double(decimals))
        return Position(longitude: (longitude * scale).rounded() / scale, latitude: (latitude * scale).rounded() / scale)
    }

    /// Bit-for-bit equality: tells `0.0` from `-0.0`, which `==` does not.
    /// Round-trip tests use it, since a converter must not change a sign bit either.
    public func isIdentical(to other: Position) -> Bool {
        longitude.bitPattern == other.longitude.bitPattern
            && latitude.bitPattern == other.latitude.bitPattern
            && altitude?.bitPattern == other.altitude?.bitPattern
    }
}

extension Position: CustomStringConvertible {
    /// The position as GeoJSON writes it: `[longitude, latitude]`, or with the altitude third.
    public var description: String {
        if let altitude { return "[\(longitude), \(latitude), \(altitude)]" }
        return "[\(longitude), \(latitude)]"
    }
}
