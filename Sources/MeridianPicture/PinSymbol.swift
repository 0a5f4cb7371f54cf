import Foundation
import MeridianCore
import MeridianFormats

/// The one symbol a point is drawn with, in a PNG, an SVG and an image tile alike: a drop in
/// the marker colour with its tip on the spot, a white rim and a white dot in its head, as a
/// map pin. Each canvas draws it from this description (`CairoCanvas` with cairo's path calls,
/// `SVGCanvas` as a path with an arc), so a point has the same shape and place in every picture.
struct PinSymbol {
    /// The tip, on the point.
    let tip: PixelPoint
    /// The head's radius: the marker size and a point for the rim.
    let radius: Double
    /// The head's fill (`marker-color`).
    let colour: RGB

    /// The width of the white rim round the drop.
    static let rimWidth = 1.5
    /// Where the head's arc starts and ends, in radians clockwise from east (y points down): it
    /// runs over the top, from lower left to lower right, and the two ends meet at the tip.
    static let arcStart = 0.75 * Double.pi, arcEnd = 2.25 * Double.pi

    /// The pin of a point drawn in `style`, its tip at `point` (screen points: pins stay upright).
    init(at point: PixelPoint, style: OverlayStyle) {
        tip = point
        radius = Self.radius(style)
        colour = style.markerColor
    }

    private static func radius(_ style: OverlayStyle) -> Double { style.markerRadius + 1 }

    /// The centre of the head, two radii above the tip.
    var headCentre: PixelPoint { PixelPoint(x: tip.x, y: tip.y - 2 * radius) }
    /// The white dot in the head.
    var dotRadius: Double { 0.35 * radius }

    /// The point of the head's circle at `angle` (radians clockwise from east).
    func onHead(_ angle: Double) -> PixelPoint {
        PixelPoint(x: headCentre.x + radius * cos(angle), y: headCentre.y + radius * sin(angle))
    }

    /// What the pin covers: its head, two radii above the tip, with the rim.
    var box: PictureBox {
        PictureBox(minX: tip.x - radius - 1, minY: tip.y - 3 * radius - 1, maxX: tip.x + radius + 1, maxY: tip.y + 1)
    }

    /// How far, in points, a pin in `style` reaches from its tip in any direction (its head,
    /// with the rim, above it).
    static func reach(_ style: OverlayStyle) -> Double { 3 * radius(style) + 1 }
}
