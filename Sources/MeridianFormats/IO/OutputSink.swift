#if canImport(Glibc)
import CFileSync
#endif
import MeridianCore
import SystemPackage

/// A buffered byte writer over a file descriptor.
///
/// Writes never throw, so formatting code stays simple and `Double`'s allocation-free
/// `TextOutputStreamable` path can write straight into the buffer. A failed flush is kept
/// and thrown by the next `checkForErrors()` or `flush()`, which writers call between features.
public final class OutputSink: TextOutputStream {
    /// The output's name in messages: a path, `<stdout>`, or `<memory>`.
    public let name: String
    private let fd: Int32
    @exclusivity(unchecked) @usableFromInline var buffer: UnsafeMutablePointer<UInt8>
    @usableFromInline let capacity = 1 << 16
    @exclusivity(unchecked) @usableFromInline var count = 0
    private var pendingError: MeridianError?
    /// Bytes handed to the operating system so far.
    public private(set) var bytesWritten = 0
    /// Whether the file's writeback is started every ``writebackStride`` bytes (Linux; a file
    /// that is fsynced at the end, `OutputTarget`'s). Left to the kernel, a large output is
    /// written to disk only when fsync asks, and the run then waits for all of it (8 ms of a
    /// 0.1 s conversion of a 20 MB file); started as it goes, the disk writes while the
    /// conversion runs, and the fsync waits for the last stride.
    var startsWritebackEarly = false
    static let writebackStride = 4 << 20
    /// Where the bytes not yet handed to writeback start.
    private var writebackStart = 0

    /// A sink that buffers bytes and writes them to `fileDescriptor` 64 KiB at a time. The sink never
    /// closes the descriptor; its owner does, after ``flush()``.
    /// - Parameters:
    ///   - fileDescriptor: An open descriptor to write to (a negative one collects bytes in memory).
    ///   - name: The output's name in error messages.
    public init(fileDescriptor: Int32, name: String) {
        fd = fileDescriptor
        self.name = name
        buffer = .allocate(capacity: capacity)
    }

    /// A sink that collects bytes in memory (`collected`), for tests and small reports.
    public convenience init(collectingAs name: String = "<memory>") {
        self.init(fileDescriptor: -1, name: name)
    }

    /// What a memory sink has been given, once flushed.
    public private(set) var collected: [UInt8] = []

    /// Flushes a memory sink and returns its text.
    public func collectedText() -> String {
        drain()
        return String(decoding: collected, as: UTF8.self)
    }

    /// Returns a memory sink's text and empties it, so one sink (and its 64 KiB buffer) formats
    /// piece after piece: a cell, a number, a literal.
    public func takeCollectedText() -> String {
        let text = collectedText()
        collected.removeAll(keepingCapacity: true)
        return text
    }

    /// Returns a memory sink's bytes and empties it (``takeCollectedText()`` for bytes).
    public func takeCollectedBytes() -> [UInt8] {
        drain()
        defer { collected.removeAll(keepingCapacity: true) }
        return collected
    }

    /// The standard output stream.
    public static func standardOutput() -> OutputSink {
        OutputSink(fileDescriptor: STDOUT_FILENO, name: "<stdout>")
    }

    deinit { buffer.deallocate() }

    /// Appends one byte.
    @inlinable
    public func write(byte: UInt8) {
        if count == capacity { drain() }
        buffer[count] = byte
        count += 1
    }

    /// Makes room for `count` more bytes in the buffer without draining in between.
    @inlinable
    public func reserve(_ count: Int) {
        if capacity - self.count < count { drain() }
    }

    /// Appends the bytes; a run larger than the buffer goes straight to the descriptor.
    public func write(_ bytes: UnsafeRawBufferPointer) {
        if bytes.count > capacity - count {
            drain()
            if bytes.count > capacity {
                writeOut(bytes)
                return
            }
        }
        (buffer + count).update(from: bytes.bindMemory(to: UInt8.self).baseAddress!, count: bytes.count)
        count += bytes.count
    }

    /// Appends the string's UTF-8.
    public func write(_ string: String) {
        var string = string
        string.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    /// Appends a literal's UTF-8 without copying it first.
    public func write(_ string: StaticString) {
        write(UnsafeRawBufferPointer(start: string.utf8Start, count: string.utf8CodeUnitCount))
    }

    /// Called by `Double.write(to:)` and other standard library printers with ASCII digits.
    public func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        write(UnsafeRawBufferPointer(buffer))
    }

    /// Sends buffered bytes to the descriptor and reports any write failure so far.
    public func flush() throws {
        drain()
        try checkForErrors()
    }

    /// Throws the first write failure so far, if any; writers call it between features so that a
    /// full disk stops the work early.
    /// - Throws: `MeridianError` (`io`) naming the output.
    public func checkForErrors() throws {
        if let pendingError { throw pendingError }
    }

    @usableFromInline
    func drain() {
        guard count > 0 else { return }
        writeOut(UnsafeRawBufferPointer(start: buffer, count: count))
        count = 0
    }

    private func writeOut(_ bytes: UnsafeRawBufferPointer) {
        guard pendingError == nil, bytes.baseAddress != nil else { return }
        if fd < 0 {
            collected.append(contentsOf: bytes)
            return
        }
        do {
            // swift-system's writeAll writes what a short write left and retries when a signal
            // interrupts (the loop this file held by hand).
            bytesWritten += try FileDescriptor(rawValue: fd).writeAll(bytes)
        } catch {
            let code = (error as? Errno)?.rawValue ?? EIO
            pendingError = MeridianError(.io, "write failed: \(String(cString: strerror(code)))", at: SourceLocation(file: name))
            return
        }
        #if os(Linux)
        if startsWritebackEarly && bytesWritten - writebackStart >= Self.writebackStride {
            // Only starts the disk writes (it fails only where fsync would fail too, and fsync reports it).
            _ = sync_file_range(fd, Int64(writebackStart), Int64(bytesWritten - writebackStart), meridian_sync_file_range_write)
            writebackStart = bytesWritten
        }
        #endif
    }
}
