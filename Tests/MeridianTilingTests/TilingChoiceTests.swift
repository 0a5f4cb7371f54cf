import Foundation
import MeridianCore
import MeridianTestSupport
import MeridianTiling
import Testing

/// A job refuses a choice its kind of run would do nothing with (usage), before it writes
/// anything, and takes the defaults of the choices not made.
struct TilingChoiceTests {
    @Test func choicesThatDoNothingAreRefused() throws {
        try withTemporaryFolderPath { folder in
            var vector = TilingJobRequest(inputs: [fixture("geojson/bare-geometry.geojson")], output: folder + "/vt", jobs: 1)
            vector.raster.quilt = .scale
            #expect(throws: TilingJobError.choiceNotApplying(.quilt, .vectorTiles)) { try TilingJob(vector).run() }
            #expect(throws: TilingJobError.choiceNotApplying(.quilt, .vectorTiles)) { try TilingJob(vector).plan() }
            vector.raster.quilt = nil
            vector.tileSize = 256
            #expect(throws: TilingJobError.choiceNotApplying(.tileSize, .vectorTiles)) { try TilingJob(vector).run() }
            vector.tileFormat = .png
            vector.vector.overLimit = .dropFraction
            #expect(throws: TilingJobError.choiceNotApplying(.overLimit(.dropFraction), .drawnVectors)) { try TilingJob(vector).run() }

            var raster = TilingJobRequest(inputs: [fixture("raster/rgbsmall.tif")], output: folder + "/r", jobs: 1)
            raster.layerNames = ["one"]
            #expect(throws: TilingJobError.choiceNotApplying(.layerNames, .rasters)) { try TilingJob(raster).run() }
            #expect(TilingJobError.choiceNotApplying(.layerNames, .rasters).kind == .usage)
            #expect(!FileManager.default.fileExists(atPath: folder + "/vt") && !FileManager.default.fileExists(atPath: folder + "/r"))
        }
    }

    @Test func defaultsAreNotChoicesMade() {
        var request = TilingJobRequest(inputs: ["a.tif"], output: "t")
        #expect(TilingChoice.made(in: request).isEmpty && request.pixelsPerTile == 256)
        request.scheme = .xyz
        request.raster.source.cutCollar = true
        request.vector.reducesTinyPolygons = true
        #expect(TilingChoice.made(in: request).isEmpty)
        request.raster.source.cutCollar = false
        #expect(TilingChoice.made(in: request) == [.collarKept])
        #expect(TilingChoice.notApplying(in: request, to: .rasters) == nil && TilingChoice.notApplying(in: request, to: .drawnVectors) == .collarKept)
    }
}
