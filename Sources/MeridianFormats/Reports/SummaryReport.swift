import MeridianGeometry

/// `meridian info`'s report: a `DatasetSummary` with the file's name, format and collection
/// members, as text for people or JSON for scripts.
public struct SummaryReport {
    /// The input's name as reported (a path, or `<stdin>`).
    public var file: String
    /// The format the input was read as.
    public var format: FeatureFormat
    /// The collection's members before its features; its `name` is reported.
    public var metadata: CollectionMetadata
    /// The collection's members after its features; its `name` is reported when none came before.
    public var trailing: CollectionMetadata
    /// The counts, geometry types, bounding box and property keys of every feature read.
    public var summary: DatasetSummary
    /// Folders and styles, for KML and KMZ.
    public var kml: KMLStatistics?

    /// A report on a dataset that has been read to the end.
    /// - Parameters:
    ///   - file: The input's name.
    ///   - format: The format it was read as.
    ///   - metadata: What the reader's `readMetadata()` returned.
    ///   - trailing: The reader's `trailingMetadata`, once `next()` has returned nil.
    ///   - summary: Every feature, added to a `DatasetSummary`.
    ///   - kml: Folder and style counts for KML and KMZ; nil for other formats.
    public init(file: String, format: FeatureFormat, metadata: CollectionMetadata,
                trailing: CollectionMetadata, summary: DatasetSummary, kml: KMLStatistics? = nil) {
        self.file = file
        self.format = format
        self.metadata = metadata
        self.trailing = trailing
        self.summary = summary
        self.kml = kml
    }

    private var name: String? { metadata.name ?? trailing.name }

    /// The report as one JSON object for scripts: `file`, `format`, `name`, `features`, `folders`
    /// and `styles` (KML), `geometryTypes`, `nullGeometries`, `positions`, `positionsWithAltitude`,
    /// `bbox` (`[west, south, east, north]`, GeoJSON's six numbers when positions have altitudes,
    /// or null) and `properties`.
    public var jsonValue: JSONValue {
        var object: JSONObject = [
            "file": .string(file),
            "format": .string(format.id),
        ]
        if let name { object["name"] = .string(name) }
        object["features"] = .integer(Int64(summary.featureCount))
        if let kml {
            object["folders"] = .integer(Int64(kml.folders))
            object["styles"] = .integer(Int64(kml.styles))
        }
        object["geometryTypes"] = .object(JSONObject(uniqueKeysWithValues: summary.geometryTypes.map {
            ($0.key.rawValue, JSONValue.integer(Int64($0.value)))
        }))
        object["nullGeometries"] = .integer(Int64(summary.nullGeometryCount))
        object["positions"] = .integer(Int64(summary.positionCount))
        object["positionsWithAltitude"] = .integer(Int64(summary.positionsWithAltitude))
        object["bbox"] = summary.boundingBox.map { .array($0.values.map(CoordinateText.json)) } ?? .null
        object["properties"] = .array(summary.propertyKeys.map { key, info in
            .object([
                "name": .string(key),
                "count": .integer(Int64(info.count)),
                "types": .array(info.types.map(JSONValue.string)),
            ])
        })
        return .object(object)
    }

    /// The report as aligned `label: value` lines for people, ending in a newline; counts are grouped
    /// by thousands (`1,234,567`).
    public var text: String {
        var lines: [(String, String)] = [("file", "\(file) (\(format.displayName))")]
        if let name { lines.append(("name", name)) }
        lines.append(("features", grouped(summary.featureCount)))
        if let kml {
            lines.append(("folders", grouped(kml.folders)))
            lines.append(("styles", grouped(kml.styles)))
        }
        var types = summary.geometryTypes.map { "\($0.key.rawValue) \(grouped($0.value))" }
        if summary.nullGeometryCount > 0 { types.append("null \(grouped(summary.nullGeometryCount))") }
        lines.append(("geometry", types.isEmpty ? "none" : types.joined(separator: ", ")))
        var positions = grouped(summary.positionCount)
        if summary.positionsWithAltitude > 0 { positions += " (\(grouped(summary.positionsWithAltitude)) with altitude)" }
        lines.append(("positions", positions))
        if let box = summary.boundingBox {
            lines.append(("bbox", CoordinateText.bounds(box) + (box.west > box.east ? " (across the antimeridian)" : "")))
        } else {
            lines.append(("bbox", "none"))
        }
        let keys = summary.propertyKeys.map { key, info in "\(key) (\(info.types.joined(separator: "|")))" }
        lines.append(("properties", keys.isEmpty ? "none" : "\(keys.count): " + keys.joined(separator: ", ")))
        let width = lines.map(\.0.count).max()! + 2
        return lines.map { label, value in
            label + ":" + String(repeating: " ", count: width - label.count - 1) + value
        }.joined(separator: "\n") + "\n"
    }

    /// 1234567 → "1,234,567".
    private func grouped(_ n: Int) -> String { Self.grouped(n) }

    /// 1234567 → "1,234,567": a count as `meridian info` prints it.
    package static func grouped(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }
}

/// Writes one JSON value as text, indented or compact, with exact numbers.
public func writeJSON(_ value: JSONValue, to sink: OutputSink, pretty: Bool = true) {
    JSONEmitter(sink: sink, pretty: pretty).value(value)
    sink.write(byte: 0x0A)
}
