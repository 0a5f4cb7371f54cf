#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A lock with a condition to wait on, for threads that block until another changes shared
/// state (a bounded queue's producer and consumer). Synchronization's `Mutex`, which the rest of
/// Meridian uses, cannot wait. The pthread objects live in memory this class allocates, so their
/// addresses never move: a `pthread_mutex_t` stored in a Swift property and passed with `&` has
/// no stable address. ThreadSanitizer sees a pthread mutex's ordering (it does not see `Mutex`'s
/// on Linux), so state that several threads touch at once is kept behind this one.
package final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the lock.
    package func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Inside `locked`: lets the lock go until another thread calls `broadcast`, then takes it
    /// again. Callers wait in a loop over their own condition, as wakeups may be spurious.
    package func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// Wakes every waiting thread (they recheck their conditions).
    package func broadcast() {
        pthread_cond_broadcast(condition)
    }
}

/// A value behind a pthread mutex, with `Mutex`'s `withLock`: for state that worker threads
/// update all the time, where ThreadSanitizer must see the lock (it does not see `Mutex`'s on
/// Linux, and reported the tiler's shared run state as raced).
package final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = Condition()

    package init(_ value: Value) { self.value = value }

    /// Runs `body` on the value, holding the lock.
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try lock.locked { try body(&value) }
    }
}
