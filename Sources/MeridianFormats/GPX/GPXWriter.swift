import MeridianCore
import MeridianGeometry

/// Writes GPX 1.1, valid against its schema: points become waypoints (`wpt`), lines tracks
/// (`trk`, one `trkseg` per part, times from `coordinateProperties.times`) or routes (`rte`)
/// when ``GPXWriteOptions/routes`` is set or the feature says `_gpxType: "rte"`. GPX has no
/// polygons: their rings become the segments of a track.
///
/// The schema orders every `wpt` before every `rte` before every `trk`, and features arrive in
/// any order: waypoints are written at once, routes and tracks spilled to scratch files (as
/// GeoJSON text sequences) and written at `finish`.
/// Coordinates are xsd:decimal (never exponents); longitude 180 is written -180, the schema's
/// range being [-180, 180).
///
/// A track's per-position arrays that Garmin's TrackPointExtension holds (`hr`, `cad`, `atemp`,
/// … as ``GPXReader`` reads them; Google Earth's `heartrate` and `cadence` as `hr` and `cad`)
/// go back into each `trkpt`'s `<extensions>`, so heart rates survive GPX → GPX and KML → GPX;
/// other arrays have no place in GPX and are left out with a warning.
public final class GPXWriter: FeatureWriter {
    private let sink: OutputSink
    private let xml: XMLTextWriter
    private let options: WriteOptions
    private let linesAsRoutes: Bool
    private let routes: FeatureSpill
    private let tracks: FeatureSpill
    /// Times that were not xsd:dateTime and were left out, and the first of them, for a warning.
    private var timesLeftOut = 0
    private var firstTimeLeftOut = ""
    /// Elevations too large for GPX's decimal (1e300 metres), left out, for a warning.
    private var elevationsLeftOut = 0
    /// Per-position arrays other than `times` (a track's heart rates, say), which GPX has no
    /// place for, by name, for a warning: left out, never silently.
    private var arraysLeftOut: Set<String> = []
    /// Values of TrackPointExtension arrays that its schema does not take (a heart rate of 300,
    /// text), left out, and the first of them, for a warning.
    private var extensionValuesLeftOut = 0
    private var firstExtensionValueLeftOut = ""

    /// A GPX writer into `sink`; routes and tracks wait in scratch files until ``finish(_:)``.
    /// - Parameters:
    ///   - sink: Where the GPX goes.
    ///   - options: `precision` rounds coordinates; ``GPXWriteOptions`` may write lines as routes.
    /// - Throws: `MeridianError` (`io`) when the scratch files cannot be created.
    public init(sink: OutputSink, options: WriteOptions = .init()) throws {
        self.sink = sink
        self.options = options
        linesAsRoutes = options.settings(GPXWriteOptions.self).routes
        xml = XMLTextWriter(sink: sink)
        routes = try FeatureSpill("gpx-routes")
        tracks = try FeatureSpill("gpx-tracks")
    }

    /// Writes the XML declaration, the `gpx` element and, when the collection has a `name`, its
    /// `metadata`.
    public func begin(_ metadata: CollectionMetadata) throws {
        sink.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" as StaticString)
        xml.start("gpx", [("version", "1.1"), ("creator", "Meridian"), ("xmlns", "http://www.topografix.com/GPX/1/1"),
                          ("xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance"),
                          ("xsi:schemaLocation", "http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd")])
        if let name = metadata.name {
            xml.start("metadata")
            xml.element("name", name)
            xml.close()
        }
    }

    /// Writes a point (or each point of a multipoint) as a waypoint at once and sets lines and polygons
    /// aside for ``finish(_:)``; a feature without geometry is skipped.
    /// - Throws: `MeridianError` (`io`) when the output or a scratch file fails.
    public func write(_ feature: Feature) throws {
        guard let geometry = feature.geometry else { return }
        let asRoute = (linesAsRoutes || feature.properties?["_gpxType"]?.stringValue == "rte")
        let isTrack: Bool
        switch geometry {
        case .lineString: isTrack = !asRoute
        case .multiLineString, .polygon, .multiPolygon: isTrack = true
        default: isTrack = false
        }
        // A collection's members are written (and their arrays accounted for) one by one.
        if case .geometryCollection = geometry {} else if let arrays = feature.properties?[PositionData.member]?.objectValue {
            // A track's TrackPointExtension arrays are written with its points (when they fit them).
            let written = isTrack ? Set(Self.extensionArrays(of: feature).map(\.name)) : []
            arraysLeftOut.formUnion(arrays.keys.filter { $0 != "times" && !written.contains($0) })
        }
        switch geometry {
        case .point(let p):
            waypoint(p.coordinates, feature.properties ?? [:], time: feature.positionValues("times")?.first?.first)
        case .multiPoint(let m):
            let times = feature.positionValues("times")?.first
            for (i, p) in m.coordinates.enumerated() { waypoint(p, feature.properties ?? [:], time: times?[i]) }
        case .geometryCollection(let c):
            for index in c.geometries.indices { try write(feature.collectionMember(index)) }
        case .lineString, .multiLineString, .polygon, .multiPolygon:
            if isTrack { try tracks.append(feature) } else { try routes.append(feature) }
        }
        try sink.checkForErrors()
    }

