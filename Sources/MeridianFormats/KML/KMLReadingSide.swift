import MeridianCore
import MeridianGeometry

/// The KML reader's reading side, on a thread of its own: expat, and each feature's element tree
/// built as the document goes by. It queues the trees, with the folders and warnings around them
/// in document order, for the reader's caller (the caller of `next()`), which converts each tree
/// into a `Feature` (coordinates into numbers, styles, ExtendedData) and frees it.
///
/// On a large file expat is most of the work and cannot be split, so it runs on without waiting
/// for anyone but a full queue: when the caller converted on a second thread and the reading side
/// handed the features out between chunks, the reading side stood idle whenever a large feature
/// ahead of it was still converting. The queue is bounded (items, and bytes of text in the trees
/// waiting in it), so memory stays flat whatever the file's size. While it is full, and once the
/// document has ended, the reading thread converts the queued features itself, in order, rather
/// than wait (`PendingFeature`); the caller takes the conversions it finds done.
final class KMLReadingSide: @unchecked Sendable {
    // Everything but `queue`, `published` and the queued features' conversions is the reading
    // thread's from `start()` until it has queued `.end` and converted what it could; the caller
    // reads `styles` and `convertedAhead` only after taking that (`stop()` joins the thread).

    /// What the caller takes, in document order.
    enum Item {
        /// A feature's tree to convert (unless the reading side has converted it ahead).
        case feature(PendingFeature)
        case containerStart(KMLDocumentBuilder.Container)
        case containerEnd(KMLDocumentBuilder.Container)
        case diagnostic(Diagnostic)
        /// The last item: the error that stopped the reading, if any, and the counts.
        case end(Error?, KMLStatistics)
    }

    /// What `readMetadata()` needs before the first feature goes out: the first Document's name,
    /// and the error that ended the document before that, if one did.
    struct Metadata {
        var documentName: String?
        var failure: Error?
    }

    /// At most this many items, and this many bytes of text in trees, wait at once (a larger
    /// tree still passes, alone).
    static let itemLimit = 256
    static let byteLimit = 1 << 20

    private let input: BufferedInput
    private let parser: XMLEventParser
    private let builder: KMLDocumentBuilder
    private let context: KMLContext
    /// `ReadOptions.layer`: a feature is kept when one of its containers has this name.
    private let layer: String?
    /// What `XMLEventParser.parseAll` reads whole (tests read small documents whole too).
    private let wholeDocumentMinimum: Int
    private let queue = HandOffQueue<Item>(countLimit: KMLReadingSide.itemLimit, weightLimit: KMLReadingSide.byteLimit)
    /// Set once by `start()`, and kept after `stop()` (a reader does not read twice).
    private var thread: WorkerThread?
    /// Set once, when the first feature of the document proper is queued (a Document's name
    /// comes before its features), or the queue is full, or the document ends.
    private var published: Metadata?
    private let publishing = Condition()
    /// Converts queued features while the queue is full (see `PendingFeature`).
    private let converter: KMLFeatureConverter
    private let options: KMLReadOptions
    /// The features' conversion states' lock.
    private let conversions = Condition()
    /// Items queued before this one (counting from the first) have been looked at for a feature
    /// to convert.
    private var convertedUpTo = 0
    /// How many features the reading thread has converted (read once `.end` is taken).
    private(set) var convertedAhead = 0

