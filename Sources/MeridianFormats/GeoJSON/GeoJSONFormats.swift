/// GeoJSON's own write settings.
public struct GeoJSONWriteOptions: FormatWriteOptions, Hashable {
    /// Indent nested structures instead of writing one feature per line.
    public var pretty: Bool

    /// GeoJSON settings; the default writes one feature per line.
    /// - Parameter pretty: Whether to indent nested structures.
    public init(pretty: Bool = false) {
        self.pretty = pretty
    }

    /// One feature per line.
    public init() { self.init(pretty: false) }
}

/// A GeoJSON text sequence's own write settings.
public struct GeoJSONSeqWriteOptions: FormatWriteOptions, Hashable {
    /// Start each record with the RS byte (RFC 8142); nil starts them with it when the output's
    /// path ends in `.geojsons` (RFC 8142's extension), not otherwise.
    public var recordSeparator: Bool?

    /// Text sequence settings.
    /// - Parameter recordSeparator: Whether records start with RS; nil decides by the output's path.
    public init(recordSeparator: Bool? = nil) {
        self.recordSeparator = recordSeparator
    }

    /// RS where the output's path asks for it.
    public init() { self.init(recordSeparator: nil) }
}

extension FeatureFormat {
    /// GeoJSON (RFC 7946). Reading also accepts a text sequence when one object follows another.
    public static let geoJSON = FeatureFormat(
        id: "geojson", displayName: "GeoJSON", aliases: ["json"], extensions: ["geojson", "json"], mediaType: "application/geo+json",
        writeOptions: GeoJSONWriteOptions.self, roundsCoordinates: true, keepsPositionData: true,
        sniff: { $0.first == UInt8(ascii: "{") },
        reader: { input, options in GeoJSONReader(input: input, layout: .automatic, options: options) },
        writer: { sink, options in GeoJSONWriter(sink: sink, options: options) }
    )

    /// GeoJSON text sequences (RFC 8142) and newline-delimited GeoJSON: one Feature per record.
    public static let geoJSONSeq = FeatureFormat(
        id: "geojsonseq", displayName: "GeoJSONSeq", aliases: ["geojsons", "geojsonl", "ndjson", "jsonl"],
        extensions: ["geojsons", "geojsonseq", "geojsonl", "ndjson", "jsonl"], mediaType: "application/geo+json-seq",
        writeOptions: GeoJSONSeqWriteOptions.self, roundsCoordinates: true, keepsPositionData: true,
        sniff: { $0.first == 0x1E },
        reader: { input, options in GeoJSONReader(input: input, layout: .sequence, options: options) },
        writer: { sink, options in GeoJSONWriter(sink: sink, options: options, sequence: true) }
    )
}
