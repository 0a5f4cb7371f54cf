import MeridianCore
import MeridianGeometry
import OrderedCollections

/// Writes features as KML 2.2: the inverse of `KMLReader`.
///
/// - simplestyle properties become shared `<Style>` elements (one per distinct style)
///   referenced by `styleUrl`;
/// - the `folder` property becomes nested `<Folder>`s (features of one folder in a row share it);
/// - other properties become ExtendedData: `<SimpleData>` of one `<Schema>` that types every
///   field over all features (integers `int`, numbers `double`, booleans `bool`, anything else
///   `string`; arrays and objects as JSON text), so that GDAL and Google Earth read each field
///   with its type, and Meridian reads back numbers, booleans and nulls (an empty value);
/// - a line with `coordinateProperties.times` becomes a `gx:Track` (a MultiLineString a
///   `gx:MultiTrack`); Multi* geometries and collections become `<MultiGeometry>`.
/// Coordinates are written in their shortest round-trip form, so geometry comes back exactly.
///
/// Shared styles and the Schema belong in the Document, before any Folder or Placemark (KML
/// 2.2's order; GDAL reads no Schema from inside a Folder), but are only known once every
/// feature has been seen: styles go to one scratch file, Folders and Placemarks to another, as
/// they stream by, and `finish` writes the Document in order (styles, the Schema, then the
/// rest). Memory holds the field types and the styles' ids.
public final class KMLWriter: FeatureWriter {
    private let sink: OutputSink
    /// The Document's start and end, into the output.
    private let documentXML: XMLTextWriter
    /// Shared Styles, as they are first needed.
    private let styles: ScratchFile
    private let styleXML: XMLTextWriter
    /// Folders and Placemarks.
    private let body: ScratchFile
    private let bodyXML: XMLTextWriter
    private var folders: [String] = []
    private var styleIDs: [JSONObject: String] = [:]
    /// Every ExtendedData field, in order of first appearance, with the kinds of value it took.
    private var fields: OrderedDictionary<String, FieldKinds> = [:]
    /// Every per-position array of a track (gx:SimpleArrayData) but `times`, in order of first
    /// appearance, with the kinds of value it held: typed in the Schema as gx:SimpleArrayField,
    /// so its numbers read back as numbers.
    private var arrayFields: OrderedDictionary<String, FieldKinds> = [:]
    /// Where warnings about what KML cannot hold go.
    private let diagnostics: DiagnosticHandler?

    /// The Schema every SchemaData refers to.
    static let schemaID = "meridian"

    /// Properties the writer turns into KML elements rather than ExtendedData.
    static let elementProperties: Set<String> = [
        "name", "description", "visibility", "timestamp", "timespan", "styleUrl", "folder", "altitudeMode",
        "coordinateProperties", "address", "phoneNumber",
    ]
    static let styleProperties: Set<String> = [
        "stroke", "stroke-opacity", "stroke-width", "fill", "fill-opacity", "marker-color", "icon", "icon-color",
        "icon-opacity", "icon-scale", "icon-heading", "icon-offset", "icon-offset-units", "label-color", "label-opacity", "label-scale",
    ]

    /// A KML writer into `sink`; shared styles and placemarks wait in two scratch files until
    /// ``finish(_:)``.
    /// - Parameters:
    ///   - sink: Where the KML goes.
    ///   - options: Only its `diagnostics` are used: KML coordinates are always written exactly, and KML has one layout.
    /// - Throws: `MeridianError` (`io`) when the scratch files cannot be created.
    public init(sink: OutputSink, options: WriteOptions = .init()) throws {
        self.sink = sink
        diagnostics = options.diagnostics
        documentXML = XMLTextWriter(sink: sink)
        styles = try ScratchFile(unlinked: "kml-styles")
        styleXML = XMLTextWriter(sink: styles.sink)
        body = try ScratchFile(unlinked: "kml-body")
        bodyXML = XMLTextWriter(sink: body.sink)
        for part in [styleXML, bodyXML] {
            part.opened("kml")
            part.opened("Document")
        }
    }

