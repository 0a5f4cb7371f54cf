import Foundation
import MeridianFormats
import MeridianGeometry
import Testing
@testable import MeridianRaster
import MeridianTestSupport
@testable import MeridianTiles

/// Tiles `inputs` together into `output` (a folder, XYZ PNG tiles).
@discardableResult
func tileCatalog(_ inputs: [String], _ output: String, quilt: QuiltRule = .scale, zooms: ClosedRange<Int>? = nil) throws -> (Tiler, TilingSummary) {
    let catalog = TileCatalog(sources: try inputs.map { try RasterSource(path: $0) }, quilt: quilt)
    let tiler = try Tiler(catalog: catalog, options: TilingOptions(zooms: zooms, jobs: 2))
    let sink = try FolderTileSink(path: output, scheme: .xyz, format: .png, resume: false, identity: tiler.identity())
    return (tiler, try tiler.run(into: sink))
}

/// A tile of a folder, as RGBA (nil when the folder has no such tile).
func tilePixels(_ folder: String, _ tile: String) throws -> DecodedImage? {
    let path = "\(folder)/\(tile).png"
    return FileManager.default.fileExists(atPath: path) ? try DecodedImage(path: path) : nil
}

/// The pixels of `tile` in which `quilted` differs from `alone`, counted only where `alone` is
/// opaque (has all its data) and, if given, `other` is transparent (has none).
func differingPixels(_ quilted: DecodedImage, _ alone: DecodedImage, where other: DecodedImage? = nil) -> Int {
    var differing = 0
    for i in stride(from: 0, to: alone.rgba.count, by: 4) where alone.rgba[i + 3] == 255 && (other?.rgba[i + 3] ?? 0) == 0 {
        if quilted.rgba[i..<i + 4] != alone.rgba[i..<i + 4] { differing += 1 }
    }
    return differing
}

/// A coarser copy of a chart: a quarter of its width and height, georeferenced, with its
/// palette and without its collar cut (gdal_translate keeps no BSB outline).
func coarseCopy(of chart: String, in folder: String) throws -> String {
    let output = folder + "/coarse.tif"
    try runTool("gdal_translate", ["-q", "-outsize", "25%", "25%", chart, output])
    return output
}

/// What a quilted pyramid must be over the pyramids of its charts alone, given in order of
/// preference: in each tile, each pixel is the first chart's that has data there (compared where
/// that chart is opaque and those before it are transparent), and no pixel is less opaque than
/// the most opaque of them (no seam). Returns the tiles compared, the pixels that are not the
/// right chart's, the seam pixels, and the pixels where the first chart has no data and the
/// second shows through.
func quiltCheck(_ quilted: String, over alone: [String]) throws -> (tiles: Int, misplaced: Int, seams: Int, showingThrough: Int) {
    var result = (tiles: 0, misplaced: 0, seams: 0, showingThrough: 0)
    for name in tileSet(quilted) {
        let both = try #require(try tilePixels(quilted, name))
        let layers = try alone.map { try tilePixels($0, name) }
        for (k, layer) in layers.enumerated() {
            guard let layer else { continue }
            let above = layers[..<k].compactMap { $0 }
            for i in stride(from: 0, to: layer.rgba.count, by: 4) where layer.rgba[i + 3] == 255 && above.allSatisfy({ $0.rgba[i + 3] == 0 }) {
                if both.rgba[i..<i + 4] != layer.rgba[i..<i + 4] { result.misplaced += 1 }
            }
        }
        for i in stride(from: 3, to: both.rgba.count, by: 4) {
            if both.rgba[i] < layers.map({ $0?.rgba[i] ?? 0 }).max()! { result.seams += 1 }
            if layers.count > 1, (layers[0]?.rgba[i] ?? 0) == 0, (layers[1]?.rgba[i] ?? 0) == 255 { result.showingThrough += 1 }
        }
        result.tiles += 1
    }
    return result
}

