import MeridianGeometry

/// Where a reader gathers the positions of one line or ring, kept from one to the next (a reader
/// keeps one): the result is then copied once into an array of exactly their number, where
/// appending to a new array grew and copied it again and again on a large ring.
final class PositionScratch {
    private var storage: UnsafeMutablePointer<Position>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 1024) {
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    @inline(__always)
    func append(_ position: Position) {
        if count == capacity { grow() }
        (storage + count).initialize(to: position)
        count += 1
    }

    private func grow() {
        let larger = UnsafeMutablePointer<Position>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: storage, count: count)
        storage.deallocate()
        storage = larger
        capacity *= 2
    }

    /// Forgets what was gathered (after a reader stopped part-way through a list).
    func clear() { count = 0 }

    /// The positions gathered, as an array of exactly their number; the scratch is empty again.
    func take() -> [Position] {
        defer { count = 0 }  // Position is a plain value: nothing to deinitialize
        return Array(UnsafeBufferPointer(start: storage, count: count))
    }
}
