import MeridianCore

/// The line of a place in a document held in memory, counted as expat counts lines (a line ends
/// at LF, CR LF or a lone CR, so CR LF is one), moving on from the place asked for last. For a
/// document expat parses in one call, where expat keeps no position of its own (see
/// `ExpatMemory`); only for encodings where CR and LF are single bytes (not UTF-16).
struct LineCounter {
    private let bytes: UnsafeBufferPointer<UInt8>
    /// The place asked for last, and its line.
    private var offset = 0
    private var line = 1

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// The 1-based line of the byte at `target`.
    mutating func line(at target: Int) -> Int {
        let target = min(max(target, 0), bytes.count)
        guard let base = bytes.baseAddress else { return line }
        if target < offset {
            // Never while a document is parsed in order; counted again from the start.
            offset = 0
            line = 1
        }
        line += Self.lineEnds(base + offset, target - offset, followedBy: target < bytes.count ? bytes[target] : nil)
        offset = target
        return line
    }

    /// Line ends in `length` bytes at `start` (a CR at the end counts unless `next` is LF), found
    /// with `memchr`, which scans many bytes an instruction.
    private static func lineEnds(_ start: UnsafePointer<UInt8>, _ length: Int, followedBy next: UInt8?) -> Int {
        guard length > 0 else { return 0 }
        var ends = 0
        var p = UnsafeRawPointer(start)
        let end = p + length
        while let found = memchr(p, 0x0A, end - p) {
            ends += 1
            p = UnsafeRawPointer(found) + 1
        }
        // Carriage returns: each one not followed by a line feed ends a line too.
        p = UnsafeRawPointer(start)
        while let found = memchr(p, 0x0D, end - p) {
            let cr = UnsafeRawPointer(found)
            let following = cr + 1 < end ? cr.load(fromByteOffset: 1, as: UInt8.self) : next
            if following != 0x0A { ends += 1 }
            p = cr + 1
        }
        return ends
    }
}
