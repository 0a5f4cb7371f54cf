import MeridianCore
import MeridianGeometry

/// What a KML document has defined so far that its features refer to: shared styles, style
/// maps, schema field types (and, in a KMZ, the other documents' styles).
///
/// A value, so that each feature is converted with a copy of the definitions as they stood when
/// the feature ended, on another thread while the document reads on (copies share storage
/// until the reading side adds a definition).
struct KMLDefinitions {
    /// Shared styles by `#id`, as simplestyle properties.
    private(set) var styles: [String: JSONObject] = [:]
    /// StyleMaps by `#id`: the styleUrl of their first Pair (the `normal` one, in practice).
    private(set) var styleMaps: [String: String] = [:]
    /// SimpleField types by field name, from every Schema so far (togeojson's document-global rule).
    private(set) var fieldTypes: [String: FieldType] = [:]

    /// What a SimpleField's `type` makes of its values.
    enum FieldType {
        case integer, real, bool, string

        /// KML's type names (xsd's, in practice); any other reads as a string.
        init(_ name: String) {
            switch name {
            case "int", "uint", "short", "ushort", "long", "ulong": self = .integer
            case "float", "double": self = .real
            case "bool": self = .bool
            default: self = .string
            }
        }
    }
    /// Styles of the other KML documents in a KMZ, by `path#id` (for styleUrl="styles.kml#id").
    var externalStyles: [String: JSONObject] = [:]
    private(set) var styleCount = 0

    static func normalizedID(_ id: String) -> String { id.hasPrefix("#") ? id : "#" + id }

    /// Takes in a shared Style, StyleMap or Schema.
    mutating func register(_ element: XMLElement) {
        switch element.name {
        case "Style":
            styleCount += 1
            // gx:CascadingStyle (Google Earth web) carries the id on itself as kml:id.
            let id = element.attributes["id"] ?? element.attributes["kml:id"] ?? ""
            styles[Self.normalizedID(id)] = KMLStyles.properties(of: element)
        case "gx:CascadingStyle":
            // Google Earth for the web: the id is on the wrapper (kml:id), the Style inside has none.
            styleCount += 1
            if let style = element.child("Style") {
                let id = element.attributes["kml:id"] ?? element.attributes["id"] ?? ""
                styles[Self.normalizedID(id)] = KMLStyles.properties(of: style)
            }
        case "StyleMap":
            styleCount += 1
            if let url = element.descendant("styleUrl")?.textContent, !url.isEmpty {
                styleMaps[Self.normalizedID(element.attributes["id"] ?? "")] = Self.normalizedID(url)
            }
        case "Schema":
            for field in element.descendants("SimpleField") + element.descendants("gx:SimpleArrayField") {
                if let name = field.attributes["name"] { fieldTypes[name] = FieldType(field.attributes["type"] ?? "string") }
            }
        default:
            break
        }
    }

    /// Every style this document defines, resolved through its StyleMaps, by id (no `#`).
    var resolvedStyles: [String: JSONObject] {
        var all: [String: JSONObject] = [:]
        for (id, style) in styles { all[String(id.dropFirst())] = style }
        for id in styleMaps.keys { if let style = sharedStyle(id) { all[String(id.dropFirst())] = style } }
        return all
    }

    /// The simplestyle properties a styleUrl points at, through a StyleMap if need be.
    func sharedStyle(_ url: String) -> JSONObject? {
        if let style = styles[url] { return style }
        if url.contains(".kml#"), let style = externalStyles[String(url.drop { $0 == "#" })] { return style }
        if let target = styleMaps[url] { return styles[target] ?? styleMaps[target].flatMap { styles[$0] } }
        return nil
    }

    /// A SimpleData value typed by its SimpleField: integers and reals as numbers, bool as
    /// true/false, empty as null, anything else (or a value that does not parse) as the string.
    func typedValue(_ text: String, field: String) -> JSONValue {
        // An empty value of a typed field is no value (togeojson's Number("") makes it 0, and
        // gives a string field ""): a field is declared so that each value has its type, and
        // text has no other way to say null. (Blanks are text in a string field.)
        guard let type = fieldTypes[field] else { return .string(text) }
        if type == .string { return text.isEmpty ? .null : .string(text) }
        let trimmed = text.trimmingWhitespace()
        if trimmed.isEmpty { return .null }
        switch type {
        case .integer:
            if let integer = Int64(trimmed) { return .integer(integer) }
            return JSNumber.parseFloat(trimmed).map(JSNumber.value) ?? .string(text)
        case .real:
            // The text's form keeps the type, as JSON's does: `38002.0` is a double, `38002` an
            // integer (Meridian's writer gives integers beyond `int` a double field, as digits).
            if let number = Array(trimmed.utf8).withUnsafeBufferPointer({ NumberText.parse($0) }) {
                return number.integer.map(JSONValue.integer) ?? .double(number.value)
            }
            return JSNumber.parseFloat(trimmed).map(JSNumber.value) ?? .string(text)
        case .bool:
            switch trimmed.lowercased() {
            case "1", "true": return .bool(true)
            case "0", "false": return .bool(false)
            default: return .string(text)
            }
        case .string:
            return .string(text)
        }
    }
}

