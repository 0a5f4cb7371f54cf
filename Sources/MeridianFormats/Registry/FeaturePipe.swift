#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import DequeModule
import MeridianGeometry

/// A bounded queue between a reading thread and a writing thread, so parsing and formatting
/// run on two cores at once. Bounded by a number of positions, so memory stays flat whatever
/// the input (one very large feature still passes through alone).
final class FeaturePipe: @unchecked Sendable {
    private var queue = Deque<Feature>()
    private var positionsQueued = 0
    private let positionLimit: Int
    private var closed = false
    private var cancelled = false
    private var mutex = pthread_mutex_t()
    private var changed = pthread_cond_t()

    init(positionLimit: Int = 250_000) {
        self.positionLimit = positionLimit
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&changed, nil)
    }

    deinit {
        pthread_cond_destroy(&changed)
        pthread_mutex_destroy(&mutex)
    }

    /// Waits for room, then queues; false when the consumer has given up.
    func put(_ feature: Feature) -> Bool {
        let size = feature.geometry?.positionCount ?? 0
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while !cancelled && !queue.isEmpty && positionsQueued + size > positionLimit {
            pthread_cond_wait(&changed, &mutex)
        }
        guard !cancelled else { return false }
        queue.append(feature)
        positionsQueued += size
        pthread_cond_broadcast(&changed)
        return true
    }

    /// No more features will come.
    func close() {
        pthread_mutex_lock(&mutex)
        closed = true
        pthread_cond_broadcast(&changed)
        pthread_mutex_unlock(&mutex)
    }

    /// The consumer stops: producers' `put` returns false from now on.
    func cancel() {
        pthread_mutex_lock(&mutex)
        cancelled = true
        pthread_cond_broadcast(&changed)
        pthread_mutex_unlock(&mutex)
    }

    /// The next feature, waiting for one; nil once closed and drained.
    func take() -> Feature? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while queue.isEmpty && !closed { pthread_cond_wait(&changed, &mutex) }
        guard let feature = queue.popFirst() else { return nil }
        positionsQueued -= feature.geometry?.positionCount ?? 0
        pthread_cond_broadcast(&changed)
        return feature
    }
}

/// Runs `body` on a new thread; `join()` waits for it.
package final class WorkerThread: @unchecked Sendable {
    private var thread = pthread_t()
    private let body: () -> Void

    package init(_ body: @escaping () -> Void) {
        self.body = body
        let context = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { context in
            let worker = Unmanaged<WorkerThread>.fromOpaque(context!).takeRetainedValue()
            worker.body()
            return nil
        }, context)
    }

    package func join() { pthread_join(thread, nil) }
}
