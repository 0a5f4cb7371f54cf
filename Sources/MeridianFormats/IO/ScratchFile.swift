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

    /// A new private scratch file named `meridian-NAME-XXXXXX` while it is made, then removed
    /// from its folder: it is read back through its descriptor only (``read(at:count:)``,
    /// ``copy(to:)``), never by its path.
    public init(unlinked name: String) throws {
        (fd, path) = try TemporaryFiles.scratch(name)
        unlink(path)
        TemporaryFiles.shared.unregister(path)
        sink = OutputSink(fileDescriptor: fd, name: name)
        unlinked = true
    }

    /// A copy of an input, for readers that need a path or random access where standard input
    /// streams (a zip, GDAL's drivers).
    public convenience init(copying input: BufferedInput, as name: String, suffix: String = "") throws {
        try self.init(name, suffix: suffix)
        try input.forEachChunk { chunk, _ in sink.write(UnsafeRawBufferPointer(chunk)) }
        try sink.flush()
    }

    deinit {
        close(fd)
        guard !unlinked else { return }
        unlink(path)
        TemporaryFiles.shared.unregister(path)
    }

    /// Flushes what was written and opens it for reading from the start (not for a file made
    /// ``init(unlinked:)``, which has no path: opening it fails).
    public func readBack() throws -> BufferedInput {
        try sink.flush()
        return try BufferedInput.open(path)
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

    /// Appends what was written to `destination`, read through the descriptor.
    public func copy(to destination: OutputSink) throws {
        try sink.flush()
        var chunk = [UInt8](repeating: 0, count: 1 << 20), offset = 0
        while true {
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
