import MeridianGeometry
import OrderedCollections

/// A streaming KML reader on expat: features arrive one at a time as their Placemark (or
/// GroundOverlay, NetworkLink) ends, so memory holds one feature and the shared styles, whatever
/// the file's size.
///
/// Semantics follow placemark/togeojson v7 (styles as simplestyle properties, ExtendedData as
/// properties, gx:Track as lines with `coordinateProperties.times`), plus what it drops: the
/// folder path (`folder` property), typed SchemaData, altitudeMode, Model locations.
public final class KMLReader: FeatureReader, KMLDocumentReader {
    private let input: BufferedInput
    private let parser: XMLEventParser
    private let builder: KMLDocumentBuilder
    private let context: KMLContext
    private let options: KMLReadOptions
    private let diagnostics: DiagnosticHandler?
    /// Feature trees converted on a second thread while expat reads on, and everything else the
    /// reader hands out, in document order.
    private let pipeline: KMLConversionPipeline
    /// The GroundOverlay behind the feature ``next()`` returned last, when it came from one with an
    /// image and a place; nil for every other feature.
    public private(set) var groundOverlay: KMLGroundOverlay?
    /// Whether expat has read the whole document (or stopped at an error).
    private var parsed = false
    /// What stopped the reading side, thrown once everything before it has been handed out.
    private var failure: Error?
    /// Items queued by the reading side since it was last asked to read on.
    private var queued = 0
    /// Whether the reading side has queued a feature yet.
    private var sawFeature = false
    /// Document members that came after the features; KML has none, so this stays empty.
    public private(set) var trailingMetadata = CollectionMetadata()
    /// The folder tree, when `options.folders == .tree` (built as the document is read).
    public private(set) var folderTree: KMLFolderTree?
    /// `ReadOptions.layer`: the Folder or Document whose features are kept.
    private let layer: String?
    private var layerFound = false
    /// The names of Folders and Documents, while `layer` is not found (the first
    /// `layerNamesKept`, for the error that lists them).
    private var layerNames = OrderedSet<String>()
    private var moreLayerNames = false
    static let layerNamesKept = 1000

    /// A reader over the KML document `input` holds. Nothing is read until ``readMetadata()`` or
    /// ``next()`` is called.
    /// - Parameters:
    ///   - input: The document's bytes; its name is the file in locations and messages.
    ///   - options: Folder handling (a flat `folder` property, or a tree in ``folderTree``).
    ///   - readOptions: Where warnings go, and the layer (a Folder or Document name) to keep, if any.
    public init(input: BufferedInput, options: KMLReadOptions = .init(), readOptions: ReadOptions = .init()) {
        self.input = input
        self.options = options
        layer = readOptions.layer
        diagnostics = readOptions.diagnostics
        context = KMLContext(file: input.name)
        builder = KMLDocumentBuilder(context: context)
        parser = XMLEventParser(name: input.name, handler: builder, maximumDepth: KMLDocumentBuilder.maximumDepth)
        pipeline = KMLConversionPipeline(file: input.name, options: options)
        builder.parser = Unmanaged.passUnretained(parser)
        if options.folders == .tree { folderTree = KMLFolderTree() }
        context.report = { [unowned self] in enqueue(.diagnostic($0)) }
        builder.onFeature = { [unowned self] element, containers in
            let kept = layer.map { layer in containers.contains { $0.name == layer } } ?? true
            let folders = containers.filter { $0.kind == "Folder" }.map { $0.name ?? "" }
            do {
                try pipeline.convert(.init(element: element, folders: folders, definitions: context.definitions, kept: kept))
                queued += 1
                sawFeature = true
            } catch {
                parser.stop(error as? MeridianError ?? MeridianError(.io, "\(error)"))
            }
        }
        builder.onContainerStart = { [unowned self] in enqueue(.containerStart($0)) }
        builder.onContainerEnd = { [unowned self] container in
            enqueue(.containerEnd(container))
            noteLayer(container.name)
        }
    }

    private func enqueue(_ event: KMLConversionPipeline.Event) {
        pipeline.pass(event)
        queued += 1
    }

    /// Notes a container's name as it ends: whether it is the layer asked for, else what to list.
    private func noteLayer(_ name: String?) {
        guard let layer, !layerFound, let name else { return }
        if name == layer {
            layerFound = true
            layerNames = []
        } else if layerNames.count < Self.layerNamesKept {
            layerNames.append(name)
        } else if !layerNames.contains(name) {
            moreLayerNames = true
        }
    }

