import MeridianCore

/// A temporary file a writer spills to and reads back (a KMZ's KML before zipping, a CSV's
/// rows before its header is known), removed when the writer is done or a signal ends the
/// process; or, made ``init(unlinked:)``, removed from its folder at once, so that it vanishes
/// with its descriptor however the process ends (an object a worker thread still holds at exit
/// is never deinitialised).
public final class ScratchFile {
    /// The scratch file's path, in `$TMPDIR` (else /tmp); it is removed when this object goes
    /// (made ``init(unlinked:)``: the name it had, for messages).
    public let path: String
    /// Whether the file was removed from its folder as soon as it was made.
    private let unlinked: Bool
    /// The descriptor open for writing, closed when this object goes.
    let fd: Int32
    /// Where to write; flush before reading back.
    public let sink: OutputSink

    /// A new private (0600) scratch file named `meridian-NAME-XXXXXX` and then `suffix`.
    public init(_ name: String, suffix: String = "") throws {
        (fd, path) = try TemporaryFiles.scratch(name, suffix: suffix)
        sink = OutputSink(fileDescriptor: fd, name: name)
        unlinked = false
    }

    /// A new private scratch file with no name in `$TMPDIR` (else /tmp): made without one where
    /// the system can (Linux's O_TMPFILE), else removed from its folder as soon as it is made, so
    /// that it goes with its descriptor however the process ends, SIGKILL too. It is read back
    /// through its descriptor only (``readBack()``, ``read(at:count:)``, ``copy(to:)``), by a
    /// library that must open a path through ``pathInThisProcess``, and by a child process as
    /// an inherited descriptor (`InheritedScratch`).
    public init(unlinked name: String) throws {
        fd = try TemporaryFiles.anonymousScratch(name)
        path = "\(TemporaryFiles.folder)/meridian-\(name) (a scratch file without a name)"
        sink = OutputSink(fileDescriptor: fd, name: name)
        unlinked = true
    }

    /// A path that opens this file again, for a library that can only open files by path (a
    /// zip archive's writer): `/proc/self/fd/N` on Linux, which opens the file itself, named or
    /// not; nil elsewhere, where /dev/fd/N would share this descriptor's offset, or without /proc.
    public var pathInThisProcess: String? {
        if !unlinked { return path }
        return Platform.pathReopening(fd)
    }

    /// The descriptor, for handing to a child process (`InheritedScratch`); this object keeps it open.
    public var descriptor: Int32 { fd }

    /// A copy of an input, for readers that need a path or random access where standard input
    /// streams (a zip, GDAL's drivers).
    public convenience init(copying input: BufferedInput, as name: String, suffix: String = "") throws {
        try self.init(name, suffix: suffix)
        try input.forEachChunk { chunk, _ in sink.write(UnsafeRawBufferPointer(chunk)) }
        try sink.flush()
    }

    /// A copy of an input in a scratch file without a name (``init(unlinked:)``), for a child
    /// process that inherits it (`InheritedScratch`): nothing of it is left however the run ends.
    public convenience init(unlinkedCopyOf input: BufferedInput, as name: String) throws {
        try self.init(unlinked: name)
        try input.forEachChunk { chunk, _ in sink.write(UnsafeRawBufferPointer(chunk)) }
        try sink.flush()
    }

    /// A copy of an input for a library that opens it by a path (``pathInThisProcess``): a file
    /// without a name where this process can open one by a path (Linux), else a named one.
    public static func copyOpenedByPath(_ input: BufferedInput, as name: String) throws -> ScratchFile {
        let nameless = try ScratchFile(unlinked: name)
        let copy = nameless.pathInThisProcess == nil ? try ScratchFile(name) : nameless
        try input.forEachChunk { chunk, _ in copy.sink.write(UnsafeRawBufferPointer(chunk)) }
        try copy.sink.flush()
        return copy
    }

    deinit {
        close(fd)
        guard !unlinked else { return }
        unlink(path)
        TemporaryFiles.shared.unregister(path)
    }

