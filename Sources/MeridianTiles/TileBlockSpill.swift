import MeridianFormats
import MeridianGeometry

/// One zoom level's simplified features cut into blocks (nodes of the level's quadtree a few
/// levels above its tiles) and set aside on disk, so that each block's tiles can be cut with
/// nothing else of the level in memory.
///
/// Pieces gather in a buffer per block and go to the scratch file as chunks when the buffers
/// together pass a few megabytes; a block is read back as its chunks in order. One file serves
/// every block, where a file per block would run out of descriptors at deep zooms.
final class TileBlockSpill: @unchecked Sendable {
    // Written by one thread; read from several only after `finishWriting()`, when nothing changes.
    private let file: ScratchFile
    private var buffers: [QuadNode: RecordWriter] = [:]
    private var chunks: [QuadNode: [(offset: Int, length: Int)]] = [:]
    private var buffered = 0, written = 0
    /// How much the buffers may hold before they go to disk.
    private let bufferLimit = 2 << 20

    init() throws {
        file = try ScratchFile("vector-blocks")
    }

    /// Appends a feature's piece in `block`: its layer, its attributes' bytes as the feature
    /// spill holds them, and its shape.
    func append(_ block: QuadNode, layer: Int, attributes: UnsafeRawBufferPointer, shape: PlaneShape) throws {
        var buffer = buffers.removeValue(forKey: block) ?? RecordWriter()
        let before = buffer.bytes.count
        buffer.putRecord { record in
            record.put(UInt32(layer))
            record.put(attributes)
            record.put(shape.points)
            record.put(count: shape.lines.count)
            shape.lines.forEach { record.put($0) }
            record.put(count: shape.polygons.count)
            for polygon in shape.polygons {
                record.put(count: polygon.count)
                polygon.forEach { record.put($0) }
            }
        }
        buffered += buffer.bytes.count - before
        buffers[block] = buffer
        if buffered > bufferLimit { try flush() }
    }

    private func flush() throws {
        for (block, buffer) in buffers.sorted(by: { $0.key < $1.key }) {
            buffer.bytes.withUnsafeBytes { file.sink.write($0) }
            chunks[block, default: []].append((written, buffer.bytes.count))
            written += buffer.bytes.count
        }
        buffers = [:]
        buffered = 0
        try file.sink.checkForErrors()
    }

    /// Ends the writing; returns the blocks that hold something, those with the most bytes first
    /// (so that the threads cutting them finish together rather than wait on one big block last).
    func finishWriting() throws -> [QuadNode] {
        try flush()
        try file.sink.flush()
        let sizes = chunks.mapValues { $0.reduce(0) { $0 + $1.length } }
        return sizes.keys.sorted { (sizes[$0]!, $1) > (sizes[$1]!, $0) }
    }

    /// A block's pieces, in the order appended: each a ``TileItem`` whose `feature` indexes the
    /// attributes returned with them.
    func pieces(of block: QuadNode) throws -> (items: [TileItem], attributes: [TileAttributes]) {
        var items: [TileItem] = [], attributes: [TileAttributes] = []
        for chunk in chunks[block] ?? [] {
            let bytes = try file.read(at: chunk.offset, count: chunk.length)
            RecordBatches.forEach(in: bytes) { record in
                let layer = record.count()
                attributes.append(TileAttributes(&record))
                let points = record.planePoints()
                let lines = (0..<record.count()).map { _ in record.planePoints() }
                let polygons = (0..<record.count()).map { _ in (0..<record.count()).map { _ in record.planePoints() } }
                items.append(TileItem(layer: layer, feature: items.count,
                                      shape: PlaneShape(points: points, lines: lines, polygons: polygons)))
            }
        }
        return (items, attributes)
    }
}
