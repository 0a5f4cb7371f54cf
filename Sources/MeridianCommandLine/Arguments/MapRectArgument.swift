import ArgumentParser
import MeridianGeometry

/// A map rect typed as `x,y,width,height` in MapKit's map points (MKMapRect's fields).
public struct MapRectArgument: NumberListArgument, Sendable {
    public var rect: MapRect

    public static let syntax = ArgumentSyntax(
        valueName: "x,y,w,h", example: "41943040,100663296,1048576,1048576",
        form: "x,y,width,height in map points (width and height above 0)")

    public init?(numbers v: [Double]) {
        guard v[2] > 0, v[3] > 0 else { return nil }
        rect = MapRect(x: v[0], y: v[1], width: v[2], height: v[3])
    }
}
