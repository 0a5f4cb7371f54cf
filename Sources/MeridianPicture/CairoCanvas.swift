import CCairo
import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry

/// A PNG picture drawn with cairo, anti-aliased, at `scale` pixels per point: MKMapSnapshotter's
/// idea offline. Points get pins (a drop in their marker colour, the tip on the spot) with
/// their names beside where they fit (`LabelLayout`); a basemap made by `meridian tile` can go
/// underneath. An image tile's canvas (``init()``) starts transparent and keeps its pixels
/// (``rgba``) instead: its pins go without labels, which cannot be placed tile by tile.
final class CairoCanvas: PictureCanvas {
    /// Where the PNG goes; nil for an image tile.
    private let sink: OutputSink?
    private var surface: OpaquePointer?
    private var cr: OpaquePointer?
    private var viewport: Viewport?
    private var scale = 1.0
    /// Pins and labels are drawn last, upright, over every line and polygon, as MapKit draws
    /// annotations.
    private var pins: [(pin: PinSymbol, label: String?)] = []

    init(sink: OutputSink) { self.sink = sink }

    /// A canvas for an image tile: transparent where nothing is drawn, pins without labels.
    init() { sink = nil }

    deinit {
        if let cr { cairo_destroy(cr) }
        if let surface { cairo_surface_destroy(surface) }
    }

