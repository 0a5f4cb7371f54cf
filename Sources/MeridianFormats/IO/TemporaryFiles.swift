import MeridianCore
import Synchronization

/// The temporary files this process has open, so a signal that ends the process removes them.
///
/// The handler may only do async-signal-safe work, so the paths live in a fixed table of C
/// strings that it walks with `unlink(2)`; Swift arrays and locks are touched only outside it.
public final class TemporaryFiles: @unchecked Sendable {
    /// The one table of this process, which the signal handler reads.
    static let shared = TemporaryFiles()

    static let slots = 64
    // A fixed table read by the signal handler: entries are swapped in and out atomically
    // enough for a pointer-sized store, and freed only after they are cleared.
    nonisolated(unsafe) static let table = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: slots)
    /// For each entry of `table`, the file it may remove, when it may remove only that one (set
    /// before the entry's path is stored, so the handler never sees a path without it).
    nonisolated(unsafe) static let identities = UnsafeMutablePointer<FileIdentity>.allocate(capacity: slots)

    /// The one file a registered path may be removed as: its device and inode numbers.
    struct FileIdentity {
        /// Whether the path is removed only while it names this file.
        var checked = false
        var device: UInt64 = 0
        var inode: UInt64 = 0
    }
    /// Serialises changes to `table` (the signal handler only reads it).
    private let lock = Mutex(())

    private init() {
        Self.table.initialize(repeating: nil, count: Self.slots)
        Self.identities.initialize(repeating: FileIdentity(), count: Self.slots)
    }

    /// The folder for scratch files: $TMPDIR, else /tmp.
    static var folder: String {
        getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    }

    /// A new file named from `template` (ending in XXXXXX, then `suffix`), each X replaced by a
    /// random letter or digit, created exclusively with `mode`: the open descriptor and the
    /// file's path, or nil with `errno` set.
    ///
    /// Unlike mkstemp(3), which makes every file 0600, the kernel applies the process's umask to
    /// `mode` as it does for any new file, so an output gets exactly what the user's umask allows
    /// without anyone reading the umask (reading it means setting it, which races with threads
    /// creating files: see `FileCreationMask`).
    ///
    /// With `removedOnSignal`, each name is registered for the signal handlers before the file is
    /// made (and taken off again if it cannot be): registered after, a signal that came between
    /// (a test interrupting a run the moment its spill appears did) left the file behind.
    public static func create(_ template: String, suffix: String = "", mode: mode_t = 0o600,
                              removedOnSignal: Bool = false) -> (fd: Int32, path: String)? {
        precondition(template.hasSuffix("XXXXXX"), "a temporary file's template ends in XXXXXX")
        let stem = template.dropLast(6)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)
        for _ in 0..<100 {
            let random = String(decoding: (0..<6).map { _ in alphabet.randomElement()! }, as: UTF8.self)
            let path = String(stem) + random + suffix
            if removedOnSignal { shared.register(path) }
            let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            if fd >= 0 { return (fd, path) }
            let failure = errno
            if removedOnSignal { shared.unregister(path) }
            errno = failure
            if failure != EEXIST { return nil }
        }
        errno = EEXIST
        return nil
    }

    /// A scratch file in `folder`, registered so a signal removes it; `suffix` ends its name
    /// (an extension, for tools that go by it). Scratch files are private (0600, within any
    /// umask): they hold the user's data in a shared folder, and never become outputs.
    public static func scratch(_ name: String, suffix: String = "") throws -> (fd: Int32, path: String) {
        guard let file = create("\(folder)/meridian-\(name)-XXXXXX", suffix: suffix, removedOnSignal: true) else {
            throw MeridianError(.io, "cannot create a temporary file in \(folder): \(String(cString: strerror(errno)))")
        }
        return file
    }

    /// Adds `path` to the files a signal removes, for a file made some other way than
    /// ``scratch(_:suffix:)``; ``forget(_:)`` takes it off once it is removed or in place.
    public static func removeOnSignal(_ path: String) { shared.register(path) }

    /// Adds `path` to the files a signal removes, but only while it names the file open at `fd`:
    /// a path this process means to give its file (a lock file linked into place), registered
    /// before the name exists, so that no instant is left when the name is there and the
    /// handler does not know it; and should another run's file have that name, the handler
    /// leaves it. ``forget(_:)`` takes it off.
    /// - Returns: false when `fd` is not open (nothing is registered).
    @discardableResult
    public static func removeOnSignal(_ path: String, whileItNames fd: Int32) -> Bool {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return false }
        shared.register(path, as: FileIdentity(checked: true, device: UInt64(status.st_dev), inode: UInt64(status.st_ino)))
        return true
    }

    /// Takes `path` off the files a signal removes.
    public static func forget(_ path: String) { shared.unregister(path) }

    /// A new private (0600) scratch file in `folder` that has no name: it goes with its
    /// descriptor however the process ends, SIGKILL too (Linux's O_TMPFILE; elsewhere, or on a
    /// file system without it, a file named `meridian-NAME-XXXXXX` removed from its folder as
    /// soon as it is made, registered for the signal handler in between). The caller closes it.
    /// - Throws: `MeridianError` (`io`) when it cannot be made.
    public static func anonymousScratch(_ name: String) throws -> Int32 {
        let fd = Platform.openUnnamedFile(in: folder, mode: 0o600)
        if fd >= 0 { return fd }
        let (named, path) = try scratch(name)
        unlink(path)
        shared.unregister(path)
        return named
    }

    /// Adds `path` to the files a signal removes (the first 64 registered at once are covered),
    /// whatever file it names, or only the one `identity` tells.
    func register(_ path: String, as identity: FileIdentity = FileIdentity()) {
        lock.withLock { _ in
            for i in 0..<Self.slots where Self.table[i] == nil {
                Self.identities[i] = identity
                Self.table[i] = strdup(path)
                return
            }
        }
    }

    /// What the signal handler does for entry `slot` of the table: removes its path, unless the
    /// entry may remove one file only and the path names another (or nothing). Async-signal-safe:
    /// lstat(2) and unlink(2) only.
    static func removeFromSignalHandler(slot: Int) {
        guard let entry = table[slot] else { return }
        let identity = identities[slot]
        if identity.checked {
            var status = stat()
            guard lstat(entry, &status) == 0, UInt64(status.st_dev) == identity.device, UInt64(status.st_ino) == identity.inode else { return }
        }
        unlink(entry)
    }

    /// Takes `path` off the files a signal removes, once it is removed or in place.
    func unregister(_ path: String) {
        lock.withLock { _ in
            for i in 0..<Self.slots {
                if let entry = Self.table[i], String(cString: entry) == path {
                    Self.table[i] = nil
                    free(entry)
                }
            }
        }
    }

    /// A line the signal handler prints on stderr before exiting (how to resume, say), set up
    /// beforehand as bytes, since the handler may only call write(2).
    nonisolated(unsafe) static var interruptionNote: (bytes: UnsafeMutablePointer<CChar>, count: Int)?

    /// Sets the line printed when a signal ends the process (nil: none). Call it before the
    /// work starts, from one thread.
    public static func setInterruptionNote(_ text: String?) {
        let old = interruptionNote
        interruptionNote = text.map { (strdup($0)!, $0.utf8.count) }
        if let old { free(old.bytes) }
    }

    /// Whether a run that stops in order (``stoppingInOrder(_:)``) is under way: a signal then
    /// only asks it to stop.
    static let stopsInOrder = Atomic<Bool>(false)
    /// The signal that asked the run to stop (0: none has).
    static let stopSignal = Atomic<Int32>(0)
    /// Whether this process is a helper whose parent passes signals on and ends it itself
    /// (``parentEndsThisProcess()``).
    static let endedByParent = Atomic<Bool>(false)

    /// Says that this process is a helper a Meridian process started, which passes on to it the
    /// signals that stop the parent and ends it with SIGKILL if it has not ended a moment later
    /// (`RunningChildren`). While it stops in order (``stoppingInOrder(_:)``), a signal after the
    /// first is then the same request, not a second one that ends it at once: a terminal's Ctrl-C
    /// reaches both processes, and the parent's SIGTERM follows; ended at once, the helper would
    /// leave what it was stopping to remove. The parent's grace period bounds the wait.
    public static func parentEndsThisProcess() {
        endedByParent.store(true, ordering: .releasing)
    }

    /// The error a run that stops in order throws once a signal has asked it to: its work
    /// unwinds as from any failure, removing what it made (a folder being filled, a partial
    /// file), and the command exits with 128 + the signal number after the interruption note.
    public struct Interruption: Error, Sendable {
        /// The signal (SIGINT, SIGTERM, SIGHUP).
        public let signal: Int32
    }

    /// The signal that has asked the process to stop, if one has.
    public static var stopRequested: Int32? {
        let signal = stopSignal.load(ordering: .acquiring)
        return signal == 0 ? nil : signal
    }

    /// Runs `body`, during which SIGINT, SIGTERM and SIGHUP ask it to stop rather than end the
    /// process at once: `body` calls ``checkForStop()`` as it goes (last before it commits its
    /// output), and throws ``Interruption`` from there. A second signal ends the process at
    /// once, as outside. For work that leaves what a signal handler cannot remove (a folder of
    /// tiles); one thread calls it, before the work's threads start. Calls nest: an inner one
    /// leaves the outer one's stopping in order as it was.
    public static func stoppingInOrder<T>(_ body: () throws -> T) rethrows -> T {
        let outer = stopsInOrder.exchange(true, ordering: .acquiringAndReleasing)
        defer { stopsInOrder.store(outer, ordering: .releasing) }
        return try body()
    }

    /// Throws ``Interruption`` when a signal has asked the run to stop.
    public static func checkForStop() throws {
        if let signal = stopRequested { throw Interruption(signal: signal) }
    }

    /// The line ``setInterruptionNote(_:)`` set, for work stopped in order to print as it ends.
    public static var interruptionNoteText: String? { interruptionNote.map { String(cString: $0.bytes) } }

    /// Installs handlers for SIGINT, SIGTERM and SIGHUP that end this process's running
    /// children (`RunningChildren`), remove every registered temporary file, print the
    /// interruption note if there is one, and exit with 128 + the signal number, as a shell
    /// reports a killed command; during ``stoppingInOrder(_:)``, the first signal only asks the
    /// work to stop.
    public static func removeOnSignals() {
        defer {
            // A parent may have started us with these signals blocked (Foundation's Process does):
            // unblock them, or Ctrl-C and `kill` would never reach the handler; once it is
            // installed, so that one already pending reaches it too.
            var unblock = sigset_t()
            sigemptyset(&unblock)
            for sig in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&unblock, sig) }
            sigprocmask(SIG_UNBLOCK, &unblock, nil)
        }
        _ = RunningChildren.table  // made now: the handler may not run a global's lazy initialiser
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig) { sig in
                // Atomics are lock-free: safe in a handler.
                if TemporaryFiles.stopsInOrder.load(ordering: .acquiring),
                   TemporaryFiles.stopSignal.compareExchange(expected: 0, desired: sig, ordering: .acquiringAndReleasing).exchanged
                    || TemporaryFiles.endedByParent.load(ordering: .acquiring) {
                    return
                }
                // Children first: they may be writing what is about to be removed.
                RunningChildren.endAllFromSignalHandler()
                for i in 0..<TemporaryFiles.slots { TemporaryFiles.removeFromSignalHandler(slot: i) }
                if let note = TemporaryFiles.interruptionNote { _ = write(STDERR_FILENO, note.bytes, note.count) }
                _exit(128 + sig)
            }
        }
    }
}
