import MeridianCore
import MeridianGeometry

/// Writes Swift source that declares the features as MapKit overlays and annotations drawn as
/// their source asks, in an enum named by ``MapKitSourceOptions/typeName`` (`MeridianOverlays` when
/// none is given; the command line names it after the output file). An app needs three lines:
/// `Flight.add(to: mapView)`, and `Flight.renderer(for:)` and `Flight.annotationView(for:in:)`
/// in its `MKMapViewDelegate`.
///
/// - lines become `MKPolyline`s (a multi-part line one `MKMultiPolyline`), or
///   `MKGeodesicPolyline`s for lines `meridian geodesic` made (`overlay: "geodesic"`; from its
///   `from` and `to` when present, so MapKit draws the curve);
/// - polygons become `MKPolygon`s with `interiorPolygons` (a multi-part polygon one
///   `MKMultiPolygon`); circles `meridian circle` made (`overlay: "circle"`, `center`,
///   `radius_m`) become `MKCircle`s;
/// - points become annotations shown as `MKMarkerAnnotationView`s; `name` and `description`
///   give every shape its title and subtitle;
/// - simplestyle's `stroke`, `stroke-opacity`, `stroke-width`, `fill` and `fill-opacity` style
///   the renderers, `marker-color` (or KML's `icon-color`) and `marker-symbol` the markers,
///   which cluster per layer or KML folder (``MapKitSourceOptions``).
///
/// Every shape is an instance of a small subclass declared inside the enum, which carries its
/// feature's style; so are all helpers, so several generated files compile into one app.
/// Features are set aside as they stream by, and the form is chosen at the end: coordinates as
/// flat `[CLLocationDegrees]` literals, or, past ``MapKitSourceOptions/literalPositionLimit``
/// positions (or when asked), a GeoJSON resource beside the output read through
/// `MKGeoJSONDecoder`, because the compiler takes seconds over megabytes of literals.
public final class MapKitSourceWriter: FeatureWriter, CompanionFileWriter {
    private let sink: OutputSink
    private let options: WriteOptions
    private let mapKit: MapKitSourceOptions
    /// Formats literals and numbers for the expressions built before they are written.
    private let scratch = OutputSink(collectingAs: "expression")
    private var metadata = CollectionMetadata()
    private var spill: FeatureSpill?
    private var positionCount = 0
    /// Each distinct style's index in the generated `styles` array.
    private var styleIndexes: [MapKitStyle: Int] = [:]
    private var styles: [MapKitStyle] = []
    /// The GeoJSON resource, once the resource form is chosen; committed with the source.
    private var resource: OutputTarget?
    /// The enum the declarations live in.
    public let typeName: String

    /// The enum's name when none is given.
    public static let defaultTypeName = "MeridianOverlays"

    /// A writer of Swift source into `sink`, declaring everything in an enum named by
    /// ``MapKitSourceOptions/typeName`` (``defaultTypeName`` when nil).
    /// - Parameters:
    ///   - sink: Where the Swift source goes.
    ///   - options: ``MapKitSourceOptions`` (type name, overlay level, clustering, display
    ///     priority, literals or resource), `outputPath` (the resource goes beside it), `generator` (named
    ///     in the header comment) and `precision`.
    /// - Throws: `MeridianError` (`usage`) when the type name is not a Swift identifier or is a
    ///   keyword, or when the resource form is asked for without an output file.
    public init(sink: OutputSink, options: WriteOptions = .init()) throws {
        self.sink = sink
        self.options = options
        mapKit = options.settings(MapKitSourceOptions.self)
        typeName = mapKit.typeName ?? Self.defaultTypeName
        guard Self.isTypeName(typeName) else {
            throw MeridianError(.usage, "\"\(typeName)\" cannot name a Swift type",
                                hint: "use letters, digits and _, starting with a letter, and not a Swift keyword (e.g. Flight)")
        }
        if mapKit.geometry == .resource && options.outputPath == nil {
            throw MeridianError(.usage, "the GeoJSON resource is written beside the Swift file, and standard output has no folder",
                                hint: "give -o PATH.swift")
        }
    }