/// The reading side's state: the definitions so far, and where the document's own warnings go
/// (in order with the features, through the reader's pipeline).
final class KMLContext {
    let file: String
    var definitions = KMLDefinitions()
    /// Receives each warning; set by the reader.
    var report: (Diagnostic) -> Void = { _ in }

    init(file: String) {
        self.file = file
    }

    func warn(_ message: String, line: Int) {
        report(Diagnostic(.warning, message, at: SourceLocation(file: file, line: line)))
    }
}

/// Turns one feature element (a Placemark, GroundOverlay or NetworkLink tree) into a `Feature`,
/// with the document's definitions as they stood when it ended. Each instance is used by one
/// thread; the reader's caller and its reading thread each have one (see `PendingFeature`), so a
/// conversion depends on nothing but its own feature.
final class KMLFeatureConverter {
    /// What a conversion gives: the feature (nil for elements without a place on the map) and,
    /// for a GroundOverlay with an image and a place, the overlay; and its warnings.
    struct Conversion {
        var converted: (feature: Feature, overlay: KMLGroundOverlay?)?
        var warnings: [Warning] = []
        /// The feature element's line, where the reader's checks point.
        var line: Int?
    }

    /// A feature's element tree, with what its conversion needs from the reading side.
    struct FeatureTree {
        let element: XMLElement
        /// The Folders it sits in, outermost first.
        let folders: [String]
        /// The document's definitions when the feature ended.
        let definitions: KMLDefinitions
    }

    /// A warning of a conversion. One with a `kind` would repeat for every ring of a big file:
    /// the reader gives it once, at the first feature in document order that has it.
    struct Warning {
        let diagnostic: Diagnostic
        let kind: String?
    }

    let file: String
    /// The definitions the feature being converted sees.
    var definitions = KMLDefinitions()
    /// Warnings about the feature being converted, handed out with it.
    private var warnings: [Warning] = []
    /// The kinds of warning the feature being converted has had.
    private var warnedKinds: Set<String> = []
    /// Where each `<coordinates>` is read before it becomes an array.
    let coordinateScratch = PositionScratch()

    init(file: String) {
        self.file = file
    }

    func warn(_ message: String, line: Int) { record(message, line: line, kind: nil) }

    func warn(_ diagnostic: Diagnostic) { warnings.append(Warning(diagnostic: diagnostic, kind: nil)) }

    func warnOnce(_ kind: String, _ message: String, line: Int) {
        if warnedKinds.insert(kind).inserted { record(message, line: line, kind: kind) }
    }

    private func record(_ message: String, line: Int, kind: String?) {
        warnings.append(Warning(diagnostic: Diagnostic(.warning, message, at: SourceLocation(file: file, line: line)), kind: kind))
    }

    func noteUnclosedRing(line: Int) {
        warnOnce("unclosed", "a LinearRing is not closed; closing it (and any others like it)", line: line)
    }

    func noteDroppedRing(line: Int) {
        warnOnce("short", "a LinearRing has fewer than 4 positions; dropping it (and any others like it)", line: line)
    }

    // MARK: - Features

    /// The feature a tree becomes, and for a GroundOverlay with an image and a place, the overlay
    /// itself, with the warnings the conversion gave. `options` says whether the folders become a
    /// `folder` property.
    func convert(_ tree: FeatureTree, options: KMLReadOptions) -> Conversion {
        definitions = tree.definitions
        warnings = []
        warnedKinds = []
        let converted = feature(from: tree.element, folders: tree.folders, options: options)
        return Conversion(converted: converted, warnings: warnings, line: tree.element.line)
    }

