import MeridianCore
import SystemPackage

/// A file or standard input read in large chunks into one growable buffer.
///
/// Readers work on the bytes in place (`base[position..<limit]`) and ask for more with
/// `fill(atLeast:)`, which keeps every byte from `position` on, so a token that straddles two
/// reads is never copied twice. Memory is the buffer (64 KiB, or the largest single token),
/// whatever the size of the input.
public final class BufferedInput {
    /// The name used in messages: the path as given, or `<stdin>`.
    public let name: String
    /// The file's path; nil for standard input and memory.
    public let path: String?
    private let fd: Int32
    private let ownsDescriptor: Bool
    /// Where bytes come from when not a descriptor (an inflating zip entry): fills the buffer
    /// it is given and returns the count, 0 at the end.
    private let source: ((UnsafeMutableRawBufferPointer) throws -> Int)?

    @exclusivity(unchecked) @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) @usableFromInline var capacity: Int
    /// Index in `base` of the next byte to consume.
    @exclusivity(unchecked) @usableFromInline var position = 0
    /// Index in `base` one past the last byte read.
    @exclusivity(unchecked) @usableFromInline var limit = 0
    /// How many bytes of the stream came before `base[0]`.
    @exclusivity(unchecked) @usableFromInline var offsetOfBase = 0
    /// True once the source has nothing more to give.
    @exclusivity(unchecked) @usableFromInline var reachedEnd = false

    /// How much one `read(2)` asks for; tests make it tiny to cross every buffer boundary.
    let chunkSize: Int
    /// A single token (one JSON string, say) larger than this is refused instead of exhausting
    /// memory: the buffer holding it may double, and the value is copied once more, so 256 MiB
    /// keeps the worst case under a gigabyte. No real GeoJSON has a string near it.
    public static let maximumTokenSize = 256 << 20

    /// Opens a path, or standard input for nil or `-`.
    public static func open(_ path: String?, chunkSize: Int = 1 << 16) throws -> BufferedInput {
        guard let path, path != "-" else {
            return BufferedInput(fileDescriptor: STDIN_FILENO, name: "<stdin>", ownsDescriptor: false, chunkSize: chunkSize)
        }
        let fd = Platform.open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            throw MeridianError(.inputUnavailable, "cannot open input: \(String(cString: strerror(errno)))",
                                at: SourceLocation(file: path))
        }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw MeridianError(.inputUnavailable, "cannot read input: it is a directory", at: SourceLocation(file: path))
        }
        return BufferedInput(fileDescriptor: fd, name: path, path: path, ownsDescriptor: true, chunkSize: chunkSize)
    }

    /// An input read from an open descriptor (a pipe from a child process, say), in chunks of
    /// `chunkSize` bytes.
    /// - Parameters:
    ///   - fileDescriptor: The descriptor to read.
    ///   - name: The input's name in locations and messages.
    ///   - path: The file's path, when the descriptor is a file opened from one; nil otherwise.
    ///   - ownsDescriptor: Whether the input closes the descriptor when it goes.
    ///   - chunkSize: How much one `read(2)` asks for.
    public init(fileDescriptor: Int32, name: String, path: String? = nil, ownsDescriptor: Bool, chunkSize: Int = 1 << 16) {
        self.fd = fileDescriptor
        self.name = name
        self.path = path
        self.ownsDescriptor = ownsDescriptor
        self.chunkSize = chunkSize
        source = nil
        capacity = chunkSize
        base = .allocate(capacity: capacity)
    }

    /// An input pulled from `source`, which fills the buffer it is given and returns how many
    /// bytes it wrote, 0 at the end (a zip entry inflating as it is read).
    public init(name: String, chunkSize: Int = 1 << 16, source: @escaping (UnsafeMutableRawBufferPointer) throws -> Int) {
        fd = -1
        self.name = name
        path = nil
        ownsDescriptor = false
        self.chunkSize = chunkSize
        self.source = source
        capacity = chunkSize
        base = .allocate(capacity: capacity)
    }

    /// An input over bytes already in memory (tests, small strings).
    public init(bytes: some Collection<UInt8>, name: String = "<memory>") {
        fd = -1
        self.name = name
        path = nil
        ownsDescriptor = false
        source = nil
        chunkSize = 1 << 16
        capacity = max(bytes.count, 1)
        base = .allocate(capacity: capacity)
        _ = UnsafeMutableBufferPointer(start: base, count: capacity).initialize(from: bytes)
        limit = bytes.count
        reachedEnd = true
    }

    /// An input over a string's UTF-8 (tests, small documents).
    /// - Parameters:
    ///   - string: The text to read.
    ///   - name: The input's name in locations and messages.
    public convenience init(string: String, name: String = "<memory>") {
        self.init(bytes: Array(string.utf8), name: name)
    }

    deinit {
        base.deallocate()
        if ownsDescriptor { close(fd) }
    }

    /// Bytes of the stream consumed so far (for progress reports).
    public var bytesConsumed: Int { offsetOfBase + position }

    /// The input's size when it is a regular file (nil for pipes and terminals).
    public private(set) lazy var fileSize: Int? = {
        var info = stat()
        guard fd >= 0, fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }()

    /// The input's path when it names a regular file, which readers needing random access (a
    /// zip, GDAL) can open themselves; nil for standard input, pipes and memory.
    public var regularFilePath: String? { fileSize == nil ? nil : path }

    /// The descriptor and size of the regular file this input reads, while none of it has been
    /// consumed (a parser may then read the file itself, from its start); nil otherwise.
    public var unreadRegularFile: (descriptor: Int32, size: Int)? {
        guard fd >= 0, source == nil, offsetOfBase + position == 0, let fileSize else { return nil }
        return (fd, fileSize)
    }

    /// Bytes buffered and not yet consumed.
    @inlinable public var available: Int { limit - position }

    /// The absolute stream offset of `base[index]`.
    @inlinable func offset(ofIndex index: Int) -> Int { offsetOfBase + index }

    /// Makes at least `count` unconsumed bytes available, unless the input ends first.
    /// Returns how many are available. May move the buffer: re-read `base` and `position` after.
    @discardableResult
    public func fill(atLeast count: Int) throws -> Int {
        if limit - position >= count || reachedEnd { return limit - position }
        if count > Self.maximumTokenSize {
            throw MeridianError(.badInput, "a single token is larger than \(Self.maximumTokenSize >> 20) MiB",
                                at: SourceLocation(file: name))
        }
        // Keep the unconsumed bytes, at the front.
        if position > 0 {
            let kept = limit - position
            if kept > 0 { base.update(from: base + position, count: kept) }
            offsetOfBase += position
            limit = kept
            position = 0
        }
        // Room for the request and at least one more chunk.
        if capacity < count || capacity - limit < chunkSize / 2 {
            var newCapacity = capacity
            while newCapacity < count || newCapacity - limit < chunkSize / 2 { newCapacity *= 2 }
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            grown.update(from: base, count: limit)
            base.deallocate()
            base = grown
            capacity = newCapacity
        }
        while limit - position < count && !reachedEnd {
            let room = min(capacity - limit, chunkSize)
            let n = try source.map { try $0(UnsafeMutableRawBufferPointer(start: base + limit, count: room)) } ?? readFromFile(into: UnsafeMutableRawBufferPointer(start: base + limit, count: room))
            if n > 0 {
                limit += n
            } else if n == 0 {
                reachedEnd = true
            } else if errno != EINTR {
                throw MeridianError(.io, "read failed: \(String(cString: strerror(errno)))", at: SourceLocation(file: name))
            }
        }
        return limit - position
    }

    /// The next `count` bytes (fewer at the end of input), without consuming them: for sniffing.
    public func peek(_ count: Int) throws -> [UInt8] {
        let n = min(try fill(atLeast: count), count)
        return Array(UnsafeBufferPointer(start: base + position, count: n))
    }

    /// Consumes `count` bytes, which must be available.
    @inlinable public func consume(_ count: Int) {
        precondition(count <= limit - position)
        position += count
    }

    /// Everything not yet consumed, up to `maximum` bytes (beyond it: a bad-input error).
    public func readAll(maximum: Int) throws -> [UInt8] {
        while !reachedEnd && available <= maximum {
            try fill(atLeast: available + chunkSize)
        }
        guard available <= maximum else {
            throw MeridianError(.badInput, "the input is larger than \(maximum >> 20) MiB", at: SourceLocation(file: name))
        }
        let bytes = Array(UnsafeBufferPointer(start: base + position, count: available))
        position = limit
        return bytes
    }

    /// The longest line the line-based formats (CSV, WKT, WKB) take: far beyond any real
    /// geometry's text, and it keeps a file with no line breaks (a sparse file of zeros) from
    /// being read whole into memory.
    public static let maximumLineLength = 64 << 20

    /// The next line, without its line break ("\n" or "\r\n"); nil at the end of the input. A
    /// last line without a break still counts.
    public func nextLine() throws -> [UInt8]? {
        var searched = 0
        while true {
            let start = base + position
            if let newline = UnsafeBufferPointer(start: start + searched, count: limit - position - searched)
                .firstIndex(of: UInt8(ascii: "\n")) {
                let end = searched + newline
                let length = end > 0 && start[end - 1] == UInt8(ascii: "\r") ? end - 1 : end
                let line = Array(UnsafeBufferPointer(start: start, count: length))
                position += end + 1
                return line
            }
            searched = limit - position
            if searched > Self.maximumLineLength {
                throw MeridianError(.badInput, "a line is longer than \(Self.maximumLineLength >> 20) MiB", at: SourceLocation(file: name),
                                    hint: "is this a text file? CSV, WKT and WKB put one record on each line")
            }
            if reachedEnd {
                guard searched > 0 else { return nil }
                let line = Array(UnsafeBufferPointer(start: start, count: searched))
                position = limit
                return line.last == UInt8(ascii: "\r") ? Array(line.dropLast()) : line
            }
            try fill(atLeast: searched + chunkSize)
        }
    }

    /// Moves the next bytes, at most `buffer.count`, into `buffer` and consumes them: what is
    /// buffered first, then straight from the file or source, not through this input's own
    /// buffer (for a parser that reads into a buffer of its own, as expat does). 0 at the end.
    public func moveBytes(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if limit > position {
            let count = min(limit - position, buffer.count)
            buffer.copyMemory(from: UnsafeRawBufferPointer(start: base + position, count: count))
            position += count
            return count
        }
        while !reachedEnd {
            let n = try source.map { try $0(buffer) } ?? readFromFile(into: buffer)
            if n > 0 {
                offsetOfBase += n  // consumed, never in `base`
                return n
            } else if n == 0 {
                reachedEnd = true
            } else if errno != EINTR {
                throw MeridianError(.io, "read failed: \(String(cString: strerror(errno)))", at: SourceLocation(file: name))
            }
        }
        return 0
    }

    /// One read(2) from the file into `buffer`: swift-system's `FileDescriptor.read` retries it
    /// when a signal interrupts it.
    private func readFromFile(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        do {
            return try FileDescriptor(rawValue: fd).read(into: buffer)
        } catch let error as Errno {
            throw MeridianError(.io, "read failed: \(String(cString: strerror(error.rawValue)))", at: SourceLocation(file: name))
        }
    }

    /// Hands every remaining byte, chunk by chunk, to `body` (a push parser such as expat).
    public func forEachChunk(_ body: (UnsafeBufferPointer<UInt8>, _ isLast: Bool) throws -> Void) throws {
        while true {
            try fill(atLeast: 1)
            let chunk = UnsafeBufferPointer(start: base + position, count: limit - position)
            position = limit
            if reachedEnd {
                try body(chunk, true)
                return
            }
            try body(chunk, false)
        }
    }
}
