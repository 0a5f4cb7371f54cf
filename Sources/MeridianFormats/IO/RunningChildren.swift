import Synchronization
import MeridianCore

/// The child processes this process has running (helpers such as `meridian-gdal`), so that a
/// signal that ends this process ends them first: an interrupted run leaves no helper behind.
///
/// Like `TemporaryFiles`, the table is fixed and read by the signal handler, which may only do
/// async-signal-safe work (kill, waitpid, nanosleep); it is changed only outside the handler.
public enum RunningChildren {
    static let slots = 64
    nonisolated(unsafe) static let table: UnsafeMutablePointer<pid_t> = {
        let table = UnsafeMutablePointer<pid_t>.allocate(capacity: slots)
        table.initialize(repeating: 0, count: slots)
        return table
    }()
    private static let lock = Mutex(())

    /// Adds a child just started (the first 64 running at once are covered).
    public static func add(_ pid: pid_t) {
        lock.withLock { _ in
            for i in 0..<slots where table[i] == 0 {
                table[i] = pid
                return
            }
        }
    }

    /// Takes a child off once it has been reaped.
    public static func remove(_ pid: pid_t) {
        lock.withLock { _ in
            for i in 0..<slots where table[i] == pid { table[i] = 0 }
        }
    }

    /// How long an interrupted process waits for its children to stop after SIGTERM (each
    /// removes its own temporary files) before it kills them.
    static let gracePeriodMilliseconds = 2_000

    /// From a signal handler: asks every child to stop (SIGTERM), waits up to the grace period
    /// for them to end, kills what is left (SIGKILL) and reaps them all.
    static func endAllFromSignalHandler() {
        var pending = 0
        for i in 0..<slots where table[i] > 0 {
            kill(table[i], SIGTERM)
            pending += 1
        }
        guard pending > 0 else { return }
        var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
        var waited = 0
        while pending > 0 && waited < gracePeriodMilliseconds {
            pending = 0
            for i in 0..<slots where table[i] > 0 {
                var status: Int32 = 0
                let reaped = waitpid(table[i], &status, WNOHANG)
                if reaped == table[i] || (reaped < 0 && errno == ECHILD) { table[i] = 0 } else { pending += 1 }
            }
            if pending > 0 {
                nanosleep(&pause, nil)
                waited += 10
            }
        }
        for i in 0..<slots where table[i] > 0 {
            kill(table[i], SIGKILL)
            var status: Int32 = 0
            while waitpid(table[i], &status, 0) < 0 && errno == EINTR {}
            table[i] = 0
        }
    }
}