@Suite struct CatalogTilingTests {
    @Test func preferenceFollowsTheRule() throws {
        let fine = try RasterSource(path: raster("19351_2.KAP"))
        try withTemporaryFolderPath { folder in
            let coarse = try RasterSource(path: try coarseCopy(of: raster("19351_2.KAP"), in: folder))
            let catalog = TileCatalog(sources: [fine, coarse])
            let fineZoom = catalog.charts[0].nativeZoom, coarseZoom = catalog.charts[1].nativeZoom
            #expect(coarseZoom == fineZoom - 2)   // a quarter of the pixels' count each way
            // Scale: the coarse chart is the one made for its own zooms and above; the fine one deeper.
            #expect(catalog.preference(atZoom: coarseZoom) == [1, 0])
            #expect(catalog.preference(atZoom: coarseZoom - 3) == [1, 0])
            #expect(catalog.preference(atZoom: coarseZoom + 1) == [0, 1])
            #expect(catalog.preference(atZoom: fineZoom + 2) == [0, 1])   // deeper than both: the most detailed
            #expect(TileCatalog(sources: [coarse, fine], quilt: .detail).preference(atZoom: coarseZoom) == [1, 0])
            #expect(TileCatalog(sources: [coarse, fine], quilt: .order).preference(atZoom: fineZoom) == [0, 1])
            #expect(catalog.defaultZooms == catalog.charts[1].zooms.lowerBound...fineZoom)
            // --overzoom 1: the coarse chart shows one level deeper than its own, not two; the
            // most detailed chart at every level asked for.
            let limited = TileCatalog(sources: [fine, coarse], overzoom: 1)
            #expect(limited.preference(atZoom: coarseZoom + 1) == [0, 1] && limited.preference(atZoom: fineZoom) == [0])
            #expect(limited.preference(atZoom: fineZoom + 3) == [0])
            // Its tiles are not read at the levels where it does not show.
            let deepest = try #require(TileCoverage(catalog: limited, pyramid: TilePyramid(), zooms: fineZoom...fineZoom).tiles(atZoom: fineZoom).first)
            #expect(TileCoverage(catalog: limited, pyramid: TilePyramid(), zooms: fineZoom...fineZoom).charts(touching: deepest, among: [0, 1]) == [0])
            #expect(TileCoverage(catalog: catalog, pyramid: TilePyramid(), zooms: fineZoom...fineZoom).charts(touching: deepest, among: [0, 1]) == [0, 1])
        }
    }

    @Test func coverageCountsTheUnionOfRanges() {
        let a = TileRange(zoom: 5, minX: 0, minY: 0, maxX: 3, maxY: 3)   // 16
        let b = TileRange(zoom: 5, minX: 2, minY: 2, maxX: 5, maxY: 4)   // 12, 4 shared
        let c = TileRange(zoom: 5, minX: 10, minY: 10, maxX: 10, maxY: 10)
        let coverage = TileCoverage(ranges: [5: [a, b, c]])
        #expect(coverage.count(atZoom: 5) == 16 + 12 - 4 + 1)
        #expect(coverage.tiles(atZoom: 5).count == 25)
        #expect(coverage.count(atZoom: 5, under: MapTile(zoom: 4, x: 1, y: 1)) == 4)   // tiles 2-3 × 2-3
        #expect(coverage.contains(MapTile(zoom: 5, x: 10, y: 10)) && !coverage.contains(MapTile(zoom: 5, x: 9, y: 9)))
    }

    /// Two NOAA charts that do not overlap: one pyramid holding, at every zoom, each chart's
    /// tiles as it gives them alone.
    @Test func chartsSideBySideGiveTheirOwnTiles() throws {
        try withTemporaryFolderPath { folder in
            let (aloneA, _) = try tile(raster("19347_2.KAP"), folder + "/a")
            let (aloneB, _) = try tile(raster("19351_2.KAP"), folder + "/b")
            let (both, summary) = try tileCatalog([raster("19347_2.KAP"), raster("19351_2.KAP")], folder + "/ab")
            #expect(both.zooms == min(aloneA.zooms.lowerBound, aloneB.zooms.lowerBound)...max(aloneA.zooms.upperBound, aloneB.zooms.upperBound))
            #expect(summary.metadata.description.contains("19347_2.KAP, 19351_2.KAP"))
            let tilesA = tileSet(folder + "/a"), tilesB = tileSet(folder + "/b"), tilesAB = tileSet(folder + "/ab")
            #expect(tilesA.isSubset(of: tilesAB) && tilesB.isSubset(of: tilesAB))
            var compared = 0
            for (alone, other) in [(folder + "/a", folder + "/b"), (folder + "/b", folder + "/a")] {
                for name in tileSet(alone) {
                    let quilted = try #require(try tilePixels(folder + "/ab", name))
                    let own = try #require(try tilePixels(alone, name))
                    #expect(differingPixels(quilted, own, where: try tilePixels(other, name)) == 0, "tile \(name)")
                    compared += 1
                }
            }
            #expect(compared == tilesA.count + tilesB.count)
            // Where only one chart has tiles, the tile is the same file byte for byte.
            let onlyA = tilesA.subtracting(tilesB).sorted()
            #expect(!onlyA.isEmpty)
            expectSamePNGTiles(onlyA, in: folder + "/ab", as: folder + "/a", "only chart a")
        }
    }

