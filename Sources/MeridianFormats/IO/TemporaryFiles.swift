#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The temporary files this process has open, so a signal that ends the process removes them.
///
/// The handler may only do async-signal-safe work, so the paths live in a fixed table of C
/// strings that it walks with `unlink(2)`; Swift arrays and locks are touched only outside it.
public final class TemporaryFiles: @unchecked Sendable {
    public static let shared = TemporaryFiles()

    static let slots = 64
    // A fixed table read by the signal handler: entries are swapped in and out atomically
    // enough for a pointer-sized store, and freed only after they are cleared.
    nonisolated(unsafe) static let table = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: slots)
    private var lock = pthread_mutex_t()

    private init() {
        Self.table.initialize(repeating: nil, count: Self.slots)
        pthread_mutex_init(&lock, nil)
    }

    /// The folder for scratch files: $TMPDIR, else /tmp.
    static var folder: String {
        getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    }

    /// mkstemps(3) on `template` (ending in XXXXXX, then `suffix`): the open descriptor and the
    /// file's path, or nil with `errno` set.
    public static func create(_ template: String, suffix: String = "") -> (fd: Int32, path: String)? {
        var bytes = Array((template + suffix).utf8CString)
        let fd = bytes.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, Int32(suffix.utf8.count)) }
        guard fd >= 0 else { return nil }
        return (fd, bytes.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    /// A scratch file in `folder`, registered so a signal removes it; `suffix` ends its name
    /// (an extension, for tools that go by it).
    public static func scratch(_ name: String, suffix: String = "") throws -> (fd: Int32, path: String) {
        guard let file = create("\(folder)/meridian-\(name)-XXXXXX", suffix: suffix) else {
            throw MeridianError(.io, "cannot create a temporary file in \(folder): \(String(cString: strerror(errno)))")
        }
        shared.register(file.path)
        return file
    }

    public func register(_ path: String) {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        for i in 0..<Self.slots where Self.table[i] == nil {
            Self.table[i] = strdup(path)
            return
        }
    }

    public func unregister(_ path: String) {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        for i in 0..<Self.slots {
            if let entry = Self.table[i], String(cString: entry) == path {
                Self.table[i] = nil
                free(entry)
            }
        }
    }

    /// Installs handlers for SIGINT, SIGTERM and SIGHUP that remove every registered temporary
    /// file and exit with 128 + the signal number, as a shell reports a killed command.
    public static func removeOnSignals() {
        // A parent may have started us with these signals blocked (Foundation's Process does):
        // unblock them, or Ctrl-C and `kill` would never reach the handler.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for sig in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&unblock, sig) }
        sigprocmask(SIG_UNBLOCK, &unblock, nil)
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig) { sig in
                for i in 0..<TemporaryFiles.slots {
                    if let entry = TemporaryFiles.table[i] { unlink(entry) }
                }
                _exit(128 + sig)
            }
        }
    }
}
