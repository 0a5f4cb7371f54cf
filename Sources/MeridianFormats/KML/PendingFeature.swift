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
    /// What converting the feature takes.
    struct Work {
        let element: XMLElement
        /// The Folders it sits in, outermost first.
        let folders: [String]
        /// The document's definitions when the feature ended.
        let definitions: KMLDefinitions
    }

    private enum State {
        case waiting(Work)
        case converting
        case converted(KMLFeatureConverter.Conversion)
    }

    /// Whether the feature is in the layer asked for (`ReadOptions.layer`).
    let kept: Bool
    /// Guarded by `lock`, which all features of one reading side share.
    private var state: State
    private let lock: Condition

    init(_ work: Work, kept: Bool, lock: Condition) {
        self.kept = kept
        state = .waiting(work)
        self.lock = lock
    }

    /// The work, for the reading thread to convert ahead, unless someone has taken it.
    func claim() -> Work? {
        lock.locked {
            guard case .waiting(let work) = state else { return nil }
            state = .converting
            return work
        }
    }

    /// The reading thread's conversion of the work it claimed (the tree goes with the work).
    func finish(_ conversion: KMLFeatureConverter.Conversion) {
        lock.locked {
            state = .converted(conversion)
            lock.broadcast()
        }
    }

    /// The conversion: by `convert`, now, if the reading thread has not claimed the work, or the
    /// reading thread's, waited for.
    func conversion(_ convert: (Work) -> KMLFeatureConverter.Conversion) -> KMLFeatureConverter.Conversion {
        enum Outcome {
            case claimed(Work)
            case converted(KMLFeatureConverter.Conversion)
        }
        let outcome: Outcome = lock.locked {
            while true {
                switch state {
                case .waiting(let work):
                    state = .converting
                    return .claimed(work)
                case .converting: lock.wait()
                case .converted(let conversion): return .converted(conversion)
                }
            }
        }
        switch outcome {
        case .claimed(let work): return convert(work)
        case .converted(let conversion): return conversion
        }
    }
}
