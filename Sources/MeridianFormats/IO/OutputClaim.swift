import MeridianCore

/// A tile pyramid's output path, claimed by one run before anything is written: one set of
/// rules for a folder, an MBTiles file and a PMTiles archive alike (DESIGN.md §3).
///
/// - It is not an input, nor (a folder) one that holds an input: ``RunInputs``, usage.
/// - Something already there is never replaced: an existing file, a non-empty folder, anything
///   that is not a folder where a folder goes, and a symbolic link (Meridian does not write
///   through links) are refused with cannot-create-output, naming the path, unless the run
///   continues what is there (`continuing`: `--resume`, a shard's shared folder), which its
///   writer then checks. An empty folder counts as new.
/// - One run at a time: `.NAME.meridian-lock` beside the output, created exclusively, holds
///   the run's process id; a second run is refused naming it. The lock goes when the output is
///   finished or given up (``release()``), and on SIGINT/SIGTERM/SIGHUP; a run killed with
///   SIGKILL leaves it, and the next run takes it over once that process is gone.
public final class OutputClaim: @unchecked Sendable {
    /// What the output is.
    public enum Container: Sendable {
        /// One file (MBTiles, PMTiles), renamed into place when finished.
        case file
        /// A folder of tiles.
        case folder
    }

    /// The output's path.
    public let path: String
    /// The lock file, while this claim holds it.
    private var lockPath: String?

    /// Claims `path` for a new `container`, or with `continuing` for the run in the folder there.
    /// `notEmpty` is the error for a folder that holds files, for its owner to word (default:
    /// remove it or choose another path). `locked` false leaves out the lock (the shards of a run share a folder).
    /// - Throws: `MeridianError`: usage when the path is an input, cannot-create-output when
    ///   it exists or another run holds it.
    public init(_ path: String, container: Container, continuing: Bool = false, locked: Bool = true,
                notEmpty: (any MeridianFailure)? = nil) throws {
        self.path = path
        try RunInputs.refuseInput(at: path, holdsFiles: container == .folder)
        if locked {
            // A new folder's parents are made as the folder would have been (`tile x.tif a/b/out`).
            if container == .folder { Self.makeFolders(OutputTarget.splitPath(Self.trimmed(path)).folder) }
            // First, so that a second run started at once is told another run holds the output.
            try lock()
        }
        do {
            try Self.refuseExisting(path, container: container, continuing: continuing, notEmpty: notEmpty)
        } catch {
            release()
            throw error
        }
    }

    /// Throws when something is at `path` that this claim may not take (see the type's rules).
    static func refuseExisting(_ path: String, container: Container, continuing: Bool, notEmpty: (any MeridianFailure)?) throws {
        let hint = "Meridian never replaces an existing output: remove it or choose another path"
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        let kind = status.st_mode & S_IFMT
        if kind == S_IFLNK {
            throw MeridianError(.cannotCreateOutput, "the output is a symbolic link: Meridian does not write through links",
                                at: SourceLocation(file: path), hint: "give the path it points to, or another path")
        }
        switch container {
        case .file:
            // A file is renamed into place whole: what continues (--resume) is beside it.
            throw MeridianError(.cannotCreateOutput, "the output exists", at: SourceLocation(file: path), hint: hint)
        case .folder:
            guard kind == S_IFDIR else {
                throw MeridianError(.cannotCreateOutput, "the output exists and is not a folder", at: SourceLocation(file: path), hint: hint)
            }
            if !continuing && !isEmptyFolder(path) {
                throw notEmpty ?? MeridianError(.cannotCreateOutput, "the output folder is not empty", at: SourceLocation(file: path), hint: hint)
            }
        }
    }

    /// Makes `folder` and the folders above it that are missing, as `mkdir -p` does; what
    /// cannot be made is reported by the lock's creation that follows.
    static func makeFolders(_ folder: String) {
        var made = folder.hasPrefix("/") ? "" : "."
        for part in folder.split(separator: "/") {
            made += "/" + part
            _ = mkdir(made, 0o777)
        }
    }

