import Foundation
import MeridianFormats
import Synchronization

/// Work shared out to threads whose results come back to the calling thread: the workers
/// produce, the caller consumes one result at a time, in the order they come (what must be
/// done in one place: a run's counts, a level's scratch file of tiles, blocks appended in
/// feature order). At most `backlog` results wait at once, so fast workers cannot fill memory
/// while the caller writes.
enum WorkerThreads {
    /// Runs `produce` on `threads` threads (each calls it once and loops over its own share of
    /// the work, handing every result to `emit`) and `consume` on the calling thread for each
    /// result. When `consume` or a worker throws, or a signal asks the run to stop
    /// (`TemporaryFiles.stoppingInOrder`), the workers stop at their next `emit` and the first
    /// error is rethrown once all have stopped.
    static func run<Result: Sendable>(threads: Int, backlog: Int = 8,
                                      produce: @escaping @Sendable (_ emit: (Result) throws -> Void) throws -> Void,
                                      consume: (Result) throws -> Void) throws {
        let shared = Shared<Result>(backlog: backlog)
        for _ in 0..<max(1, threads) {
            // The thread lets go of `produce` (and what it captured: a tile store, whose release
            // may remove an output's lock file) before it says it has finished, so that nothing
            // of it outlives `run`.
            let work = Work(produce)
            let thread = Thread {
                let failure = Self.produce(work.take(), shared)
                shared.send(.finished(failure))
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
        var running = max(1, threads), firstError: (any Error)?
        while running > 0 {
            switch shared.receive() {
            case .result(let result):
                shared.room.signal()
                guard firstError == nil else { continue }
                do { try consume(result) } catch {
                    firstError = error
                    shared.stopped.store(true, ordering: .relaxed)
                }
            case .finished(let failure):
                running -= 1
                if firstError == nil, let failure {
                    firstError = failure
                    shared.stopped.store(true, ordering: .relaxed)
                }
            }
        }
        if let firstError { throw firstError }
    }

    /// Runs `produce`, handing each result to the caller; returns what it threw (nil when it
    /// ended, or was stopped).
    private static func produce<Result: Sendable>(_ produce: (_ emit: (Result) throws -> Void) throws -> Void,
                                                  _ shared: Shared<Result>) -> (any Error)? {
        do {
            try produce { result in
                if shared.stopped.load(ordering: .relaxed) { throw CancellationError() }
                try TemporaryFiles.checkForStop()
                shared.room.wait()
                shared.send(.result(result))
            }
        } catch is CancellationError {
        } catch {
            return error
        }
        return nil
    }

    /// A worker's `produce`, taken by its thread once.
    private final class Work<Result: Sendable>: @unchecked Sendable {
        // Set in `init`, taken (and dropped) by the one thread that runs it.
        private var produce: (@Sendable (_ emit: (Result) throws -> Void) throws -> Void)?

        init(_ produce: @escaping @Sendable (_ emit: (Result) throws -> Void) throws -> Void) { self.produce = produce }

        func take() -> @Sendable (_ emit: (Result) throws -> Void) throws -> Void {
            defer { produce = nil }
            return produce!
        }
    }

    private enum Message<Result: Sendable>: Sendable {
        case result(Result)
        case finished((any Error)?)
    }

    /// The queue between the workers and the caller, with its two counts (messages ready,
    /// room for results) and the flag that stops the workers.
    private final class Shared<Result: Sendable>: Sendable {
        let queue = Mutex<[Message<Result>]>([])
        let ready = DispatchSemaphore(value: 0)
        let room: DispatchSemaphore
        let stopped = Atomic<Bool>(false)

        init(backlog: Int) { room = DispatchSemaphore(value: max(1, backlog)) }

        func send(_ message: Message<Result>) {
            queue.withLock { $0.append(message) }
            ready.signal()
        }

        func receive() -> Message<Result> {
            ready.wait()
            return queue.withLock { $0.removeFirst() }
        }
    }
}
