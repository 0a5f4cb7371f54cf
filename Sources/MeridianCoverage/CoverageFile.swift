import MeridianFormats
import MeridianGeometry

/// A coverage file as `fix` and `make` write it: the bare MultiPolygon, 6 decimals, indented;
/// and what `validate --strict` finds in exactly those bytes, so neither command can claim a
/// file passes when it does not.
public enum CoverageFile {
    /// Writes a coverage as a bare MultiPolygon geometry, coordinates to 6 decimals, indented.
    /// - Parameters:
    ///   - coverage: The polygons to write; their rings as they are (round and orient them first).
    ///   - sink: Where the GeoJSON goes; the caller flushes it.
    /// - Throws: What writing to `sink` throws.
    public static func write(_ coverage: MultiPolygon, to sink: OutputSink) throws {
        try writeGeoJSONGeometry(.multiPolygon(coverage), to: sink, options: WriteOptions(precision: 6, formatOptions: GeoJSONWriteOptions(pretty: true)))
    }

    /// Every issue `validate --strict` reports in the file `write` makes (lines and columns are
    /// that file's; its name and extension are the caller's to check).
    public static func issues(in coverage: MultiPolygon) throws -> [CoverageIssue] {
        let written = OutputSink(collectingAs: "<coverage>")
        try write(coverage, to: written)
        try written.flush()
        return CoverageValidator().validate(bytes: written.collected, name: written.name, checkExtension: false).issues
    }
}
