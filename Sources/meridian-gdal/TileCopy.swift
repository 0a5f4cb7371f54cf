import ArgumentParser
import MeridianCommandLine
import MeridianFormats
import MeridianTiles

/// `meridian-gdal tile-copy`, hidden: runs the `TileCopyRequest` that `meridian tile-copy` parsed.
enum TileCopy: RequestRunInPlace {
    static func run(_ request: TileCopyRequest) throws {
        try Reporter(quiet: request.quiet).run {
            RunInputs.record(request.source)
            let pyramid = try TilePyramids.open(request.source)
            let copied = try TileSinks.copy(pyramid, to: request.destination, zooms: request.zooms, replacing: request.replacing)
            if !request.quiet { Reporter.printError("\(request.destination): \(copied) tiles copied from \(request.source)") }
        }
    }
}
