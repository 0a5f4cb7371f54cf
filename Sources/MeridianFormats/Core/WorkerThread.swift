#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body` on a new thread; `join()` waits for it.
package final class WorkerThread: @unchecked Sendable {
    private var thread = pthread_t()
    private let body: () -> Void

    /// Throws when the system cannot start a thread (out of threads or memory).
    package init(_ body: @escaping () -> Void) throws {
        self.body = body
        let context = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            let worker = Unmanaged<WorkerThread>.fromOpaque(context!).takeRetainedValue()
            worker.body()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<WorkerThread>.fromOpaque(context).release()
            throw MeridianError(.io, "cannot start a thread: \(String(cString: strerror(status)))")
        }
    }

    private var joined = false

    /// Waits for the thread to end (at once when it has been joined before: joining a thread
    /// twice is undefined).
    package func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }
}
