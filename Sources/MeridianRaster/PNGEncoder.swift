import CDeflate
import MeridianCore
import MeridianFormats

/// PNG tiles, encoded here rather than through GDAL's PNG driver.
///
/// Why by hand: GDAL's driver goes through libpng, which compresses with zlib row by row and
/// tries all five row filters on every row; libpng offers no other compressor. libdeflate
/// compresses the whole image at once, faster than zlib at the same level. What is left to
/// write is PNG's container (the signature and the IHDR, IDAT and IEND chunks with their CRCs)
/// and its row filters (PNG specification, section 9).
///
/// Measured on the 1,414 tiles of NOAA chart 19350 at zoom 0-17, re-encoded on one thread:
/// GDAL's driver (libpng, zlib level 6, adaptive filters) 2.3 s and 10.07 MB; libpng and zlib
/// with unfiltered rows 1.07 s and 7.08 MB; unfiltered rows and libdeflate level 6, 0.69 s and
/// 7.17 MB. Photographs (rasterio's RGB.byte.tif, L7_ETMs.tif, world.rgb.tif) need the
/// filters: unfiltered they grow by 18-31%, adaptively filtered they stay within 1% of
/// libpng's size.
final class PNGEncoder {
    /// How rows are filtered before they are compressed.
    enum Filtering: Sendable {
        /// No filter. Best for images of few flat colours, such as charts and scanned maps made
        /// from a palette: their repeated runs of pixels compress better as they are than as
        /// differences (what PNG recommends for palette images; on chart tiles 24% smaller
        /// than the adaptive filters).
        case none
        /// Per row, the filter whose output has the least sum of absolute values (as signed
        /// bytes): libpng's default for truecolour images, right for photographs.
        case adaptive

        /// libdeflate's level for rows filtered so. Adaptively filtered rows (photographs, RGBA
        /// sources): level 2, whose greedy matching took 16-42% less time than level 6 on the
        /// filtered rows of the three sources `Benchmarks/tile-peers` tiles, for tiles 3-5%
        /// larger than level 6's and still smaller than `gdal raster tile`'s (zlib level 6):
        /// 10.12 against 14.11 MB, 23.75 against 23.96 MB, 12.98 against 13.98 MB (libdeflate
        /// was a third of the time of the DEFLATE GeoTIFF's run). Unfiltered rows (charts
        /// from a palette): level 6, as zlib's default (GDAL's PNG driver's ZLEVEL), where
        /// level 2 makes tiles 6.6% larger for a compression that is a few percent of the run.
        var compressionLevel: Int32 {
            switch self {
            case .none: 6
            case .adaptive: 2
            }
        }
    }

    let filtering: Filtering
    private let compressor: OpaquePointer
    /// The filtered image: per row, its filter type and the filtered bytes (the last image's
    /// in its first (row bytes + 1) × rows bytes; read by tests).
    private(set) var filtered: [UInt8] = []
    /// A row of zeros, then the four predicting filters' rows (adaptive filtering's scratch).
    private var rowScratch: [UInt8] = []

    /// An encoder filtering rows by `filtering`, compressing at libdeflate's `level` (by
    /// default the filtering's `compressionLevel`).
    init(filtering: Filtering, level: Int32? = nil) throws {
        guard let compressor = libdeflate_alloc_compressor(level ?? filtering.compressionLevel) else {
            throw MeridianError(.io, "cannot encode a tile: out of memory")
        }
        self.filtering = filtering
        self.compressor = compressor
    }

    deinit { libdeflate_free_compressor(compressor) }

