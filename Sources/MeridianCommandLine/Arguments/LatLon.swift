import ArgumentParser
import MeridianGeometry

/// A point typed by a person: `LAT,LON`, MapKit's order (GeoJSON's positions stay `[lon, lat]`).
public struct LatLon: ArgumentValue, Sendable {
    public var position: Position

    public static let valueName = "lat,lon"
    public static let form = "LAT,LON in degrees (latitude -90 to 90, longitude -180 to 180)"
    public static let example = "-33.86,151.21"

    public init?(argument: String) {
        guard let parts = commaSeparatedNumbers(argument, count: 2), latitudes.contains(parts[0]), longitudes.contains(parts[1]) else {
            return nil
        }
        position = Position(longitude: parts[1], latitude: parts[0])
    }
}