    /// Writes the XML declaration and opens the `kml` and `Document` elements, with the
    /// collection's `name` as the Document's.
    public func begin(_ metadata: CollectionMetadata) throws {
        let xml = documentXML
        sink.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" as StaticString)
        xml.start("kml", [("xmlns", "http://www.opengis.net/kml/2.2"), ("xmlns:gx", "http://www.google.com/kml/ext/2.2")])
        xml.start("Document")
        if let name = metadata.name { xml.element("name", name) }
    }

    /// Writes the feature as a Placemark (into its `folder` property's Folders), its simplestyle
    /// properties as a shared Style and its other properties as ExtendedData.
    /// - Throws: `MeridianError` (`io`) when a scratch file cannot be written.
    public func write(_ feature: Feature) throws {
        let properties = feature.properties ?? [:]
        // ExtendedData: what no KML element carries (and the altitudeMode, when no geometry does).
        let data = properties.filter { key, _ in
            !Self.styleProperties.contains(key)
                && (!Self.elementProperties.contains(key) || (key == "altitudeMode" && feature.geometry == nil))
        }
        enterFolders(properties["folder"]?.stringValue.map { $0.split(separator: "/", omittingEmptySubsequences: false).map(String.init) } ?? [])
        let styleURL = sharedStyle(for: properties)
        for (key, value) in data { fields[key, default: FieldKinds()].add(value) }

        let xml = bodyXML
        xml.start("Placemark", feature.id.map { [("id", Self.text($0))] } ?? [])
        if let name = properties["name"] { xml.element("name", Self.text(name)) }
        for key in ["address", "phoneNumber"] { if let value = properties[key] { xml.element(key, Self.text(value)) } }
        if case .bool(let visible)? = properties["visibility"] { xml.element("visibility", visible ? "1" : "0") }
        switch properties["description"] {
        case .object(let html)?: xml.cdataElement("description", html["value"]?.stringValue ?? "")
        case let value?: xml.element("description", Self.text(value))
        case nil: break
        }
        if let stamp = properties["timestamp"]?.stringValue {
            xml.start("TimeStamp")
            xml.element("when", stamp)
            xml.close()
        }
        if let span = properties["timespan"]?.objectValue {
            xml.start("TimeSpan")
            if let begin = span["begin"]?.stringValue, !begin.isEmpty { xml.element("begin", begin) }
            if let end = span["end"]?.stringValue, !end.isEmpty { xml.element("end", end) }
            xml.close()
        }
        if let styleURL { xml.element("styleUrl", styleURL) }
        writeExtendedData(data)
        if let geometry = feature.geometry {
            var checked = feature
            checked.dropMisalignedPositionData(at: nil, diagnostics: diagnostics)
            writeGeometry(geometry, altitudeMode: properties["altitudeMode"]?.stringValue,
                          positionData: checked.properties?[PositionData.member]?.objectValue ?? [:])
        }
        xml.close()
        try body.sink.checkForErrors()
    }

    /// Writes the shared styles, the Schema that types every ExtendedData field, then the Folders and
    /// Placemarks, and closes the Document.
    /// - Throws: `MeridianError` (`io`) when the output or a scratch file fails.
    public func finish(_ trailingMetadata: CollectionMetadata) throws {
        enterFolders([])
        let xml = documentXML
        try styles.copy(to: sink)
        if !fields.isEmpty || !arrayFields.isEmpty {
            // A reader types a field by its name, whichever element declares it: a name that is
            // both a property and a track's array gets one type for both.
            func kinds(_ name: String) -> FieldKinds { (fields[name] ?? FieldKinds()).union(arrayFields[name] ?? FieldKinds()) }
            xml.start("Schema", [("name", Self.schemaID), ("id", Self.schemaID)])
            for name in fields.keys { xml.empty("SimpleField", [("name", name), ("type", kinds(name).schemaType)]) }
            for name in arrayFields.keys { xml.empty("gx:SimpleArrayField", [("name", name), ("type", kinds(name).schemaType)]) }
            xml.close()
        }
        try body.copy(to: sink)
        xml.close()  // Document
        xml.close()  // kml
        try sink.checkForErrors()
    }

