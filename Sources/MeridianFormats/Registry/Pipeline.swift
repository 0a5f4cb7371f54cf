import MeridianCore
import MeridianGeometry

/// An opened input: the file (or stdin), its format, and a reader over it.
public final class FeatureInput {
    /// The opened file or standard input; its `name` is what messages report.
    public let input: BufferedInput
    /// The format chosen for the input.
    public let format: FeatureFormat
    /// The format's reader over ``input``.
    public let reader: any FeatureReader
    /// The path as given; nil for standard input.
    public let path: String?

    /// Opens `path` (nil or `-` for stdin) and picks its format: `format` if given, else the
    /// extension, else the first bytes.
    public init(path: String?, format: String? = nil, options: ReadOptions = .init(),
                registry: FormatRegistry = .standard) throws {
        let path = path == "-" ? nil : path
        input = try BufferedInput.open(path)
        self.format = try registry.inputFormat(for: input, path: path, explicit: format)
        reader = try self.format.reader(for: input, options: options)
        self.path = path
    }
}

/// An opened output: the atomic file (or stdout), its format, and a writer into it.
public final class FeatureOutput {
    /// The atomic file or stdout; nil for a format that writes its own files (`writesFiles`).
    public let target: OutputTarget?
    /// The format chosen for the output.
    public let format: FeatureFormat
    /// The writer to hand features to: `begin`, `write` each feature, then `finish`, then
    /// ``commit()``. For a format that does not keep data belonging to positions
    /// (``FeatureFormat/keepsPositionData``), it takes that data off and reports what it left out.
    public let writer: any FeatureWriter
    /// The format's own writer (``writer`` may wrap it), for the files it writes beside the output.
    private let formatWriter: any FeatureWriter
    private let pathWriter: (any PathFeatureWriter)?
    private let protectedInput: String?

    /// Opens `path` (nil or `-` for stdout) with the format `format`, else the extension's,
    /// else `fallback`. Refuses to write over `protectedInput`.
    public convenience init(path: String?, format: String? = nil, options: WriteOptions = .init(),
                            fallback: FeatureFormat = .geoJSON, protectedInput: String? = nil,
                            registry: FormatRegistry = .standard) throws {
        let chosen = try registry.outputFormat(path: DescriptorPaths.hasNoFileName(path) ? nil : path, explicit: format, fallback: fallback)
        try self.init(path: path, chosen: chosen, options: options, protectedInput: protectedInput)
    }

    /// Opens `path` (nil or `-` for stdout) in `format`, already chosen (so that the caller
    /// could fill in the format's own settings). Refuses to write over `protectedInput`.
    /// - Throws: ``FormatOptionsMismatch`` when `options` hold another format's settings, and
    ///   whatever opening the output throws.
    public init(path: String?, chosen format: FeatureFormat, options: WriteOptions = .init(), protectedInput: String? = nil) throws {
        // `/dev/stdout` is standard output, as `-` is: the same checks, the same writing.
        let path = DescriptorPaths.isStandardOutput(path) ? nil : path
        self.protectedInput = protectedInput
        self.format = format
        try format.checkTakes(options)  // before anything is opened
        if let path { try Self.refuseOverwriting(protectedInput, with: path, named: "the output") }
        var options = options
        options.outputPath = path
        options.protectedInput = protectedInput
        if path == nil && self.format.isBinary && isatty(STDOUT_FILENO) == 1 {
            // As gzip does: bytes that are not text would only garble the terminal.
            throw MeridianError(.usage, "\(self.format.displayName) is binary: Meridian does not write it to a terminal",
                                hint: "give -o PATH, or redirect standard output to a file or a pipe")
        }
        if self.format.writesFiles {
            guard let path else {
                throw MeridianError(.usage, "\(self.format.displayName) is written to a file, not to standard output", hint: "give -o PATH")
            }
            target = nil
            // The writer claims the path only when it commits: what is there is refused now, before the work.
            try OutputClaim.refuseExistingFile(at: path, replacing: options.replacesExisting)
            let writer = try self.format.pathWriter(for: path, options: options)
            pathWriter = writer
            formatWriter = writer
        } else {
            let target = try OutputTarget.open(path, replacing: options.replacesExisting)
            self.target = target
            pathWriter = nil
            formatWriter = try self.format.writer(for: target.sink, options: options)
        }
        writer = format.keepsPositionData ? formatWriter
            : PositionDataLeftOut(writingTo: formatWriter, format: format, diagnostics: options.diagnostics)
    }