    /// Writes the routes, then the tracks, and closes the `gpx` element.
    /// - Throws: `MeridianError` (`io`) when the output or a scratch file fails.
    public func finish(_ trailingMetadata: CollectionMetadata) throws {
        try routes.forEach { feature in
            route(feature)
            try sink.checkForErrors()
        }
        try tracks.forEach { feature in
            track(feature)
            try sink.checkForErrors()
        }
        xml.close()
        if elevationsLeftOut > 0 {
            options.diagnostics?(Diagnostic(.warning, "\(elevationsLeftOut) \(elevationsLeftOut == 1 ? "elevation is" : "elevations are") beyond 10^17 metres, past what GPX's decimal holds, and \(elevationsLeftOut == 1 ? "was" : "were") left out"))
        }
        if !arraysLeftOut.isEmpty {
            options.diagnostics?(.positionDataDropped(arraysLeftOut.sorted(), "\(arraysLeftOut.count == 1 ? "has" : "have") no place in GPX, which takes times and, on track points, the values of Garmin's TrackPointExtension (hr, cad, atemp, wtemp, depth, speed, course, bearing),", at: nil))
        }
        if timesLeftOut > 0 {
            options.diagnostics?(Diagnostic(.warning, "\(timesLeftOut) \(timesLeftOut == 1 ? "time is" : "times are") not a date and time as GPX writes them (YYYY-MM-DDThh:mm:ssZ) and \(timesLeftOut == 1 ? "was" : "were") left out, '\(firstTimeLeftOut)' first"))
        }
        if extensionValuesLeftOut > 0 {
            options.diagnostics?(Diagnostic(.warning, "\(extensionValuesLeftOut) track point \(extensionValuesLeftOut == 1 ? "value is" : "values are") not what Garmin's TrackPointExtension takes (hr and cad: numbers from 0 to 255; the others: numbers) and \(extensionValuesLeftOut == 1 ? "was" : "were") left out, '\(firstExtensionValueLeftOut)' first"))
        }
    }

    // MARK: - Elements, in the schema's order

    /// Text fields from properties, in the order GPX 1.1 puts them (after ele and time for a
    /// point, first for a route or track). `desc` is GPX's description: the `desc` property a
    /// GPX file gave, else `description` (KML's and GeoJSON's name for it).
    private func describe(_ properties: JSONObject, number: Bool) {
        for key in ["name", "cmt", "desc", "src"] {
            let value = key == "desc" ? properties["desc"] ?? properties["description"] : properties[key]
            if let text = value?.displayText { xml.element(key, text) }
        }
        if let link = properties["link"]?.stringValue { xml.empty("link", [("href", Self.uriReference(link))]) }
        if !number, let symbol = properties["sym"]?.stringValue { xml.element("sym", symbol) }
        if number, case .integer(let n)? = properties["number"], n >= 0 { xml.element("number", String(n)) }
        if let type = properties["type"]?.stringValue { xml.element("type", type) }
    }

    private func waypoint(_ p: Position, _ properties: JSONObject, time: JSONValue?) {
        point("wpt", p, time: time ?? properties["time"]) {
            describe(properties, number: false)
        }
    }

    private func route(_ feature: Feature) {
        guard case .lineString(let line)? = feature.geometry else { return }
        let properties = feature.properties ?? [:]
        xml.start("rte")
        describe(properties, number: true)
        let times = feature.positionValues("times")?.first
        for (i, p) in line.coordinates.enumerated() { point("rtept", p, time: times?[i]) {} }
        xml.close()
    }

