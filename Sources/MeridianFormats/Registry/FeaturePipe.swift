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
    // All state below is guarded by `condition`.
    private var queue = Deque<Feature>()
    private var positionsQueued = 0
    private let positionLimit: Int
    private var closed = false
    private var cancelled = false
    private let condition = Condition()

    init(positionLimit: Int = 250_000) {
        self.positionLimit = positionLimit
    }

    /// Waits for room, then queues; false when the consumer has given up.
    func put(_ feature: Feature) -> Bool {
        let size = feature.geometry?.positionCount ?? 0
        return condition.locked {
            while !cancelled && !queue.isEmpty && positionsQueued + size > positionLimit { condition.wait() }
            guard !cancelled else { return false }
            queue.append(feature)
            positionsQueued += size
            condition.broadcast()
            return true
        }
    }

    /// No more features will come.
    func close() {
        condition.locked {
            closed = true
            condition.broadcast()
        }
    }

    /// The consumer stops: producers' `put` returns false from now on.
    func cancel() {
        condition.locked {
            cancelled = true
            condition.broadcast()
        }
    }

    /// The next feature, waiting for one; nil once closed and drained.
    func take() -> Feature? {
        condition.locked {
            while queue.isEmpty && !closed { condition.wait() }
            guard let feature = queue.popFirst() else { return nil }
            positionsQueued -= feature.geometry?.positionCount ?? 0
            condition.broadcast()
            return feature
        }
    }
}

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

    package func join() { pthread_join(thread, nil) }
}
