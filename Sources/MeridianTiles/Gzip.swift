import CDeflate
import MeridianCore
import MeridianFormats

/// gzip through libdeflate, for every tile Meridian stores gzipped (vector tiles in MBTiles and
/// PMTiles, from `tile`, `tile-join` and `tile copy`), the gzipped size `--maximum-tile-bytes`
/// counts, PMTiles' directories and metadata, and every gzipped tile or directory read back.
///
/// libdeflate compresses a whole buffer at once, with a compressor each thread keeps: no stream
/// to set up per tile (zlib's `deflateInit2` allocated and cleared its window and tables for every
/// tile: 14% of its instructions on countries' tiles), and its level 6 makes output 0.1% smaller
/// than zlib's level 6 in 1.8x fewer instructions (Benchmarks/README.md, "libdeflate and property
/// bytes round": countries z0-8's 40,541 tiles).
public enum Gzip {
    /// libdeflate's compression level (1-12): 6, libdeflate's default, as tippecanoe (zlib's 6).
    static let level: Int32 = 6

    /// `bytes` gzipped (RFC 1952), as vector tiles are stored in MBTiles and PMTiles, and
    /// PMTiles stores its directories and metadata. The same bytes always give the same output.
    /// - Throws: `MeridianError` (I/O) when libdeflate cannot allocate its compressor.
    public static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        let compressor = try compressor()
        let bound = libdeflate_gzip_compress_bound(compressor.pointer, bytes.count)
        let output = [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
            count = bytes.withUnsafeBytes { input in
                libdeflate_gzip_compress(compressor.pointer, input.baseAddress, input.count, buffer.baseAddress, bound)
            }
        }
        // Only a buffer smaller than the bound makes libdeflate return 0.
        guard !output.isEmpty else { throw MeridianError(.io, "libdeflate could not compress a tile") }
        return output
    }

    /// `bytes` inflated: gzip (RFC 1952) or zlib (RFC 1950) data, as tiles and PMTiles
    /// directories are stored. Only the first gzip member is read, and bytes after it are
    /// ignored, as zlib's `inflate` did.
    /// - Parameters:
    ///   - bytes: The compressed bytes.
    ///   - limit: The most bytes the result may have (a guard against a few bytes that
    ///     inflate to gigabytes): every caller states its own, from ``TileInputLimits``.
    /// - Throws: `MeridianError` (bad input) when the bytes are not gzip or zlib data, are cut
    ///   short, or inflate past `limit`; inflating stops there, and nothing larger than `limit`
    ///   bytes is allocated.
    public static func decompress(_ bytes: [UInt8], limit: Int) throws -> [UInt8] {
        let decompressor = try decompressor()
        let isGzip = bytes.count >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b
        // A first buffer of the size a gzip trailer states (ISIZE: the size modulo 2^32, which
        // the data may belie), or of four times the compressed bytes; grown fourfold, up to
        // `limit`, while libdeflate finds it too small.
        var capacity = min(max(1 << 16, bytes.count.multipliedReportingOverflow(by: 4).partialValue), max(limit, 0))
        if isGzip, bytes.count >= 18 {
            let n = bytes.count
            let statedSize = Int(bytes[n - 4]) | Int(bytes[n - 3]) << 8 | Int(bytes[n - 2]) << 16 | Int(bytes[n - 1]) << 24
            if statedSize <= limit { capacity = statedSize }
        }
        while true {
            var result = LIBDEFLATE_BAD_DATA
            // At least one byte, so that an empty result still has an address.
            let output = [UInt8](unsafeUninitializedCapacity: max(capacity, 1)) { buffer, count in
                var produced = 0
                result = bytes.withUnsafeBytes { input in
                    isGzip
                        ? libdeflate_gzip_decompress(decompressor.pointer, input.baseAddress, input.count, buffer.baseAddress, capacity, &produced)
                        : libdeflate_zlib_decompress(decompressor.pointer, input.baseAddress, input.count, buffer.baseAddress, capacity, &produced)
                }
                count = result == LIBDEFLATE_SUCCESS ? produced : 0
            }
            switch result {
            case LIBDEFLATE_SUCCESS:
                return output
            case LIBDEFLATE_INSUFFICIENT_SPACE where capacity < limit:
                // Larger each time (a stated size of 0 too), and never past the limit.
                capacity = min(max(capacity.multipliedReportingOverflow(by: 4).partialValue, 1 << 16), limit)
            case LIBDEFLATE_INSUFFICIENT_SPACE:
                throw MeridianError(.badInput, "the data inflates to more than \(limit) bytes")
            default:
                throw MeridianError(.badInput, "the data is not gzip or zlib data, or is cut short")
            }
        }
    }

    /// A libdeflate compressor or decompressor, freed with its owner.
    private final class Coder {
        let pointer: OpaquePointer
        private let free: (OpaquePointer) -> Void

        init(_ pointer: OpaquePointer, free: @escaping (OpaquePointer) -> Void) {
            self.pointer = pointer
            self.free = free
        }

        deinit { free(pointer) }
    }

    /// Each thread's compressor: libdeflate's is not to be shared between threads, and its
    /// tables (about half a megabyte at level 6) are set up once per thread, not per tile.
    private static let compressors = try? PerThread<Coder> {
        guard let pointer = libdeflate_alloc_compressor(level) else {
            throw MeridianError(.io, "cannot start libdeflate's compressor: out of memory")
        }
        return Coder(pointer, free: libdeflate_free_compressor)
    }

    /// Each thread's decompressor.
    private static let decompressors = try? PerThread<Coder> {
        guard let pointer = libdeflate_alloc_decompressor() else {
            throw MeridianError(.io, "cannot start libdeflate's decompressor: out of memory")
        }
        return Coder(pointer, free: libdeflate_free_decompressor)
    }

    private static func compressor() throws -> Coder {
        guard let compressors else { throw MeridianError(.io, "cannot keep a compressor per thread") }
        return try compressors.value()
    }

    private static func decompressor() throws -> Coder {
        guard let decompressors else { throw MeridianError(.io, "cannot keep a decompressor per thread") }
        return try decompressors.value()
    }
}
