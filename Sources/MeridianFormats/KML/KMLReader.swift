import MeridianCore
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
    private let name: String
    /// expat and the element trees, on a thread of their own.
    private let reading: KMLReadingSide
    /// Turns each tree into a feature on the caller's thread (those the reading thread has not).
    private let converter: KMLFeatureConverter
    /// The kinds of warning given so far, each given once per document (at its first feature).
    private var warnedKinds: Set<String> = []
    private let options: KMLReadOptions
    private let diagnostics: DiagnosticHandler?
    /// Each feature's checks (per-position arrays, coordinates off the globe).
    private let checks: FeatureChecks
    /// The GroundOverlay behind the feature ``next()`` returned last, when it came from one with an
    /// image and a place; nil for every other feature.
    public private(set) var groundOverlay: KMLGroundOverlay?
    /// What stopped the reading side, once its `.end` is taken; thrown after everything before it.
    private var ended: (failure: Error?, statistics: KMLStatistics)?
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
    public convenience init(input: BufferedInput, options: KMLReadOptions = .init(), readOptions: ReadOptions = .init()) {
        self.init(input: input, options: options, readOptions: readOptions, wholeDocumentMinimum: XMLEventParser.wholeDocumentMinimum)
    }

    /// A reader that parses regular files of `wholeDocumentMinimum` bytes or more in one call
    /// (tests read small documents that way too).
    init(input: BufferedInput, options: KMLReadOptions, readOptions: ReadOptions, wholeDocumentMinimum: Int) {
        name = input.name
        self.options = options
        layer = readOptions.layer
        diagnostics = readOptions.diagnostics
        checks = FeatureChecks(readOptions)
        reading = KMLReadingSide(input: input, layer: readOptions.layer, options: options, wholeDocumentMinimum: wholeDocumentMinimum)
        converter = KMLFeatureConverter(file: input.name)
        if options.folders == .tree { folderTree = KMLFolderTree() }
    }

    /// Stops the reading thread, if the document was not read to its end.
    deinit { reading.stop() }

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
        get { reading.externalStyles }
        set { reading.externalStyles = newValue }
    }

    /// The document's own styles by id, resolved through StyleMaps (all of them once `next()`
    /// has returned nil).
    var styles: [String: JSONObject] { ended == nil ? [:] : reading.styles }

    /// Folders and styles in the document, once `next()` has returned nil (zeros before).
    public var statistics: KMLStatistics { ended?.statistics ?? KMLStatistics(folders: 0, styles: 0) }

    /// How many features the reading thread converted while its queue was full, once `next()`
    /// has returned nil (for tests: the rest the caller converted).
    var featuresConvertedAhead: Int { ended == nil ? 0 : reading.convertedAhead }

    /// Reads as far as the first feature and returns the document's `name`, if it has one.
    /// - Throws: `MeridianError` (`badInput`) for malformed XML, with the file, line and column.
    public func readMetadata() throws -> CollectionMetadata {
        try reading.start()
        let metadata = reading.metadata()
        if let failure = metadata.failure {
            // The document broke before its first feature: hand out its warnings, then the error.
            while true {
                switch reading.take() {
                case .diagnostic(let diagnostic): diagnostics?(diagnostic)
                case .end(_, let statistics):
                    ended = (failure, statistics)
                    reading.stop()
                    throw failure
                default: continue  // nothing of a broken document goes out before its error
                }
            }
        }
        var members = JSONObject()
        if let documentName = metadata.documentName { members["name"] = .string(documentName) }
        return CollectionMetadata(members: members)
    }

    /// The next Placemark, GroundOverlay or NetworkLink as a feature, or nil at the end of the
    /// document.
    /// - Throws: `MeridianError` (`badInput`) for malformed XML, or ``LayerSelection`` at the end
    ///   when the layer asked for was never found.
    public func next() throws -> Feature? {
        guard ended == nil else { return try finish() }
        try reading.start()
        while true {
            switch reading.take() {
            case .feature(let pending):
                let conversion = pending.conversion { converter.convert($0, options: options) }
                for warning in conversion.warnings where warning.kind.map({ warnedKinds.insert($0).inserted }) ?? true {
                    diagnostics?(warning.diagnostic)
                }
                guard case (var feature, let overlay)? = conversion.converted, pending.kept else { continue }
                try checks.check(&feature, at: SourceLocation(file: name, line: conversion.line))
                folderTree?.add(feature)
                groundOverlay = overlay
                return feature
            case .containerStart(let container): folderTree?.open(container)
            case .containerEnd(let container):
                folderTree?.close(container)
                noteLayer(container.name)
            case .diagnostic(let diagnostic): diagnostics?(diagnostic)
            case .end(let failure, let statistics):
                ended = (failure, statistics)
                reading.stop()
                return try finish()
            }
        }
    }

    /// The end of the document: the error that stopped it, or a `layer` that was never seen
    /// (no feature came out, so none was written), or nil.
    private func finish() throws -> Feature? {
        groundOverlay = nil
        if let failure = ended?.failure { throw failure }
        if let layer, !layerFound {
            throw LayerSelection.unknown(layer, among: Array(layerNames), more: moreLayerNames, in: name)
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
