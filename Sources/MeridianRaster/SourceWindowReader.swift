import CGDAL
import Foundation
import GDALSupport
import MeridianCore
import MeridianFormats

/// A raster's pixels, read window by window for every thread tiling it from one dataset, the
/// reads taking turns.
///
/// GDAL decodes and caches a raster's blocks per dataset (a BSB chart's block is a scanline,
/// 12,948 pixels of NOAA 19350 run-length decoded, then shifted by GDAL's BSB driver a byte at
/// a time). With a dataset per thread, two threads tiling neighbouring blocks decoded the same
/// scanlines once each and pushed each other's out of the shared block cache. The threads still
/// warp with datasets of their own; only the windows the sampling kernels read come from here.
///
/// A tiled raster (blocks narrower than the raster, such as a JPEG-compressed tiled GeoTIFF's
/// 256 × 256 tiles) is the exception: neighbouring tile blocks share few of its blocks, and
/// decoding them (JPEG) is most of a read, which one dataset made one thread wait for the
/// other's. Its windows are read by each thread from its own datasets (`threadsReadOwnDatasets`).
final class SourceWindowReader: @unchecked Sendable {
    let source: RasterSource
    private let file: GDALDataset
    private let prepared: GDALDataset
    /// An uncompressed RGBA GeoTIFF's strips, read without GDAL (and without the lock); nil
    /// for every other raster.
    private let strips: UncompressedStrips?
    /// GDAL datasets may be used from one thread at a time.
    private let lock = NSLock()
    /// Whether each thread reads windows from datasets of its own (`rgba(…, from:)`), because
    /// the raster is tiled in blocks narrower than itself and not paletted (a palette's
    /// indexes are read from the shared file).
    let threadsReadOwnDatasets: Bool

    /// Opens `source` for reading.
    /// - Throws: `MeridianError` when the file cannot be opened (again).
    init(source: RasterSource) throws {
        self.source = source
        // An uncompressed GeoTIFF's windows read straight from the file into place (GDAL's
        // direct I/O, which the GeoTIFF driver takes up when it opens the file), not through
        // the block cache: a strip of such a file is often a whole row of the raster, which the
        // cache deinterleaves band by band across its whole width (19% of the instructions of
        // a tiling of NOAA 19350 as an RGBA GeoTIFF) for a window of a tenth of it. Other
        // files and formats ignore the option; the threads' own datasets (GDAL's warper) do
        // not have it.
        CPLSetThreadLocalConfigOption("GTIFF_DIRECT_IO", "YES")
        defer { CPLSetThreadLocalConfigOption("GTIFF_DIRECT_IO", nil) }
        (file, prepared) = try source.open()
        strips = source.palette == nil && prepared.handle == file.handle
            ? UncompressedStrips.open(file, path: source.openPath, bandMap: Self.bandMap(of: source)) : nil
        var blockWidth: Int32 = 0, blockHeight: Int32 = 0
        if file.bandCount > 0 { GDALGetBlockSize(file.band(1), &blockWidth, &blockHeight) }
        threadsReadOwnDatasets = source.palette == nil && strips == nil && blockWidth > 0 && Int(blockWidth) < file.width
    }

    /// The bands read into a window's channels: the colour bands to channels 0..., the alpha
    /// band (if any) last.
    private static func bandMap(of source: RasterSource) -> [Int32] {
        source.colorBands.map { Int32($0) } + (source.alphaBand.map { [Int32($0)] } ?? [])
    }

    /// `body`'s result on the dataset warped from the file (georeferencing attached, a
    /// palette expanded), while no other thread reads.
    func withPreparedDataset<T>(_ body: (GDALDataset) throws -> T) rethrows -> T {
        try lock.withLock { try body(prepared) }
    }