    func begin(_ viewport: Viewport, options: PictureOptions) throws {
        let scale = Double(max(options.scale, 1))
        self.viewport = viewport
        self.scale = scale
        surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(options.width) * Int32(scale), Int32(options.height) * Int32(scale))
        guard let surface, cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            throw MeridianError(.usage, "cannot make a \(options.width)×\(options.height) picture at scale \(options.scale)")
        }
        cr = cairo_create(surface)
        cairo_scale(cr, scale, scale)
        if sink != nil {
            cairo_set_source_rgb(cr, 1, 1, 1)
            cairo_paint(cr)
        }
        if viewport.heading != 0 {
            // Turn the map so `heading` points up, about the picture's centre.
            cairo_translate(cr, viewport.width / 2, viewport.height / 2)
            cairo_rotate(cr, -viewport.heading * .pi / 180)
            cairo_translate(cr, -viewport.width / 2, -viewport.height / 2)
        }
        if let basemap = options.basemap {
            try Basemap(path: basemap).draw(on: cr!, viewport: viewport, pixelsPerPoint: scale)
        }
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
    }

    private func color(_ rgb: RGB, _ alpha: Double) {
        cairo_set_source_rgba(cr, Double(rgb.red) / 255, Double(rgb.green) / 255, Double(rgb.blue) / 255, alpha)
    }

    private func trace(_ points: [PixelPoint], closed: Bool) {
        guard let first = points.first else { return }
        cairo_move_to(cr, first.x, first.y)
        for p in points.dropFirst() { cairo_line_to(cr, p.x, p.y) }
        if closed { cairo_close_path(cr) }
    }

    func polygon(_ rings: [[PixelPoint]], outline: [Outline<PixelPoint>], style: OverlayStyle, caption: Caption) {
        cairo_new_path(cr)
        for ring in rings { trace(ring, closed: true) }
        cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD)
        color(style.fill, style.fillOpacity)
        cairo_fill(cr)
        for line in outline { trace(line.points, closed: line.closed) }
        stroke(style)
    }

    func line(_ points: [PixelPoint], style: OverlayStyle, caption: Caption) {
        cairo_new_path(cr)
        trace(points, closed: false)
        stroke(style)
    }

    private func stroke(_ style: OverlayStyle) {
        color(style.stroke, style.strokeOpacity)
        cairo_set_line_width(cr, style.strokeWidth)
        if style.strokeWidth > 0 { cairo_stroke(cr) } else { cairo_new_path(cr) }
    }

    func marker(_ point: PixelPoint, style: OverlayStyle, caption: Caption) {
        pins.append((PinSymbol(at: point, style: style), caption.title))
    }

    /// A point's pin (`PinSymbol`, the same in every picture) in cairo's path calls.
    private func drawPin(_ pin: PinSymbol) {
        cairo_new_path(cr)
        cairo_move_to(cr, pin.tip.x, pin.tip.y)
        // The arc begins with a line from the tip to its start; closing goes back to the tip.
        cairo_arc(cr, pin.headCentre.x, pin.headCentre.y, pin.radius, PinSymbol.arcStart, PinSymbol.arcEnd)
        cairo_close_path(cr)
        color(pin.colour, 1)
        cairo_fill_preserve(cr)
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_set_line_width(cr, PinSymbol.rimWidth)
        cairo_stroke(cr)
        cairo_arc(cr, pin.headCentre.x, pin.headCentre.y, pin.dotRadius, 0, 2 * .pi)
        cairo_fill(cr)
    }

    private func drawLabel(_ placement: LabelPlacement) {
        LabelFont.select(on: cr!)
        cairo_new_path(cr)
        cairo_move_to(cr, placement.x, placement.baseline)
        cairo_text_path(cr, placement.text)
        cairo_set_source_rgb(cr, 1, 1, 1)  // a halo, so the label reads on any background
        cairo_set_line_width(cr, 2 * LabelFont.halo)
        cairo_stroke_preserve(cr)
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2)
        cairo_fill(cr)
    }

    func finish() throws {
        // Pins arrive in screen points: draw them without the map's turn.
        cairo_identity_matrix(cr)
        cairo_scale(cr, scale, scale)
        let placements = sink == nil ? [] : LabelLayout.place(pins.map { PinBox(box: $0.pin.box, label: $0.label) },
                                           width: viewport?.width ?? 0, height: viewport?.height ?? 0, measure: TextMeasure().width)
        for pin in pins { drawPin(pin.pin) }
        for case let placement? in placements { drawLabel(placement) }
        cairo_surface_flush(surface)
        guard let sink else { return }
        // cairo hands the PNG over in pieces; the sink takes them as they come.
        let context = Unmanaged.passUnretained(sink).toOpaque()
        let status = cairo_surface_write_to_png_stream(surface, { closure, data, length in
            guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
            Unmanaged<OutputSink>.fromOpaque(closure).takeUnretainedValue().write(UnsafeRawBufferPointer(start: data, count: Int(length)))
            return CAIRO_STATUS_SUCCESS
        }, context)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw MeridianError(.io, "cannot encode the PNG: \(String(cString: cairo_status_to_string(status)))")
        }
        try sink.checkForErrors()
    }

    /// The finished picture's pixels, row by row, as red, green, blue and alpha (not
    /// premultiplied, as image files hold them); nil when every pixel is transparent.
    var rgba: [UInt8]? {
        guard let surface, let data = cairo_image_surface_get_data(surface) else { return nil }
        let width = Int(cairo_image_surface_get_width(surface)), height = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        var drawn = false
        data.withMemoryRebound(to: UInt32.self, capacity: stride / 4 * height) { words in
            for row in 0..<height {
                for column in 0..<width {
                    // ARGB32: premultiplied, in a native-endian 32-bit word.
                    let word = words[row * stride / 4 + column]
                    let alpha = word >> 24
                    guard alpha > 0 else { continue }
                    drawn = true
                    let o = (row * width + column) * 4
                    func straight(_ shift: UInt32) -> UInt8 { UInt8(min(255, (((word >> shift) & 0xFF) * 255 + alpha / 2) / alpha)) }
                    pixels[o] = straight(16)
                    pixels[o + 1] = straight(8)
                    pixels[o + 2] = straight(0)
                    pixels[o + 3] = UInt8(alpha)
                }
            }
        }
        return drawn ? pixels : nil
    }
}

extension FeatureFormat {
    /// A PNG picture of the features (and an optional basemap), drawn with cairo.
    public static let png = PictureKind.png.format { sink, options in try PictureWriter(canvas: CairoCanvas(sink: sink), options: options.settings(PictureOptions.self)) }
}