    /// Puts the finished output in place: renames the temporary file over the path (or flushes
    /// standard output), or has a path writer commit its files. Call after the writer's `finish`.
    /// - Throws: `MeridianError` when the output cannot be flushed or moved into place.
    public func commit() throws {
        if let companions = formatWriter as? any CompanionFileWriter {
            for path in companions.companionPaths {
                try Self.refuseOverwriting(protectedInput, with: path, named: "the file written beside the output")
            }
            try companions.commitCompanions()
        }
        if let pathWriter { try pathWriter.commit() } else { try target?.commit() }
    }

    /// Runs `body`, which writes through `writer`, then commits; if anything fails, the output
    /// is abandoned and nothing appears.
    public func commit(after body: () throws -> Void) throws {
        do {
            try body()
            try commit()
        } catch {
            abandon()
            throw error
        }
    }

    /// Throws the output away: the temporary file is removed and nothing appears at the path.
    public func abandon() {
        (formatWriter as? any CompanionFileWriter)?.abandonCompanions()
        if let pathWriter { pathWriter.abandon() } else { target?.abandon() }
    }

    /// Throws when `path` (what is to be written, `named` in the message) is an input:
    /// `input`, or one the command recorded in ``RunInputs``.
    private static func refuseOverwriting(_ input: String?, with path: String, named: String) throws {
        try RunInputs.refuseInput(at: path, named: named, alsoInputs: input.map { [$0] } ?? [])
    }
}

/// The writer ``FeatureOutput`` puts before a format's writer when the format has no place for
/// data that belongs to positions (``FeatureFormat/keepsPositionData`` false: WKT, WKB, MapKit
/// Swift source, pictures): it takes the per-position arrays (`coordinateProperties`: a track's
/// times, its values) off each feature, counts their values, and at the end says once on
/// standard error how many it could not keep and why ("12 times of tracks not kept: WKT has
/// no place for them"), as the formats that keep some of it say what they leave out.
public final class PositionDataLeftOut: FeatureWriter {
    private let next: any FeatureWriter
    private let format: FeatureFormat
    private let diagnostics: (@Sendable (Diagnostic) -> Void)?
    /// Values left out so far, by the name of their array.
    public private(set) var valuesLeftOut: [String: Int] = [:]

    /// A writer that hands `next` each feature without its per-position data, reporting what it
    /// left out to `diagnostics` when it finishes; `format` names the output in the report.
    public init(writingTo next: any FeatureWriter, format: FeatureFormat, diagnostics: (@Sendable (Diagnostic) -> Void)?) {
        self.next = next
        self.format = format
        self.diagnostics = diagnostics
    }

    /// Begins the output.
    public func begin(_ metadata: CollectionMetadata) throws { try next.begin(metadata) }

    /// Writes the feature without its per-position arrays, counting their values.
    public func write(_ feature: Feature) throws {
        var feature = feature
        for (name, count) in feature.removePositionDataCountingValues() { valuesLeftOut[name, default: 0] += count }
        try next.write(feature)
    }

    /// Finishes the output, then reports what was left out, if anything.
    public func finish(_ trailingMetadata: CollectionMetadata) throws {
        try next.finish(trailingMetadata)
        guard let report = Self.report(valuesLeftOut, format: format) else { return }
        diagnostics?(report)
    }

    /// The warning for `counts` values left out by array name, or nil when none were.
    static func report(_ counts: [String: Int], format: FeatureFormat) -> Diagnostic? {
        // Times first (what a track's positions most often carry), then the other arrays by name.
        let counted = counts.filter { $0.value > 0 }.sorted { ($0.key == "times" ? 0 : 1, $0.key) < ($1.key == "times" ? 0 : 1, $1.key) }
        guard !counted.isEmpty else { return nil }
        let parts = counted.map { name, count in
            name == "times" ? "\(count) \(count == 1 ? "time" : "times") of positions" : "\(count) '\(name)' \(count == 1 ? "value" : "values") of positions"
        }
        let total = counted.reduce(0) { $0 + $1.value }
        let list = parts.count == 1 ? parts[0] : parts.dropLast().joined(separator: ", ") + " and " + parts.last!
        return Diagnostic(.warning, "\(list) (coordinateProperties) not kept: \(format.displayName) has no place for \(total == 1 ? "it" : "them")",
                          hint: "convert to GeoJSON, KML, GPX or CSV to keep them")
    }
}
