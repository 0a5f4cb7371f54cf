import MeridianCore
import MeridianFormats
import MeridianGeometry

/// Bytes of a spill record being built: fixed-width little-endian fields, which read back with
/// no parsing (the spills are this process's own scratch files, read back by it alone).
struct RecordWriter {
    private(set) var bytes: [UInt8] = []

    mutating func put(_ value: UInt8) { bytes.append(value) }

    mutating func put(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }

    mutating func put(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }

    mutating func put(_ value: Double) { put(value.bitPattern) }

    mutating func put(count: Int) { put(UInt32(count)) }

    mutating func put(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            put(count: utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func put(_ raw: UnsafeRawBufferPointer) { bytes.append(contentsOf: raw) }

    /// Points as pairs of doubles after their count (`coordinates` gives each point's pair).
    mutating func put<Point>(_ points: [Point], _ coordinates: (Point) -> (Double, Double)) {
        put(count: points.count)
        for point in points {
            let (a, b) = coordinates(point)
            put(a)
            put(b)
        }
    }

    /// Map points as x, y pairs after their count.
    mutating func put(_ points: [PlanePoint]) { put(points) { ($0.x, $0.y) } }

    /// Writes `body`'s bytes after a 32-bit count of them, the framing every spill record has.
    mutating func putRecord(_ body: (inout RecordWriter) -> Void) {
        let start = bytes.count
        put(UInt32(0))
        body(&self)
        let length = UInt32(bytes.count - start - 4).littleEndian
        withUnsafeBytes(of: length) { length in
            for i in 0..<4 { bytes[start + i] = length[i] }
        }
    }
}

/// Reads the fields a ``RecordWriter`` wrote, in the same order, from a buffer it does not own.
struct RecordReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var offset: Int

    init(_ bytes: UnsafeRawBufferPointer, at offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func byte() -> UInt8 {
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint32() -> UInt32 {
        defer { offset += 4 }
        return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    mutating func uint64() -> UInt64 {
        defer { offset += 8 }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    mutating func double() -> Double { Double(bitPattern: uint64()) }

    mutating func count() -> Int { Int(uint32()) }

    mutating func string() -> String {
        let count = count()
        defer { offset += count }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]), as: UTF8.self)
    }

    /// The next `count` bytes, not copied.
    mutating func raw(_ count: Int) -> UnsafeRawBufferPointer {
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
    }

    /// Points that ``RecordWriter/put(_:_:)`` wrote, each made by `point` from its pair.
    mutating func points<Point>(_ point: (Double, Double) -> Point) -> [Point] {
        (0..<count()).map { _ in
            let a = double()
            return point(a, double())
        }
    }

    mutating func planePoints() -> [PlanePoint] { points(PlanePoint.init) }

    mutating func positions() -> [Position] { points { Position(longitude: $0, latitude: $1) } }
}

/// A scratch file of length-framed records read back in order in batches of whole records
/// (about a megabyte each), so memory holds one batch per reader whatever the file's size.
struct RecordBatches {
    private let file: ScratchFile
    private let length: Int
    private var offset = 0
    /// The start of a record the last read cut in two, which the next batch begins with.
    private var carried: [UInt8] = []

    /// Reads `file` from its start to `length` (the bytes written to it, flushed).
    init(_ file: ScratchFile, length: Int) {
        self.file = file
        self.length = length
    }

    /// The next whole records (each a 32-bit length and its body), nil at the end.
    mutating func next() throws -> [UInt8]? {
        // What was carried over is never a whole record, so there is always more to read; a
        // record longer than a read pulls in the next.
        var batch = carried, end = 0
        while end == 0 {
            guard offset < length else {
                guard batch.isEmpty else { throw MeridianError(.io, "a scratch file ends inside a record", at: SourceLocation(file: file.path)) }
                return nil
            }
            let count = min(1 << 20, length - offset)
            batch += try file.read(at: offset, count: count)
            offset += count
            end = Self.endOfWholeRecords(batch)
        }
        carried = Array(batch[end...])
        batch.removeSubrange(end...)
        return batch
    }

    /// Where the last whole record in `bytes` ends.
    private static func endOfWholeRecords(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { bytes in
            var end = 0
            while end + 4 <= bytes.count {
                let next = end + 4 + Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: end, as: UInt32.self)))
                guard next <= bytes.count else { break }
                end = next
            }
            return end
        }
    }

    /// Calls `body` with a reader at the start of each record's body in `batch`.
    static func forEach(in batch: [UInt8], _ body: (inout RecordReader) throws -> Void) rethrows {
        try batch.withUnsafeBytes { bytes in
            var framing = RecordReader(bytes)
            while !framing.isAtEnd {
                let length = framing.count()
                var record = RecordReader(UnsafeRawBufferPointer(rebasing: bytes[..<(framing.offset + length)]), at: framing.offset)
                try body(&record)
                _ = framing.raw(length)
            }
        }
    }
}
