import ArgumentParser
import Foundation
import MeridianCommandLine
import MeridianCore
import MeridianFormats
import MeridianGeometry
import MeridianPicture

/// The drawing half of `meridian`, in its own executable so that cairo, libjpeg-turbo, libwebp
/// and SQLite (basemaps) load only when a picture is drawn. `meridian` runs it as a child for
/// every SVG or PNG output (`render`, `convert -o x.png`, `coverage validate --preview`), and
/// `meridian-gdal` for image tiles of vector data (`tile --tile-format png`).
@main
struct MeridianDraw: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "meridian-draw",
        abstract: "Meridian's picture drawing (run by `meridian` for SVG and PNG outputs).",
        subcommands: [ServedToParent<DrawPicture>.self, ServedToParent<DrawTiles>.self]
    )

    /// The entry point: a usage error in Meridian's voice, as `meridian`'s own.
    static func main() {
        mainSuggestingCorrections()
    }
}

/// `meridian-draw picture`: features (a GeoJSON text sequence) drawn as an SVG or PNG picture on
/// standard output, as a `PictureRequest` asks. Not for people: `meridian` runs it and
/// reports the warnings and the error this prints as JSON lines on standard error.
enum DrawPicture: RequestServedToParent {
    static func serve(_ request: PictureRequest, reporter: Reporter) throws {
        // No features make an empty file, which is still a picture (of the world, or the view).
        let features = try InheritedScratch.open(request.input)
        let reader: any FeatureReader = try features.peek(1).isEmpty ? FeatureList([]) : GeoJSONReader(input: features, layout: .sequence)
        var options = WriteOptions(formatOptions: request.options)
        options.diagnostics = { reporter.report($0) }
        let out = OutputSink.standardOutput()
        let writer = try FeatureFormat.picture(request.kind).writer(for: out, options: options)
        try copyFeatures(from: reader, to: writer)
        try out.flush()
    }
}

/// `meridian-draw tiles`: features (a GeoJSON text sequence) drawn into the image tiles of one
/// zoom level, sent on standard output as `TilesThroughHelper` frames them, as a
/// `DrawTilesRequest` asks. Not for people: `meridian-gdal tile` runs it, then encodes and
/// stores the tiles.
enum DrawTiles: RequestServedToParent {
    static func serve(_ request: DrawTilesRequest, reporter _: Reporter) throws {
        // The features are streamed from the file, never held.
        let tiles = FeatureTiles(tileSize: request.tileSize) {
            let features = try InheritedScratch.open(request.input)
            return try features.peek(1).isEmpty ? FeatureList([]) : GeoJSONReader(input: features, layout: .sequence)
        }
        // Only one tile is stored at a time (`drawTiles` says so).
        nonisolated(unsafe) let out = OutputSink.standardOutput()
        try tiles.drawTiles(zoom: request.zoom, jobs: request.jobs, shard: request.shard) { tile, rgba in
            TilesThroughHelper.frame(tile, rgba).withUnsafeBytes { out.write($0) }
            try out.checkForErrors()
        }
        try out.flush()
    }
}

/// The basemap's errors in the words of `meridian`'s options.
extension BasemapError: WordedForCommandLine {
    public var commandLineMessage: String { message }

    public var commandLineHint: String? {
        switch self {
        case .unreadableTiles: "tile it with meridian tile --tile-format png, jpeg or webp"
        case .zoomLevelsTooFine: "tile it with lower zoom levels too (meridian tile --zoom), or show less (--view)"
        }
    }
}
