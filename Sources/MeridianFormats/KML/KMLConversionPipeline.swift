import DequeModule
import MeridianGeometry
import Synchronization

/// The KML reader's two stages on two threads: the reading side (the caller of `next()`) runs
/// expat and builds each feature's element tree; a conversion thread turns the trees into
/// `Feature`s (coordinates into numbers, styles, ExtendedData), and frees the trees, while the
/// reading side reads on. On a large file the conversion was a third of the reading thread's
/// work, and expat's own part cannot be split.
///
/// Everything the reader hands out stays in document order: features, warnings (the reading
/// side's and each conversion's) and the folder tree's Folders pass through one queue, which
/// the conversion thread walks front to back, converting as it goes. The queue is bounded
/// (items, and bytes of text in the trees it holds, converted or not), so memory stays flat.
final class KMLConversionPipeline: @unchecked Sendable {
    /// What the reader acts on, in document order.
    enum Event {
        /// A converted feature (nil for an element with no place on the map), the warnings its
        /// conversion gave, and whether the reader keeps it (`--layer`).
        case feature((Feature, KMLGroundOverlay?)?, diagnostics: [Diagnostic], kept: Bool)
        case containerStart(KMLDocumentBuilder.Container)
        case containerEnd(KMLDocumentBuilder.Container)
        case diagnostic(Diagnostic)
    }

    /// A tree to convert, with what its conversion needs from the reading side.
    struct Conversion {
        let element: XMLElement
        let folders: [String]
        let definitions: KMLDefinitions
        let kept: Bool
        /// Bytes of text in the tree, for the bound.
        var size: Int { element.tree.text.count }
    }

    private let queue: Queue
    private var thread: WorkerThread?

    /// At most this many items, and this many bytes of text in trees, wait at once (a larger
    /// tree still passes, alone).
    static let itemLimit = 256
    static let byteLimit = 1 << 20

    init(file: String, options: KMLReadOptions) {
        queue = Queue(converter: KMLFeatureConverter(file: file), options: options)
    }

    /// Stops the conversion thread (a reader dropped before the end of its document).
    deinit {
        queue.cancel()
        thread?.join()
    }

    /// Whether the reading side may read on: the queue is under its bounds.
    var hasRoom: Bool { queue.hasRoom }

    /// Queues a tree for conversion, starting the conversion thread at the first.
    func convert(_ conversion: Conversion) throws {
        if thread == nil {
            let queue = self.queue  // the thread holds the queue, never the pipeline
            thread = try WorkerThread { queue.convertInOrder() }
        }
        queue.append(.convert(conversion))
    }

    /// Queues an event that needs no conversion, behind everything queued before it.
    func pass(_ event: Event) { queue.append(.ready(event, size: 0)) }

    /// The next event if it is ready, without waiting; nil otherwise.
    func takeIfReady() -> Event? { queue.take(waiting: false) }

    /// Whether the front event is ready, without taking the lock: the reading side asks between
    /// chunks, so that a converted feature goes on to the writer while expat is still inside a
    /// large one (a country of 2 MB of coordinates takes expat milliseconds).
    var hasReadyEvent: Bool { queue.readyCount.load(ordering: .relaxed) > 0 }

    /// The next event, waiting for it to be converted; nil when nothing is queued.
    func take() -> Event? { queue.take(waiting: true) }

    /// A queued item, and the bytes of text it counts against the bound until it is taken.
    private enum Item {
        case convert(Conversion)
        case ready(Event, size: Int)
    }

    /// The queue both threads use, with the converter the conversion thread runs.
    private final class Queue: @unchecked Sendable {
        // All state below is guarded by `condition`. `items[..<converted]` are ready; the
        // conversion thread works on `items[converted]`; the reader takes from the front.
        // `bytesQueued` counts the text of every tree from its queueing to its taking, converted
        // or not (a converted feature holds about as much as its text did).
        private var items = Deque<Item>()
        private var converted = 0 {
            didSet { readyCount.store(converted, ordering: .relaxed) }
        }
        /// `converted`, readable without the lock.
        let readyCount = Atomic<Int>(0)
        private var bytesQueued = 0
        private var cancelled = false
        private let condition = Condition()
        private let converter: KMLFeatureConverter
        private let options: KMLReadOptions

        init(converter: KMLFeatureConverter, options: KMLReadOptions) {
            self.converter = converter
            self.options = options
        }

        var hasRoom: Bool {
            condition.locked { items.count < KMLConversionPipeline.itemLimit && bytesQueued < KMLConversionPipeline.byteLimit }
        }

        func cancel() {
            condition.locked {
                cancelled = true
                condition.broadcast()
            }
        }

        func append(_ item: Item) {
            condition.locked {
                items.append(item)
                switch item {
                case .convert(let conversion): bytesQueued += conversion.size
                // Ready as it is; nothing waits for the conversion thread if all before it are ready.
                case .ready: if converted == items.count - 1 { converted += 1 }
                }
                condition.broadcast()
            }
        }

        /// The front event once it is ready (waiting for it, if asked); nil when it is not
        /// ready and not waited for, or nothing is queued.
        func take(waiting: Bool) -> Event? {
            condition.locked {
                while waiting && converted == 0 && !items.isEmpty { condition.wait() }
                guard converted > 0, case .ready(let event, let size) = items.popFirst() else { return nil }
                converted -= 1
                bytesQueued -= size
                condition.broadcast()
                return event
            }
        }

        /// The conversion thread: the queue front to back, each tree converted outside the
        /// lock, until cancelled.
        func convertInOrder() {
            while let conversion = nextConversion() {
                let (feature, diagnostics) = converter.convert(conversion.element, folders: conversion.folders,
                                                               definitions: conversion.definitions, options: options)
                condition.locked {
                    items[converted] = .ready(.feature(feature, diagnostics: diagnostics, kept: conversion.kept), size: conversion.size)
                    converted += 1
                    condition.broadcast()
                }
            }
        }

        /// The next tree to convert, waiting for one (events before it are marked ready on the
        /// way); nil once cancelled.
        private func nextConversion() -> Conversion? {
            condition.locked {
                while true {
                    while !cancelled && converted == items.count { condition.wait() }
                    guard !cancelled else { return nil }
                    if case .convert(let conversion) = items[converted] { return conversion }
                    converted += 1
                    condition.broadcast()
                }
            }
        }
    }
}
