import MeridianFormats
import MeridianGeometry

/// Something a picture is drawn on: SVG text, or a cairo image written as PNG. Lines and
/// polygons arrive in picture points before the turn (the canvas applies the viewport's
/// `heading` itself); markers in screen points (`Viewport.screenPoint`), since pins and their
/// labels stay upright.
protocol PictureCanvas: AnyObject {
    func begin(_ viewport: Viewport, options: PictureOptions) throws
    /// Rings (each polygon's outer ring, then its holes; all the polygons of a multipolygon),
    /// filled together by the even-odd rule, and `outline` stroked: the rings less their edges
    /// along ±180° (`Outline`).
    func polygon(_ rings: [[PixelPoint]], outline: [Outline<PixelPoint>], style: OverlayStyle, caption: Caption)
    func line(_ points: [PixelPoint], style: OverlayStyle, caption: Caption)
    /// A pin, with its label (the caption's title) beside it where the label fits.
    func marker(_ point: PixelPoint, style: OverlayStyle, caption: Caption)
    func finish() throws
}

/// What a drawn shape says about itself: the feature's `name` and `description` (SVG keeps
/// them as `<title>` and `<desc>`; a PNG shows a pin's name beside it).
struct Caption {
    var title: String?
    var description: String?

    init(_ properties: JSONObject) {
        title = properties["name"]?.displayText
        description = properties["description"]?.displayText
    }
}

/// Draws features on a canvas, fitted to the data unless `PictureOptions.view` is given.
///
/// Fitting needs the data's bounds before the first stroke, so features are spilled to a
/// scratch file (GeoJSON text sequence) while the bounds add up, and drawn at `finish`:
/// memory stays constant (`FeatureDrawing` draws them, as it draws image tiles).
///
/// Data that reaches over ±180° is drawn as one piece: each line and ring with continuous
/// longitudes, and each part moved by whole turns to where `LongitudeLayout` cuts the circle of
/// longitudes (the usual ±180°, unless the data lies across it), or, for a stated view, to the
/// turn nearest the view. Fiji's circle is one circle, not two halves at the world's ends.
final class PictureWriter: FeatureWriter {
    private let canvas: PictureCanvas
    private let options: PictureOptions
    private let spill: FeatureSpill
    /// Where the middles of the parts drawn lie, for where to cut the circle of longitudes.
    private var layout = LongitudeLayout()
    /// The data's bounds along the turned picture's axes as the usual cut at ±180° lays it out
    /// (a second pass over the spill finds them for another cut), so a turned picture holds it all.
    private var bounds: TurnedBounds

    init(canvas: PictureCanvas, options: PictureOptions) throws {
        self.canvas = canvas
        self.options = options
        bounds = TurnedBounds(heading: options.heading)
        spill = try FeatureSpill("picture")
    }

    func begin(_ metadata: CollectionMetadata) throws {}

    func write(_ feature: Feature) throws {
        guard let geometry = feature.geometry else { return }
        if options.view == nil {
            ContinuousLongitudes.forEachPartMiddle(of: geometry) { layout.add(middle: $0) }
            bounds.add(ContinuousLongitudes.placed(geometry, shift: LongitudeCut.usual.shift))
        }
        try spill.append(feature)
    }

    func finish(_ trailingMetadata: CollectionMetadata) throws {
        let viewport: Viewport
        let shift: (Double) -> Double
        if let view = options.view {
            viewport = Viewport(showing: view, width: options.width, height: options.height, heading: options.heading)
            // Each part on the turn nearest the view's middle.
            let centre = MapPoint(x: view.midX, y: view.midY).position.longitude
            shift = { middle in ((centre - middle) / 360).rounded() * 360 }
        } else {
            let cut = layout.cut()
            shift = cut.shift
            if cut != .usual {
                bounds = TurnedBounds(heading: options.heading)
                try spill.forEach { if let geometry = $0.geometry { bounds.add(ContinuousLongitudes.placed(geometry, shift: shift)) } }
            }
            viewport = Viewport.fitting(bounds, width: options.width, height: options.height)
        }
        try canvas.begin(viewport, options: options)
        let drawing = FeatureDrawing(canvas: canvas, viewport: viewport)
        try spill.forEach { feature in
            var placed = feature
            placed.geometry = feature.geometry.map { ContinuousLongitudes.placed($0, shift: shift) }
            drawing.draw(placed)
        }
        try canvas.finish()
    }
}

