import MeridianFormats

// The libraries' typed errors in the words of `meridian`'s options: Reporter.run prints these
// in place of the library's own message and hint (WordedForCommandLine).

extension LayerSelection: WordedForCommandLine {
    public var commandLineMessage: String {
        switch self {
        case .unknown: message
        case .unsupported(let format, _): "--layer picks a layer of a KML or KMZ file or of a GDAL dataset; \(format.displayName) has none"
        }
    }

    public var commandLineHint: String? {
        switch self {
        case .unknown: hint
        case .unsupported: "leave out --layer to read every feature"
        }
    }
}

extension FormatChoice: WordedForCommandLine {
    public var commandLineMessage: String { message }

    public var commandLineHint: String? {
        switch self {
        case .unknownInput(_, let readable): "name it with --from (\(readable.joined(separator: ", ")))"
        case .unknownOutput(_, let writable): "name it with --to (\(writable.joined(separator: ", ")))"
        }
    }
}

extension GeoJSONTrailingData: WordedForCommandLine {
    public var commandLineMessage: String { message }
    public var commandLineHint: String? {
        nextStartsObject ? "several objects in one file form a GeoJSON text sequence: one per line, or use --from geojsonseq" : nil
    }
}
