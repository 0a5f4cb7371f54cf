import MeridianCore
import MeridianGeometry

/// A path's extension, lowercase and without the dot ("gpkg" for "out/Countries.GPKG"); nil
/// when the file name has none (or is a dot file such as ".hidden").
public func fileExtension(_ path: String) -> String? {
    let file = path.split(separator: "/").last.map(String.init) ?? path
    guard let dot = file.lastIndex(of: "."), dot != file.startIndex, file.index(after: dot) != file.endIndex else { return nil }
    return file[file.index(after: dot)...].lowercased()
}

/// A writer that makes its output file(s) itself, staged out of sight until `commit()`.
public protocol PathFeatureWriter: FeatureWriter {
    /// Moves the finished output into place at its path; call after `finish`.
    func commit() throws
    /// Removes whatever was staged, leaving nothing at the path.
    func abandon()
}

/// A writer that also writes a file beside its output (MapKit Swift source's GeoJSON resource):
/// `FeatureOutput` commits it just before the output and abandons it with the output.
public protocol CompanionFileWriter: FeatureWriter {
    /// The companion files' final paths, known after `finish`.
    var companionPaths: [String] { get }
    /// Moves the companion files into place; call after `finish`.
    func commitCompanions() throws
    /// Removes the companion files' staged versions.
    func abandonCompanions()
}

/// One file format Meridian reads and/or writes: its names, file extensions, media type, how to
/// recognise its bytes, how to make its reader and writer, and the type of its own write
/// settings. Each format's folder declares its own (`FeatureFormat.gpx` in GPX/); the
/// registry (``FormatRegistry/standard``) is the one list of them, and whatever depends on the
/// formats (the command line's names, the tiler's inputs, the fuzz targets) reads that list.
public struct FeatureFormat: Sendable, Hashable {
    /// The name used on the command line (`--to geojsonseq`).
    public let id: String
    /// The name shown to people.
    public let displayName: String
    /// Other names accepted on the command line.
    public let aliases: [String]
    /// File extensions, lowercase, without the dot; the first is the one to suggest.
    public let extensions: [String]
    /// The IANA media type (`application/geo+json`), or the closest common one for a format
    /// without a registered type (`text/plain` for WKT).
    public let mediaType: String
    /// The type of the format's own write settings (``GPXWriteOptions`` for GPX), handed to
    /// its writer in ``WriteOptions/formatOptions``; nil when the format has none.
    public let writeOptionsType: (any FormatWriteOptions.Type)?
    /// Whether its writer rounds coordinates to ``WriteOptions/precision``; a format that
    /// always writes them exactly (KML) or draws them (pictures) does not.
    public let roundsCoordinates: Bool
    /// Written as bytes that are not text (a PNG, a zip), which are never sent to a terminal.
    public let isBinary: Bool
    /// Whether its reader can keep one layer (`ReadOptions.layer`): KML's Folders and
    /// Documents, a GDAL dataset's layers.
    public let hasLayers: Bool
    /// Whether the format places features on the globe (GPX, KML, MapKit Swift, pictures): a
    /// position outside ±90° latitude or ±180° longitude read for it is an error, where other
    /// formats keep it with a warning (``CoordinateRule``).
    public let needsGeographicCoordinates: Bool
    /// Whether its writer keeps data that belongs to positions (`coordinateProperties`: a
    /// track's times, its gx:SimpleArrayData), or reports itself what of it it leaves out (GPX
    /// and KML keep times and values, and warn about the rest). For a format that does not,
    /// ``FeatureOutput`` takes the data off every feature and says on standard error how many
    /// values it could not keep (``PositionDataLeftOut``): nothing is dropped without a word.
    public let keepsPositionData: Bool

    let makeReader: (@Sendable (BufferedInput, ReadOptions) throws -> any FeatureReader)?
    let makeWriter: (@Sendable (OutputSink, WriteOptions) throws -> any FeatureWriter)?
    /// For formats written as files of their own (a Shapefile's four, a GeoPackage's database)
    /// rather than as a byte stream: the writer gets the output path and commits it itself.
    let makePathWriter: (@Sendable (String, WriteOptions) throws -> any PathFeatureWriter)?
    /// Given the input's first bytes (after any BOM and whitespace), does it look like this format?
    let sniff: @Sendable (ArraySlice<UInt8>) -> Bool