    // MARK: - Folders, styles, schemas

    private func enterFolders(_ path: [String]) {
        var common = 0
        while common < min(path.count, folders.count) && path[common] == folders[common] { common += 1 }
        while folders.count > common {
            bodyXML.close()
            folders.removeLast()
        }
        for name in path.dropFirst(common) {
            bodyXML.start("Folder")
            bodyXML.element("name", name)
            folders.append(name)
        }
    }

    /// The `#id` of the shared Style for the feature's simplestyle properties (writing the Style
    /// the first time it is needed), else the feature's own styleUrl.
    private func sharedStyle(for properties: JSONObject) -> String? {
        let style = properties.filter { Self.styleProperties.contains($0.key) }
        guard !style.isEmpty else { return properties["styleUrl"]?.stringValue }
        if let id = styleIDs[style] { return "#" + id }
        let id = "style-\(styleIDs.count + 1)"
        styleIDs[style] = id
        writeStyle(style, id: id)
        return "#" + id
    }

    private func writeStyle(_ style: JSONObject, id: String) {
        let xml = styleXML
        func number(_ key: String) -> Double? { style[key]?.doubleValue }
        func color(_ key: String, _ opacity: String) -> String? {
            style[key]?.stringValue.flatMap { KMLStyles.kmlColor($0, opacity: number(opacity)) }
        }
        xml.start("Style", [("id", id)])
        let iconColor = color("icon-color", "icon-opacity") ?? color("marker-color", "icon-opacity")
        if iconColor != nil || style["icon"] != nil || number("icon-scale") != nil || number("icon-heading") != nil {
            xml.start("IconStyle")
            if let iconColor { xml.element("color", iconColor) }
            if let scale = number("icon-scale") { xml.inline("scale") { xml.number(scale) } }
            if let heading = number("icon-heading") { xml.inline("heading") { xml.number(heading) } }
            if let href = style["icon"]?.stringValue {
                xml.start("Icon")
                xml.element("href", href)
                xml.close()
            }
            if let offset = style["icon-offset"]?.arrayValue?.compactMap(\.doubleValue), offset.count == 2 {
                let units = style["icon-offset-units"]?.arrayValue?.compactMap(\.stringValue) ?? []
                xml.empty("hotSpot", [("x", "\(offset[0])"), ("y", "\(offset[1])"),
                                      ("xunits", units.first ?? "pixels"), ("yunits", units.dropFirst().first ?? "pixels")])
            }
            xml.close()
        }
        let labelColor = color("label-color", "label-opacity"), labelScale = number("label-scale")
        if labelColor != nil || labelScale != nil {
            xml.start("LabelStyle")
            if let labelColor { xml.element("color", labelColor) }
            if let labelScale { xml.inline("scale") { xml.number(labelScale) } }
            xml.close()
        }
        let lineColor = color("stroke", "stroke-opacity")
        if lineColor != nil || number("stroke-width") != nil {
            xml.start("LineStyle")
            if let lineColor { xml.element("color", lineColor) }
            if let width = number("stroke-width") { xml.inline("width") { xml.number(width) } }
            xml.close()
        }
        let fillColor = color("fill", "fill-opacity")
        let noFill = style["fill"] == nil && number("fill-opacity") == 0
        let noOutline = style["stroke"] == nil && number("stroke-opacity") == 0
        if fillColor != nil || noFill || noOutline {
            xml.start("PolyStyle")
            if let fillColor { xml.element("color", fillColor) }
            if noFill { xml.element("fill", "0") }
            if noOutline { xml.element("outline", "0") }
            xml.close()
        }
        xml.close()
    }

    /// The kinds of value one ExtendedData field takes, which decide its Schema type.
    struct FieldKinds {
        var integer = false
        /// Integers beyond KML's 32-bit `int`: a `double` holds them exactly up to 2^53.
        var wideInteger = false
        var hugeInteger = false
        var double = false
        var bool = false
        var text = false

