import CCairo

/// A rectangle on the picture, in points, y down.
struct PictureBox: Sendable, Equatable {
    var minX: Double, minY: Double, maxX: Double, maxY: Double

    var midX: Double { (minX + maxX) / 2 }
    var midY: Double { (minY + maxY) / 2 }

    /// Whether the two share more than an edge.
    func overlaps(_ other: PictureBox) -> Bool {
        minX < other.maxX && other.minX < maxX && minY < other.maxY && other.minY < maxY
    }

    func isInside(width: Double, height: Double) -> Bool {
        minX >= 0 && minY >= 0 && maxX <= width && maxY <= height
    }
}

/// The font of pin labels, the same in PNG and SVG pictures: cairo measures it for both, and
/// SVG states the measured width (`textLength`), so a label takes the room it was given in any
/// viewer whatever font it has.
enum LabelFont {
    static let size = 12.0
    /// Room above and below the baseline that every label box keeps (a font's ascent and
    /// descent are within these), and around it for the white halo PNG labels have.
    static let ascent = size, descent = 0.25 * size, halo = 1.5

    static func select(on cr: OpaquePointer) {
        cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD)
        cairo_set_font_size(cr, size)
    }
}

/// Measures label widths with cairo's text API (the toy API PNG pictures draw with).
final class TextMeasure {
    private let surface: OpaquePointer
    private let cr: OpaquePointer

    init() {
        surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1)
        cr = cairo_create(surface)
        LabelFont.select(on: cr)
    }

    deinit {
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
    }

    /// The advance of the text in points.
    func width(_ text: String) -> Double {
        var extents = cairo_text_extents_t()
        cairo_text_extents(cr, text, &extents)
        return extents.x_advance
    }
}

/// A pin as the label layout sees it: the box its marker covers on the picture and its label.
struct PinBox {
    var box: PictureBox
    var label: String?
}

/// Where a label goes: its text starts at `x` on the baseline `baseline`, `width` points wide,
/// and it keeps `box` (the text with its halo) free of every other label and pin.
struct LabelPlacement: Equatable {
    var text: String
    var x: Double
    var baseline: Double
    var width: Double
    var box: PictureBox
}

/// Labels beside pins, placed so that none covers another label or another pin: each is tried
/// right of its pin, then left, above and below, and left out when it fits nowhere inside the
/// picture (the pin itself is still drawn). Pins are taken in the order they came, so earlier
/// features keep their labels, as in MapKit's collision handling by display priority.
enum LabelLayout {
    /// Points between a pin's box and its label.
    static let gap = 3.0

    /// One placement per pin (nil for a pin without a label or a label left out).
    static func place(_ pins: [PinBox], width: Double, height: Double, measure: (String) -> Double) -> [LabelPlacement?] {
        var taken = BoxGrid()
        for (index, pin) in pins.enumerated() { taken.insert(pin.box, owner: index) }
        return pins.enumerated().map { index, pin in
            guard let text = pin.label, !text.isEmpty else { return nil }
            let w = measure(text)
            let fits = candidates(for: pin.box, width: w, text: text).first { placement in
                placement.box.isInside(width: width, height: height) && !taken.overlaps(placement.box, except: index)
            }
            if let fits { taken.insert(fits.box, owner: -1) }
            return fits
        }
    }

    /// Right of the pin (vertically centred on it), left, centred above, centred below.
    static func candidates(for pin: PictureBox, width w: Double, text: String) -> [LabelPlacement] {
        let centredBaseline = pin.midY + (LabelFont.ascent - LabelFont.descent) / 2
        let places = [
            (pin.maxX + gap + LabelFont.halo, centredBaseline),
            (pin.minX - gap - LabelFont.halo - w, centredBaseline),
            (pin.midX - w / 2, pin.minY - gap - LabelFont.halo - LabelFont.descent),
            (pin.midX - w / 2, pin.maxY + gap + LabelFont.halo + LabelFont.ascent),
        ]
        return places.map { x, baseline in
            LabelPlacement(text: text, x: x, baseline: baseline, width: w, box: box(x: x, baseline: baseline, width: w))
        }
    }

    /// The room a label at `x` on `baseline` takes, halo included.
    static func box(x: Double, baseline: Double, width: Double) -> PictureBox {
        PictureBox(minX: x - LabelFont.halo, minY: baseline - LabelFont.ascent - LabelFont.halo,
                   maxX: x + width + LabelFont.halo, maxY: baseline + LabelFont.descent + LabelFont.halo)
    }
}

/// Boxes filed by the 64-point cells they touch, so a check looks only at its neighbours
/// (thousands of labelled points stay fast).
private struct BoxGrid {
    static let cell = 64.0
    private var boxes: [(box: PictureBox, owner: Int)] = []
    private var cells: [Int64: [Int]] = [:]

    private static func keys(_ box: PictureBox) -> [Int64] {
        // Far outside the picture every box shares one cell row or column: they never meet a label.
        func index(_ v: Double) -> Int64 { v.isFinite ? Int64(max(-1e6, min(1e6, (v / cell).rounded(.down)))) : 0 }
        var keys: [Int64] = []
        for x in index(box.minX)...index(box.maxX) {
            for y in index(box.minY)...index(box.maxY) { keys.append((x << 32) ^ (y & 0xFFFF_FFFF)) }
        }
        return keys
    }

    mutating func insert(_ box: PictureBox, owner: Int) {
        boxes.append((box, owner))
        for key in Self.keys(box) { cells[key, default: []].append(boxes.count - 1) }
    }

    func overlaps(_ box: PictureBox, except owner: Int) -> Bool {
        Self.keys(box).contains { key in
            cells[key, default: []].contains { boxes[$0].owner != owner && boxes[$0].box.overlaps(box) }
        }
    }
}