    /// A window's pixels as 4 bytes each: R, G, B (or gray in the first), alpha. Only GDAL's
    /// reads from the shared datasets hold the lock; reads from `own` (a thread's own
    /// datasets of the same source, used where `threadsReadOwnDatasets`), expanding a palette
    /// and marking nodata do not.
    func rgba(x: Int, y: Int, width w: Int, height h: Int, from own: GDALDataset? = nil) throws -> [UInt8] {
        if let palette = source.palette {
            // Indexes from the file itself, expanded through the colour table here: an index's
            // four bytes (the nodata index's alpha cleared) copied as one 32-bit word.
            let indexes = try [UInt8](unsafeUninitializedCapacity: w * h) { buffer, count in
                let status = lock.withLock {
                    GDALRasterIO(GDALGetRasterBand(file.handle, 1), GF_Read, Int32(x), Int32(y), Int32(w), Int32(h),
                                 buffer.baseAddress, Int32(w), Int32(h), GDT_Byte, 0, 0)
                }
                guard status == CE_None else { throw MeridianError.gdal(.io, "cannot read the raster", path: source.path) }
                count = w * h
            }
            var colours = palette.withUnsafeBytes { table in (0..<256).map { table.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self) } }
            if let noData = source.paletteNoData, colours.indices.contains(noData) { withUnsafeMutableBytes(of: &colours[noData]) { $0[3] = 0 } }
            return [UInt8](unsafeUninitializedCapacity: w * h * 4) { buffer, count in
                let out = UnsafeMutableRawBufferPointer(buffer)
                colours.withUnsafeBufferPointer { colour in
                    indexes.withUnsafeBufferPointer { index in
                        for i in index.indices { out.storeBytes(of: colour[Int(index[i])], toByteOffset: 4 * i, as: UInt32.self) }
                    }
                }
                count = w * h * 4
            }
        }
        let bands = source.colorBands
        // Colour bands to channels 0... and the alpha band (if any) to channel 3, in one read:
        // three colour bands and alpha fill every channel; gray and alpha lie three bytes apart.
        // Without alpha, channel 3 is opaque.
        var bandMap = Self.bandMap(of: source)
        let bandSpace: Int32 = bandMap.count == 2 && bands.count == 1 ? 3 : 1
        let fillsEveryChannel = bandMap.count == 4
        var status = CE_None
        var rgba = try [UInt8](unsafeUninitializedCapacity: w * h * 4) { buffer, count in
            if !fillsEveryChannel { buffer.initialize(repeating: 255) }
            count = w * h * 4
            if let strips {
                try strips.read(x: x, y: y, width: w, height: h, into: buffer.baseAddress!)
                return
            }
            func read(_ dataset: GDALDataset) -> CPLErr {
                GDALDatasetRasterIO(dataset.handle, GF_Read, Int32(x), Int32(y), Int32(w), Int32(h), buffer.baseAddress, Int32(w), Int32(h),
                                    GDT_Byte, Int32(bandMap.count), &bandMap, 4, Int32(4 * w), bandSpace)
            }
            if let own, threadsReadOwnDatasets {
                status = read(own)
            } else {
                status = lock.withLock { read(prepared) }
            }
        }
        guard status == CE_None else { throw MeridianError.gdal(.io, "cannot read the raster", path: source.path) }
        if let noData = source.noData {
            let values = noData.map { Int($0) }
            let exact = noData.allSatisfy { $0 == $0.rounded() && (0...255).contains($0) }
            if exact {
                // A pixel is nodata when its colour bands all hold their nodata values: one
                // comparison of its first 1 or 3 bytes as a word.
                let colourMask: UInt32 = bands.count == 1 ? 0xFF : 0xFF_FFFF
                var noDataWord: UInt32 = 0
                for (c, value) in values.prefix(3).enumerated() { noDataWord |= UInt32(value) << (8 * c) }
                noDataWord = UInt32(littleEndian: noDataWord)
                let mask = UInt32(littleEndian: colourMask)
                rgba.withUnsafeMutableBytes { pixels in
                    for offset in stride(from: 0, to: w * h * 4, by: 4)
                    where pixels.loadUnaligned(fromByteOffset: offset, as: UInt32.self) & mask == noDataWord {
                        pixels[offset + 3] = 0
                    }
                }
            }
        }
        return rgba
    }
}
