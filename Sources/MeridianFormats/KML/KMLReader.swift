import DequeModule
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
    /// Features waiting to be handed out, each with the GroundOverlay it came from, if any.
    private var queue = Deque<(feature: Feature, overlay: KMLGroundOverlay?)>()
    /// The GroundOverlay behind the feature ``next()`` returned last, when it came from one with an
    /// image and a place; nil for every other feature.
    public private(set) var groundOverlay: KMLGroundOverlay?
    private var finished = false
    private var started = false
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
        context = KMLContext(file: input.name, diagnostics: readOptions.diagnostics)
        builder = KMLDocumentBuilder(context: context)
        parser = XMLEventParser(name: input.name, handler: builder, maximumDepth: KMLDocumentBuilder.maximumDepth)
        builder.parser = parser
        context.parser = parser
        if options.folders == .tree { folderTree = KMLFolderTree() }
        builder.onFeature = { [unowned self] element, containers in
            guard let (feature, overlay) = context.feature(from: element, in: containers, options: options) else { return }
            if let layer, !containers.contains(where: { $0.name == layer }) { return }
            folderTree?.add(feature)
            queue.append((feature, overlay))
        }
        builder.onContainerStart = { [unowned self] in folderTree?.open($0) }
        builder.onContainerEnd = { [unowned self] container in
            folderTree?.close(container)
            noteLayer(container.name)
        }
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
        get { context.externalStyles }
        set { context.externalStyles = newValue }
    }

    /// The document's own styles by id, resolved through StyleMaps.
    var styles: [String: JSONObject] { context.resolvedStyles }

    /// Folders and styles seen so far (all of them once `next()` has returned nil).
    public var statistics: KMLStatistics {
        KMLStatistics(folders: builder.folderCount, styles: context.styleCount)
    }

    /// Reads as far as the first feature and returns the document's `name`, if it has one.
    /// - Throws: ``MeridianError`` (`badInput`) for malformed XML, with the file, line and column.
    public func readMetadata() throws -> CollectionMetadata {
        try fillQueue()
        var members = JSONObject()
        if let name = builder.documentName { members["name"] = .string(name) }
        return CollectionMetadata(members: members)
    }

    /// The next Placemark, GroundOverlay or NetworkLink as a feature, or nil at the end of the
    /// document.
    /// - Throws: ``MeridianError`` (`badInput`) for malformed XML, or ``LayerSelection`` at the end
    ///   when the layer asked for was never found.
    public func next() throws -> Feature? {
        try fillQueue()
        let next = queue.popFirst()
        groundOverlay = next?.overlay
        return next?.feature
    }

    /// Feeds expat until a feature is waiting or the input ends. At the end, a `layer` that was
    /// never seen is an error (no feature came out, so none was written).
    private func fillQueue() throws {
        guard !finished else { return }
        finished = try parser.feed(from: input) { !queue.isEmpty }
        if finished, let layer, !layerFound {
            throw LayerSelection.unknown(layer, among: Array(layerNames), more: moreLayerNames, in: input.name)
        }
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
