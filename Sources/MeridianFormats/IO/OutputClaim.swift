import MeridianCore

/// A tile pyramid's output path, claimed by one run before anything is written: one set of
/// rules for a folder, an MBTiles file and a PMTiles archive alike (DESIGN.md §3).
///
/// - It is not an input, nor a folder that holds one, nor inside an input folder: ``RunInputs``, usage.
/// - Something already there is not replaced: an existing file (``ExistingOutput``), a
///   non-empty folder, anything that is not a folder where a folder goes, and a symbolic link
///   (Meridian does not write through links) are refused with cannot-create-output, naming the
///   path, unless the run continues what is there (`continuing`: `--resume`, a shard's shared
///   folder), which its writer then checks, or was asked to replace a file (`replacing`: only a
///   regular file, never a folder, a device or a link). An empty folder counts as new.
/// - One run at a time: `.NAME.meridian-lock` beside the output, locked with flock(2), holds
///   the run's process id; a second run is refused naming it. The file goes when the output is
///   finished or given up (``release()``), and on SIGINT/SIGTERM/SIGHUP at any instant (it is
///   registered for the signal handler before it has its name, as the one file that name may
///   be removed as); a run killed with SIGKILL leaves the file, but the kernel lets go of its
///   lock as the process ends, and the next run takes the file over: exactly one, however
///   many find it at once.
/// - What a killed run staged beside the output (`.NAME.meridian-…`, not the lock nor the
///   resume state) is removed by the next claim, once it holds the lock, and reported.
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
    /// Whether the run was asked to replace a regular file at ``path``.
    public let replacing: Bool
    /// The lock file, while this claim holds it.
    private var lockPath: String?
    /// The lock file's descriptor, locked with flock(2) while this claim holds it.
    private var lockDescriptor: Int32 = -1

    /// Claims `path` for a new `container`, or with `continuing` for the run in the folder there.
    /// `notEmpty` is the error for a folder that holds files, for its owner to word (default:
    /// remove it or choose another path). `locked` false leaves out the lock (the shards of a run share a folder).
    /// - Throws: `MeridianError`: usage when the path is an input, cannot-create-output when
    ///   it exists or another run holds it.
    /// `replacing` true takes a file output whose path holds a regular file, which the finished
    /// output will replace (the run was asked to); anything else there is still refused.
    public init(_ path: String, container: Container, continuing: Bool = false, locked: Bool = true,
                replacing: Bool = false, notEmpty: (any MeridianFailure)? = nil) throws {
        self.path = path
        self.replacing = replacing
        try DescriptorPaths.refuseDescriptor(path, for: container == .folder ? "a folder of tiles" : "this output")
        try RunInputs.refuseInput(at: path)
        try Self.requireFolder(of: path)
        if locked {
            // First, so that a second run started at once is told another run holds the output.
            try lock()
            // Held, the lock says that no run that lives is writing this output: what is
            // staged beside it was left by one that was killed.
            removeLeftovers()
        }
        do {
            try Self.refuseExisting(path, container: container, continuing: continuing, replacing: replacing, notEmpty: notEmpty)
        } catch {
            release()
            throw error
        }
    }

    /// Where claims report the leftovers of killed runs they remove (each a note naming the
    /// path); nil, the default, reports none. The executables set it once, before any claim.
    nonisolated(unsafe) public static var leftoverNotes: (@Sendable (Diagnostic) -> Void)?

    /// Removes what a killed run (SIGKILL, a crash) staged beside this output and left:
    /// `.NAME.meridian-…` files and folders (a file being written, a staging folder, a copy of
    /// an MBTiles file being read), but not the lock and not an interrupted run's resume state
    /// (`.NAME.meridian-partial` and its journal). Called with the lock held, which no run that
    /// lives lets go of: none of them is a living run's. Each removal is reported
    /// (``leftoverNotes``); what cannot be removed is left as it is.
    func removeLeftovers() {
        let (folder, name) = OutputTarget.splitPath(Self.trimmed(path))
        let prefix = ".\(name).meridian-"
        for (entry, kind) in LinkFreeReading.entries(of: folder) where entry.hasPrefix(prefix) {
            let rest = entry.dropFirst(prefix.count)
            // The lock (and a claimant's lock being made), the resume state.
            if rest.hasPrefix("lock") || rest == "partial" || rest.hasPrefix("partial-") { continue }
            let leftover = folder + "/" + entry
            let named = path.contains("/") ? leftover : entry  // as the output was given
            guard Self.remove(leftover, kind: kind) else { continue }
            Self.leftoverNotes?(Diagnostic(.note, "removed \(kind == .folder ? "a folder" : "a file") that a run killed while writing this output left",
                                           at: SourceLocation(file: named)))
        }
    }

    /// Removes `path` (a folder with everything in it), never following a symbolic link:
    /// whether it is gone.
    static func remove(_ path: String, kind: LinkFreeReading.Kind) -> Bool {
        guard kind == .folder else { return unlink(path) == 0 }
        for (entry, inner) in LinkFreeReading.entries(of: path) { _ = remove(path + "/" + entry, kind: inner) }
        return rmdir(path) == 0
    }

    /// Throws when something is at the file output `path` that a run may not take: a file
    /// (``ExistingOutput``) unless `replacing`, and whatever is not a regular file. Checked
    /// without a claim, by a run that claims the path later (in a helper) and would otherwise
    /// learn only after its work that it cannot write there.
    /// - Throws: ``ExistingOutput``, or `MeridianError` (cannot-create-output).
    public static func refuseExistingFile(at path: String, replacing: Bool) throws {
        try DescriptorPaths.refuseDescriptor(path, for: "this output")
        try refuseExisting(path, container: .file, continuing: false, replacing: replacing, notEmpty: nil)
    }

    /// Throws when something is at `path` that this claim may not take (see the type's rules).
    static func refuseExisting(_ path: String, container: Container, continuing: Bool, replacing: Bool = false,
                               notEmpty: (any MeridianFailure)?) throws {
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
            // A file is renamed into place whole: what continues (--resume) is beside it. Only a
            // regular file is ever replaced: a rename over a folder fails, and one over a device
            // (/dev/null, as root) would put a file in its place.
            guard kind == S_IFREG else {
                throw MeridianError(.cannotCreateOutput, kind == S_IFDIR ? "the output exists and is a folder" : "the output exists and is not a regular file",
                                    at: SourceLocation(file: path), hint: kind == S_IFDIR ? hint : "choose another path")
            }
            if !replacing { throw ExistingOutput(path: path) }
        case .folder:
            guard kind == S_IFDIR else {
                throw MeridianError(.cannotCreateOutput, "the output exists and is not a folder", at: SourceLocation(file: path), hint: hint)
            }
            if !continuing && !isEmptyFolder(path) {
                throw notEmpty ?? MeridianError(.cannotCreateOutput, "the output folder is not empty", at: SourceLocation(file: path), hint: hint)
            }
        }
    }

    /// Throws cannot-create-output, naming the output, when the folder it goes into is missing
    /// (or not a folder): no subcommand makes the folders above its output, a file or a folder
    /// of tiles alike (a mistyped path would otherwise become new folders).
    public static func requireFolder(of path: String) throws {
        let folder = OutputTarget.splitPath(trimmed(path)).folder
        var status = stat()
        let failure = stat(folder, &status) != 0 ? errno : status.st_mode & S_IFMT != S_IFDIR ? ENOTDIR : 0
        guard failure != 0 else { return }
        throw MeridianError(.cannotCreateOutput, "cannot create output: \(String(cString: strerror(failure)))", at: SourceLocation(file: path),
                            hint: failure == ENOENT ? "the folder \(folder) does not exist: make it first, or choose another path" : nil)
    }

    /// `path` without trailing slashes (`out/` names the folder `out`).
    static func trimmed(_ path: String) -> String {
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed
    }

    deinit { release() }

    /// Throws when something has taken the path of a file output since it was claimed, just
    /// before the finished file is renamed there (rename(2) would replace it): anything, or,
    /// for a claim that is `replacing`, anything but a regular file. A folder needs no such
    /// check: rename(2) replaces only an empty folder.
    public func refuseIfTaken() throws {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        if replacing && status.st_mode & S_IFMT == S_IFREG { return }
        throw ExistingOutput(path: path, appearedDuringRun: true)
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
        // The lock is flock(2) on the file, not the file being there: the kernel lets it go
        // when the holder ends however it ends (SIGKILL too), so a file left behind is simply
        // locked again, in place, by one claimant: no claimant removes another's file on the
        // strength of a process id it read a moment before. Tries again when the file it
        // locked was removed meanwhile by the run that held it (see `release()`).
        for _ in 0..<16 {
            let fd = open(lock, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
            if fd < 0 && errno == ENOENT {
                // None there: made whole, locked and registered for the signal handler before
                // it has its name, so no signal finds it unregistered (`makeLock`).
                guard let made = try makeLock(lock) else { continue }
                lockDescriptor = made
                lockPath = lock
                return
            }
            guard fd >= 0 else { throw cannotCreate(errno, lock: lock) }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                let failure = errno
                let holder = Self.holder(readingFrom: fd)
                close(fd)
                guard failure == EWOULDBLOCK else {
                    throw MeridianError(.cannotCreateOutput, "cannot lock the output: \(String(cString: strerror(failure)))",
                                        at: SourceLocation(file: lock))
                }
                // The holder may not have written its id over a killed run's yet: name only a live one.
                let named = holder.map { $0 != getpid() && kill($0, 0) != 0 && errno == ESRCH } == false ? holder : nil
                throw MeridianError(.cannotCreateOutput, "another run\(named.map { " (process \($0))" } ?? "") is writing this output",
                                    at: SourceLocation(file: path), hint: "wait for it to end, or choose another path")
            }
            guard Self.isFile(fd, at: lock) else {
                close(fd)
                continue
            }
            // Left by a killed run, and ours now: it holds this process's id from now on. (A
            // signal before this registration leaves it as it was: nothing this run made.)
            lockDescriptor = fd
            lockPath = lock
            TemporaryFiles.removeOnSignal(lock, whileItNames: fd)
            let text = "\(getpid())\n"
            let written = ftruncate(fd, 0) == 0 ? text.withCString { pwrite(fd, $0, strlen($0), 0) } : -1
            guard written == text.utf8.count else {
                let reason = String(cString: strerror(errno))
                release()
                throw MeridianError(.cannotCreateOutput, "cannot write the lock file: \(reason)", at: SourceLocation(file: lock))
            }
            return
        }
        throw MeridianError(.cannotCreateOutput, "another run is writing this output", at: SourceLocation(file: path),
                            hint: "wait for it to end, or choose another path")
    }

    /// Makes the lock file `lock` where there is none: a file with no name yet (or, where the
    /// system has no such files, a unique hidden one), holding this process's id and locked, is
    /// registered for the signal handler as the one file `lock` may be removed as, and only
    /// then linked at `lock`. A signal at any instant leaves no lock file of this run's, and
    /// never removes another run's. Its descriptor, or nil when another run made `lock` first.
    private func makeLock(_ lock: String) throws -> Int32? {
        let (folder, name) = OutputTarget.splitPath(lock)
        var failure = ENOTSUP
        for unnamed in [true, false] {
            var fd = unnamed ? Platform.openUnnamedFile(in: folder, mode: 0o666) : -1
            var namedPath: String?
            if !unnamed {
                guard let made = TemporaryFiles.create("\(folder)/\(name)-XXXXXX", mode: 0o666, removedOnSignal: true) else {
                    throw cannotCreate(errno, lock: lock)
                }
                (fd, namedPath) = made
            }
            guard fd >= 0 else {
                failure = errno
                if failure == ENOENT || failure == ENOTDIR || failure == EACCES { throw cannotCreate(failure, lock: lock) }
                continue  // a file system without unnamed files: a named one
            }
            defer {
                if let namedPath {
                    unlink(namedPath)
                    TemporaryFiles.forget(namedPath)
                }
            }
            let text = "\(getpid())\n"
            guard flock(fd, LOCK_EX | LOCK_NB) == 0, text.withCString({ pwrite(fd, $0, strlen($0), 0) }) == text.utf8.count,
                  TemporaryFiles.removeOnSignal(lock, whileItNames: fd) else {
                failure = errno
                close(fd)
                throw MeridianError(.cannotCreateOutput, "cannot write the lock file: \(String(cString: strerror(failure)))", at: SourceLocation(file: lock))
            }
            let linked = namedPath.map { link($0, lock) == 0 } ?? Platform.name(unnamed: fd, at: lock)
            if linked { return fd }
            failure = errno
            TemporaryFiles.forget(lock)
            close(fd)
            if failure == EEXIST { return nil }
            // Linux without /proc cannot name an unnamed file: a named one.
            if !unnamed { throw cannotCreate(failure, lock: lock) }
        }
        throw cannotCreate(failure, lock: lock)
    }

    /// The error for a lock file that cannot be made or opened (errno `failure`).
    private func cannotCreate(_ failure: Int32, lock: String) -> MeridianError {
        MeridianError(.cannotCreateOutput, "cannot create output: \(String(cString: strerror(failure)))", at: SourceLocation(file: path),
                      hint: failure == ENOENT ? "the folder \(OutputTarget.splitPath(path).folder) does not exist"
                          : failure == ELOOP ? "\(lock), its lock file, is a symbolic link: remove it" : nil)
    }

    /// Whether `fd` is the file at `path` (not one removed since it was opened).
    static func isFile(_ fd: Int32, at path: String) -> Bool {
        var open = stat(), there = stat()
        return fstat(fd, &open) == 0 && lstat(path, &there) == 0 && open.st_dev == there.st_dev && open.st_ino == there.st_ino
    }

    /// The process id a lock file holds, or nil.
    static func holder(of lock: String) -> pid_t? {
        let fd = open(lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return holder(readingFrom: fd)
    }

    /// The process id the lock file open at `fd` holds, or nil.
    static func holder(readingFrom fd: Int32) -> pid_t? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 31, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: bytes[..<count], as: UTF8.self)
        guard let pid = pid_t(text.split(separator: "\n").first ?? ""), pid > 0 else { return nil }
        return pid
    }

    /// Gives the lock up (once the output is finished, or abandoned); later calls do nothing.
    /// The file is removed while still locked, so that no claimant locks it on its way out
    /// (one that opened it before is told by `isFile(_:at:)`), and only while it is the one
    /// this claim locked.
    public func release() {
        guard let lock = lockPath else { return }
        lockPath = nil
        // Off the signal handler's list first: once removed, the path may be another run's lock.
        TemporaryFiles.forget(lock)
        if Self.isFile(lockDescriptor, at: lock) { unlink(lock) }
        close(lockDescriptor)
        lockDescriptor = -1
    }
}