/// Features drawn on a canvas begun with `viewport`, the one way `meridian render` and image
/// tiles both draw: each feature in its simplestyle style, each geometry first clipped to what
/// the picture shows plus a margin (so a city's picture from a continent's data stays small,
/// and strokes along the picture's edge stay whole), points as pins.
struct FeatureDrawing {
    let canvas: PictureCanvas
    let viewport: Viewport
    private let clipper: GeometryClipper

    init(canvas: PictureCanvas, viewport: Viewport) {
        self.canvas = canvas
        self.viewport = viewport
        let shown = viewport.drawnRect
        let margin = Self.clipMargin / viewport.pointsPerMapPoint
        clipper = GeometryClipper(rect: RectClip(MapRect(x: shown.minX - margin, y: shown.minY - margin,
                                                         width: shown.size.width + 2 * margin, height: shown.size.height + 2 * margin)),
                                  plane: .mapPoints)
    }

    /// How far outside the picture, in points, geometries are clipped: more than half of any
    /// usual stroke width, so the cut edges are never seen.
    static let clipMargin = 20.0

    /// Draws one feature.
    /// - Parameters:
    ///   - feature: The feature, in its simplestyle style.
    ///   - clipped: Whether it is clipped already to what the picture shows plus ``clipMargin``
    ///     (image tiles: each tile's pieces were cut from its parent's), so it need not be again.
    func draw(_ feature: Feature, clipped: Bool = false) {
        guard let geometry = feature.geometry else { return }
        let properties = feature.properties ?? [:]
        let style = OverlayStyle(properties)
        let caption = Caption(properties)
        if case .point(let p) = geometry {
            // Markers are not clipped: one just outside still shows its edge.
            marker(p.coordinates, style: style, caption: caption)
        } else if let shown = clipped ? geometry : clipper.clip(geometry) {
            draw(shown, style: style, caption: caption)
        }
    }

    /// A point's pin, where any of it can show: one farther outside the picture than a pin
    /// reaches is left out (its place may lie any distance away, beyond what a canvas can hold).
    private func marker(_ position: Position, style: OverlayStyle, caption: Caption) {
        let point = viewport.screenPoint(position), reach = PinSymbol.reach(style)
        guard point.x > -reach, point.y > -reach, point.x < viewport.width + reach, point.y < viewport.height + reach else { return }
        canvas.marker(point, style: style, caption: caption)
    }

    private func draw(_ geometry: Geometry, style: OverlayStyle, caption: Caption) {
        func pixels(_ positions: [Position]) -> [PixelPoint] { positions.map(viewport.point) }
        func polygon(_ rings: [[Position]]) {
            let outline = Outline.of(rings).map { Outline(points: pixels($0.points), closed: $0.closed) }
            canvas.polygon(rings.map(pixels), outline: outline, style: style, caption: caption)
        }
        // The polygons of a multipolygon each alone, in order, but those cut at ±180° (Fiji's
        // halves in Natural Earth) in one path, where the first of them comes: filled apart,
        // their anti-aliased edges left a seam where they met. Image tiles get a multipolygon as
        // a collection of its polygons (`FeatureTiles.Piece`), and draw it alike.
        func polygons(_ list: [Polygon]) {
            let cut = list.filter { Outline.isCut($0.rings) }
            var cutDrawn = false
            for member in list {
                guard cut.count > 1, Outline.isCut(member.rings) else {
                    polygon(member.rings)
                    continue
                }
                if !cutDrawn { polygon(cut.flatMap(\.rings)) }
                cutDrawn = true
            }
        }
        switch geometry {
        case .point(let p): marker(p.coordinates, style: style, caption: caption)
        case .multiPoint(let m): for p in m.coordinates { marker(p, style: style, caption: caption) }
        case .lineString(let l): canvas.line(pixels(l.coordinates), style: style, caption: caption)
        case .multiLineString(let m): for line in m.lines { canvas.line(pixels(line), style: style, caption: caption) }
        case .polygon(let p): polygon(p.rings)
        case .multiPolygon(let m): polygons(m.polygons)
        case .geometryCollection(let c):
            // Runs of polygons as a multipolygon's (see above).
            var run: [Polygon] = []
            for member in c.geometries {
                if case .polygon(let p) = member {
                    run.append(p)
                    continue
                }
                polygons(run)
                run = []
                draw(member, style: style, caption: caption)
            }
            polygons(run)
        }
    }
}

