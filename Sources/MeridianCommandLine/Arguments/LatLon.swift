import ArgumentParser
import MeridianGeometry

/// A point typed by a person: `LAT,LON`, MapKit's order (GeoJSON's positions stay `[lon, lat]`).
public struct LatLon: NumberListArgument, Sendable {
    public var position: Position

    public static let syntax = ArgumentSyntax(
        valueName: "lat,lon", example: "-33.86,151.21",
        form: "LAT,LON in degrees (latitude -90 to 90, longitude -180 to 180)")

    public init?(numbers: [Double]) {
        guard latitudes.contains(numbers[0]), longitudes.contains(numbers[1]) else { return nil }
        position = Position(longitude: numbers[1], latitude: numbers[0])
    }
}