    private func feature(from element: XMLElement, folders: [String], options: KMLReadOptions) -> (feature: Feature, overlay: KMLGroundOverlay?)? {
        var feature: Feature
        var overlay: KMLGroundOverlay?
        switch element.name {
        case "Placemark": feature = placemark(element)
        case "GroundOverlay": (feature, overlay) = groundOverlay(element)
        case "NetworkLink": feature = networkLink(element)
        default: return nil  // PhotoOverlay, ScreenOverlay: no place on the map
        }
        if let id = element.attributes["id"], !id.isEmpty { feature.id = .string(id) }
        if !folders.isEmpty, options.folders == .flat {
            feature.properties?["folder"] = .string(folders.joined(separator: "/"))
        }
        return (feature, overlay)
    }

    /// name, address, visibility, open, phoneNumber, description, styles, ExtendedData and times:
    /// togeojson's property set and order.
    private func commonProperties(_ element: XMLElement, into properties: inout JSONObject) {
        for key in ["name", "address", "visibility", "open", "phoneNumber", "description"] {
            if let value = element.descendant(key)?.textContent, !value.isEmpty { properties[key] = .string(value) }
        }
        if let description = element.descendant("description"), let html = description.cdataSections.first {
            properties["description"] = ["@type": "html", "value": .string(String(decoding: html, as: UTF8.self))]
        }
        if let url = element.descendant("styleUrl")?.textContent, !url.isEmpty {
            let normalized = KMLDefinitions.normalizedID(url)
            properties["styleUrl"] = .string(normalized)
            if let shared = definitions.sharedStyle(normalized) { properties.merge(shared) { _, new in new } }
        }
        properties.merge(KMLStyles.properties(of: element)) { _, new in new }
    }

    private func extendedDataAndTimes(_ element: XMLElement, into properties: inout JSONObject) {
        if let extended = element.descendant("ExtendedData") {
            let data = extended.descendants("Data"), simpleData = extended.descendants("SimpleData")
            // Room for them all at once: grown one by one, the table was rebuilt again and again.
            properties.reserveCapacity(properties.count + data.count + simpleData.count)
            for data in data {
                properties[data.attributes["name"] ?? ""] = .string(data.descendant("value")?.textContent ?? "")
            }
            for data in simpleData {
                let name = data.attributes["name"] ?? ""
                properties[name] = definitions.typedValue(data.textContent, field: name)
            }
        }
        if let span = element.descendant("TimeSpan") {
            properties["timespan"] = ["begin": .string(span.descendant("begin")?.textContent ?? ""),
                                      "end": .string(span.descendant("end")?.textContent ?? "")]
        }
        if let stamp = element.descendant("TimeStamp") {
            properties["timestamp"] = .string(stamp.descendant("when")?.textContent ?? "")
        }
    }

    private func finishVisibility(_ properties: inout JSONObject) {
        if let visibility = properties["visibility"]?.stringValue {
            properties["visibility"] = .bool(visibility != "0")
        }
    }

    private func placemark(_ element: XMLElement) -> Feature {
        var properties = JSONObject()
        commonProperties(element, into: &properties)
        extendedDataAndTimes(element, into: &properties)
        let geometry = KMLGeometryReader(converter: self).read(element)
        let positionData = geometry.positionData
        if !positionData.isEmpty { properties[PositionData.member] = .object(positionData) }
        if let mode = geometry.altitudeMode, !mode.isEmpty { properties["altitudeMode"] = .string(mode) }
        finishVisibility(&properties)
        return Feature(geometry: geometry.geometry, properties: properties)
    }