    /// Whether Meridian can read this format (it has a reader).
    public var canRead: Bool { makeReader != nil }
    /// Whether Meridian can write this format, to a stream or to files of its own.
    public var canWrite: Bool { makeWriter != nil || makePathWriter != nil }
    /// Written to a path, never to standard output.
    public var writesFiles: Bool { makePathWriter != nil }

    /// A format to put in a ``FormatRegistry``; give it a `reader`, a `writer` or `pathWriter`, or
    /// both a reader and one of the writers.
    /// - Parameters:
    ///   - id: The lowercase name used on the command line (`--to geojson`); formats compare by it.
    ///   - displayName: The name shown to people in messages.
    ///   - aliases: Other lowercase names accepted for it.
    ///   - extensions: File extensions, lowercase and without the dot; the first is suggested.
    ///   - mediaType: The IANA media type, or the closest common one.
    ///   - writeOptions: The type of the format's own write settings, if it has any.
    ///   - roundsCoordinates: Whether its writer honours ``WriteOptions/precision``.
    ///   - isBinary: Whether the output is bytes that are not text (never written to a terminal).
    ///   - hasLayers: Whether its reader can keep one layer (``ReadOptions/layer``).
    ///   - needsGeographicCoordinates: Whether its output needs longitude and latitude in degrees.
    ///   - keepsPositionData: Whether its writer keeps per-position data (track times), or
    ///     reports what of it it leaves out; false, the default, has ``FeatureOutput`` count and
    ///     report what is left out.
    ///   - sniff: Given an input's first bytes (at most 4 KiB, after any UTF-8 BOM and leading
    ///     whitespace), whether they look like this format.
    ///   - reader: Makes a reader over an input.
    ///   - writer: Makes a writer into a byte stream.
    ///   - pathWriter: Makes a writer that creates its output file(s) itself at a path.
    public init(id: String, displayName: String, aliases: [String] = [], extensions: [String], mediaType: String,
                writeOptions: (any FormatWriteOptions.Type)? = nil, roundsCoordinates: Bool = false,
                isBinary: Bool = false, hasLayers: Bool = false,
                needsGeographicCoordinates: Bool = false, keepsPositionData: Bool = false,
                sniff: @escaping @Sendable (ArraySlice<UInt8>) -> Bool = { _ in false },
                reader: (@Sendable (BufferedInput, ReadOptions) throws -> any FeatureReader)? = nil,
                writer: (@Sendable (OutputSink, WriteOptions) throws -> any FeatureWriter)? = nil,
                pathWriter: (@Sendable (String, WriteOptions) throws -> any PathFeatureWriter)? = nil) {
        self.id = id
        self.displayName = displayName
        self.aliases = aliases
        self.extensions = extensions
        self.mediaType = mediaType
        writeOptionsType = writeOptions
        self.roundsCoordinates = roundsCoordinates
        self.isBinary = isBinary
        self.hasLayers = hasLayers
        self.needsGeographicCoordinates = needsGeographicCoordinates
        self.keepsPositionData = keepsPositionData
        self.sniff = sniff
        makeReader = reader
        makeWriter = writer
        makePathWriter = pathWriter
    }

    /// A reader of this format over `input`; most readers read nothing until asked for metadata
    /// or features.
    /// - Parameters:
    ///   - input: The input to read.
    ///   - options: Warnings, KML folder handling, the layer to keep.
    /// - Returns: The format's reader.
    /// - Throws: `MeridianError` (`usage`) if the format cannot be read, ``LayerSelection`` if a
    ///   layer is asked of a format without layers, or whatever the reader throws on opening (a KMZ
    ///   reads its archive's directory at once).
    public func reader(for input: BufferedInput, options: ReadOptions = .init()) throws -> any FeatureReader {
        guard let makeReader else { throw MeridianError(.usage, "Meridian cannot read \(displayName)") }
        if options.layer != nil && !hasLayers { throw LayerSelection.unsupported(by: self, in: input.name) }
        return try makeReader(input, options)
    }

