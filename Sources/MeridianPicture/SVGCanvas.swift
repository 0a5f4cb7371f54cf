import MeridianFormats
import MeridianGeometry

/// SVG 1.1: one `<path>` per line or polygon (even-odd fill, so holes show), a pin per point
/// (`PinSymbol`, the PNG's shape: a `<g class="pin">` of its drop and dot) with its name as a
/// label where it fits (`LabelLayout`); each shape's name and description as its `<title>` (a
/// tooltip) and `<desc>`. Coordinates to 1/100 of a point. Pins and labels come last, upright,
/// outside the group that turns the map.
final class SVGCanvas: PictureCanvas {
    private let sink: OutputSink
    private let xml: XMLTextWriter
    private var viewport: Viewport?
    private var pins: [(pin: PinSymbol, caption: Caption)] = []

    init(sink: OutputSink) {
        self.sink = sink
        xml = XMLTextWriter(sink: sink)
    }

    func begin(_ viewport: Viewport, options: PictureOptions) throws {
        self.viewport = viewport
        let w = String(options.width), h = String(options.height)
        sink.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" as StaticString)
        xml.start("svg", [("xmlns", "http://www.w3.org/2000/svg"), ("version", "1.1"), ("width", w), ("height", h),
                          ("viewBox", "0 0 \(w) \(h)")])
        xml.empty("rect", [("width", w), ("height", h), ("fill", "#ffffff")])
        var group: [(String, String)] = [("stroke-linejoin", "round"), ("stroke-linecap", "round")]
        if viewport.heading != 0 {
            group.append(("transform", "rotate(\(Self.fixed(-viewport.heading)) \(Self.fixed(viewport.width / 2)) \(Self.fixed(viewport.height / 2)))"))
        }
        xml.start("g", group)
    }

    func polygon(_ rings: [[PixelPoint]], outline: [Outline<PixelPoint>], style: OverlayStyle, caption: Caption) {
        let fill = [("fill", style.fill.css), ("fill-opacity", Self.fixed(style.fillOpacity)), ("fill-rule", "evenodd")]
        // One element, filled and stroked, unless edges along ±180° are left unstroked.
        guard outline.count != rings.count || !outline.allSatisfy(\.closed) else {
            path(rings, closed: true, attributes: fill + stroke(style), caption: caption)
            return
        }
        path(rings, closed: true, attributes: fill + [("stroke", "none")], caption: caption)
        for closed in [true, false] {
            path(outline.filter { $0.closed == closed }.map(\.points), closed: closed, attributes: [("fill", "none")] + stroke(style), caption: Caption([:]))
        }
    }

    func line(_ points: [PixelPoint], style: OverlayStyle, caption: Caption) {
        path([points], closed: false, attributes: [("fill", "none")] + stroke(style), caption: caption)
    }

    func marker(_ point: PixelPoint, style: OverlayStyle, caption: Caption) {
        pins.append((PinSymbol(at: point, style: style), caption))
    }

    /// A point's pin (`PinSymbol`, the same in every picture) as a group of its drop (a line
    /// from the tip to the head's arc, which runs the long way round over the top) and its dot,
    /// with the caption.
    private func draw(_ pin: PinSymbol, caption: Caption) {
        let start = pin.onHead(PinSymbol.arcStart), end = pin.onHead(PinSymbol.arcEnd)
        let r = Self.fixed(pin.radius)
        let d = "M\(Self.fixed(pin.tip.x)) \(Self.fixed(pin.tip.y))L\(Self.fixed(start.x)) \(Self.fixed(start.y))"
            + "A\(r) \(r) 0 1 1 \(Self.fixed(end.x)) \(Self.fixed(end.y))Z"
        xml.start("g", [("class", "pin")])
        if let title = caption.title { xml.element("title", title) }
        if let description = caption.description { xml.element("desc", description) }
        xml.empty("path", [("d", d), ("fill", pin.colour.css), ("stroke", "#ffffff"), ("stroke-width", Self.fixed(PinSymbol.rimWidth))])
        xml.empty("circle", [("cx", Self.fixed(pin.headCentre.x)), ("cy", Self.fixed(pin.headCentre.y)), ("r", Self.fixed(pin.dotRadius)),
                             ("fill", "#ffffff")])
        xml.close()
    }

