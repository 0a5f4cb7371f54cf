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
    /// ``commit()``.
    public let writer: any FeatureWriter
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
            self.writer = writer
        } else {
            let target = try OutputTarget.open(path, replacing: options.replacesExisting)
            self.target = target
            pathWriter = nil
            writer = try self.format.writer(for: target.sink, options: options)
        }
    }

    /// Puts the finished output in place: renames the temporary file over the path (or flushes
    /// standard output), or has a path writer commit its files. Call after the writer's `finish`.
    /// - Throws: `MeridianError` when the output cannot be flushed or moved into place.
    public func commit() throws {
        if let companions = writer as? any CompanionFileWriter {
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
        (writer as? any CompanionFileWriter)?.abandonCompanions()
        if let pathWriter { pathWriter.abandon() } else { target?.abandon() }
    }

    /// Throws when `path` (what is to be written, `named` in the message) is an input:
    /// `input`, or one the command recorded in ``RunInputs``.
    private static func refuseOverwriting(_ input: String?, with path: String, named: String) throws {
        try RunInputs.refuseInput(at: path, named: named, alsoInputs: input.map { [$0] } ?? [])
    }
}
