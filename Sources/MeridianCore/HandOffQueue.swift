import DequeModule

/// A queue from one producing thread to one consuming thread, bounded by a number of elements
/// and a total weight (bytes, positions; one element heavier than the bound still passes, alone),
/// so memory stays flat whatever the input. The converter's reader and writer use one, and the
/// KML reader's reading thread and its caller another.
package final class HandOffQueue<Element>: @unchecked Sendable {
    // All state below is guarded by `condition`.
    private var elements = Deque<(element: Element, weight: Int)>()
    private var weight = 0
    private var closed = false
    private var cancelled = false
    /// How many elements the consumer has taken.
    private var taken = 0
    private let condition = Condition()
    private let countLimit: Int
    private let weightLimit: Int

    package init(countLimit: Int, weightLimit: Int) {
        self.countLimit = countLimit
        self.weightLimit = weightLimit
    }

    private var full: Bool { !elements.isEmpty && (elements.count >= countLimit || weight >= weightLimit) }

    /// Queues `element` once there is room; false once the consumer has cancelled. While there
    /// is none, `whileFull` runs (without the queue's lock) until it returns false: work the
    /// producer can do instead of waiting (the KML reading side converts queued features).
    package func put(_ element: Element, weight elementWeight: Int, whileFull: () -> Bool = { false }) -> Bool {
        // The producer alone adds elements, so room, once there, stays until it adds this one.
        while condition.locked({ !cancelled && full }) {
            if whileFull() { continue }
            condition.locked {
                while !cancelled && full { condition.wait() }
            }
        }
        return condition.locked {
            guard !cancelled else { return false }
            elements.append((element, elementWeight))
            weight += elementWeight
            condition.broadcast()
            return true
        }
    }

    /// The first element, from the `cursor`-th put on (counting from 0; the consumer may have
    /// taken some since), that `claim` takes, or nil; `cursor` moves past the elements asked
    /// about, so a producer that calls it again and again asks about each element once. `claim`
    /// runs holding the queue's lock: the consumer cannot take the element meanwhile. Nil once
    /// cancelled.
    package func firstQueued(from cursor: inout Int, where claim: (Element) -> Bool) -> Element? {
        condition.locked {
            guard !cancelled else { return nil }
            var index = max(cursor - taken, 0)
            defer { cursor = taken + index }
            while index < elements.count {
                let element = elements[index].element
                index += 1
                if claim(element) { return element }
            }
            return nil
        }
    }

    /// The next element, waiting for one; nil once closed and drained, or cancelled.
    package func take() -> Element? {
        condition.locked {
            while elements.isEmpty && !closed && !cancelled { condition.wait() }
            guard !cancelled, let (element, elementWeight) = elements.popFirst() else { return nil }
            weight -= elementWeight
            taken += 1
            condition.broadcast()
            return element
        }
    }

    /// The producer is done: the consumer takes what is queued, then nil.
    package func close() {
        condition.locked {
            closed = true
            condition.broadcast()
        }
    }

    /// The consumer has gone: the producer's `put` returns false from now on, and `take` nil.
    package func cancel() {
        condition.locked {
            cancelled = true
            condition.broadcast()
        }
    }
}
