import CZlib
import MeridianCore
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

    /// `bytes` inflated: gzip (RFC 1952) or zlib (RFC 1950) data, as tiles and PMTiles
    /// directories are stored.
    /// - Parameters:
    ///   - bytes: The compressed bytes.
    ///   - limit: The most bytes the result may have (a guard against a few bytes that
    ///     inflate to gigabytes): every caller states its own, from ``TileInputLimits``.
    /// - Throws: `MeridianError` (bad input) when the bytes are not gzip or zlib data, are cut
    ///   short, or inflate past `limit`; inflating stops there.
    public static func decompress(_ bytes: [UInt8], limit: Int) throws -> [UInt8] {
        var stream = z_stream()
        // windowBits 15 + 32: either header, recognised by its first bytes.
        guard inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw MeridianError(.io, "cannot start zlib's inflate")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        // A chunk of about what the data likely inflates to, never more than the limit allows.
        var chunk = [UInt8](repeating: 0, count: min(max(1 << 16, bytes.count.multipliedReportingOverflow(by: 4).partialValue), limit + 1, 1 << 24))
        var input = bytes
        var result: Int32 = Z_OK
        try input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            while result != Z_STREAM_END {
                let produced = chunk.withUnsafeMutableBufferPointer { outBuffer -> Int in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = uInt(outBuffer.count)
                    result = inflate(&stream, Z_NO_FLUSH)
                    return outBuffer.count - Int(stream.avail_out)
                }
                guard result == Z_OK || result == Z_STREAM_END, produced > 0 || result == Z_STREAM_END else {
                    throw MeridianError(.badInput, "the data is not gzip or zlib data, or is cut short")
                }
                output += chunk.prefix(produced)
                guard output.count <= limit else {
                    throw MeridianError(.badInput, "the data inflates to more than \(limit) bytes")
                }
            }
        }
        return output
    }
}