    /// Keeps the collection's `name` for the header and starts setting features aside.
    public func begin(_ metadata: CollectionMetadata) throws {
        self.metadata = metadata
        spill = try FeatureSpill("mapkit")
    }

    /// Sets the feature aside (a feature without geometry is skipped) and counts its positions.
    /// - Throws: `MeridianError` (`io`) when the scratch file cannot be written.
    public func write(_ feature: Feature) throws {
        guard let geometry = feature.geometry, let spill else { return }
        positionCount += geometry.positionCount
        try spill.append(feature)
    }

    /// Writes the source in the chosen form: the header, the shapes (or the loader and the
    /// resource), the styles, renderers and marker views, and closes the enum.
    /// - Throws: `MeridianError` (`io`) for a write failure so far, (`cannotCreateOutput`) when
    ///   the resource cannot be created.
    public func finish(_ trailingMetadata: CollectionMetadata) throws {
        guard let spill else { return }
        sink.write("// Generated by Meridian" as StaticString)
        if let generator = options.generator { sink.write(" (\(Self.comment(generator)))") }
        if let name = metadata.name { sink.write(" from \(Self.comment(name))") }
        sink.write(". Do not edit: regenerate.\nimport MapKit\n\nenum \(typeName) {\n")
        let resourcePath = resourcePath
        if let path = resourcePath {
            try writeResource(path, from: spill)
        } else {
            if mapKit.geometry == .auto && positionCount > MapKitSourceOptions.literalPositionLimit {
                options.diagnostics?(Diagnostic(.warning, "\(positionCount) positions written as Swift literals compile slowly",
                                                hint: "give -o PATH.swift: past \(MapKitSourceOptions.literalPositionLimit) positions the geometry goes into a GeoJSON resource beside it"))
            }
            try writeLiterals(from: spill)
        }
        sink.write(MapKitSourceSupport.source(typeName: typeName, styles: styles.map(\.swiftExpression),
                                              overlayLevel: mapKit.overlayLevel, resourceName: resourcePath.map(Self.resourceName)))
        sink.write("}\n" as StaticString)
        try sink.checkForErrors()
    }

    /// Where the GeoJSON resource goes, when the geometry is written as one: beside the output,
    /// named after it (`Flight.swift` → `Flight.geometry.geojson`, never the input's name).
    var resourcePath: String? {
        guard let output = options.outputPath else { return nil }
        switch mapKit.geometry {
        case .literals: return nil
        case .auto where positionCount <= MapKitSourceOptions.literalPositionLimit: return nil
        default:
            var base = output
            if let dot = base.lastIndex(of: "."), !base[dot...].contains("/") { base = String(base[..<dot]) }
            return base + ".geometry.geojson"
        }
    }

