import Foundation
import MeridianFormats
import MeridianGeometry
import MeridianTestSupport
import Testing
@testable import MeridianRaster

/// `--resampling gdal2tiles`: gdal2tiles' own base-tile sampling.
@Suite struct Gdal2TilesSamplingTests {
    /// gdal2tiles 3.6's `geo_query` for one tile, written out again here from its arithmetic
    /// (GlobalMercator.TileBounds in TMS rows, then truncation, rounding and clipping), apart
    /// from the implementation: ((rx, ry, rxsize, rysize), (wx, wy, wxsize, wysize)).
    static func geoQuery(zoom: Int, x: Int, xyzRow: Int, tileSize: Int, grid g: [Double], width: Int, height: Int) -> [Int] {
        let initialResolution = 2 * Double.pi * 6378137 / Double(tileSize)
        let originShift = 2 * Double.pi * 6378137 / 2.0
        let res = initialResolution / pow(2, Double(zoom))
        let ty = (1 << zoom) - 1 - xyzRow
        let minx = Double(x * tileSize) * res - originShift, miny = Double(ty * tileSize) * res - originShift
        let maxx = Double((x + 1) * tileSize) * res - originShift, maxy = Double((ty + 1) * tileSize) * res - originShift
        let (ulx, uly, lrx, lry) = (minx, maxy, maxx, miny)
        var rx = Int((ulx - g[0]) / g[1] + 0.001), ry = Int((uly - g[3]) / g[5] + 0.001)
        var rxsize = max(1, Int((lrx - ulx) / g[1] + 0.5)), rysize = max(1, Int((lry - uly) / g[5] + 0.5))
        var wxsize = 4 * tileSize, wysize = 4 * tileSize
        var wx = 0
        if rx < 0 {
            let rxshift = abs(rx)
            wx = Int(Double(wxsize) * (Double(rxshift) / Double(rxsize)))
            wxsize = wxsize - wx
            rxsize = rxsize - Int(Double(rxsize) * (Double(rxshift) / Double(rxsize)))
            rx = 0
        }
        if rx + rxsize > width {
            wxsize = Int(Double(wxsize) * (Double(width - rx) / Double(rxsize)))
            rxsize = width - rx
        }
        var wy = 0
        if ry < 0 {
            let ryshift = abs(ry)
            wy = Int(Double(wysize) * (Double(ryshift) / Double(rysize)))
            wysize = wysize - wy
            rysize = rysize - Int(Double(rysize) * (Double(ryshift) / Double(rysize)))
            ry = 0
        }
        if ry + rysize > height {
            wysize = Int(Double(wysize) * (Double(height - ry) / Double(rysize)))
            rysize = height - ry
        }
        return [rx, ry, rxsize, rysize, wx, wy, wxsize, wysize]
    }

    @Test func queryWindowsAreGeoQuerys() throws {
        let source = try RasterSource(path: raster("19347_2.KAP"), options: RasterSourceOptions(cutCollar: false))
        let grid = source.warpedGeoTransform, width = source.warpedWidth, height = source.warpedHeight
        // Interior tiles, and tiles over each edge of the grid (clipped left, right, top, bottom),
        // at the base zoom, one finer (upsampled) and one coarser (the whole grid in one tile).
        var tiles: [MapTile] = []
        for zoom in [14, 17, 18] {
            let range = TilePyramid().range(zoom: zoom, extent: source.extent)
            tiles += [MapTile(zoom: zoom, x: range.minX, y: range.minY), MapTile(zoom: zoom, x: range.maxX, y: range.maxY),
                      MapTile(zoom: zoom, x: (range.minX + range.maxX) / 2, y: (range.minY + range.maxY) / 2)]
        }
        var clipped = 0
        for tile in tiles {
            for size in [256, 512] {
                let q = Gdal2TilesQuery(tile: tile, tileSize: size, geoTransform: grid, width: width, height: height)
                let expected = Self.geoQuery(zoom: tile.zoom, x: tile.x, xyzRow: tile.y, tileSize: size, grid: grid, width: width, height: height)
                #expect([q.rx, q.ry, q.rxsize, q.rysize, q.wx, q.wy, q.wxsize, q.wysize] == expected, "\(tile) size \(size)")
                #expect(q.querysize == 4 * size)
                if q.wx > 0 || q.wy > 0 || q.wxsize < q.querysize || q.wysize < q.querysize { clipped += 1 }
            }
        }
        #expect(clipped >= 4)  // the edges were exercised
        // GDAL's RasterIO nearest-neighbour choice: a buffer pixel's centre scaled into the window, truncated.
        #expect(Gdal2TilesQuery.nearestPixels(start: 10, size: 3, count: 12, limit: 100) == [10, 10, 10, 10, 11, 11, 11, 11, 12, 12, 12, 12])
        #expect(Gdal2TilesQuery.nearestPixels(start: 0, size: 8, count: 2, limit: 100) == [2, 6])
        #expect(Gdal2TilesQuery.nearestPixels(start: 5, size: 3, count: 2, limit: 100) == [5, 7])
    }

