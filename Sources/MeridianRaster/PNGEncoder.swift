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
    }

    let filtering: Filtering
    private let compressor: OpaquePointer
    /// The filtered image: per row, its filter type and the filtered bytes (the last image's
    /// in its first (row bytes + 1) × rows bytes; read by tests).
    private(set) var filtered: [UInt8] = []

    /// libdeflate's level 6, as zlib's default (GDAL's PNG driver's ZLEVEL).
    init(filtering: Filtering, level: Int32 = 6) throws {
        guard let compressor = libdeflate_alloc_compressor(level) else {
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
    /// the lower filter type, as in libpng.
    ///
    /// The five sums come from one pass over the row, and only the chosen filter is then
    /// written (back to front, in place: each byte's filter reads only bytes before it). The
    /// plain definition (every filter written out, then summed) took a third of the encoding
    /// of photograph tiles; the output is the same byte for byte (TileKernelTests checks it).
    private func filterAdaptively(_ image: UnsafeMutableBufferPointer<UInt8>, rowBytes: Int, height: Int, bytesPerPixel: Int) {
        guard rowBytes > 0, let base = image.baseAddress else { return }
        for y in stride(from: height - 1, through: 0, by: -1) {
            let start = y &* (rowBytes &+ 1)
            let row = base + start + 1
            let above: UnsafePointer<UInt8>? = y == 0 ? nil : UnsafePointer(base + start - rowBytes)
            let sums = Self.filterSums(UnsafePointer(row), above: above, count: rowBytes, bytesPerPixel: bytesPerPixel)
            var best = 0, bestSum = sums.0
            if sums.1 < bestSum { best = 1; bestSum = sums.1 }
            if sums.2 < bestSum { best = 2; bestSum = sums.2 }
            if sums.3 < bestSum { best = 3; bestSum = sums.3 }
            if sums.4 < bestSum { best = 4 }
            base[start] = UInt8(best)
            Self.applyFilter(best, to: row, above: above, count: rowBytes, bytesPerPixel: bytesPerPixel)
        }
    }

    /// Per filter type (none, sub, up, average, Paeth), the sum of the filtered row's bytes'
    /// absolute values as signed bytes. `above` is nil for the first row (zeros above). One
    /// simple loop per filter, with wrapping arithmetic, so that the compiler vectorizes them.
    @inline(__always)
    private static func filterSums(_ row: UnsafePointer<UInt8>, above: UnsafePointer<UInt8>?, count: Int, bytesPerPixel bpp: Int) -> (Int, Int, Int, Int, Int) {
        let lead = min(bpp, count)
        var none = 0, sub = 0, up = 0, average = 0, paeth = 0
        for i in 0..<count { none &+= magnitude(row[i]) }
        // Nothing to the left of the first pixel: sub is none there.
        for i in 0..<lead { sub &+= magnitude(row[i]) }
        for i in lead..<count { sub &+= magnitude(row[i] &- row[i &- bpp]) }
        guard let above else {
            // No row above: up is none, and Paeth predicts the byte to the left, as sub does.
            for i in 0..<lead { average &+= magnitude(row[i]) }
            for i in lead..<count { average &+= magnitude(row[i] &- (row[i &- bpp] >> 1)) }
            return (none, sub, none, average, sub)
        }
        for i in 0..<count { up &+= magnitude(row[i] &- above[i]) }
        // Nothing to the left: average predicts half the byte above, Paeth the byte above.
        for i in 0..<lead { average &+= magnitude(row[i] &- (above[i] >> 1)); paeth &+= magnitude(row[i] &- above[i]) }
        for i in lead..<count { average &+= magnitude(row[i] &- floorAverage(row[i &- bpp], above[i])) }
        for i in lead..<count { paeth &+= magnitude(row[i] &- paethPredictor(row[i &- bpp], above[i], above[i &- bpp])) }
        return (none, sub, up, average, paeth)
    }

    /// A filtered byte's absolute value as a signed byte (0 to 128).
    @inline(__always)
    private static func magnitude(_ byte: UInt8) -> Int { Int(Int8(bitPattern: byte).magnitude) }

    /// ⌊(a + b) / 2⌋ without leaving 8 bits.
    @inline(__always)
    private static func floorAverage(_ a: UInt8, _ b: UInt8) -> UInt8 { (a & b) &+ ((a ^ b) >> 1) }

    /// PNG's Paeth predictor: of the bytes left (a), above (b) and above left (c), the one
    /// nearest a + b − c, ties to a, then b.
    @inline(__always)
    private static func paethPredictor(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        @inline(__always) func distance(_ value: Int32) -> Int32 { value < 0 ? 0 &- value : value }
        let a32 = Int32(a), b32 = Int32(b), c32 = Int32(c)
        let pa = distance(b32 &- c32), pb = distance(a32 &- c32), pc = distance(a32 &+ b32 &- c32 &- c32)
        return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
    }

    /// `row` under PNG filter `type` (0 none, 1 sub, 2 up, 3 average, 4 Paeth), in place, from
    /// its last byte to its first (each byte's prediction reads bytes before it, still
    /// unfiltered). `above` is the unfiltered row above (nil for the first: zeros).
    private static func applyFilter(_ type: Int, to row: UnsafeMutablePointer<UInt8>, above: UnsafePointer<UInt8>?, count: Int, bytesPerPixel bpp: Int) {
        let lead = min(bpp, count)
        switch (type, above) {
        case (1, _), (4, nil):
            // Without a row above, Paeth predicts the byte to the left (and 0 at the start).
            var i = count &- 1
            while i >= lead { row[i] = row[i] &- row[i &- bpp]; i &-= 1 }
        case (2, let above?):
            for i in 0..<count { row[i] = row[i] &- above[i] }
        case (3, nil):
            var i = count &- 1
            while i >= lead { row[i] = row[i] &- (row[i &- bpp] >> 1); i &-= 1 }
        case (3, let above?):
            var i = count &- 1
            while i >= lead { row[i] = row[i] &- floorAverage(row[i &- bpp], above[i]); i &-= 1 }
            for i in 0..<lead { row[i] = row[i] &- (above[i] >> 1) }
        case (4, let above?):
            var i = count &- 1
            while i >= lead { row[i] = row[i] &- paethPredictor(row[i &- bpp], above[i], above[i &- bpp]); i &-= 1 }
            // Nothing to the left: Paeth predicts the byte above.
            for i in 0..<lead { row[i] = row[i] &- above[i] }
        default:
            return  // none, or up without a row above (zeros)
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