    /// An element with its caption's `<title>` and `<desc>` inside (SVG 1.1 puts both first).
    private func shape(_ name: String, _ attributes: [(String, String)], caption: Caption) {
        guard caption.title != nil || caption.description != nil else {
            xml.empty(name, attributes)
            return
        }
        xml.start(name, attributes)
        if let title = caption.title { xml.element("title", title) }
        if let description = caption.description { xml.element("desc", description) }
        xml.close()
    }

    func finish() throws {
        xml.close()  // g
        let placements = LabelLayout.place(pins.map { PinBox(box: $0.pin.box, label: $0.caption.title) },
                                           width: viewport?.width ?? 0, height: viewport?.height ?? 0, measure: TextMeasure().width)
        for (pin, caption) in pins { draw(pin, caption: caption) }
        // textLength: the width cairo measured and the layout kept free, in any viewer's font.
        for case let placement? in placements {
            xml.element("text", placement.text, [
                ("x", Self.fixed(placement.x)), ("y", Self.fixed(placement.baseline)), ("textLength", Self.fixed(placement.width)),
                ("lengthAdjust", "spacingAndGlyphs"), ("font-family", "sans-serif"), ("font-weight", "bold"),
                ("font-size", Self.fixed(LabelFont.size)), ("fill", "#333333"),
            ])
        }
        xml.close()  // svg
        try sink.checkForErrors()
    }

    private func stroke(_ style: OverlayStyle) -> [(String, String)] {
        [("stroke", style.stroke.css), ("stroke-opacity", Self.fixed(style.strokeOpacity)), ("stroke-width", Self.fixed(style.strokeWidth))]
    }

    private func path(_ parts: [[PixelPoint]], closed: Bool, attributes: [(String, String)], caption: Caption) {
        var d = ""
        for part in parts where !part.isEmpty {
            for (i, p) in part.enumerated() {
                d += i == 0 ? "M" : "L"
                d += Self.fixed(p.x) + " " + Self.fixed(p.y)
            }
            if closed { d += "Z" }
        }
        guard !d.isEmpty else { return }
        shape("path", [("d", d)] + attributes, caption: caption)
    }

    /// A number to two decimals, without trailing zeros ("12.5", "3", "-0.25").
    static func fixed(_ value: Double) -> String {
        // Shapes are clipped to the picture, so this holds; a value beyond Int is written as it is.
        guard let hundredths = Int(exactly: (value * 100).rounded()) else { return "\(value)" }
        let sign = hundredths < 0 ? "-" : ""
        let magnitude = abs(hundredths)
        let whole = magnitude / 100, fraction = magnitude % 100
        if fraction == 0 { return sign + String(whole) }
        if fraction % 10 == 0 { return sign + "\(whole).\(fraction / 10)" }
        return sign + "\(whole).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

extension FeatureFormat {
    /// SVG 1.1 in Web Mercator, fitted to the data or to the stated view, styled by simplestyle.
    public static let svg = PictureKind.svg.format { sink, options in try PictureWriter(canvas: SVGCanvas(sink: sink), options: options.settings(PictureOptions.self)) }

    /// The picture formats drawn in this process, for a registry: `FormatRegistry.standard.adding(FeatureFormat.pictures)`.
    public static let pictures: [FeatureFormat] = PictureKind.allCases.map(picture)

    /// The format of pictures of `kind`, drawn in this process.
    public static func picture(_ kind: PictureKind) -> FeatureFormat {
        switch kind {
        case .svg: svg
        case .png: png
        }
    }
}
