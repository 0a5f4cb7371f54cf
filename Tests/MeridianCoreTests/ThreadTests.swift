@testable import MeridianCore
import Testing

@Suite struct ThreadTests {
    /// A thread lets go of its body once it has run: an object that keeps its own thread, whose
    /// body captures it (as the KML reader's reading side does), is freed once dropped. (The
    /// two held each other: every KML document read leaked its reader, found by fuzzing.)
    @Test func aThreadLetsGoOfItsBodyOnceItHasRun() throws {
        final class Owner: @unchecked Sendable { var thread: WorkerThread? }
        weak var dropped: Owner?
        try {
            let owner = Owner()
            dropped = owner
            owner.thread = try WorkerThread { [owner] in withExtendedLifetime(owner) {} }
            owner.thread?.join()
        }()
        #expect(dropped == nil)
    }

    @Test func workerThreadsRunTheirBodiesAndJoin() throws {
        let total = Locked(0)
        let workers = try (1...8).map { n in try WorkerThread { for _ in 0..<1000 { total.withLock { $0 += n } } } }
        for worker in workers { worker.join() }
        workers[0].join()  // a second join does nothing
        #expect(total.withLock { $0 } == 1000 * (1...8).reduce(0, +))
    }

    @Test func theQueueHandsOverInOrderAndEndsWhenClosed() throws {
        let queue = HandOffQueue<Int>(countLimit: 4, weightLimit: 1 << 20)
        let taken = Locked<[Int]>([])
        let consumer = try WorkerThread {
            while let element = queue.take() { taken.withLock { $0.append(element) } }
        }
        for element in 0..<100 { #expect(queue.put(element, weight: 1)) }
        queue.close()
        consumer.join()
        #expect(taken.withLock { $0 } == Array(0..<100))
    }

    @Test func aFullQueueHoldsItsProducerUntilSomethingIsTaken() throws {
        // Weight 10 of at most 10: the queue is full after one element.
        let queue = HandOffQueue<Int>(countLimit: 100, weightLimit: 10)
        #expect(queue.put(1, weight: 10))
        let waits = Locked(0)
        let producer = try WorkerThread {
            _ = queue.put(2, weight: 10, whileFull: {
                waits.withLock { $0 += 1 }
                return false
            })
        }
        while waits.withLock({ $0 }) == 0 {}
        #expect(queue.take() == 1)
        producer.join()
        #expect(queue.take() == 2)
        queue.close()
        #expect(queue.take() == nil)
    }

    @Test func aCancelledQueueRefusesAndReturnsNothing() {
        let queue = HandOffQueue<String>(countLimit: 4, weightLimit: 100)
        #expect(queue.put("a", weight: 1))
        queue.cancel()
        #expect(queue.take() == nil)
        #expect(!queue.put("b", weight: 1))
        var cursor = 0
        #expect(queue.firstQueued(from: &cursor, where: { _ in true }) == nil)
    }

    @Test func firstQueuedClaimsWithoutTakingAndRemembersWhereItWas() {
        let queue = HandOffQueue<Int>(countLimit: 10, weightLimit: 100)
        for element in [5, 6, 7, 8] { _ = queue.put(element, weight: 1) }
        var cursor = 0
        #expect(queue.firstQueued(from: &cursor, where: { $0 % 2 == 0 }) == 6)
        #expect(queue.firstQueued(from: &cursor, where: { $0 % 2 == 0 }) == 8)
        #expect(queue.firstQueued(from: &cursor, where: { _ in true }) == nil)
        #expect(queue.take() == 5)  // still queued: claiming does not take
    }
}