    /// A coarse copy of a chart under the chart itself: each shows at its own zooms, and where
    /// the fine chart has no data (its collar is cut) the coarse one shows through.
    @Test func overlappingChartsQuiltByScale() throws {
        try withTemporaryFolderPath { folder in
            let fine = raster("19351_2.KAP")
            let coarse = try coarseCopy(of: fine, in: folder)
            let (fineAlone, _) = try tile(fine, folder + "/fine")
            let (coarseAlone, _) = try tile(coarse, folder + "/coarse")
            let (quilted, _) = try tileCatalog([fine, coarse], folder + "/scale")
            try tileCatalog([fine, coarse], folder + "/detail", quilt: .detail)
            try tileCatalog([fine, coarse], folder + "/order", quilt: .order)
            try tileCatalog([coarse, fine], folder + "/reversed", quilt: .order)
            let coarseZoom = coarseAlone.zooms.upperBound
            #expect(fineAlone.zooms.upperBound == coarseZoom + 2 && quilted.zooms.upperBound == coarseZoom + 2)

            var checked = (fine: 0, coarse: 0)
            for name in tileSet(folder + "/scale") {
                let zoom = Int(name.split(separator: "/")[0])!
                let scale = try #require(try tilePixels(folder + "/scale", name))
                if zoom > coarseZoom, let own = try tilePixels(folder + "/fine", name) {
                    // The fine chart's zooms: its pixels wherever it has data.
                    #expect(differingPixels(scale, own) == 0, "tile \(name)")
                    checked.fine += 1
                } else if zoom <= coarseZoom, let own = try tilePixels(folder + "/coarse", name) {
                    // The coarse chart's zooms: the coarse chart's pixels (its collar is kept, so everywhere in it).
                    #expect(differingPixels(scale, own) == 0, "tile \(name)")
                    checked.coarse += 1
                }
                // `detail` puts the fine chart on top at every zoom: the same as `order` with it first.
                let detail = try #require(try tilePixels(folder + "/detail", name))
                #expect(detail.rgba == (try #require(try tilePixels(folder + "/order", name))).rgba, "tile \(name)")
                // `scale` and `detail` differ only at the coarse chart's zooms, where the fine chart shows.
                if zoom > coarseZoom {
                    #expect(detail.rgba == scale.rgba, "tile \(name)")
                } else if let own = try tilePixels(folder + "/fine", name) {
                    #expect(differingPixels(detail, own) == 0, "tile \(name)")
                }
                // `order` with the coarse chart first shows it wherever it has data, at every zoom.
                if zoom <= coarseZoom {
                    #expect(try #require(try tilePixels(folder + "/reversed", name)).rgba == scale.rgba, "tile \(name)")
                }
            }
            #expect(checked.fine > 0 && checked.coarse > 0)
            // Where the fine chart's collar is cut away, the coarse chart shows through at the fine zooms.
            let showingThrough = try tileSet(folder + "/scale").filter { $0.hasPrefix("\(coarseZoom + 2)/") }.filter { name in
                let quilt = try #require(try tilePixels(folder + "/scale", name))
                return quilt.opaqueCount > (try tilePixels(folder + "/fine", name)?.opaqueCount ?? 0)
            }
            #expect(!showingThrough.isEmpty)
        }
    }

