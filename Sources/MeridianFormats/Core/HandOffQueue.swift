import DequeModule

/// A queue from one producing thread to one consuming thread, bounded by a number of elements
/// and a total weight (bytes, positions; one element heavier than the bound still passes, alone),
/// so memory stays flat whatever the input. The converter's reader and writer use one, and the
/// KML reader's reading thread and its caller another.
final class HandOffQueue<Element>: @unchecked Sendable {
    // All state below is guarded by `condition`.
    private var elements = Deque<(element: Element, weight: Int)>()
    private var weight = 0
    private var closed = false
    private var cancelled = false
    private let condition = Condition()
    private let countLimit: Int
    private let weightLimit: Int

    init(countLimit: Int, weightLimit: Int) {
        self.countLimit = countLimit
        self.weightLimit = weightLimit
    }

    private var full: Bool { !elements.isEmpty && (elements.count >= countLimit || weight >= weightLimit) }

    /// Waits for room, then queues `element`; false once the consumer has cancelled.
    /// `beforeWaiting` runs (holding the queue's lock) when there is no room, before the wait.
    func put(_ element: Element, weight elementWeight: Int, beforeWaiting: () -> Void = {}) -> Bool {
        condition.locked {
            if !cancelled && full { beforeWaiting() }
            while !cancelled && full { condition.wait() }
            guard !cancelled else { return false }
            elements.append((element, elementWeight))
            weight += elementWeight
            condition.broadcast()
            return true
        }
    }

    /// The next element, waiting for one; nil once closed and drained, or cancelled.
    func take() -> Element? {
        condition.locked {
            while elements.isEmpty && !closed && !cancelled { condition.wait() }
            guard !cancelled, let (element, elementWeight) = elements.popFirst() else { return nil }
            weight -= elementWeight
            condition.broadcast()
            return element
        }
    }

    /// The producer is done: the consumer takes what is queued, then nil.
    func close() {
        condition.locked {
            closed = true
            condition.broadcast()
        }
    }

    /// The consumer has gone: the producer's `put` returns false from now on, and `take` nil.
    func cancel() {
        condition.locked {
            cancelled = true
            condition.broadcast()
        }
    }
}