        /// The kinds either took.
        func union(_ other: FieldKinds) -> FieldKinds {
            FieldKinds(integer: integer || other.integer, wideInteger: wideInteger || other.wideInteger, hugeInteger: hugeInteger || other.hugeInteger,
                       double: double || other.double, bool: bool || other.bool, text: text || other.text)
        }

        mutating func add(_ value: JSONValue) {
            switch value {
            case .integer(let i):
                if Int64(Int32.min)...Int64(Int32.max) ~= i { integer = true } else if abs(i) <= 1 << 53 { wideInteger = true } else { hugeInteger = true }
            case .double: double = true
            case .bool: bool = true
            case .null: break
            case .string, .array, .object: text = true
            }
        }

        /// KML's type for the field: one type for every value it took, else `string`. A field
        /// that only ever held null is a `double`, whose empty values read back as null.
        var schemaType: String {
            let numbers = integer || wideInteger || double
            if text || hugeInteger || (bool && numbers) { return "string" }
            if bool { return "bool" }
            if double || wideInteger { return "double" }
            return integer ? "int" : "double"
        }
    }

    private func writeExtendedData(_ data: JSONObject) {
        guard !data.isEmpty else { return }
        let xml = bodyXML
        xml.start("ExtendedData")
        // An empty string is a Data element: an empty SimpleData is null.
        let empty = data.filter { $0.value == .string("") }
        for (key, _) in empty {
            xml.start("Data", [("name", key)])
            xml.element("value", "")
            xml.close()
        }
        if empty.count < data.count {
            xml.start("SchemaData", [("schemaUrl", "#" + Self.schemaID)])
            for (key, value) in data where empty[key] == nil {
                if value == .null {
                    xml.empty("SimpleData", [("name", key)])
                } else {
                    xml.element("SimpleData", Self.text(value), [("name", key)])
                }
            }
            xml.close()
        }
        xml.close()
    }

    /// A value as KML text: strings as they are, numbers in shortest form, booleans as 1 or 0,
    /// the rest as JSON.
    static func text(_ value: JSONValue) -> String { value.plainText(true: "1", false: "0") }

    static func text(_ id: FeatureID) -> String { id.plainText }

    // MARK: - Geometry

    /// The geometry; a Point or line with per-position arrays (fitting it: the caller checked)
    /// as a gx:Track, a MultiLineString with them as a gx:MultiTrack. Other geometries have no
    /// KML form for them: they are dropped with a warning.
    private func writeGeometry(_ geometry: Geometry, altitudeMode: String?, positionData: JSONObject) {
        switch geometry {
        case .point(let p):
            if !positionData.isEmpty { return writeTrack([p.coordinates], altitudeMode: altitudeMode, positionData: positionData) }
            bodyXML.start("Point")
            writeAltitudeMode(altitudeMode)
            writeCoordinates([p.coordinates])
            bodyXML.close()
        case .lineString(let l):
            if positionData.isEmpty {
                writeLine(l.coordinates, altitudeMode: altitudeMode)
            } else {
                writeTrack(l.coordinates, altitudeMode: altitudeMode, positionData: positionData)
            }
        case .multiLineString(let m) where !positionData.isEmpty:
            bodyXML.start("gx:MultiTrack")
            for (index, line) in m.lines.enumerated() {
                writeTrack(line, altitudeMode: altitudeMode, positionData: positionData.compactMapValues { $0.arrayValue?[index] })
            }
            bodyXML.close()
        case .polygon, .multiPoint, .multiPolygon, .geometryCollection, .multiLineString:
            if !positionData.isEmpty {
                diagnostics?(.positionDataDropped(Array(positionData.keys), "\(positionData.count == 1 ? "has" : "have") no KML form on a \(geometry.type.rawValue)", at: nil))
            }
            writeGeometry(withoutPositionData: geometry, altitudeMode: altitudeMode)
        }
    }

