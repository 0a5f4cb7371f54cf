import MeridianCore
import Foundation
import Synchronization

/// A TCP listener on 127.0.0.1 (never another address) that counts the connections made to it,
/// for tests that prove nothing is fetched: a URL naming `port` is requested only if `connections`
/// grows. It accepts and closes each connection at once, for as long as it lives (a bounded poll
/// loop on its own thread, ended by `stop()`).
public final class LoopbackListener: @unchecked Sendable {
    public let port: UInt16
    private let socketDescriptor: Int32
    private let counted = Mutex(0)
    private let stopping = Mutex(false)
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    public init() throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
        guard bound == 0, listen(descriptor, 16) == 0,
              withUnsafeMutablePointer(to: &address, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }) == 0 else {
            close(descriptor)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        socketDescriptor = descriptor
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [unowned self] in self.serve() }
        self.thread = thread
        thread.start()
    }

    /// How many connections were made so far.
    public var connections: Int { counted.withLock { $0 } }

    private func serve() {
        defer { finished.signal() }
        while !stopping.withLock({ $0 }) {
            var waiting = pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, 50) > 0 else { continue }
            let connection = accept(socketDescriptor, nil, nil)
            if connection >= 0 {
                counted.withLock { $0 += 1 }
                close(connection)
            }
        }
    }

    /// Stops listening and closes the socket.
    public func stop() {
        guard thread != nil else { return }
        stopping.withLock { $0 = true }
        finished.wait()
        thread = nil
        close(socketDescriptor)
    }

    deinit { stop() }
}
