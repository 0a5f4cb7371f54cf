import ArgumentParser
import MeridianGeometry

/// A control point of an image without georeferencing, typed as `PIXEL,LINE,LAT,LON`: where
/// on the image (pixel column and line, from its top left) and where on Earth (MapKit's order).
public struct ControlPointArgument: NumberListArgument, Sendable {
    /// The image column, in pixels from the left edge.
    public var pixel: Double
    /// The image row, in pixels from the top edge.
    public var line: Double
    /// Where the pixel lies on Earth (longitude, latitude in degrees).
    public var position: Position

    /// `pixel,line,lat,lon`.
    public static let syntax = ArgumentSyntax(
        valueName: "pixel,line,lat,lon", example: "0,0,37.80,-122.52",
        form: "PIXEL,LINE,LAT,LON (latitude -90 to 90, longitude -180 to 180)")

    /// The control point of four numbers: pixel, line, latitude, longitude; nil when the latitude or longitude is out of range.
    /// - Parameter v: The numbers typed, in that order.
    public init?(numbers v: [Double]) {
        guard latitudes.contains(v[2]), longitudes.contains(v[3]) else { return nil }
        (pixel, line, position) = (v[0], v[1], Position(longitude: v[3], latitude: v[2]))
    }
}
