import MeridianGeometry

/// Writes GPX 1.1, valid against its schema: points become waypoints (`wpt`), lines tracks
/// (`trk`, one `trkseg` per part, times from `coordinateProperties.times`) or routes (`rte`)
/// when `WriteOptions.gpxRoutes` is set or the feature says `_gpxType: "rte"`. GPX has no
/// polygons: their rings become the segments of a track.
///
/// The schema orders every `wpt` before every `rte` before every `trk`, and features arrive in
/// any order: waypoints are written at once, routes and tracks spilled to scratch files (as
/// GeoJSON text sequences) and written at `finish`.
/// Coordinates are xsd:decimal (never exponents); longitude 180 is written -180, the schema's
/// range being [-180, 180).
public final class GPXWriter: FeatureWriter {
    private let sink: OutputSink
    private let xml: XMLTextWriter
    private let options: WriteOptions
    private let routes: FeatureSpill
    private let tracks: FeatureSpill

    /// A GPX writer into `sink`; routes and tracks wait in scratch files until ``finish(_:)``.
    /// - Parameters:
    ///   - sink: Where the GPX goes.
    ///   - options: `precision` rounds coordinates; `gpxRoutes` writes lines as routes.
    /// - Throws: ``MeridianError`` (`io`) when the scratch files cannot be created.
    public init(sink: OutputSink, options: WriteOptions = .init()) throws {
        self.sink = sink
        self.options = options
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
    /// - Throws: ``MeridianError`` (`io`) when the output or a scratch file fails.
    public func write(_ feature: Feature) throws {
        guard let geometry = feature.geometry else { return }
        switch geometry {
        case .point(let p):
            waypoint(p.coordinates, feature.properties ?? [:])
        case .multiPoint(let m):
            for p in m.coordinates { waypoint(p, feature.properties ?? [:]) }
        case .geometryCollection(let c):
            for member in c.geometries { try write(Feature(geometry: member, properties: feature.properties)) }
        case .lineString, .multiLineString, .polygon, .multiPolygon:
            let asRoute = (options.gpxRoutes || feature.properties?["_gpxType"]?.stringValue == "rte")
            if asRoute, case .lineString = geometry { try routes.append(feature) } else { try tracks.append(feature) }
        }
        try sink.checkForErrors()
    }

    /// Writes the routes, then the tracks, and closes the `gpx` element.
    /// - Throws: ``MeridianError`` (`io`) when the output or a scratch file fails.
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
        if let link = properties["link"]?.stringValue { xml.empty("link", [("href", link)]) }
        if !number, let symbol = properties["sym"]?.stringValue { xml.element("sym", symbol) }
        if number, case .integer(let n)? = properties["number"], n >= 0 { xml.element("number", String(n)) }
        if let type = properties["type"]?.stringValue { xml.element("type", type) }
    }

    private func waypoint(_ p: Position, _ properties: JSONObject) {
        point("wpt", p, time: properties["time"]?.stringValue) {
            describe(properties, number: false)
        }
    }

    private func route(_ feature: Feature) {
        guard case .lineString(let line)? = feature.geometry else { return }
        let properties = feature.properties ?? [:]
        xml.start("rte")
        describe(properties, number: true)
        let times = properties["coordinateProperties"]?.objectValue?["times"]?.arrayValue
        for (i, p) in line.coordinates.enumerated() { point("rtept", p, time: times?[safe: i]?.stringValue) {} }
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
        let times = properties["coordinateProperties"]?.objectValue?["times"]?.arrayValue
        xml.start("trk")
        describe(properties, number: true)
        for (s, part) in parts.enumerated() {
            // A line's times are one array; a multi-line's an array per part.
            let partTimes = parts.count == 1 && times?.first?.arrayValue == nil ? times : times?[safe: s]?.arrayValue
            xml.start("trkseg")
            for (i, p) in part.enumerated() { point("trkpt", p, time: partTimes?[safe: i]?.stringValue) {} }
            xml.close()
        }
        xml.close()
    }

    /// `<name lat lon>` with its elevation and time, then whatever `body` writes.
    private func point(_ name: StaticString, _ p: Position, time: String?, _ body: () -> Void) {
        xml.indent()
        sink.write(byte: UInt8(ascii: "<"))
        sink.write(name)
        sink.write(" lat=\"" as StaticString)
        sink.writePlainDecimal(p.latitude, precision: options.precision)
        sink.write("\" lon=\"" as StaticString)
        sink.writePlainDecimal(p.longitude == 180 ? -180 : p.longitude, precision: options.precision)
        sink.write(byte: UInt8(ascii: "\""))
        guard p.altitude != nil || time != nil || name.utf8Start[0] == UInt8(ascii: "w") else {
            sink.write("/>\n" as StaticString)
            return
        }
        sink.write(">\n" as StaticString)
        xml.opened(String(describing: name))
        if let altitude = p.altitude { xml.inline("ele") { sink.writePlainDecimal(altitude, precision: options.precision) } }
        if let time { xml.element("time", time) }
        body()
        xml.close()
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

extension FeatureFormat {
    /// GPX 1.1 (reads 1.0 too): waypoints, routes and tracks.
    public static let gpx = FeatureFormat(
        id: "gpx", displayName: "GPX", extensions: ["gpx"],
        sniff: { bytes in
            guard bytes.first == UInt8(ascii: "<") else { return false }
            return String(decoding: bytes.prefix(1024), as: UTF8.self).contains("<gpx")
        },
        reader: { input, _ in GPXReader(input: input) },
        writer: { sink, options in try GPXWriter(sink: sink, options: options) }
    )
}
