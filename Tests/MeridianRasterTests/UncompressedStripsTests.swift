import CGDAL
import Foundation
import GDALSupport
import MeridianCore
import MeridianTestSupport
import Testing
@testable import MeridianRaster

/// The strips of an uncompressed RGBA GeoTIFF, read with pread, give GDAL's bytes; other
/// layouts are left to GDAL; a file cut short is an I/O error naming it.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gdal_translate")))
struct UncompressedStripsTests {
    /// A window read from the strips and by GDAL.
    static func bothWays(_ reader: UncompressedStrips, _ file: GDALDataset, x: Int, y: Int, width w: Int, height h: Int) throws -> (own: [UInt8], gdal: [UInt8]) {
        var own = [UInt8](repeating: 0, count: w * h * 4), gdal = own
        try own.withUnsafeMutableBytes { try reader.read(x: x, y: y, width: w, height: h, into: $0.baseAddress!) }
        var bands: [Int32] = [1, 2, 3, 4]
        let status = GDALDatasetRasterIO(file.handle, GF_Read, Int32(x), Int32(y), Int32(w), Int32(h), &gdal, Int32(w), Int32(h),
                                         GDT_Byte, 4, &bands, 4, Int32(4 * w), 1)
        #expect(status == CE_None)
        return (own, gdal)
    }

    /// Strips of one row and of 7 rows (the last one partial): windows at the corners, across
    /// strips and whole rows are GDAL's bytes.
    @Test(arguments: [nil, 7])
    func windowsAreGDALsBytes(rowsPerStrip: Int?) throws {
        try withTemporaryFolderPath { folder in
            let path = folder + "/rgba.tif"
            try runTool("gdal_translate", ["-q", "-expand", "rgba", raster("19347_2.KAP"), path]
                        + (rowsPerStrip.map { ["-co", "BLOCKYSIZE=\($0)"] } ?? []))
            let file = try #require(GDALDataset(opening: path, for: .raster))
            let reader = try #require(UncompressedStrips.open(file, path: path, bandMap: [1, 2, 3, 4]))
            let width = file.width, height = file.height
            let windows = [(0, 0, 1, 1), (0, 0, width, 3), (width - 5, height - 9, 5, 9), (17, 13, 300, 200), (width / 2, height / 3, 257, 15)]
            var colours = Set<UInt8>()
            for (x, y, w, h) in windows {
                let (own, gdal) = try Self.bothWays(reader, file, x: x, y: y, width: w, height: h)
                #expect(own == gdal, "window \(x), \(y), \(w) × \(h)")
                colours.formUnion(gdal)
            }
            // (The corners are the chart's plain margin; the middle is the chart.)
            #expect(colours.count > 10, "the windows hold the chart")
        }
    }

    /// Compressed, tiled, three-band files and other band orders are GDAL's to read.
    @Test func otherLayoutsAreLeftToGDAL() throws {
        try withTemporaryFolderPath { folder in
            let kap = raster("19347_2.KAP")
            let layouts: [(String, [String], [Int32])] = [
                ("deflate.tif", ["-expand", "rgba", "-co", "COMPRESS=DEFLATE"], [1, 2, 3, 4]),
                ("tiled.tif", ["-expand", "rgba", "-co", "TILED=YES"], [1, 2, 3, 4]),
                ("bands.tif", ["-expand", "rgba", "-co", "INTERLEAVE=BAND"], [1, 2, 3, 4]),
                ("rgb.tif", ["-expand", "rgb"], [1, 2, 3]),
                ("reordered.tif", ["-expand", "rgba"], [3, 2, 1, 4]),
            ]
            for (name, options, bandMap) in layouts {
                let path = folder + "/" + name
                try runTool("gdal_translate", ["-q"] + options + [kap, path])
                let file = try #require(GDALDataset(opening: path, for: .raster))
                #expect(UncompressedStrips.open(file, path: path, bandMap: bandMap) == nil, "\(name)")
            }
        }
    }

    /// A file cut short after it was opened: the read fails as an I/O error naming the file.
    @Test func fileCutShortIsAnIOError() throws {
        try withTemporaryFolderPath { folder in
            let path = folder + "/rgba.tif"
            try runTool("gdal_translate", ["-q", "-expand", "rgba", raster("19347_2.KAP"), path])
            let file = try #require(GDALDataset(opening: path, for: .raster))
            let reader = try #require(UncompressedStrips.open(file, path: path, bandMap: [1, 2, 3, 4]))
            #expect(truncate(path, 4096) == 0)
            var buffer = [UInt8](repeating: 0, count: 64 * 64 * 4)
            do {
                try buffer.withUnsafeMutableBytes { try reader.read(x: 0, y: file.height - 64, width: 64, height: 64, into: $0.baseAddress!) }
                Issue.record("a read past the end succeeded")
            } catch let error as MeridianError {
                #expect(error.kind == .io && error.location == SourceLocation(file: path))
            }
        }
    }
}

/// A tiled raster's windows are read by each thread from datasets of its own; the tiles are the
/// same bytes as those of the same pixels in strips, read through the shared datasets.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gdal_translate")))
struct OwnDatasetWindowTests {
    @Test func tiledRasterTilesAsItsStrips() throws {
        try withTemporaryFolderPath { folder in
            let strips = raster("RGB.byte.half.tif"), tiled = folder + "/tiled.tif"
            try runTool("gdal_translate", ["-q", "-co", "TILED=YES", "-co", "BLOCKXSIZE=64", "-co", "BLOCKYSIZE=64", "-co", "COMPRESS=DEFLATE",
                                           strips, tiled])
            #expect(try SourceWindowReader(source: RasterSource(path: tiled)).threadsReadOwnDatasets)
            #expect(try !SourceWindowReader(source: RasterSource(path: strips)).threadsReadOwnDatasets)
            #expect(try !SourceWindowReader(source: RasterSource(path: raster("19347_2.KAP"))).threadsReadOwnDatasets)
            let fromStrips = folder + "/strips-tiles", fromTiles = folder + "/tiled-tiles"
            try tile(strips, fromStrips, zooms: 7...9, jobs: 2)
            try tile(tiled, fromTiles, zooms: 7...9, jobs: 2)
            let names = tileSet(fromStrips)
            #expect(names.count > 10 && names == tileSet(fromTiles))
            expectSamePNGTiles(names, in: fromTiles, as: fromStrips, "tiled against strips")
        }
    }
}