    private func writeGeometry(withoutPositionData geometry: Geometry, altitudeMode: String?) {
        switch geometry {
        case .point, .lineString:
            writeGeometry(geometry, altitudeMode: altitudeMode, positionData: [:])
        case .polygon(let p):
            writePolygon(p, altitudeMode: altitudeMode)
        case .multiPoint(let m):
            bodyXML.start("MultiGeometry")
            for p in m.coordinates { writeGeometry(.point(Point(p)), altitudeMode: altitudeMode, positionData: [:]) }
            bodyXML.close()
        case .multiLineString(let m):
            bodyXML.start("MultiGeometry")
            for line in m.lines { writeLine(line, altitudeMode: altitudeMode) }
            bodyXML.close()
        case .multiPolygon(let m):
            bodyXML.start("MultiGeometry")
            for polygon in m.polygons { writePolygon(polygon, altitudeMode: altitudeMode) }
            bodyXML.close()
        case .geometryCollection(let c):
            bodyXML.start("MultiGeometry")
            for member in c.geometries { writeGeometry(member, altitudeMode: altitudeMode, positionData: [:]) }
            bodyXML.close()
        }
    }

    private func writeAltitudeMode(_ mode: String?) {
        guard let mode else { return }
        bodyXML.element(mode == "clampToSeaFloor" || mode == "relativeToSeaFloor" ? "gx:altitudeMode" : "altitudeMode", mode)
    }

    private func writeLine(_ positions: [Position], altitudeMode: String?) {
        bodyXML.start("LineString")
        writeAltitudeMode(altitudeMode)
        writeCoordinates(positions)
        bodyXML.close()
    }

    private func writePolygon(_ polygon: Polygon, altitudeMode: String?) {
        bodyXML.start("Polygon")
        writeAltitudeMode(altitudeMode)
        for (index, ring) in polygon.rings.enumerated() {
            bodyXML.start(index == 0 ? "outerBoundaryIs" : "innerBoundaryIs")
            bodyXML.start("LinearRing")
            writeCoordinates(ring)
            bodyXML.close()
            bodyXML.close()
        }
        bodyXML.close()
    }

    private func writeCoordinates(_ positions: [Position]) {
        bodyXML.inline("coordinates") {
            for (i, p) in positions.enumerated() {
                if i > 0 { body.sink.write(byte: UInt8(ascii: " ")) }
                writePosition(p, separator: UInt8(ascii: ","))
            }
        }
    }

    /// `lon,lat[,alt]` for `<coordinates>`, `lon lat [alt]` for `<gx:coord>`.
    private func writePosition(_ p: Position, separator: UInt8) {
        bodyXML.number(p.longitude)
        body.sink.write(byte: separator)
        bodyXML.number(p.latitude)
        if let altitude = p.altitude {
            body.sink.write(byte: separator)
            bodyXML.number(altitude)
        }
    }

    /// A gx:Track: a `<when>` per position from `times` (empty where the time is unknown), and
    /// the other per-position arrays as gx:SimpleArrayData.
    private func writeTrack(_ positions: [Position], altitudeMode: String?, positionData: JSONObject) {
        bodyXML.start("gx:Track")
        writeAltitudeMode(altitudeMode)
        for time in positionData["times"]?.arrayValue ?? [] {
            if case .string(let text) = time, !text.isEmpty { bodyXML.element("when", text) } else { bodyXML.empty("when") }
        }
        for p in positions {
            bodyXML.inline("gx:coord") { writePosition(p, separator: UInt8(ascii: " ")) }
        }
        let arrays = positionData.filter { $0.key != "times" }
        if !arrays.isEmpty {
            bodyXML.start("ExtendedData")
            bodyXML.start("SchemaData", [("schemaUrl", "#" + Self.schemaID)])
            for (name, values) in arrays {
                bodyXML.start("gx:SimpleArrayData", [("name", name)])
                for value in values.arrayValue ?? [] {
                    arrayFields[name, default: FieldKinds()].add(value)
                    bodyXML.element("gx:value", Self.text(value))
                }
                bodyXML.close()
            }
            bodyXML.close()
            bodyXML.close()
        }
        bodyXML.close()
    }
}