    /// Styles of other documents (in a KMZ), by `path#id`.
    var externalStyles: [String: JSONObject] {
        get { context.definitions.externalStyles }
        set { context.definitions.externalStyles = newValue }
    }

    /// The document's own styles by id, resolved through StyleMaps.
    var styles: [String: JSONObject] { context.definitions.resolvedStyles }

    /// Folders and styles seen so far (all of them once `next()` has returned nil).
    public var statistics: KMLStatistics {
        KMLStatistics(folders: builder.folderCount, styles: context.definitions.styleCount)
    }

    /// Reads as far as the first feature and returns the document's `name`, if it has one.
    /// - Throws: ``MeridianError`` (`badInput`) for malformed XML, with the file, line and column.
    public func readMetadata() throws -> CollectionMetadata {
        while !parsed && !sawFeature { readOn(handingOut: false) }
        if !sawFeature, let failure {
            // No feature came before the error: hand out the warnings that did, then stop.
            while let event = pipeline.take() {
                if case .diagnostic(let diagnostic) = event { diagnostics?(diagnostic) }
            }
            throw failure
        }
        var members = JSONObject()
        if let name = builder.documentName { members["name"] = .string(name) }
        return CollectionMetadata(members: members)
    }

    /// The next Placemark, GroundOverlay or NetworkLink as a feature, or nil at the end of the
    /// document.
    /// - Throws: ``MeridianError`` (`badInput`) for malformed XML, or ``LayerSelection`` at the end
    ///   when the layer asked for was never found.
    public func next() throws -> Feature? {
        while true {
            // What is converted goes out first; the reading side reads on while there is room,
            // and waits for the conversion only when it cannot.
            var event = pipeline.takeIfReady()
            if event == nil {
                if !parsed && pipeline.hasRoom {
                    readOn(handingOut: true)
                    continue
                }
                event = pipeline.take()
            }
            guard let event else { return try finish() }
            switch event {
            case .feature(let converted, let warnings, let kept):
                warnings.forEach { diagnostics?($0) }
                guard let (feature, overlay) = converted, kept else { continue }
                folderTree?.add(feature)
                groundOverlay = overlay
                return feature
            case .containerStart(let container): folderTree?.open(container)
            case .containerEnd(let container): folderTree?.close(container)
            case .diagnostic(let diagnostic): diagnostics?(diagnostic)
            }
        }
    }

    /// Feeds expat until it has queued something or the input ends, or (`handingOut`) a
    /// converted event waits at the front to be handed out; an error is kept until everything
    /// queued before it has been handed out.
    private func readOn(handingOut: Bool) {
        queued = 0
        do {
            parsed = try parser.feed(from: input) { queued > 0 || (handingOut && pipeline.hasReadyEvent) }
        } catch {
            failure = error
            parsed = true
        }
    }

    /// The end of the document: the error that stopped it, or a `layer` that was never seen
    /// (no feature came out, so none was written), or nil.
    private func finish() throws -> Feature? {
        groundOverlay = nil
        if let failure { throw failure }
        if let layer, !layerFound {
            throw LayerSelection.unknown(layer, among: Array(layerNames), more: moreLayerNames, in: input.name)
        }
        return nil
    }
}

/// What the KML reader is asked to do beyond reading.
public struct KMLReadOptions: Sendable {
    /// How the KML reader hands out the document's Folders.
    public enum Folders: String, Sendable, CaseIterable {
        /// Features one after another, each with its folder path in a `folder` property.
        case flat
        /// The nested tree of folders and features, like togeojson's kmlWithFolders.
        case tree
    }

    /// Whether folders become a `folder` property on each feature (`flat`) or a ``KMLFolderTree``.
    public var folders: Folders

    /// Options for the KML and KMZ readers.
    /// - Parameter folders: How Folders are handed out; `flat` by default.
    public init(folders: Folders = .flat) {
        self.folders = folders
    }
}

/// What KML and KMZ readers tell beyond features.
public protocol KMLDocumentReader: FeatureReader {
    var folderTree: KMLFolderTree? { get }
    var statistics: KMLStatistics { get }
    /// The GroundOverlay behind the feature `next()` returned last, when it came from one
    /// with an image and a place; nil for every other feature.
    var groundOverlay: KMLGroundOverlay? { get }
}

/// Counts `meridian info` reports for KML.
public struct KMLStatistics: Sendable, Hashable {
    /// Folder elements seen.
    public var folders: Int
    /// Shared styles and style maps.
    public var styles: Int
}
