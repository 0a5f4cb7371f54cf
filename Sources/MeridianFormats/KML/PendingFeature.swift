import MeridianCore
/// A feature's element tree on its way from the KML reading side to the reader's caller, and its
/// conversion, which whichever of the two comes to it first does: the caller as it takes the
/// feature, or the reading thread while the queue is full.
///
/// Why the reading thread converts: it would wait otherwise. Features differ in size by a
/// thousand times (Natural Earth's Canada is 2.2 MB of KML, its neighbours a few KB), and while
/// the caller converts a large one, the reading thread fills the queue and stops; on two cores,
/// with the writing thread soon out of work as well, one of them stood idle. Converting the
/// features queued behind the large one keeps both busy. Features still come out in document
/// order: the caller takes them in order and waits for one the reading thread is converting.
final class PendingFeature: @unchecked Sendable {
    private enum State {
        case waiting(KMLFeatureConverter.FeatureTree)
        case converting
        case converted(KMLFeatureConverter.Conversion)
    }

    /// Whether the feature is in the layer asked for (`ReadOptions.layer`).
    let kept: Bool
    /// Guarded by `lock`, which all features of one reading side share.
    private var state: State
    private let lock: Condition

    init(_ tree: KMLFeatureConverter.FeatureTree, kept: Bool, lock: Condition) {
        self.kept = kept
        state = .waiting(tree)
        self.lock = lock
    }

    /// The tree, for the thread that asks first to convert; nil once someone has taken it.
    func claim() -> KMLFeatureConverter.FeatureTree? {
        lock.locked {
            guard case .waiting(let tree) = state else { return nil }
            state = .converting
            return tree
        }
    }

    /// The reading thread's conversion of the tree it claimed.
    func finish(_ conversion: KMLFeatureConverter.Conversion) {
        lock.locked {
            state = .converted(conversion)
            lock.broadcast()
        }
    }

    /// The conversion: by `convert`, now, if the reading thread has not claimed the tree, or the
    /// reading thread's, waited for.
    func conversion(_ convert: (KMLFeatureConverter.FeatureTree) -> KMLFeatureConverter.Conversion) -> KMLFeatureConverter.Conversion {
        if let tree = claim() { return convert(tree) }
        return lock.locked {
            while true {
                if case .converted(let conversion) = state { return conversion }
                lock.wait()
            }
        }
    }
}