    private func track(_ feature: Feature) {
        let properties = feature.properties ?? [:]
        let parts: [[Position]]
        switch feature.geometry {
        case .lineString(let l)?: parts = [l.coordinates]
        case .multiLineString(let m)?: parts = m.lines
        case .polygon(let p)?: parts = p.rings
        case .multiPolygon(let m)?: parts = m.polygons.flatMap(\.rings)
        default: return
        }
        // One run of times (and of each TrackPointExtension array) per line or ring, in the order of `parts`.
        let times = feature.positionValues("times")
        let extensionArrays = Self.extensionArrays(of: feature).map { ($0.field, $0.runs) }
        xml.start("trk")
        describe(properties, number: true)
        for (s, part) in parts.enumerated() {
            xml.start("trkseg")
            for (i, p) in part.enumerated() {
                let extensionValues = extensionArrays.compactMap { field, runs in extensionNumber(runs[s][i], field).map { (field, $0) } }
                point("trkpt", p, time: times?[s][i], hasBody: !extensionValues.isEmpty) {
                    guard !extensionValues.isEmpty else { return }
                    xml.start("extensions")
                    xml.start("gpxtpx:TrackPointExtension", [("xmlns:gpxtpx", Self.trackPointExtensionNamespace)])
                    for (field, number) in extensionValues {
                        if field.isByte {
                            xml.element("gpxtpx:" + field.name, String(Int(number)))
                        } else {
                            xml.inline("gpxtpx:" + field.name) { sink.writePlainDecimal(number, precision: nil) }
                        }
                    }
                    xml.close()
                    xml.close()
                }
            }
            xml.close()
        }
        xml.close()
    }

    /// Garmin's TrackPointExtension v2, which Garmin devices, Strava and GDAL read: its fields in
    /// the order its schema's sequence gives them, and whether each is an xsd:unsignedByte.
    static let trackPointExtension: [(name: String, isByte: Bool)] = [
        ("atemp", false), ("wtemp", false), ("depth", false), ("hr", true), ("cad", true), ("speed", false), ("course", false), ("bearing", false),
    ]
    static let trackPointExtensionNamespace = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2"
    /// Other names of TrackPointExtension fields: Google Earth's tracks (and KML written from
    /// them) call heart rates and cadences `heartrate` and `cadence`.
    static let extensionAliases = ["hr": "heartrate", "cad": "cadence"]

    /// The feature's arrays that go into TrackPointExtension fields, with the array's name and
    /// its runs (one per line or ring): for each field, its own name's array, else its alias's,
    /// when that fits the positions.
    static func extensionArrays(of feature: Feature) -> [(field: (name: String, isByte: Bool), name: String, runs: [[JSONValue]])] {
        trackPointExtension.compactMap { field in
            for name in [field.name] + [extensionAliases[field.name]].compactMap({ $0 }) {
                if let runs = feature.positionValues(name) { return (field, name, runs) }
            }
            return nil
        }
    }

    /// One TrackPointExtension value (a number, or text that is one): a whole number 0-255 for `hr` and `cad` (rounded: a point
    /// that clipping or a cut put between two others has a rate in proportion), a number (below
    /// 10^17, as xsd:decimal is written) for the others; nil for null, and for anything else
    /// (counted, for a warning).
    private func extensionNumber(_ value: JSONValue, _ field: (name: String, isByte: Bool)) -> Double? {
        let number: Double?
        switch value {
        case .null: return nil
        case .integer(let n): number = Double(exactly: n)
        case .double(let d): number = d
        case .string(let text): number = Double(text)  // KML's untyped gx:SimpleArrayData values
        default: number = nil
        }
        if let number, number.isFinite, abs(number) < 1e17, !field.isByte || (0...255).contains(number.rounded()) {
            return field.isByte ? number.rounded() : number
        }
        if extensionValuesLeftOut == 0 { firstExtensionValueLeftOut = value.plainText() }
        extensionValuesLeftOut += 1
        return nil
    }

    /// The text of a `<time>`: an xsd:dateTime as GPX's schema wants, else nil (and counted,
    /// when there was a value: an empty KML `<when/>` or a date alone has no GPX form).
    private func timeText(_ value: JSONValue?) -> String? {
        guard let value, value != .null else { return nil }
        if case .string(let text) = value, ISOTime(text) != nil { return text }
        if timesLeftOut == 0 { firstTimeLeftOut = value.plainText() }
        timesLeftOut += 1
        return nil
    }

