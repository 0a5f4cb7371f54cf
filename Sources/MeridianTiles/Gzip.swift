import CZlib
import MeridianFormats

/// gzip through zlib.
public enum Gzip {
    /// `bytes` gzipped (RFC 1952), as vector tiles are stored in MBTiles and PMTiles, and
    /// PMTiles stores its directories and metadata.
    public static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        var stream = z_stream()
        // windowBits 15 + 16: a gzip header and trailer rather than zlib's.
        guard deflateInit2_(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw MeridianError(.io, "cannot start zlib's deflate")
        }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 32)
        var input = bytes
        let result = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else { throw MeridianError(.io, "zlib could not compress a tile") }
        return Array(output.prefix(Int(stream.total_out)))
    }
}
