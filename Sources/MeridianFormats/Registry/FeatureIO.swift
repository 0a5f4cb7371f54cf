import MeridianCore
import MeridianGeometry

/// A source of features, read one at a time so memory does not grow with the input.
public protocol FeatureReader: AnyObject {
    /// Reads as far as the first feature and returns what the collection says about itself
    /// (GeoJSON's `name`, `crs`, foreign members; a KML document's name). Idempotent.
    func readMetadata() throws -> CollectionMetadata

    /// The next feature, or nil at the end of the input.
    func next() throws -> Feature?

    /// Collection members that came after the features (GeoJSON allows any member order).
    /// Complete once `next()` has returned nil.
    var trailingMetadata: CollectionMetadata { get }
}

/// A destination for features: `begin`, then `write` for each feature, then `finish`.
/// Writers format into an `OutputSink`; committing the output file is the caller's job.
public protocol FeatureWriter: AnyObject {
    /// Starts the output (a header, the collection's members before its features); called once,
    /// before any feature.
    /// - Parameter metadata: The collection's members, as a reader's `readMetadata()` returns them.
    func begin(_ metadata: CollectionMetadata) throws
    /// Writes one feature.
    /// - Parameter feature: The feature; what a format cannot hold is dropped or reported.
    func write(_ feature: Feature) throws
    /// Ends the output (closes the collection, writes any members that came after the features)
    /// and flushes the writer's own buffers; committing the file stays the caller's job.
    /// - Parameter trailingMetadata: The collection's members after its features.
    func finish(_ trailingMetadata: CollectionMetadata) throws
}

/// What a format's reader may be told.
public struct ReadOptions {
    /// Receives warnings about input the reader recovered from.
    public var diagnostics: DiagnosticHandler?
    /// Folder handling, for KML and KMZ.
    public var kml: KMLReadOptions
    /// Keep only the features of this layer: a KML Folder or Document of this name, a layer of
    /// a GDAL dataset (a GeoPackage's table). Only formats with layers take it
    /// (`FeatureFormat.hasLayers`); a name the input has no layer of is a usage error.
    public var layer: String?
    /// What a position off the globe is: an error when the output needs geographic
    /// coordinates (``FeatureFormat/needsGeographicCoordinates``), else a warning.
    public var coordinates: CoordinateRule

    /// Options for a reader; the defaults read everything and drop warnings.
    /// - Parameters:
    ///   - diagnostics: Receives warnings as the reader goes; nil ignores them.
    ///   - kml: Folder handling for KML and KMZ.
    ///   - layer: The layer whose features to keep, or nil for all.
    ///   - coordinates: What a position outside ±90° latitude or ±180° longitude is.
    public init(diagnostics: DiagnosticHandler? = nil, kml: KMLReadOptions = .init(), layer: String? = nil,
                coordinates: CoordinateRule = .warnOutsideRange) {
        self.diagnostics = diagnostics
        self.kml = kml
        self.layer = layer
        self.coordinates = coordinates
    }
}

/// A layer asked for (`ReadOptions.layer`) that cannot be read. A usage error (64): the input
/// is fine, the caller asks for something that is not in it.
public enum LayerSelection: MeridianFailure, Hashable {
    /// The input `in` has no layer called `name`; `among` are the layers it has, and `more`
    /// says it has others not counted.
    case unknown(_ name: String, among: [String], more: Bool = false, in: String)
    /// The input `in` is of a format without layers (only KML, KMZ and GDAL datasets have them).
    case unsupported(by: FeatureFormat, in: String)

    /// Always `usage`: the input is fine, the request does not fit it.
    public var kind: MeridianError.Kind { .usage }

    /// The input the layer was asked of (file only).
    public var location: SourceLocation? {
        switch self {
        case .unknown(_, _, _, let file), .unsupported(_, let file): SourceLocation(file: file)
        }
    }

    /// What went wrong: the layer that does not exist, or the format that has none.
    public var message: String {
        switch self {
        case .unknown(let name, _, _, _): "no layer called \"\(name)\""
        case .unsupported(let format, _): "\(format.displayName) has no layers to choose from; KML, KMZ and GDAL datasets have"
        }
    }

    /// The layers the input has (the first 20), or a suggestion to read every feature.
    public var hint: String? {
        switch self {
        case .unknown(_, let layers, let more, _):
            guard !layers.isEmpty else { return "it has no named layers" }
            let shown = 20
            var list = layers.prefix(shown).map { "\"\($0)\"" }.joined(separator: ", ")
            if layers.count > shown || more { list += " and \(layers.count > shown ? "\(layers.count - shown) " : "")more" }
            return "its layers: \(list)"
        case .unsupported: return "read every feature instead"
        }
    }
}

/// One format's own write settings (GPX's routes, GeoJSON's indentation, a picture's size):
/// a format that has any declares their type as its `FeatureFormat.writeOptionsType`, and its
/// writer finds them in ``WriteOptions/formatOptions``.
public protocol FormatWriteOptions: Sendable {
    /// The settings a writer uses when it is given none.
    init()
}

