import ArgumentParser
import MeridianCommandLine
import MeridianCore
import MeridianFormats
import MeridianGeometry
import MeridianTiles
import MeridianTilingCommandLine

/// `meridian-gdal tile-info`: `meridian info` of a tile pyramid (an MBTiles file is SQLite,
/// which `meridian` never links), printed on standard output as a `TileInfoRequest` asks. Not
/// for people: `meridian info tiles.mbtiles` runs it, and reports the error this prints as a
/// JSON line on standard error.
enum TileInfo: RequestServedToParent {
    static func serve(_ request: TileInfoRequest, reporter _: Reporter) throws {
        let summary = try TilePyramids.summary(request.input)
        let out = OutputSink.standardOutput()
        if request.json {
            writeJSON(summary.jsonValue, to: out)
        } else {
            out.write(summary.text)
        }
        try out.flush()
    }
}
