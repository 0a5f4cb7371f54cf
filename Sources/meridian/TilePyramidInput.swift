import MeridianCommandLine
import MeridianFormats
import MeridianCore

/// Tile pyramids as `meridian convert` and `meridian info` input: an `.mbtiles` file, a
/// `.pmtiles` archive or a folder with a `metadata.json`, read by `meridian-gdal` (MBTiles is
/// SQLite, which this process never links): `tile-read` streams one zoom level's features back,
/// joined across tiles, as a GeoJSON text sequence; `tile-info` prints what the pyramid holds.
enum TilePyramidInput {
    /// Whether `path` names a tile pyramid.
    static func isPyramid(_ path: String) -> Bool {
        let lower = path.lowercased()
        if lower.hasSuffix(".mbtiles") || lower.hasSuffix(".pmtiles") { return true }
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR && access(path + "/metadata.json", F_OK) == 0
    }

    /// Prints what the pyramid at `path` holds on standard output (`meridian info`), as JSON
    /// when `json`, through `meridian-gdal tile-info`; its error comes back as this process's.
    static func describe(_ path: String, json: Bool, reporter: Reporter) throws {
        let (_, diagnostics) = try HelperExecutable.gdal.start(TileInfoRequest(input: path, json: json).arguments, for: "describing a tile pyramid")
        try diagnostics.finish(warnings: { reporter.report($0) })
    }

    /// The features of the pyramid at `path` at zoom level `zoom` (nil: its only level), of
    /// the layer `layer` only when one is given.
    static func reader(_ path: String, zoom: Int?, layer: String?, reporter: Reporter) throws -> any FeatureReader {
        return try ChildFeatureReader(TileReadRequest(input: path, zoom: zoom, layer: layer).arguments, name: path,
                               diagnostics: { reporter.report($0) })
    }
}
