import MeridianFormats
import MeridianGeometry

/// One zoom level's features cut into blocks (tiles a few levels above the level's tiles) and
/// set aside on disk, so that each block's tiles can be made with nothing else of the level in
/// memory: vector tiles and drawn tiles alike, however large the input.
///
/// Records (each a piece of a feature, in whatever bytes its user writes) gather in a buffer per
/// block and go to the scratch file as chunks when the buffers together pass a few megabytes; a
/// block is read back as its chunks in order. One file serves every block, where a file per
/// block would run out of descriptors at deep zooms.
package final class TileBlockSpill: @unchecked Sendable {
    // Written by one thread; read from several only after `finishWriting()`, when nothing changes.
    private let file: ScratchFile
    private var buffers: [MapTile: [UInt8]] = [:]
    private var chunks: [MapTile: [(offset: Int, length: Int)]] = [:]
    private var buffered = 0, written = 0
    /// How much the buffers may hold before they go to disk.
    private let bufferLimit = 2 << 20

    /// The zoom of a zoom level's blocks: three (64 blocks, enough for the threads to share out
    /// though the world's land is not spread evenly), or deeper as the zoom grows so that a
    /// block is never more than 32 by 32 tiles; never below the zoom itself.
    /// - Parameter zoom: The zoom level being tiled.
    package static func blockZoom(for zoom: Int) -> Int { max(min(zoom, 3), zoom - 5) }

    /// An empty spill in a new scratch file (removed when the spill goes).
    package init() throws {
        file = try ScratchFile(unlinked: "tile-blocks")
    }

    /// Appends `record` to `block`'s.
    package func append(_ block: MapTile, _ record: UnsafeRawBufferPointer) throws {
        buffers[block, default: []].append(contentsOf: record)
        buffered += record.count
        if buffered > bufferLimit { try flush() }
    }

    private func flush() throws {
        for (block, buffer) in buffers {
            buffer.withUnsafeBytes { file.sink.write($0) }
            chunks[block, default: []].append((written, buffer.count))
            written += buffer.count
        }
        buffers = [:]
        buffered = 0
        try file.sink.checkForErrors()
    }

    /// Ends the writing; returns the blocks that hold something, those with the most bytes first
    /// (so that the threads cutting them finish together rather than wait on one big block last).
    package func finishWriting() throws -> [MapTile] {
        try flush()
        try file.sink.flush()
        let sizes = chunks.mapValues { $0.reduce(0) { $0 + $1.length } }
        return sizes.keys.sorted { a, b in (sizes[a]!, b.y, b.x) > (sizes[b]!, a.y, a.x) }
    }

    /// A block's records, in the order appended, a chunk at a time (each chunk whole records,
    /// at most about the buffers' limit): a block of a low zoom level can hold most of the
    /// data, which its reader then never holds at once.
    package func forEachChunk(of block: MapTile, _ body: ([UInt8]) throws -> Void) throws {
        for chunk in chunks[block] ?? [] { try body(try file.read(at: chunk.offset, count: chunk.length)) }
    }

    /// A block's records, in the order appended, one after the other.
    package func records(of block: MapTile) throws -> [UInt8] {
        var bytes: [UInt8] = []
        // Sized once: a block of a low zoom level can hold most of the data.
        bytes.reserveCapacity(chunks[block]?.reduce(0) { $0 + $1.length } ?? 0)
        for chunk in chunks[block] ?? [] { bytes += try file.read(at: chunk.offset, count: chunk.length) }
        return bytes
    }
}