    /// A writer that creates its output at `path` itself (a GDAL dataset), for formats with
    /// ``writesFiles``; nothing appears at `path` until the writer's `commit()`.
    /// - Parameters:
    ///   - path: Where the output goes.
    ///   - options: Precision, layout and format-specific options.
    /// - Returns: The format's path writer.
    /// - Throws: `MeridianError` (`usage`) if the format is not written to paths of its own,
    ///   ``FormatOptionsMismatch`` if `options` holds another format's settings.
    public func pathWriter(for path: String, options: WriteOptions = .init()) throws -> any PathFeatureWriter {
        guard let makePathWriter else { throw MeridianError(.usage, "Meridian cannot write \(displayName) to a path of its own") }
        try checkTakes(options)
        return try makePathWriter(path, options)
    }

    /// A writer of this format into `sink`, for formats written as a byte stream.
    /// - Parameters:
    ///   - sink: Where the bytes go; the caller commits or abandons the file behind it.
    ///   - options: Precision, layout and format-specific options.
    /// - Returns: The format's writer; call `begin`, `write` for each feature, then `finish`.
    /// - Throws: `MeridianError` (`usage`) if the format cannot be written to a stream,
    ///   ``FormatOptionsMismatch`` if `options` holds another format's settings.
    public func writer(for sink: OutputSink, options: WriteOptions = .init()) throws -> any FeatureWriter {
        guard let makeWriter else { throw MeridianError(.usage, "Meridian cannot write \(displayName)") }
        try checkTakes(options)
        return try makeWriter(sink, options)
    }

    /// Whether `settings` are this format's own (of its ``writeOptionsType``).
    public func takes(_ settings: any FormatWriteOptions) -> Bool {
        guard let writeOptionsType else { return false }
        return ObjectIdentifier(type(of: settings)) == ObjectIdentifier(writeOptionsType)
    }

    /// Refuses settings of another format's, which this format's writer would silently ignore.
    func checkTakes(_ options: WriteOptions) throws {
        if let settings = options.formatOptions, !takes(settings) {
            throw FormatOptionsMismatch(format: self, settings: type(of: settings))
        }
    }

    /// Formats are equal when their ``id``s are.
    public static func == (a: FeatureFormat, b: FeatureFormat) -> Bool { a.id == b.id }
    /// Hashes the ``id`` alone, as `==` compares.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// What a registry's fallback is asked for: a format by name (`--from`/`--to`), or the format
/// of a path to read or to write, none of the registry's own formats having its extension.
public enum FormatQuery: Sendable, Hashable {
    /// A format asked for by name (`--from`, `--to`), as typed.
    case name(String)
    /// The format of a file to read, by its path.
    case inputPath(String)
    /// The format of a file to write, by its path.
    case outputPath(String)
}

/// The formats Meridian knows, and the rules that pick one for an input or output.
public struct FormatRegistry: Sendable {
    /// The formats, in order of preference: the first match by extension or bytes wins.
    public let formats: [FeatureFormat]
    /// Asked for a format none of `formats` is. The command line answers with GDAL's formats,
    /// served by `meridian-gdal`; it throws when the query names nothing it can serve.
    public let fallback: (@Sendable (FormatQuery) throws -> FeatureFormat?)?

    /// A registry of `formats`, consulting `fallback` for what none of them is.
    /// - Parameters:
    ///   - formats: The formats, in order of preference.
    ///   - fallback: Asked for a format by name or path when none of `formats` fits; nil for none.
    public init(_ formats: [FeatureFormat], fallback: (@Sendable (FormatQuery) throws -> FeatureFormat?)? = nil) {
        self.formats = formats
        self.fallback = fallback
    }

    /// This registry, with `fallback` for the formats it does not know.
    public func adding(fallback: @escaping @Sendable (FormatQuery) throws -> FeatureFormat?) -> FormatRegistry {
        FormatRegistry(formats, fallback: fallback)
    }

    /// This registry with `more` formats after its own (the pictures, which MeridianPicture
    /// draws: `FormatRegistry.standard.adding(FeatureFormat.pictures)`).
    public func adding(_ more: [FeatureFormat]) -> FormatRegistry {
        FormatRegistry(formats + more, fallback: fallback)
    }

    /// Every format this module reads or writes itself (pictures are MeridianPicture's): the one
    /// list of them, each declared in its own folder.
    public static let standard = FormatRegistry([.geoJSON, .geoJSONSeq, .kml, .kmz, .gpx, .csv, .wkt, .wkbHex, .mapKitSwift])