    /// `<name lat lon>` with its elevation and time, then whatever `body` writes (`hasBody`: that
    /// it writes something, for a point without elevation and time).
    private func point(_ name: StaticString, _ p: Position, time value: JSONValue?, hasBody: Bool = false, _ body: () -> Void) {
        let time = timeText(value)
        xml.indent()
        sink.write(byte: UInt8(ascii: "<"))
        sink.write(name)
        sink.write(" lat=\"" as StaticString)
        sink.writePlainDecimal(p.latitude, precision: options.precision)
        sink.write("\" lon=\"" as StaticString)
        sink.writePlainDecimal(p.longitude == 180 ? -180 : p.longitude, precision: options.precision)
        sink.write(byte: UInt8(ascii: "\""))
        guard p.altitude != nil || time != nil || hasBody || name.utf8Start[0] == UInt8(ascii: "w") else {
            sink.write("/>\n" as StaticString)
            return
        }
        sink.write(">\n" as StaticString)
        xml.opened(String(describing: name))
        if let altitude = p.altitude {
            // xsd:decimal need not be read past 18 digits: metres beyond are no elevation.
            if abs(altitude) < 1e17 {
                xml.inline("ele") { sink.writePlainDecimal(altitude, precision: options.precision) }
            } else {
                elevationsLeftOut += 1
            }
        }
        if let time { xml.element("time", time) }
        body()
        xml.close()
    }
}

extension GPXWriter {
    /// `text` as an xsd:anyURI (RFC 3986 URI reference), which a link's href must be: bytes a
    /// URI cannot hold (spaces, other text, a `%` not starting an escape) are percent-escaped,
    /// and so are colons before the first `/`, `?` or `#` when no scheme comes before them
    /// (`::::` would be read as one).
    static func uriReference(_ text: String) -> String {
        let bytes = Array(text.utf8)
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=".utf8)
        let hex = Set("0123456789ABCDEFabcdef".utf8)
        let schemeEnd = bytes.firstIndex(of: UInt8(ascii: ":"))
        let pathStart = bytes.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        func isLetter(_ b: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b | 0x20) }
        func isSchemeByte(_ b: UInt8) -> Bool {
            isLetter(b) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
        }
        // A scheme is a letter, then letters, digits, +, - or ., then the first colon.
        let hasScheme = schemeEnd.map { end in end > 0 && end < pathStart && isLetter(bytes[0]) && bytes[..<end].allSatisfy(isSchemeByte) } ?? false
        var out: [UInt8] = []
        for (i, byte) in bytes.enumerated() {
            let escapeStarts = byte == UInt8(ascii: "%") && i + 2 < bytes.count && hex.contains(bytes[i + 1]) && hex.contains(bytes[i + 2])
            let loneColon = byte == UInt8(ascii: ":") && i < pathStart && !(hasScheme && i == schemeEnd)
            if (allowed.contains(byte) && !loneColon) || escapeStarts {
                out.append(byte)
            } else {
                out += Array("%\(String(byte >> 4, radix: 16, uppercase: true))\(String(byte & 15, radix: 16, uppercase: true))".utf8)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// GPX's own write settings.
public struct GPXWriteOptions: FormatWriteOptions, Hashable {
    /// Write lines as routes (`rte`) rather than tracks (`trk`).
    public var routes: Bool

    /// GPX settings.
    /// - Parameter routes: Whether lines become routes rather than tracks.
    public init(routes: Bool) {
        self.routes = routes
    }

    /// Lines as tracks.
    public init() { self.init(routes: false) }
}

extension FeatureFormat {
    /// GPX 1.1 (reads 1.0 too): waypoints, routes and tracks.
    public static let gpx = FeatureFormat(
        id: "gpx", displayName: "GPX", extensions: ["gpx"], mediaType: "application/gpx+xml",
        writeOptions: GPXWriteOptions.self, roundsCoordinates: true, needsGeographicCoordinates: true, keepsPositionData: true,
        sniff: { bytes in
            guard bytes.first == UInt8(ascii: "<") else { return false }
            return String(decoding: bytes.prefix(1024), as: UTF8.self).contains("<gpx")
        },
        reader: { input, _ in GPXReader(input: input) },
        writer: { sink, options in try GPXWriter(sink: sink, options: options) }
    )
}
