import MeridianCore

/// Where a command's output goes: standard output, a file written atomically, or a stream
/// named by a path (a named pipe, a character device such as /dev/null).
///
/// A file is written to a hidden temporary file in the same folder and renamed into place by
/// `commit()`, so readers of the path see the old file or the whole new one, never a part.
/// A file already at the path is refused (``ExistingOutput``) unless the run was asked to
/// replace it. A run that fails calls `abandon()`; a run killed by SIGINT/SIGTERM/SIGHUP has
/// its temporary file removed by `TemporaryFiles`' signal handler. A stream is written to as
/// standard output is: nothing is staged, renamed or replaced.
public final class OutputTarget {
    /// Where the writer's bytes go: the temporary file (named after the final path in messages) or
    /// standard output.
    public let sink: OutputSink
    /// The final path, or nil for standard output.
    public let path: String?
    private let temporaryPath: String?
    private let fd: Int32
    /// Whether `fd` is this target's own (a stream opened at a path), closed when it ends.
    private var closesDescriptor = false
    private var finished = false
    /// The output's claim, let go once it is committed or abandoned.
    private var claim: OutputClaim?
    /// Gives back the cached pages of the file this one replaces (see `releaseCachedPages`).
    private var releasingReplacedFile: WorkerThread?

    /// Opens `path` for atomic writing, or standard output for nil or `-`, or the named pipe or
    /// character device at `path` for writing in place. The path is claimed (``OutputClaim``:
    /// one run at a time writes it, and what a killed run left staged beside it is removed and
    /// reported) until the output is committed or abandoned. A regular file at `path` is
    /// replaced when `replacing`, else refused.
    /// - Throws: `MeridianError`: usage when `path` is one of the run's inputs (``RunInputs``),
    ///   cannot-create-output when another run is writing it, something that may not be
    ///   replaced is there, or the temporary file cannot be made; ``ExistingOutput`` for a file
    ///   there when not `replacing`.
    public static func open(_ path: String?, replacing: Bool = false) throws -> OutputTarget {
        try open(path, claiming: true, replacing: replacing)
    }

    /// Opens `path` for atomic writing, for a writer that holds its ``OutputClaim`` already
    /// (which decided whether a file there may be replaced).
    /// - Throws: `MeridianError`: as ``open(_:replacing:)``.
    public static func open(claimed path: String) throws -> OutputTarget {
        try open(path, claiming: false, replacing: true)
    }

    /// Opens `path` (standard output for nil or `-`), claiming it first with `claiming`; an
    /// unclaimed path (inside a claimed folder, or claimed by the caller) is replaced.
    static func open(_ path: String?, claiming: Bool, replacing: Bool) throws -> OutputTarget {
        guard let path, !DescriptorPaths.isStandardOutput(path) else {
            return OutputTarget(fd: STDOUT_FILENO, path: nil, temporaryPath: nil, name: "<stdout>")
        }
        if let descriptor = DescriptorPaths.descriptor(named: path) { return try openDescriptor(descriptor, path: path) }
        // Unclaimed, it is inside a folder or at a path whose claim checked the folders above.
        try RunInputs.refuseInput(at: path, insideCheckedFolder: !claiming)
        if claiming, let stream = try openStream(path) { return stream }
        let claim = claiming ? try OutputClaim(path, container: .file, replacing: replacing) : nil
        let (folder, file) = splitPath(path)
        // 0666 less the umask, applied by the kernel: what a new file of any other tool gets.
        // Registered for the signal handler before it is made: no instant leaves it unregistered.
        guard let (fd, temporary) = TemporaryFiles.create("\(folder)/.\(file).meridian-XXXXXX", mode: 0o666, removedOnSignal: true) else {
            let reason = String(cString: strerror(errno))
            throw MeridianError(.cannotCreateOutput, "cannot create output: \(reason)", at: SourceLocation(file: path),
                                hint: errno == ENOENT ? "the folder \(folder) does not exist" : nil)
        }
        let target = OutputTarget(fd: fd, path: path, temporaryPath: temporary, name: path)
        target.claim = claim
        target.releasingReplacedFile = releaseCachedPages(of: path)
        return target
    }