    /// The resource's name as `Bundle.url(forResource:withExtension:)` takes it.
    static func resourceName(_ path: String) -> String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        return String(file.dropLast(".geojson".count))
    }

    /// The GeoJSON resource's path, when one is written.
    public var companionPaths: [String] { resource?.path.map { [$0] } ?? [] }

    /// Moves the resource into place; called before the source is.
    public func commitCompanions() throws { try resource?.commit() }

    /// Removes the unfinished resource.
    public func abandonCompanions() { resource?.abandon() }

    // MARK: - Shapes

    /// What one feature becomes in MapKit, before it is written as literals or as GeoJSON.
    enum Shape {
        case annotation(Position)
        case circle(center: Position, radius: Double)
        case polyline([Position], geodesic: Bool)
        case multiPolyline([[Position]], geodesic: Bool)
        case polygon(Polygon)
        case multiPolygon([Polygon])
    }

    /// The shapes of a geometry: a multi-part line or polygon stays one shape; points are
    /// annotations each.
    static func shapes(_ geometry: Geometry, properties: JSONObject) -> [Shape] {
        let overlay = properties["overlay"]?.stringValue
        // What `meridian geodesic` and `meridian circle` made is declared as what they stand for:
        // a geodesic from its two ends (MapKit draws the curve, however it was cut at ±180°), a
        // circle from its centre and radius.
        switch (overlay, geometry) {
        case ("geodesic", .lineString), ("geodesic", .multiLineString):
            if let from = position(properties["from"]), let to = position(properties["to"]) { return [.polyline([from, to], geodesic: true)] }
        case ("circle", .polygon), ("circle", .multiPolygon):
            if let center = position(properties["center"]), let radius = properties["radius_m"]?.doubleValue { return [.circle(center: center, radius: radius)] }
        default: break
        }
        let geodesic = overlay == "geodesic"
        switch geometry {
        case .point(let p): return [.annotation(p.coordinates)]
        case .multiPoint(let m): return m.coordinates.map { .annotation($0) }
        case .lineString(let l): return [.polyline(l.coordinates, geodesic: geodesic)]
        case .multiLineString(let m): return m.lines.count == 1 ? [.polyline(m.lines[0], geodesic: geodesic)] : [.multiPolyline(m.lines, geodesic: geodesic)]
        case .polygon(let p): return [.polygon(p)]
        case .multiPolygon(let m): return m.polygons.count == 1 ? [.polygon(m.polygons[0])] : [.multiPolygon(m.polygons)]
        case .geometryCollection(let c): return c.geometries.flatMap { shapes($0, properties: properties) }
        }
    }

    /// The feature's style's index in `styles`, adding it when it is new.
    private func styleIndex(_ properties: JSONObject) -> Int {
        let style = MapKitStyle(properties, options: mapKit, defaultCluster: typeName)
        if let index = styleIndexes[style] { return index }
        styles.append(style)
        styleIndexes[style] = styles.count - 1
        return styles.count - 1
    }

    // MARK: - Literals

    /// Each feature gets a function of its own for its overlays and another for its annotations;
    /// `overlays()` and `annotations()` collect them.
    private func writeLiterals(from spill: FeatureSpill) throws {
        var overlayCount = 0, annotationCount = 0
        try spill.forEach { feature in
            guard let geometry = feature.geometry else { return }
            let properties = feature.properties ?? [:]
            let shapes = Self.shapes(geometry, properties: properties)
            let style = styleIndex(properties)
            let titles = [("title", properties["name"]?.displayText), ("subtitle", properties["description"]?.displayText)]
            let overlays = shapes.compactMap(overlayExpression)
            let points = shapes.compactMap { if case .annotation(let p) = $0 { p } else { nil } }
            if !overlays.isEmpty {
                writeFunction("overlay\(overlayCount)", of: "MKOverlay", shapes: overlays, titles: titles, style: style)
                overlayCount += 1
            }
            if !points.isEmpty {
                let annotations = points.map { "{ let a = Annotation(); a.coordinate = CLLocationCoordinate2D(latitude: \(text($0.latitude)), longitude: \(text($0.longitude))); return a }()" }
                writeFunction("annotation\(annotationCount)", of: "MKAnnotation", shapes: annotations, titles: titles, style: style)
                annotationCount += 1
            }
            try sink.checkForErrors()
        }
        for (kind, type, count) in [("overlay", "MKOverlay", overlayCount), ("annotation", "MKAnnotation", annotationCount)] {
            sink.write("    /// \(count == 0 ? "No" : String(count)) feature(s) with \(kind)s.\n")
            sink.write("    static func \(kind)s() -> [\(type)] {\n")
            if count == 0 {
                sink.write("        []\n    }\n\n")
                continue
            }
            sink.write("        var all: [\(type)] = []\n")
            for i in 0..<count { sink.write("        all += \(kind)\(i)()\n") }
            sink.write("        return all\n    }\n\n")
        }
        sink.write("""
                /// Adds every overlay (at `overlayLevel`) and annotation to `mapView`.
                @MainActor static func add(to mapView: MKMapView) {
                    mapView.addOverlays(overlays(), level: overlayLevel)
                    mapView.addAnnotations(annotations())
                }

                /// Coordinates from a flat list of latitude, longitude pairs.
                private static func coordinates(_ values: [CLLocationDegrees]) -> [CLLocationCoordinate2D] {
                    stride(from: 0, to: values.count - 1, by: 2).map { CLLocationCoordinate2D(latitude: values[$0], longitude: values[$0 + 1]) }
                }


            """)
    }

    private func writeFunction(_ name: String, of type: String, shapes: [String], titles: [(String, String?)], style: Int) {
        sink.write("    private static func \(name)() -> [\(type)] {\n        var shapes: [\(type)] = []\n")
        for shape in shapes {
            sink.write("        do {\n            let shape = \(shape)\n")
            for case let (member, text?) in titles { sink.write("            shape.\(member) = \(Self.stringLiteral(text))\n") }
            sink.write("            shape.style = styles[\(style)]\n            shapes.append(shape)\n        }\n")
        }
        sink.write("        return shapes\n    }\n\n" as StaticString)
    }

    /// A Swift expression making the overlay; nil for an annotation.
    private func overlayExpression(_ shape: Shape) -> String? {
        switch shape {
        case .annotation: return nil
        case .circle(let center, let radius):
            return "Circle(center: CLLocationCoordinate2D(latitude: \(text(center.latitude)), longitude: \(text(center.longitude))), radius: \(text(radius)))"
        case .polyline(let positions, let geodesic):
            return polyline(geodesic ? "GeodesicPolyline" : "Polyline", positions)
        case .multiPolyline(let lines, let geodesic):
            return "MultiPolyline([\(lines.map { polyline(geodesic ? "MKGeodesicPolyline" : "MKPolyline", $0) }.joined(separator: ", "))])"
        case .polygon(let p): return polygon("Polygon", p)
        case .multiPolygon(let polygons): return "MultiPolygon([\(polygons.map { polygon("MKPolygon", $0) }.joined(separator: ", "))])"
        }
    }

    private func polyline(_ type: String, _ positions: [Position]) -> String {
        shape(type, positions)
    }

    private func polygon(_ type: String, _ polygon: Polygon) -> String {
        guard let outer = polygon.rings.first else { return "\(type)(coordinates: [], count: 0)" }
        let holes = polygon.rings.dropFirst().map { shape("MKPolygon", $0) }
        return shape(type, outer, more: ", interiorPolygons: [\(holes.joined(separator: ", "))]")
    }

    /// `type` made from the coordinates of `positions` (and `more` arguments after them).
    private func shape(_ type: String, _ positions: [Position], more: String = "") -> String {
        "{ let c = coordinates(\(literal(positions))); return \(type)(coordinates: c, count: c.count\(more)) }()"
    }

    /// `[lat, lon, lat, lon, …] as [CLLocationDegrees]`.
    private func literal(_ positions: [Position]) -> String {
        scratch.write(byte: UInt8(ascii: "["))
        for (i, p) in positions.enumerated() {
            if i > 0 { scratch.write(", " as StaticString) }
            scratch.writeCoordinate(p.latitude, precision: options.precision)
            scratch.write(", " as StaticString)
            scratch.writeCoordinate(p.longitude, precision: options.precision)
        }
        scratch.write("] as [CLLocationDegrees]" as StaticString)
        return scratch.takeCollectedText()
    }

    private func text(_ value: Double) -> String {
        scratch.writeCoordinate(value, precision: options.precision)
        return scratch.takeCollectedText()
    }

    // MARK: - Resource

    /// Writes the shapes as a GeoJSON FeatureCollection at `path`, one feature per shape with
    /// only what the loader reads (`name`, `description`, `style`, and `geodesic` or `radius`),
    /// and the loader into the source.
    private func writeResource(_ path: String, from spill: FeatureSpill) throws {
        // An input first (usage), before anything there is refused for being there.
        try RunInputs.refuseInput(at: path, named: "the file written beside the output", alsoInputs: options.protectedInput.map { [$0] } ?? [])
        let target: OutputTarget
        do {
            target = try OutputTarget.open(path, replacing: options.replacesExisting)
        } catch let existing as ExistingOutput {
            throw ExistingOutput(path: existing.path, companionOf: options.outputPath, appearedDuringRun: existing.appearedDuringRun)
        }
        resource = target
        let writer = GeoJSONWriter(sink: target.sink, options: WriteOptions(precision: options.precision))
        try writer.begin(CollectionMetadata())
        try spill.forEach { feature in
            guard let geometry = feature.geometry else { return }
            let properties = feature.properties ?? [:]
            var kept: JSONObject = ["style": .integer(Int64(styleIndex(properties)))]
            for key in ["name", "description"] { if let text = properties[key]?.displayText { kept[key] = .string(text) } }
            for shape in Self.shapes(geometry, properties: properties) {
                var shapeProperties = kept
                let shapeGeometry: Geometry
                switch shape {
                case .annotation(let p): shapeGeometry = .point(Point(p))
                case .circle(let center, let radius):
                    shapeGeometry = .point(Point(center))
                    shapeProperties["radius"] = .double(radius)
                case .polyline(let positions, let geodesic):
                    shapeGeometry = .lineString(LineString(positions))
                    if geodesic { shapeProperties["geodesic"] = .bool(true) }
                case .multiPolyline(let lines, let geodesic):
                    shapeGeometry = .multiLineString(MultiLineString(lines))
                    if geodesic { shapeProperties["geodesic"] = .bool(true) }
                case .polygon(let p): shapeGeometry = .polygon(p)
                case .multiPolygon(let polygons): shapeGeometry = .multiPolygon(MultiPolygon(polygons))
                }
                try writer.write(Feature(geometry: shapeGeometry, properties: shapeProperties))
            }
        }
        try writer.finish(CollectionMetadata())
        try target.sink.checkForErrors()
    }

    // MARK: - Text

    static func position(_ value: JSONValue?) -> Position? {
        guard let array = value?.arrayValue, array.count >= 2, let lon = array[0].doubleValue, let lat = array[1].doubleValue else { return nil }
        return Position(longitude: lon, latitude: lat)
    }

    /// A Swift string literal: quotes, backslashes and control characters escaped.
    static func stringLiteral(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// Swift keywords (and the names Swift reserves for types), which cannot name the enum.
    static let reservedWords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static",
        "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do", "else",
        "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while", "as", "false",
        "is", "nil", "self", "super", "throws", "true", "try", "Any", "Self", "Type", "Protocol", "_",
    ]

    /// Whether `name` can name the enum: a Swift identifier (letters, digits and `_`, not
    /// starting with a digit) that is not a keyword.
    public static func isTypeName(_ name: String) -> Bool {
        guard let first = name.first, first.isLetter || first == "_", !reservedWords.contains(name) else { return false }
        return name.allSatisfy { $0 == "_" || $0.isLetter || ($0.isASCII && $0.isNumber) }
    }

    /// The enum's name for an output file: its name in UpperCamelCase, whatever separates the
    /// words (`Flight.swift` → `Flight`, `lax-jfk.swift` → `LaxJfk`, `my_overlays.swift` →
    /// `MyOverlays`), `Overlays` put before a leading digit and after a keyword; nil when no
    /// letter or digit is left.
    public static func typeName(forFile path: String) -> String? {
        var file = path.split(separator: "/").last.map(String.init) ?? path
        if let dot = file.lastIndex(of: "."), dot != file.startIndex { file = String(file[..<dot]) }
        let words = file.split { !($0.isLetter || ($0.isASCII && $0.isNumber)) }
        var name = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        guard let first = name.first else { return nil }
        if first.isNumber { name = "Overlays" + name }
        if reservedWords.contains(name) { name += "Overlays" }
        return name
    }

    /// A name safe inside a `//` comment (one line).
    static func comment(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}

extension FeatureFormat {
    /// Swift source declaring MapKit overlays and annotations (write only).
    public static let mapKitSwift = FeatureFormat(
        id: "swift", displayName: "MapKit Swift source", aliases: ["mapkit"], extensions: ["swift"], mediaType: "text/x-swift",
        writeOptions: MapKitSourceOptions.self, roundsCoordinates: true, needsGeographicCoordinates: true,
        writer: { sink, options in try MapKitSourceWriter(sink: sink, options: options) }
    )
}
