import MeridianCommandLine
import MeridianFormats
import MeridianCore

/// Vector tile pyramids as `meridian convert` input: an `.mbtiles` file, a `.pmtiles` archive or
/// a folder with a `metadata.json`, read by `meridian-gdal tile-read` (MBTiles is SQLite, which
/// this process never links): one zoom level's features, joined across tiles, streamed back as
/// a GeoJSON text sequence.
enum TilePyramidInput {
    /// Whether `path` names a tile pyramid.
    static func isPyramid(_ path: String) -> Bool {
        let lower = path.lowercased()
        if lower.hasSuffix(".mbtiles") || lower.hasSuffix(".pmtiles") { return true }
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR && access(path + "/metadata.json", F_OK) == 0
    }

    /// The features of the pyramid at `path` at zoom level `zoom` (nil: its only level), of
    /// the layer `layer` only when one is given.
    static func reader(_ path: String, zoom: Int?, layer: String?, reporter: Reporter) throws -> any FeatureReader {
        return try ChildFeatureReader(TileReadRequest(input: path, zoom: zoom, layer: layer).arguments, name: path,
                               diagnostics: { reporter.report($0) })
    }
}