    /// `path` without trailing slashes (`out/` names the folder `out`).
    static func trimmed(_ path: String) -> String {
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed
    }

    deinit { release() }

    /// Throws when something has taken the path of a file output since it was claimed, just
    /// before the finished file is renamed there (rename(2) would replace it). A folder needs no
    /// such check: rename(2) replaces only an empty folder.
    public func refuseIfTaken() throws {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        throw MeridianError(.cannotCreateOutput, "the output appeared while this run was writing it", at: SourceLocation(file: path),
                            hint: "Meridian never replaces an existing output: remove it or choose another path, and run again")
    }

    /// Whether `path` is a folder that holds nothing (an unreadable one holds something unknown).
    static func isEmptyFolder(_ path: String) -> Bool {
        guard let folder = opendir(path) else { return false }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { return false }
        }
        return true
    }

    /// The lock file of the output at `path`: beside it, so a folder that does not exist yet or
    /// a file renamed into place can be locked alike.
    static func lockPath(for path: String) -> String {
        let (folder, name) = OutputTarget.splitPath(trimmed(path))
        return "\(folder)/.\(name).meridian-lock"
    }

    private func lock() throws {
        let lock = Self.lockPath(for: path)
        // Two tries: the second after taking over a lock whose run is gone.
        for _ in 0..<2 {
            let fd = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o666)
            if fd >= 0 {
                TemporaryFiles.removeOnSignal(lock)
                let text = "\(getpid())\n"
                let written = text.withCString { write(fd, $0, strlen($0)) }
                close(fd)
                lockPath = lock
                guard written == text.utf8.count else {
                    release()
                    throw MeridianError(.cannotCreateOutput, "cannot write the lock file: \(String(cString: strerror(errno)))", at: SourceLocation(file: lock))
                }
                return
            }
            guard errno == EEXIST else {
                let reason = String(cString: strerror(errno))
                throw MeridianError(.cannotCreateOutput, "cannot create output: \(reason)", at: SourceLocation(file: path),
                                    hint: errno == ENOENT ? "the folder \(OutputTarget.splitPath(path).folder) does not exist" : nil)
            }
            guard let holder = Self.holder(of: lock) else {
                throw MeridianError(.cannotCreateOutput, "another run is writing this output (its lock file holds no process id)",
                                    at: SourceLocation(file: path), hint: "if no run is writing it, remove \(lock)")
            }
            if holder == getpid() || kill(holder, 0) == 0 || errno == EPERM {
                throw MeridianError(.cannotCreateOutput, "another run (process \(holder)) is writing this output",
                                    at: SourceLocation(file: path),
                                    hint: "wait for it to end, or choose another path; if no Meridian run is writing it, remove \(lock)")
            }
            // Its run was killed (SIGKILL leaves the lock): take it over.
            unlink(lock)
        }
        throw MeridianError(.cannotCreateOutput, "another run is writing this output", at: SourceLocation(file: path),
                            hint: "wait for it to end, or choose another path")
    }

    /// The process id a lock file holds, or nil.
    static func holder(of lock: String) -> pid_t? {
        let fd = open(lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, 31) }
        guard count > 0 else { return nil }
        let text = String(decoding: bytes[..<count], as: UTF8.self)
        guard let pid = pid_t(text.split(separator: "\n").first ?? ""), pid > 0 else { return nil }
        return pid
    }

    /// Gives the lock up (once the output is finished, or abandoned); later calls do nothing.
    /// The file goes only while it still holds this process's id: it is this run's.
    public func release() {
        guard let lock = lockPath else { return }
        lockPath = nil
        if Self.holder(of: lock) == getpid() { unlink(lock) }
        TemporaryFiles.forget(lock)
    }
}
