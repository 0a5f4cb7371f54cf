#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body` on a new thread; `join()` waits for it. The thread lets go of `body` (and of
/// what it captured) once it has run: an object that keeps its own `WorkerThread` and whose
/// `body` captures it (the KML reader's reading side) is then freed like any other, where the
/// two held each other for ever (LeakSanitizer's finding on the first KML document fuzzed).
package final class WorkerThread: @unchecked Sendable {
    // Darwin's pthread_t is a pointer, set by pthread_create (`pthread_t()` does not exist
    // there); glibc's is an integer.
    #if canImport(Darwin)
    private var thread: pthread_t?
    #else
    private var thread = pthread_t()
    #endif
    /// Taken by the thread as it starts (nil from then on): only the thread touches it after `init`.
    private var body: (() -> Void)?

    /// Throws when the system cannot start a thread (out of threads or memory).
    package init(_ body: @escaping () -> Void) throws {
        self.body = body
        let context = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            // The argument is optional on Linux and not on Darwin: `present` takes either.
            let worker = Unmanaged<WorkerThread>.fromOpaque(present(context)).takeRetainedValue()
            let body = worker.body
            worker.body = nil
            body?()
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
        #if canImport(Darwin)
        if let thread { pthread_join(thread, nil) }
        #else
        pthread_join(thread, nil)
        #endif
    }
}

/// The thread's argument, which pthread_create always passes.
private func present(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer { context! }