    /// The formats that can be read.
    public var readable: [FeatureFormat] { formats.filter(\.canRead) }

    /// The extensions of the formats that can be read, lowercase and without the dot.
    public var readableExtensions: Set<String> { Set(readable.flatMap(\.extensions)) }

    /// The format called `name` on the command line (id or alias, any case).
    public func format(named name: String) throws -> FeatureFormat {
        let wanted = name.lowercased()
        if let format = formats.first(where: { $0.id == wanted || $0.aliases.contains(wanted) }) {
            return format
        }
        if let format = try fallback?(.name(name)) { return format }
        throw MeridianError(.usage, "unknown format \"\(name)\"",
                            hint: "known formats: \(formats.map(\.id).joined(separator: ", "))")
    }

    /// The format among `formats` whose extension the path has.
    public func knownFormat(forPath path: String) -> FeatureFormat? {
        guard let ext = fileExtension(path) else { return nil }
        return formats.first { $0.extensions.contains(ext) }
    }

    /// The format whose signature the input's first bytes show.
    public func sniff(_ input: BufferedInput) throws -> FeatureFormat? {
        let head = try input.peek(4096)
        var start = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < head.count, [0x20, 0x09, 0x0A, 0x0D].contains(head[start]) { start += 1 }
        let bytes = head[start...]
        return formats.first { $0.canRead && $0.sniff(bytes) }
    }

    /// Chooses the reader for an input: `--from`, else the extension, else the bytes.
    public func inputFormat(for input: BufferedInput, path: String?, explicit: String?) throws -> FeatureFormat {
        if let explicit { return try format(named: explicit) }
        if let path, let format = knownFormat(forPath: path), format.canRead { return format }
        if let format = try sniff(input) { return format }
        // Only then another tool's: a .shp or .gpkg, but not a .txt holding GeoJSON.
        if let path, let format = try fallback?(.inputPath(path)), format.canRead { return format }
        if try input.peek(1).isEmpty {
            throw MeridianError(.badInput, "the input is empty", at: SourceLocation(file: input.name))
        }
        throw FormatChoice.unknownInput(file: input.name, readable: formats.filter(\.canRead).map(\.id))
    }

    /// Chooses the writer for an output: `--to`, else the extension, else `fallback`.
    public func outputFormat(path: String?, explicit: String?, fallback: FeatureFormat) throws -> FeatureFormat {
        if let explicit {
            let format = try format(named: explicit)
            guard format.canWrite else { throw MeridianError(.usage, "Meridian cannot write \(format.displayName)") }
            return format
        }
        if let path, path != "-" {
            guard let format = try knownFormat(forPath: path) ?? self.fallback?(.outputPath(path)) else {
                throw FormatChoice.unknownOutput(path: path, writable: formats.filter(\.canWrite).map(\.id))
            }
            return format
        }
        return fallback
    }
}

/// A format that neither the caller, nor the path, nor the bytes name.
public enum FormatChoice: MeridianFailure, Hashable {
    /// The input `file` is in no format the registry knows by its extension or first bytes;
    /// `readable` are the formats it could be named as.
    case unknownInput(file: String, readable: [String])
    /// The output `path` has no extension the registry knows; `writable` are the formats it
    /// could be named as.
    case unknownOutput(path: String, writable: [String])

    /// `badInput` (65) for an input, `usage` (64) for an output path.
    public var kind: MeridianError.Kind {
        switch self {
        case .unknownInput: .badInput
        case .unknownOutput: .usage
        }
    }

    /// The input file, for an input; nil for an output path.
    public var location: SourceLocation? {
        switch self {
        case .unknownInput(let file, _): SourceLocation(file: file)
        case .unknownOutput: nil
        }
    }

    /// Which side's format could not be told.
    public var message: String {
        switch self {
        case .unknownInput: "cannot tell the input's format"
        case .unknownOutput(let path, _): "cannot tell the output format from \"\(path)\""
        }
    }

    /// The formats to choose from.
    public var formats: [String] {
        switch self {
        case .unknownInput(_, let formats), .unknownOutput(_, let formats): formats
        }
    }

    /// The formats it could be named as.
    public var hint: String? { "name its format: \(formats.joined(separator: ", "))" }
}