/// A stroked line of a polygon's outline: a ring, or the part of one between edges that lie
/// along ±180°, which were made by cutting a shape there (as Natural Earth cuts Fiji, Chukotka
/// and Antarctica) and are no edge of the shape: they are not stroked, so the halves of a cut
/// shape, laid side by side (`ContinuousLongitudes`), show no line where they meet.
struct Outline<Point> {
    var points: [Point]
    /// Whether it is a whole ring, closed (its end joined to its start).
    var closed: Bool
}

extension Outline where Point == Position {
    /// The outline of `rings`: each ring whole, or, when some of its edges lie along ±180°,
    /// the lines between them, joined end to start across rings (the two halves of a cut
    /// ring make one closed line again).
    static func of(_ rings: [[Position]]) -> [Outline] {
        var whole: [Outline] = [], pieces: [[Position]] = []
        for ring in rings {
            // The ring's corners once each (a closed ring repeats its first at the end).
            let corners = ring.count > 1 && ring.first == ring.last ? Array(ring.dropLast()) : ring
            let cut = corners.indices.map { isCut(corners[$0], corners[($0 + 1) % corners.count]) }
            guard let first = cut.firstIndex(of: true) else {
                whole.append(Outline(points: ring, closed: true))
                continue
            }
            // From the vertex after a cut edge, once round: each run of uncut edges is a line.
            var line: [Position] = []
            for step in 1...corners.count {
                let i = (first + step) % corners.count
                if line.isEmpty { line = [corners[i]] }
                if cut[i] {
                    if line.count > 1 { pieces.append(line) }
                    line = []
                } else {
                    line.append(corners[(i + 1) % corners.count])
                }
            }
        }
        return whole + joined(pieces)
    }

    /// Lines joined where one ends at another's start; a line that comes back to its start is closed.
    static func joined(_ lines: [[Position]]) -> [Outline] {
        var open = lines, result: [Outline] = []
        while var line = open.popLast() {
            while line.first != line.last, let next = open.firstIndex(where: { $0.first == line.last }) {
                line += open.remove(at: next).dropFirst()
            }
            result.append(Outline(points: line, closed: line.count > 2 && line.first == line.last))
        }
        return result
    }

    /// Whether an edge of `rings` runs along ±180° (see ``isCut(_:_:)``).
    static func isCut(_ rings: [[Position]]) -> Bool {
        rings.contains { ring in ring.indices.contains { isCut(ring[$0], ring[($0 + 1) % ring.count]) } }
    }

    /// Whether the edge from `a` to `b` runs along ±180° (on any turn: parts are laid out on
    /// whole turns of longitude), not a point.
    static func isCut(_ a: Position, _ b: Position) -> Bool {
        func onAntimeridian(_ longitude: Double) -> Bool { 180 - abs(ContinuousLongitudes.normalised(longitude)) < 1e-9 }
        return a.latitude != b.latitude && abs(a.longitude - b.longitude) < 1e-9 && onAntimeridian(a.longitude)
    }
}
