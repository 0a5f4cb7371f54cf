import ArgumentParser
import MeridianGeometry

/// A point typed by a person: `LAT,LON`, MapKit's order (GeoJSON's positions stay `[lon, lat]`).
public struct LatLon: NumberListArgument, Sendable {
    /// The point, stored as a `Position` (longitude, latitude).
    public var position: Position

    /// `lat,lon` in degrees.
    public static let syntax = ArgumentSyntax(
        valueName: "lat,lon", example: "-33.86,151.21",
        form: "LAT,LON in degrees (latitude -90 to 90, longitude -180 to 180)")

    /// The point of two numbers, latitude first; nil when either is out of range.
    /// - Parameter numbers: Latitude (-90 to 90) and longitude (-180 to 180), in degrees.
    public init?(numbers: [Double]) {
        guard latitudes.contains(numbers[0]), longitudes.contains(numbers[1]) else { return nil }
        position = Position(longitude: numbers[1], latitude: numbers[0])
    }
}
