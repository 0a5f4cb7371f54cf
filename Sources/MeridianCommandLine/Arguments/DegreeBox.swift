import ArgumentParser
import MeridianGeometry

/// A box in degrees typed as `west,south,east,north` (GeoJSON's bbox order).
///
/// West greater than east is a box that crosses the antimeridian, as RFC 7946 §5.2 writes
/// one (`170,-20,-170,-10` reaches from 170°E over ±180° to 170°W); `BoundingBox` keeps it
/// so. Each command says what it does with one: `coverage make` covers it (cut in two at
/// ±180°), while `clip --bbox` and `render --view`, which draw in one continuous plane, refuse
/// it (`requireOneSide`). West equal to east, or south not below north, is no box.
public struct DegreeBox: NumberListArgument, Sendable {
    /// The box in degrees; west is greater than east when it crosses the antimeridian.
    public var box: BoundingBox

    /// `w,s,e,n` in degrees.
    public static let syntax = ArgumentSyntax(
        valueName: "w,s,e,n", example: "5.9,45.8,10.5,47.8",
        form: "west,south,east,north in degrees (south below north; west above east crosses the antimeridian)")

    /// The box of four numbers: west, south, east, north; nil when one is out of range, west equals east or south is not below north.
    /// - Parameter v: The numbers typed, in that order.
    public init?(numbers v: [Double]) {
        guard longitudes.contains(v[0]), longitudes.contains(v[2]), latitudes.contains(v[1]), latitudes.contains(v[3]),
              v[0] != v[2], v[1] < v[3] else { return nil }
        box = BoundingBox(west: v[0], south: v[1], east: v[2], north: v[3])
    }

    /// The box crosses the antimeridian (west > east).
    public var crossesAntimeridian: Bool { box.west > box.east }

    /// The box, for an option whose use cannot reach over ±180°; a box that does is a usage error.
    public func requireOneSide(of option: String) throws -> BoundingBox {
        guard !crossesAntimeridian else {
            throw ValidationError("\(option) crosses the antimeridian (west > east): give each side as a box of its own "
                                  + "(west,south,180,north and -180,south,east,north)")
        }
        return box
    }
}