    /// A GroundOverlay as the polygon its image covers: a LatLonBox (turned by its rotation,
    /// counter-clockwise degrees about the centre) or a gx:LatLonQuad. The image is in `icon`;
    /// `@geometry-type` is togeojson's mark. With an image and a place, also the overlay itself.
    private func groundOverlay(_ element: XMLElement) -> (Feature, KMLGroundOverlay?) {
        var properties: JSONObject = ["@geometry-type": "groundoverlay"]
        commonProperties(element, into: &properties)
        let href = element.descendant("Icon")?.descendant("href")?.textContent ?? ""
        if !href.isEmpty { properties["icon"] = .string(href) }
        extendedDataAndTimes(element, into: &properties)
        finishVisibility(&properties)
        // The image's corners from its upper-left, clockwise.
        var corners: [Position]?
        var bbox: BoundingBox?
        if let quad = element.descendant("gx:LatLonQuad") {
            // KML lists a quad's corners from the image's lower-left, counter-clockwise.
            let quadCorners = KMLGeometryReader(converter: self).positions(quad.child("coordinates"), in: quad)
            if quadCorners.count >= 4 { corners = [quadCorners[3], quadCorners[2], quadCorners[1], quadCorners[0]] }
        } else if let box = element.descendant("LatLonBox"), let bounds = Self.bounds(of: box) {
            bbox = bounds
            let rotation = box.childText("rotation").flatMap(JSNumber.parseFloat) ?? 0
            corners = Self.corners(of: bounds, turnedBy: rotation)
        }
        // The polygon: a LatLonBox's from its north-west corner clockwise, as togeojson draws it;
        // a quad's as written.
        let ring = corners.map { bbox != nil ? $0 + [$0[0]] : [$0[3], $0[2], $0[1], $0[0], $0[3]] }
        let feature = Feature(geometry: ring.map { .polygon(Polygon([$0])) }, properties: properties, bbox: bbox)
        let overlay = corners.flatMap { href.isEmpty ? nil : KMLGroundOverlay(name: properties["name"]?.stringValue, imageHref: href, corners: $0) }
        return (feature, overlay)
    }

    /// A LatLonBox's or LatLonAltBox's north, south, east and west, when all four are numbers.
    private static func bounds(of box: XMLElement) -> BoundingBox? {
        guard let north = box.childText("north").flatMap(JSNumber.parseFloat),
              let south = box.childText("south").flatMap(JSNumber.parseFloat),
              let east = box.childText("east").flatMap(JSNumber.parseFloat),
              let west = box.childText("west").flatMap(JSNumber.parseFloat) else { return nil }
        return BoundingBox(west: west, south: south, east: east, north: north)
    }

    /// A box's corners from its north-west one, clockwise, turned by `rotation` degrees
    /// counter-clockwise about its centre (KML's LatLonBox rotation).
    private static func corners(of b: BoundingBox, turnedBy rotation: Double) -> [Position] {
        let corners = [(b.west, b.north), (b.east, b.north), (b.east, b.south), (b.west, b.south)]
        let center = ((b.west + b.east) / 2, (b.south + b.north) / 2)
        return corners.map { x, y in
            guard rotation != 0 else { return Position(longitude: x, latitude: y) }
            let dx = x - center.0, dy = y - center.1
            let distance = (dy * dy + dx * dx).squareRoot()
            let angle = atan2(dy, dx) + rotation * .pi / 180
            return Position(longitude: center.0 + cos(angle) * distance, latitude: center.1 + sin(angle) * distance)
        }
    }

    /// A NetworkLink as a feature carrying its link (never fetched), and its Region's box if any.
    private func networkLink(_ element: XMLElement) -> Feature {
        var properties: JSONObject = ["@geometry-type": "networklink"]
        for key in ["name", "address", "visibility", "open", "phoneNumber", "styleUrl", "refreshVisibility", "flyToView", "description"] {
            if let value = element.descendant(key)?.textContent, !value.isEmpty { properties[key] = .string(value) }
        }
        commonProperties(element, into: &properties)
        if let href = element.descendant("Icon")?.descendant("href")?.textContent, !href.isEmpty {
            properties["icon"] = .string(href)
        }
        extendedDataAndTimes(element, into: &properties)
        if let link = element.descendant("Link") ?? element.descendant("Url") {
            for key in ["href", "refreshMode", "refreshInterval", "viewRefreshMode", "viewRefreshTime", "viewBoundScale", "viewFormat", "httpQuery"] {
                if let value = link.descendant(key)?.textContent, !value.isEmpty { properties[key] = .string(value) }
            }
        }
        var geometry: Geometry?
        var bbox: BoundingBox?
        if let region = element.descendant("Region") {
            if let box = region.descendant("LatLonAltBox"), let bounds = Self.bounds(of: box) {
                bbox = bounds
                let corners = Self.corners(of: bounds, turnedBy: 0)
                geometry = .polygon(Polygon([corners + [corners[0]]]))
            }
            if let lod = region.descendant("Lod") {
                func number(_ key: String) -> JSONValue? { lod.childText(key).flatMap(JSNumber.parseFloat).map(JSNumber.value) }
                properties["lod"] = .array([number("minLodPixels") ?? .integer(-1), number("maxLodPixels") ?? .integer(-1),
                                            number("minFadeExtent") ?? .null, number("maxFadeExtent") ?? .null])
            }
        }
        finishVisibility(&properties)
        return Feature(geometry: geometry, properties: properties, bbox: bbox)
    }
}
