import ArgumentParser
import MeridianGeometry

/// A map rect typed as `x,y,width,height` in MapKit's map points (MKMapRect's fields).
public struct MapRectArgument: NumberListArgument, Sendable {
    /// The rect in Web Mercator map points (MapKit's `MKMapRect` fields).
    public var rect: MapRect

    /// `x,y,w,h` in map points.
    public static let syntax = ArgumentSyntax(
        valueName: "x,y,w,h", example: "41943040,100663296,1048576,1048576",
        form: "x,y,width,height in map points (width and height above 0)")

    /// The rect of four numbers (x, y, width, height); nil when the width or height is not above 0.
    /// - Parameter v: The numbers typed, in that order.
    public init?(numbers v: [Double]) {
        guard v[2] > 0, v[3] > 0 else { return nil }
        rect = MapRect(x: v[0], y: v[1], width: v[2], height: v[3])
    }
}