    /// Flushes what was written and reads it from the start, through the descriptor (pread(2):
    /// as often as asked, each from the start); the input keeps this file open while it lives.
    public func readBack() throws -> BufferedInput {
        try sink.flush()
        return Self.reading(fd, name: path, keeping: self)
    }

    /// The file open at `fd`, read from its start by pread(2), which moves no shared offset:
    /// every such input reads the whole file, however many there are. `owner` is kept alive
    /// while the input lives (the descriptor's owner).
    static func reading(_ fd: Int32, name: String, keeping owner: AnyObject?) -> BufferedInput {
        var offset = 0
        return BufferedInput(name: name) { buffer in
            _ = owner
            while true {
                let got = pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
                if got < 0 && errno == EINTR { continue }
                guard got >= 0 else {
                    throw MeridianError(.io, "cannot read back a temporary file: \(String(cString: strerror(errno)))", at: SourceLocation(file: name))
                }
                offset += got
                return got
            }
        }
    }

    /// `count` bytes written at `offset` (after a flush), for writers that gather out of order.
    public func read(at offset: Int, count: Int) throws -> [UInt8] {
        try sink.flush()
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
        guard got == count else {
            throw MeridianError(.io, "cannot read back a temporary file: \(String(cString: strerror(errno)))", at: SourceLocation(file: path))
        }
        return bytes
    }

    /// Fills `buffer` with the bytes written at `offset`: one pread(2) for many records read
    /// back together (a level's staged tiles), into memory the caller keeps for the next read,
    /// where ``read(at:count:)`` makes an array per read. It does not flush: the caller flushes
    /// `sink` once before reading, as threads reading at once must not touch the sink.
    /// - Throws: `MeridianError` (`io`) when the file cannot be read or ends before the buffer is full.
    public func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws {
        var filled = 0
        while filled < buffer.count {
            let got = pread(fd, buffer.baseAddress! + filled, buffer.count - filled, off_t(offset + filled))
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                let reason = got == 0 ? "it ends before what was written" : String(cString: strerror(errno))
                throw MeridianError(.io, "cannot read back a temporary file: \(reason)", at: SourceLocation(file: path))
            }
            filled += got
        }
    }

    /// Appends what was written to `destination`, read through the descriptor.
    public func copy(to destination: OutputSink) throws {
        try sink.flush()
        var chunk = [UInt8](repeating: 0, count: 1 << 20), offset = 0
        while true {
            // A large copy (a PMTiles archive's tile data) is part of the run a signal stops.
            try TemporaryFiles.checkForStop()
            let got = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else {
                throw MeridianError(.io, "cannot read back a temporary file: \(String(cString: strerror(errno)))", at: SourceLocation(file: path))
            }
            if got == 0 { break }
            chunk.withUnsafeBytes { destination.write(UnsafeRawBufferPointer(rebasing: $0[..<got])) }
            offset += got
        }
        try destination.checkForErrors()
    }
}

/// A scratch file handed to a child process by its descriptor, never by a name (it has none:
/// `ScratchFile(unlinked:)`, so that SIGKILL leaves nothing). The child inherits it as
/// descriptor 3 (`ChildProcess`'s `inheriting`), its request names it ``argument``, and it
/// reads it with ``open(_:)``: from the start, by pread(2), as often as it likes, the same on
/// Linux and Darwin (where opening /dev/fd/3 would share one offset between the readings).
public enum InheritedScratch {
    /// The descriptor the child has it as.
    public static let descriptor: Int32 = 3
    /// The word a request carries in place of a path.
    public static let argument = "/dev/fd/3"

    /// The inherited scratch file when `path` is ``argument``, else the file at `path`.
    /// - Throws: `MeridianError` (`inputUnavailable`) when a path cannot be opened.
    public static func open(_ path: String) throws -> BufferedInput {
        guard path == argument else { return try BufferedInput.open(path) }
        return ScratchFile.reading(descriptor, name: "<features from the parent process>", keeping: nil)
    }
}
