#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One object of each thread's own, made by `make` on the thread's first ``value()`` and
/// released when the thread ends (a pthread key): state that is costly to set up and cannot be
/// shared between threads, such as a compressor's tables, is then set up once per thread rather
/// than once per use, with no lock. The main thread's object lives as long as the process.
package final class PerThread<Value: AnyObject>: @unchecked Sendable {
    private var key = pthread_key_t()
    private let make: @Sendable () throws -> Value

    /// Objects made by `make`, one per thread that asks.
    /// - Throws: `MeridianError` (I/O) when the system has no key left (PTHREAD_KEYS_MAX, at least
    ///   128, per process: a program makes a few, once).
    package init(_ make: @escaping @Sendable () throws -> Value) throws {
        self.make = make
        // The destructor runs as each thread ends, with its object (never with nil).
        let status = pthread_key_create(&key) { object in releaseThreadObject(object) }
        guard status == 0 else { throw MeridianError(.io, "cannot keep a value per thread: \(String(cString: strerror(status)))") }
    }

    // Never deleted: a key lives as long as the process, as the objects threads still hold.

    /// The calling thread's object, made now if it has none.
    /// - Throws: What `make` throws; the next call tries again.
    package func value() throws -> Value {
        if let object = pthread_getspecific(key) {
            return Unmanaged<Value>.fromOpaque(object).takeUnretainedValue()
        }
        let object = try make()
        let retained = Unmanaged.passRetained(object).toOpaque()
        guard pthread_setspecific(key, retained) == 0 else {
            // Out of memory for the thread's slot: used once, freed when the caller is done.
            Unmanaged<Value>.fromOpaque(retained).release()
            return object
        }
        return object
    }
}

/// Releases a thread's object as the thread ends (pthread's destructor: a C function, so it
/// cannot be generic; every object is a Swift class instance, released alike).
private func releaseThreadObject(_ object: UnsafeMutableRawPointer?) {
    guard let object else { return }
    Unmanaged<AnyObject>.fromOpaque(object).release()
}