    /// A UTM GeoTIFF with nodata over a WGS 84 copy of it with alpha, colours inverted: where the
    /// first has data it shows, where its nodata is, the second shows through, and no pixel that
    /// either has data in is left transparent (no seam).
    @Test func rastersInDifferentCRSsQuiltWithoutSeams() throws {
        try withTemporaryFolderPath { folder in
            let utm = raster("RGB.byte.half.tif")
            // Without the source's nodata the second covers the first's nodata corners too.
            try runTool("gdalwarp", ["-q", "-t_srs", "EPSG:4326", "-srcnodata", "None", "-dstalpha", "-r", "near", utm, folder + "/wgs-rgba.tif"])
            try runTool("gdal_translate", ["-q", "-scale_1", "0", "255", "255", "0", "-scale_2", "0", "255", "255", "0",
                      "-scale_3", "0", "255", "255", "0", folder + "/wgs-rgba.tif", folder + "/wgs.tif"])
            let wgs = folder + "/wgs.tif"
            // Both have native zoom 7, so both are tiled from the deepest level asked for, alone and together.
            try tile(utm, folder + "/utm", zooms: 7...10)
            try tile(wgs, folder + "/wgs", zooms: 7...10)
            try tileCatalog([utm, wgs], folder + "/both", quilt: .order, zooms: 7...10)
            let check = try quiltCheck(folder + "/both", over: [folder + "/utm", folder + "/wgs"])
            #expect(check.showingThrough > 10_000, "pixels of the second where the first has no data: \(check.showingThrough)")
            #expect(check.tiles > 20 && check.misplaced == 0 && check.seams == 0, "\(check.tiles) tiles, \(check.misplaced) misplaced, \(check.seams) seam pixels")
        }
    }

    /// Two BSB charts that overlap as neighbouring NOAA charts do, each one's collar over the
    /// other's chart area (19347_2 and a copy of it moved east, made by make-shifted-chart.py):
    /// both collars are cut along their outlines, so where the first chart has data it shows, its
    /// neighbour's collar never covers it, and the neighbour fills the rest with no gap.
    @Test func neighbouringChartsMeetAtTheirOutlines() throws {
        try withTemporaryFolderPath { folder in
            let west = raster("19347_2.KAP"), east = raster("19347_2-east.KAP")
            try tile(west, folder + "/west", zooms: 17...17)
            try tile(east, folder + "/east", zooms: 17...17)
            // The same scale: the order given breaks the tie, the west chart on top.
            try tileCatalog([west, east], folder + "/both", zooms: 17...17)
            let check = try quiltCheck(folder + "/both", over: [folder + "/west", folder + "/east"])
            #expect(check.misplaced == 0 && check.seams == 0, "\(check.misplaced) misplaced, \(check.seams) seam pixels")
            #expect(check.showingThrough > 10_000, "\(check.showingThrough) pixels of the east chart beside the west one")
            // The band where the charts overlap holds both collars; none of either is left.
            let overlapTiles = tileSet(folder + "/west").intersection(tileSet(folder + "/east"))
            #expect(!overlapTiles.isEmpty && overlapTiles.isSubset(of: tileSet(folder + "/both")))
        }
    }

    @Test func identityCoversEveryChart() throws {
        let a = try RasterSource(path: raster("19347_2.KAP")), b = try RasterSource(path: raster("19351_2.KAP"))
        let options = TilingOptions()
        let one = try TilingRunIdentity(catalog: TileCatalog(sources: [a]), options: options, zooms: 14...19)
        let two = try TilingRunIdentity(catalog: TileCatalog(sources: [a, b]), options: options, zooms: 14...19)
        let swapped = try TilingRunIdentity(catalog: TileCatalog(sources: [b, a]), options: options, zooms: 14...19)
        let detail = try TilingRunIdentity(catalog: TileCatalog(sources: [a, b], quilt: .detail), options: options, zooms: 14...19)
        #expect(Set(two.differences(from: one).map(\.name)).isSuperset(of: ["inputs", "input-2", "quilt"]))
        #expect(swapped.differences(from: two).map(\.name).contains("input"))
        #expect(detail.differences(from: two).map(\.name) == ["quilt"])
        #expect(try TilingRunIdentity(source: a, options: options, zooms: 14...19) == one)
    }
}