    init(input: BufferedInput, layer: String?, options: KMLReadOptions, wholeDocumentMinimum: Int) {
        self.input = input
        self.layer = layer
        self.options = options
        converter = KMLFeatureConverter(file: input.name)
        self.wholeDocumentMinimum = wholeDocumentMinimum
        context = KMLContext(file: input.name)
        builder = KMLDocumentBuilder(context: context)
        parser = XMLEventParser(name: input.name, handler: builder, maximumDepth: KMLDocumentBuilder.maximumDepth)
        builder.parser = Unmanaged.passUnretained(parser)
        // The closures run on the reading thread, inside `run()`, which holds `self`.
        context.report = { [unowned self] in send(.diagnostic($0)) }
        builder.onFeature = { [unowned self] element, containers in
            let kept = layer.map { layer in containers.contains { $0.name == layer } } ?? true
            let folders = containers.filter { $0.kind == "Folder" }.map { $0.name ?? "" }
            // The document proper: in a Document or Folder, or the root's own child; not one
            // inside a NetworkLinkControl's Update, which comes before the Document.
            if !containers.isEmpty || parser.depth <= 2 { publish() }
            let tree = KMLFeatureConverter.FeatureTree(element: element, folders: folders, definitions: context.definitions)
            send(.feature(PendingFeature(tree, kept: kept, lock: conversions)), size: element.tree.text.count)
        }
        builder.onContainerStart = { [unowned self] in send(.containerStart($0)) }
        builder.onContainerEnd = { [unowned self] in send(.containerEnd($0)) }
    }

    /// Styles of other documents (in a KMZ), by `path#id`; set before the reading starts.
    var externalStyles: [String: JSONObject] {
        get { context.definitions.externalStyles }
        set {
            precondition(thread == nil, "external styles are set before the reading starts")
            context.definitions.externalStyles = newValue
        }
    }

    /// The document's own styles by id, resolved through StyleMaps: whole once `.end` is taken.
    var styles: [String: JSONObject] { context.definitions.resolvedStyles }

    /// Starts the reading thread, once.
    func start() throws {
        guard thread == nil else { return }
        thread = try WorkerThread { [self] in run() }
    }

    /// Stops the reading thread and waits for it (the reader is done with the document, or
    /// dropped before its end); the thread holds `self` until then.
    func stop() {
        queue.cancel()
        thread?.join()
    }

    /// The reading thread: the whole document, then `.end`.
    private func run() {
        var failure: Error?
        do {
            try parser.parseAll(from: input, wholeDocumentMinimum: wholeDocumentMinimum)
        } catch {
            failure = error
        }
        publish(failure: failure)
        let statistics = KMLStatistics(folders: builder.folderCount, styles: context.definitions.styleCount)
        _ = queue.put(.end(failure, statistics), weight: 0, whileFull: convertQueuedFeature)
        // Nothing is left to read: the queued features are converted here as well as there.
        while convertQueuedFeature() {}
        queue.close()
    }

    /// Sets `published` (the first time only); `failure` when the document has ended.
    private func publish(failure: Error? = nil) {
        publishing.locked {
            guard published == nil else { return }
            published = Metadata(documentName: builder.documentName, failure: failure)
            publishing.broadcast()
        }
    }

    /// Queues `item`, converting queued features while there is no room; once the caller has
    /// gone, stops the parse.
    private func send(_ item: Item, size: Int = 0) {
        let queued = queue.put(item, weight: size) {
            if convertQueuedFeature() { return true }
            // About to wait for room: `readMetadata()` may be waiting for the name while nothing
            // is taken, so it is published first.
            publish()
            return false
        }
        if !queued { parser.stop(MeridianError(.io, "the KML reader was dropped")) }
    }

    /// Converts the first queued feature that nobody has begun to convert; false when there is
    /// none.
    private func convertQueuedFeature() -> Bool {
        var tree: KMLFeatureConverter.FeatureTree?
        let claimed = queue.firstQueued(from: &convertedUpTo) { item in
            guard case .feature(let feature) = item else { return false }
            tree = feature.claim()
            return tree != nil
        }
        guard case .feature(let feature)? = claimed, let tree else { return false }
        let conversion = converter.convert(tree, options: options)
        convertedAhead += 1
        feature.finish(conversion)
        return true
    }

    /// The next item, waiting for the reading side; `.end` is the last.
    func take() -> Item {
        // The queue ends only after `.end`, and is cancelled only by `stop()`, after which the
        // reader takes nothing more.
        queue.take() ?? .end(nil, KMLStatistics(folders: 0, styles: 0))
    }

    /// What `readMetadata()` returns or throws, once it is known.
    func metadata() -> Metadata {
        publishing.locked {
            while published == nil { publishing.wait() }
            return published!
        }
    }
}