    /// The named pipe or character device at `path` (not through a link), opened for writing
    /// in place: a stream has no file to stage and rename, and renaming over a device would
    /// replace it. Nil when `path` is not one. A pipe's open waits for its reader, as any
    /// writer's does.
    private static func openStream(_ path: String) throws -> OutputTarget? {
        var status = stat()
        guard lstat(path, &status) == 0, [S_IFIFO, S_IFCHR].contains(status.st_mode & S_IFMT) else { return nil }
        let fd = Platform.open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw MeridianError(.cannotCreateOutput, "cannot open output: \(reason)", at: SourceLocation(file: path))
        }
        // The path may have been changed between lstat and open: still a stream, or nothing is written.
        var opened = stat()
        guard fstat(fd, &opened) == 0, [S_IFIFO, S_IFCHR].contains(opened.st_mode & S_IFMT) else {
            close(fd)
            throw MeridianError(.cannotCreateOutput, "the output changed while it was being opened", at: SourceLocation(file: path),
                                hint: "run again")
        }
        let target = OutputTarget(fd: fd, path: path, temporaryPath: nil, name: path)
        target.closesDescriptor = true
        return target
    }

    /// This process's descriptor that `path` names (`/dev/stderr`, `/dev/fd/63`), written in
    /// place through a copy of it, as standard output is: the user asked for that descriptor.
    /// - Throws: `MeridianError`: usage when it is not open for writing or is an input of the run.
    private static func openDescriptor(_ descriptor: Int32, path: String) throws -> OutputTarget {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, [O_WRONLY, O_RDWR].contains(flags & O_ACCMODE) else {
            throw MeridianError(.usage, "\(path) is not open for writing in this run", at: SourceLocation(file: path),
                                hint: "give a file's path, or - for standard output")
        }
        try RunInputs.refuseInput(descriptor: descriptor, named: path)
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 3)
        guard copy >= 0 else {
            throw MeridianError(.cannotCreateOutput, "cannot open output: \(String(cString: strerror(errno)))", at: SourceLocation(file: path))
        }
        let target = OutputTarget(fd: copy, path: path, temporaryPath: nil, name: path)
        target.closesDescriptor = true
        return target
    }

    /// Starts giving back the page cache of the file at `path`, which `commit()` will replace.
    /// The rename that replaces a file frees its cached pages there and then, inside the rename:
    /// 2-3 ms for a 20 MB file, at the very end of its conversion, where nothing else runs. Done
    /// here, on a thread, that work overlaps the conversion. The file itself is untouched (the
    /// kernel drops its clean pages, as for any POSIX_FADV_DONTNEED); small files and anything
    /// but a regular file are left alone.
    private static func releaseCachedPages(of path: String) -> WorkerThread? {
        #if os(Linux)
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size >= 4 << 20 else { return nil }
        return try? WorkerThread {
            // Non-blocking: should a FIFO have taken the file's place since, the open does not wait.
            let fd = Platform.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { return }
            _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
            close(fd)
        }
        #else
        return nil
        #endif
    }

    private init(fd: Int32, path: String?, temporaryPath: String?, name: String) {
        self.fd = fd
        self.path = path
        self.temporaryPath = temporaryPath
        sink = OutputSink(fileDescriptor: fd, name: name)
        sink.startsWritebackEarly = temporaryPath != nil
    }

    deinit {
        if !finished { abandon() }
    }

    /// Writes a whole small file (a tile) atomically. `durable: false` skips the fsync: a killed
    /// process still leaves the old file or the new one, and a pyramid's thousands of fsyncs
    /// would cost seconds.
    public static func write(_ bytes: [UInt8], to path: String, durable: Bool) throws {
        // Unclaimed: a tile or a page inside a folder that its run has claimed whole.
        let target = try open(path, claiming: false, replacing: true)
        try target.commit(durable: durable) { bytes.withUnsafeBytes { target.sink.write($0) } }
    }

    /// Runs `body`, which writes into `sink`, then commits; if anything fails, the output is
    /// abandoned and nothing appears.
    public func commit(durable: Bool = true, after body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            abandon()
            throw error
        }
        try commit(durable: durable)  // abandons by itself when it fails
    }

    /// Flushes everything and, for a file, moves it into place (after an fsync when `durable`).
    public func commit(durable: Bool = true) throws {
        precondition(!finished, "OutputTarget committed twice")
        do {
            try sink.flush()
        } catch {
            abandon()
            throw error
        }
        finished = true
        releasingReplacedFile?.join()
        guard let temporaryPath, let path else {
            if closesDescriptor, close(fd) != 0, let path {
                throw MeridianError(.io, "cannot write output: \(String(cString: strerror(errno)))", at: SourceLocation(file: path))
            }
            return
        }
        defer {
            TemporaryFiles.shared.unregister(temporaryPath)
            claim?.release()
        }
        do {
            // Again, for an input opened after the output (render reads its inputs as it draws).
            try RunInputs.refuseInput(at: path, insideCheckedFolder: claim == nil)
        } catch {
            close(fd)
            unlink(temporaryPath)
            throw error
        }
        if (durable && !Platform.synchronize(fd)) || close(fd) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw MeridianError(.io, "cannot write output: \(reason)", at: SourceLocation(file: path))
        }
        do {
            // What appeared at the path while the run wrote is not replaced (unless asked).
            try claim?.refuseIfTaken()
        } catch {
            unlink(temporaryPath)
            throw error
        }
        if rename(temporaryPath, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw MeridianError(.cannotCreateOutput, "cannot move output into place: \(reason)", at: SourceLocation(file: path))
        }
    }

    /// Drops a file output without touching `path`. Standard output cannot be taken back.
    public func abandon() {
        guard !finished else { return }
        finished = true
        releasingReplacedFile?.join()
        guard let temporaryPath else {
            if closesDescriptor { close(fd) }
            return
        }
        close(fd)
        unlink(temporaryPath)
        TemporaryFiles.shared.unregister(temporaryPath)
        claim?.release()
    }

    static func splitPath(_ path: String) -> (folder: String, file: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }
}