/// What every format's writer may be told. A format's own settings travel in ``formatOptions``,
/// as a value of that format's own type; any other format's writer refuses them.
public struct WriteOptions: Sendable {
    /// Round coordinates to this many decimal places; nil writes the shortest text that reads
    /// back to the same double (a bit-exact round trip). Only formats that
    /// ``FeatureFormat/roundsCoordinates`` use it.
    public var precision: Int?
    /// The written format's own settings (``GeoJSONWriteOptions``, ``GPXWriteOptions``,
    /// ``MapKitSourceOptions``, ``PictureOptions``…); nil takes the format's defaults.
    public var formatOptions: (any FormatWriteOptions)?
    /// The output file's path (nil for standard output), for formats that write a file beside it
    /// (MapKit Swift source's GeoJSON resource) or take a default from its name; `FeatureOutput`
    /// sets it.
    public var outputPath: String?
    /// Whether a regular file already at the output's path (or at a file written beside it) is
    /// replaced; false, the default, refuses it (``ExistingOutput``).
    public var replacesExisting = false
    /// The input `FeatureOutput` was told never to write over (beside ``RunInputs``'), for a
    /// writer's files beside the output, checked before they are claimed.
    var protectedInput: String?
    /// The command line that makes the output, as typed (`meridian geodesic --from 33.9,-118.4
    /// --to 40.6,-73.8 -o Flight.swift`), for formats whose header names where they came from
    /// (MapKit Swift source).
    public var generator: String?
    /// Receives warnings about what a format cannot hold as given (a GDAL field renamed).
    public var diagnostics: (@Sendable (Diagnostic) -> Void)?

    /// Options for a writer; the defaults write compact, bit-exact output.
    /// - Parameters:
    ///   - precision: Decimal places to round coordinates to, or nil for a bit-exact round trip.
    ///   - formatOptions: The written format's own settings, or nil for its defaults.
    public init(precision: Int? = nil, formatOptions: (any FormatWriteOptions)? = nil) {
        self.precision = precision
        self.formatOptions = formatOptions
    }

    /// The format's own settings of type `Settings`, or their defaults when none (or another
    /// type's) were given.
    public func settings<Settings: FormatWriteOptions>(_ type: Settings.Type = Settings.self) -> Settings {
        formatOptions as? Settings ?? Settings()
    }
}

/// Write settings of one format handed to another's writer (GPX's routes to a KML writer),
/// which would otherwise be silently ignored. A usage error (64).
public struct FormatOptionsMismatch: MeridianFailure {
    /// The format being written.
    public let format: FeatureFormat
    /// The type of the settings given.
    public let settings: any FormatWriteOptions.Type

    /// Always `usage`: the settings do not fit the output asked for.
    public var kind: MeridianError.Kind { .usage }
    /// None: no file is at fault.
    public var location: SourceLocation? { nil }
    /// Which settings, and which format does not take them.
    public var message: String { "\(format.displayName) output takes no \(settings) settings" }
    /// What the format takes instead.
    public var hint: String? {
        format.writeOptionsType.map { "\(format.displayName) takes \($0)" } ?? "\(format.displayName) has no settings of its own"
    }
}

/// Copies every feature from `reader` to `writer`, keeping collection members before and after
/// the features where they were. `transform` may change or drop each feature; `progress` is
/// called with the number of features read after each one (it throttles its own output).
/// Reading (and transforming) runs on the calling thread, writing on a second one, so the two
/// halves of a conversion use two cores. Returns the number of features written.
@discardableResult
public func copyFeatures(from reader: some FeatureReader, to writer: some FeatureWriter,
                         progress: ((Int) -> Void)? = nil,
                         transform: (Feature) throws -> Feature? = { $0 }) throws -> Int {
    try writer.begin(reader.readMetadata())
    // Bounded by positions (and features, for those with few), so memory stays flat.
    let pipe = HandOffQueue<Feature>(countLimit: 4096, weightLimit: 64_000)
    nonisolated(unsafe) let writer = writer
    nonisolated(unsafe) var writeError: Error?
    nonisolated(unsafe) var written = 0
    let worker = try WorkerThread {
        do {
            while let feature = pipe.take() {
                try writer.write(feature)
                written += 1
            }
        } catch {
            writeError = error
            pipe.cancel()
        }
    }
    var read = 0
    do {
        while let feature = try reader.next() {
            read += 1
            progress?(read)
            if let output = try transform(feature), !pipe.put(output, weight: output.geometry?.positionCount ?? 0) { break }
        }
    } catch {
        pipe.cancel()  // the writer takes nothing more
        worker.join()
        throw error
    }
    pipe.close()
    worker.join()
    if let writeError { throw writeError }
    try writer.finish(reader.trailingMetadata)
    return written
}

/// A reader over features already in memory (a subcommand's own results).
public final class FeatureList: FeatureReader {
    /// The features, in order; `next()` hands them out from the first.
    public var features: [Feature]
    /// The collection's members before the features, returned by ``readMetadata()``.
    public var metadata: CollectionMetadata
    /// The collection's members after the features.
    public var trailingMetadata: CollectionMetadata
    private var position = 0

    /// A reader that hands out `features` in order.
    /// - Parameters:
    ///   - features: The features to hand out.
    ///   - metadata: What ``readMetadata()`` returns.
    ///   - trailingMetadata: What ``trailingMetadata`` holds.
    public init(_ features: [Feature], metadata: CollectionMetadata = .init(), trailingMetadata: CollectionMetadata = .init()) {
        self.features = features
        self.metadata = metadata
        self.trailingMetadata = trailingMetadata
    }

    /// Reads all of `reader` into memory, for work that needs every feature at once (simplifying
    /// shared borders); its collection members before and after the features are kept.
    public convenience init(reading reader: some FeatureReader, progress: ((Int) -> Void)? = nil) throws {
        let metadata = try reader.readMetadata()
        var features: [Feature] = []
        while let feature = try reader.next() {
            features.append(feature)
            progress?(features.count)
        }
        self.init(features, metadata: metadata, trailingMetadata: reader.trailingMetadata)
    }

    /// Returns ``metadata``; nothing is read.
    public func readMetadata() throws -> CollectionMetadata { metadata }

    /// The next of ``features``, or nil after the last.
    public func next() throws -> Feature? {
        guard position < features.count else { return nil }
        defer { position += 1 }
        return features[position]
    }
}