    /// A PNG of `width` × `height` pixels of `channels` 8-bit channels (1 gray, 2 gray and
    /// alpha, 3 RGB, 4 RGBA), taken from `pixels`, whose pixels lie `stride` bytes apart (bytes
    /// after the first `channels` of each, such as an alpha channel left out, are skipped).
    func encode(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, channels: Int, stride: Int) throws -> [UInt8] {
        precondition((1...4).contains(channels) && stride >= channels && pixels.count >= width * height * stride)
        let rowBytes = width * channels
        let filteredCount = (rowBytes + 1) * height
        if filtered.count < filteredCount { filtered = [UInt8](repeating: 0, count: filteredCount) }
        filtered.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                out[y * (rowBytes + 1)] = 0   // filter type: none (adaptive filtering chooses again)
                let row = UnsafeMutableBufferPointer(rebasing: out[(y * (rowBytes + 1) + 1)..<((y + 1) * (rowBytes + 1))])
                Self.pack(UnsafeBufferPointer(rebasing: pixels[(y * width * stride)...]), into: row, channels: channels, stride: stride)
            }
            if filtering == .adaptive { filterAdaptively(out, rowBytes: rowBytes, height: height, bytesPerPixel: channels) }
        }
        return try container(width: width, height: height, channels: channels, dataCount: filteredCount)
    }

    /// A row's pixels, `channels` bytes each, from pixels `stride` bytes apart.
    private static func pack(_ source: UnsafeBufferPointer<UInt8>, into row: UnsafeMutableBufferPointer<UInt8>, channels: Int, stride: Int) {
        if stride == channels {
            row.baseAddress!.update(from: source.baseAddress!, count: row.count)
            return
        }
        // Opaque tiles lose their alpha: RGB from RGBA, gray from gray and alpha, with the
        // channel count a constant in each loop.
        let from = source.baseAddress!, to = row.baseAddress!, end = row.count
        @inline(__always) func pack(_ channels: Int) {
            var i = 0, o = 0
            while o < end {
                for c in 0..<channels { to[o &+ c] = from[i &+ c] }
                i &+= stride
                o &+= channels
            }
        }
        switch channels {
        case 1: pack(1)
        case 3: pack(3)
        default: pack(channels)
        }
    }

    /// Filters every row in place (bottom up, as each row's filter reads the unfiltered row
    /// above), each by the filter whose output has the least sum of absolute values; ties go to
    /// the lower filter type, as in libpng (`PNGRowFilter`, 16 bytes at a time).
    private func filterAdaptively(_ image: UnsafeMutableBufferPointer<UInt8>, rowBytes: Int, height: Int, bytesPerPixel: Int) {
        guard rowBytes > 0, let base = image.baseAddress else { return }
        // The first row's "row above" is zeros; the four filters' rows are written side by side.
        if rowScratch.count < 5 * rowBytes { rowScratch = [UInt8](repeating: 0, count: 5 * rowBytes) }
        rowScratch.withUnsafeMutableBufferPointer { scratch in
            let zeros = scratch.baseAddress!, candidates = zeros + rowBytes
            zeros.update(repeating: 0, count: rowBytes)
            for y in stride(from: height - 1, through: 0, by: -1) {
                let start = y &* (rowBytes &+ 1)
                let above = y == 0 ? UnsafePointer(zeros) : UnsafePointer(base + start - rowBytes)
                base[start] = PNGRowFilter.filterAdaptively(base + start + 1, above: above, count: rowBytes,
                                                            bytesPerPixel: bytesPerPixel, scratch: candidates)
            }
        }
    }

    /// The PNG file around the first `dataCount` bytes of `filtered`: signature, IHDR, one
    /// IDAT holding them as a zlib stream, IEND.
    private func container(width: Int, height: Int, channels: Int, dataCount: Int) throws -> [UInt8] {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        // 8 bits per channel; colour types 0 gray, 4 gray and alpha, 2 RGB, 6 RGBA; compression,
        // filter method and interlace 0.
        let header = Self.bigEndian(UInt32(width)) + Self.bigEndian(UInt32(height)) + [8, [0, 4, 2, 6][channels - 1], 0, 0, 0]
        let head = signature + Self.chunk("IHDR", header), tail = Self.chunk("IEND", [])
        // The IDAT chunk is compressed straight into place: length and type, data, CRC.
        let dataStart = head.count + 8
        let bound = libdeflate_zlib_compress_bound(compressor, dataCount)
        return try [UInt8](unsafeUninitializedCapacity: dataStart + bound + 4 + tail.count) { file, count in
            _ = file.initialize(from: head)
            let compressed = filtered.withUnsafeBufferPointer { data in
                libdeflate_zlib_compress(compressor, data.baseAddress, dataCount, file.baseAddress! + dataStart, bound)
            }
            guard compressed > 0 else { throw MeridianError(.io, "cannot encode a tile: compression failed") }
            let idat = Self.bigEndian(UInt32(compressed)) + Array("IDAT".utf8)
            _ = UnsafeMutableBufferPointer(rebasing: file[(dataStart - 8)..<dataStart]).initialize(from: idat)
            let crc = Self.bigEndian(libdeflate_crc32(0, file.baseAddress! + dataStart - 4, 4 + compressed))
            count = dataStart + compressed
            _ = UnsafeMutableBufferPointer(rebasing: file[count...]).initialize(from: crc + tail)
            count += crc.count + tail.count
        }
    }

    /// A chunk: its data's length, its type, the data, and the CRC of type and data.
    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc(typed[...]))
    }

    private static func crc(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBufferPointer { libdeflate_crc32(0, $0.baseAddress, $0.count) }
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
}
