import ArgumentParser
import MeridianCommandLine
import MeridianFormats
import MeridianTiles

/// `meridian-gdal tile-read`: a vector tile pyramid's features at one zoom level, joined across
/// tiles, streamed out as a GeoJSON text sequence for `meridian convert` to read through a pipe,
/// as a `TileReadRequest` asks. Not for people: `meridian convert tiles.mbtiles --zoom 5` runs
/// it, and reports the error this prints as a JSON line on standard error.
enum TileRead: RequestServedToParent {
    static func serve(_ request: TileReadRequest, reporter _: Reporter) throws {
        let features = try TiledFeatureJoiner.features(of: try TilePyramids.open(request.input), zoom: request.zoom, layer: request.layer)
        let out = OutputSink.standardOutput()
        try copyFeatures(from: FeatureList(features), to: GeoJSONWriter(sink: out, sequence: true))
        try out.flush()
    }
}
