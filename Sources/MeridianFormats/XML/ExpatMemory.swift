import CExpat
import MeridianCore

/// The memory expat allocates, with its large blocks (the input buffer) as whole pages of their
/// own, so that a regular file can be mapped into the buffer `XML_GetBuffer` returns and parsed
/// in one final `XML_ParseBuffer` call, without reading it.
///
/// Why: expat keeps the line and column of its position by scanning every byte once more, at the
/// end of every call that is not the last, or when asked (a dozen instructions a byte: a third of
/// the reading thread on a large KML file). A document parsed in one final call is never
/// scanned that way, but expat (built with `XML_CONTEXT_BYTES`, as Debian builds it) copies what
/// `XML_Parse` is given into its own buffer: the whole file, in memory at once. Mapped into the
/// buffer instead, the file's pages come in as expat reaches them and go again behind it
/// (`releasePages`), so memory stays flat.
enum ExpatMemory {
    /// Allocations from this size on are mapped pages of their own (expat's buffer; nothing else
    /// it allocates is this large in practice).
    static let pageBlockSize = 1 << 20

    /// expat's allocator: `malloc` for small blocks, anonymous mappings for large ones.
    static var suite: XML_Memory_Handling_Suite {
        XML_Memory_Handling_Suite(
            malloc_fcn: { size in ExpatMemory.allocate(size) },
            realloc_fcn: { pointer, size in ExpatMemory.reallocate(pointer, size) },
            free_fcn: { pointer in ExpatMemory.free(pointer) })
    }

    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    private static func roundedToPages(_ size: Int) -> Int { (size + pageSize - 1) / pageSize * pageSize }

    /// The mapped blocks' lengths, by address. Parsers on several threads share it.
    private static let blocks = Locked<[UnsafeMutableRawPointer: Int]>([:])

    private static func allocate(_ size: Int) -> UnsafeMutableRawPointer? {
        guard size >= pageBlockSize else { return malloc(size) }
        let length = roundedToPages(size)
        guard let block = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              block != MAP_FAILED else { return nil }
        blocks.withLock { $0[block] = length }
        return block
    }

    private static func reallocate(_ pointer: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer? {
        guard let pointer else { return allocate(size) }
        // A block from malloc stays one, whatever its new size: only fresh buffers are mapped.
        guard let mappedLength = blocks.withLock({ $0[pointer] }) else { return realloc(pointer, size) }
        guard let moved = allocate(size) else { return nil }
        moved.copyMemory(from: pointer, byteCount: min(size, mappedLength))
        free(pointer)
        return moved
    }

    private static func free(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return }
        if let length = blocks.withLock({ $0.removeValue(forKey: pointer) }) {
            munmap(pointer, length)
        } else {
            Platform.free(pointer)
        }
    }

    /// Maps `size` bytes of the regular file `descriptor` (from its start) over `buffer`, which
    /// must be the start of one of expat's mapped blocks at least that large: the bytes read as
    /// the file's, copied on write. False when `buffer` is not such a block or the map fails.
    static func mapFile(_ descriptor: Int32, size: Int, into buffer: UnsafeMutableRawPointer) -> Bool {
        guard let length = blocks.withLock({ $0[buffer] }), length >= size,
              let mapped = mmap(buffer, roundedToPages(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, descriptor, 0),
              mapped == buffer else { return false }
        return true
    }

    /// Lets the whole pages of `buffer` between `start` and `end` go (their bytes are read from
    /// the file again if touched): the parse has passed them.
    static func releasePages(of buffer: UnsafeMutableRawPointer, from start: Int = 0, before end: Int) {
        let first = start / pageSize * pageSize, last = end / pageSize * pageSize
        if last > first { madvise(buffer + first, last - first, MADV_DONTNEED) }
    }
}