    @Test func sameTileSetAsTheDefaultSampling() throws {
        try withTemporaryFolderPath { folder in
            for cutCollar in [true, false] {
                let options = RasterSourceOptions(cutCollar: cutCollar)
                let (_, a) = try tile(raster("19347_2.KAP"), folder + "/default-\(cutCollar)", zooms: 14...17, resampling: .average, source: options)
                let (_, b) = try tile(raster("19347_2.KAP"), folder + "/compat-\(cutCollar)", zooms: 14...17, resampling: .gdal2tiles, source: options)
                #expect(tileSet(folder + "/default-\(cutCollar)") == tileSet(folder + "/compat-\(cutCollar)"), "cutline \(cutCollar)")
                #expect(a.tileCount == b.tileCount && b.tileCount == (cutCollar ? 25 : 45))
            }
        }
    }

    static let gdal2tilesAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/gdal2tiles.py")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/gdal_translate")

    /// Against a real gdal2tiles.py run on the chart expanded to RGBA (zoom 15-16): the same tiles,
    /// and base tiles within 35 dB PSNR where both are opaque (the default sampling is far off).
    @Test(.enabled(if: gdal2tilesAvailable)) func matchesGdal2tiles() throws {
        try withTemporaryFolderPath { folder in
            try runTool("gdal_translate", ["-q", "-of", "VRT", "-expand", "rgba", raster("19347_2.KAP"), folder + "/rgba.vrt"])
            try runTool("gdal2tiles.py", ["--xyz", "-z", "15-16", "--processes=1", "-q", folder + "/rgba.vrt", folder + "/g2t"])
            let options = RasterSourceOptions(cutCollar: false)
            try tile(raster("19347_2.KAP"), folder + "/compat", zooms: 15...16, resampling: .gdal2tiles, source: options)
            try tile(raster("19347_2.KAP"), folder + "/default", zooms: 15...16, resampling: .average, source: options)
            let theirs = tileSet(folder + "/g2t")
            #expect(tileSet(folder + "/compat") == theirs)
            func psnr(_ mine: String) throws -> Double {
                var squared = 0.0, count = 0.0
                for name in theirs where name.hasPrefix("16/") {
                    let a = try DecodedImage(path: "\(folder)/\(mine)/\(name).png"), b = try DecodedImage(path: "\(folder)/g2t/\(name).png")
                    for i in stride(from: 0, to: a.rgba.count, by: 4) where a.rgba[i + 3] > 0 && b.rgba[i + 3] > 0 {
                        for c in 0..<3 {
                            let d = Double(a.rgba[i + c]) - Double(b.rgba[i + c])
                            squared += d * d
                            count += 1
                        }
                    }
                }
                return squared == 0 ? 99 : 10 * log10(255 * 255 * count / squared)
            }
            let compat = try psnr("compat"), standard = try psnr("default")
            #expect(compat >= 35, "--resampling gdal2tiles against gdal2tiles: \(compat) dB (default: \(standard) dB)")
            #expect(compat > standard + 10)
        }
    }
}
