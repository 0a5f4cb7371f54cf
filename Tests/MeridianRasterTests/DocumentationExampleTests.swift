import Foundation
import MeridianGeometry
import MeridianRaster
import MeridianTestSupport
import MeridianTiles
import Testing

/// The code of the MeridianRaster catalog's article (TilingARaster.md), run against a fixture.
@Suite struct DocumentationExampleTests {
    @Test func tilingARasterIntoAFolderAndAnMBTilesFile() throws {
        try withTemporaryFolderPath { output in
            let source = try RasterSource(path: fixture("raster/19347_2.KAP"))
            let options = TilingOptions(zooms: 14...15, format: .png)
            let tiler = try Tiler(source: source, options: options)

            let folder = try FolderTileSink(path: output + "/chart-tiles", scheme: .xyz, format: options.format, resume: false,
                                            identity: tiler.identity(output: [("scheme", TileScheme.xyz.rawValue)]))
            let summary = try tiler.run(into: folder)

            #expect(tiler.zooms == 14...15)
            #expect(summary.zooms == 14...15)
            #expect(summary.tileCount > 0)
            #expect(summary.metadata.minZoom == 14 && summary.metadata.maxZoom == 15)
            #expect(FileManager.default.fileExists(atPath: output + "/chart-tiles/metadata.json"))
            let tilesAt15 = try FileManager.default.subpathsOfDirectory(atPath: output + "/chart-tiles/15").filter { $0.hasSuffix(".png") }
            #expect(!tilesAt15.isEmpty)
            let first = try DecodedImage(path: output + "/chart-tiles/15/" + tilesAt15[0])
            #expect(first.width == 256 && first.height == 256)

            let mbtiles = try MBTilesSink(path: output + "/chart.mbtiles", format: options.format, resume: false,
                                          identity: tiler.identity())
            let stored = try tiler.run(into: mbtiles)
            #expect(stored.tileCount == summary.tileCount)
            #expect(try MBTilesFile(path: output + "/chart.mbtiles").allTiles().count == summary.tileCount)
        }
    }

    @Test func severalChartsInOnePyramid() throws {
        try withTemporaryFolderPath { output in
            let found = try TileInputs.open([fixture("raster/19347_2.KAP"), fixture("raster/19351_2.KAP")], options: RasterSourceOptions())
            let catalog = TileCatalog(sources: found.sources, quilt: .scale)
            let charts = try Tiler(catalog: catalog, options: TilingOptions(zooms: 14...16))
            let plan = try charts.plan()
            let quilted = try charts.run(into: FolderTileSink(path: output + "/charts", scheme: .xyz, format: .png, resume: false,
                                                              identity: charts.identity()))
            #expect(found.sources.count == 2 && found.skipped.isEmpty)
            #expect(plan.charts.map(\.name) == ["19347_2", "19351_2"])
            #expect(quilted.tileCount > 0 && quilted.tileCount <= plan.tiles)
        }
    }
}
