import ArgumentParser
import MeridianCommandLine
import MeridianCore
import MeridianFormats
import MeridianGeometry

/// GDAL/OGR's vector formats (GeoPackage, Shapefile, FlatGeobuf, GML, …) for every subcommand,
/// served by `meridian-gdal` so that this process never loads GDAL:
///
/// - reading runs `meridian-gdal ogr-read` (an `OGRReadRequest`), which streams the features back as a GeoJSON
///   text sequence on a pipe (numbers exact both ways);
/// - writing sets the features aside (a GeoJSON text sequence in a scratch file) and, on
///   commit, runs `meridian-gdal ogr-write` (an `OGRWriteRequest`), which writes the file(s) out of sight and moves them
///   into place, so nothing partial is ever visible;
/// - both report their warnings and errors as JSON lines on standard error, which `meridian`
///   reports as its own (`HelperDiagnostics`), so `--quiet` and the message form hold for them.
///
/// Which driver: a name (`--from`, `--to`) is a driver's, checked at once by `meridian-gdal
/// ogr-driver` unless it is one of `CommonGDALFormat`'s (so a mistyped name fails before any
/// work, with the nearest names); an output's extension must be a common format's, any other
/// is a usage error asking for `--to`; an input with a common format's extension is read by
/// that driver, one with another extension by whichever driver recognises its content.
enum GDALFormats {
    /// What `meridian-gdal` does here, for the error when it is missing.
    static let purpose = "reading and writing GDAL's formats"

    static func format(_ query: FormatQuery) throws -> FeatureFormat? {
        switch query {
        case .name(let name):
            if let common = CommonGDALFormat.named(name) { return format(driver: common.driver, extensions: common.extensions) }
            let (driver, extensions) = try lookUpDriver(named: name)
            return format(driver: driver, extensions: extensions)
        case .inputPath(let path):
            guard let ext = fileExtension(path) else { return nil }
            return format(driver: CommonGDALFormat.forPath(path)?.driver, extensions: [ext])
        case .outputPath(let path):
            if let common = CommonGDALFormat.forPath(path) { return format(driver: common.driver, extensions: common.extensions) }
            throw unchosenOutputFormat(path)
        }
    }

    /// A GDAL format: `driver` writes it and is the only one tried to read it; nil reads
    /// whatever GDAL recognises (and cannot write).
    static func format(driver: String?, extensions: [String]) -> FeatureFormat {
        var writer: (@Sendable (String, WriteOptions) throws -> any PathFeatureWriter)?
        if let driver {
            writer = { path, options in try ChildFeatureWriter(driver: driver, path: path, options: options) }
        }
        return FeatureFormat(
            id: driver ?? "gdal", displayName: driver.map { "\($0) (through GDAL)" } ?? "a GDAL format", extensions: extensions,
            // GDAL names no media type for most of its drivers: bytes, as far as Meridian can tell.
            // Per-position arrays are kept as the JSON text of a field (OGRWriter: OFSTJSON).
            mediaType: "application/octet-stream", hasLayers: true, keepsPositionData: true,
            reader: { input, options in
                if let path = input.regularFilePath {
                    // GDAL reads a Shapefile's companions with it: none may be an output either.
                    RunInputs.record(shapefileCompanions(of: path))
                    return try ChildFeatureReader(OGRReadRequest(input: path, driver: driver, layer: options.layer).arguments, name: path,
                                                  diagnostics: options.diagnostics)
                }
                // GDAL's drivers read files by path, most with random access: standard input or
                // a pipe is set aside first, in a scratch file without a name (nothing is left
                // however the run ends), which the child inherits and reads under the format's
                // extension (some drivers go by it); it is kept while the child reads it.
                let scratch = try ScratchFile(unlinkedCopyOf: input, as: "stdin")
                let request = OGRReadRequest(input: InheritedScratch.argument, name: input.name, driver: driver, layer: options.layer,
                                             fileExtension: extensions.first)
                return try ChildFeatureReader(request.arguments, name: input.name, diagnostics: options.diagnostics, keeping: scratch)
            },
            pathWriter: writer
        )
    }

    /// The files GDAL's Shapefile driver reads along with `path` (a `.shp`, `.shx` or `.dbf`):
    /// its siblings of the same name with a Shapefile's extensions, in either case; none for
    /// another file.
    static func shapefileCompanions(of path: String) -> [String] {
        let name = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        guard let dot = path[name...].lastIndex(of: "."), ["shp", "shx", "dbf"].contains(path[path.index(after: dot)...].lowercased()) else { return [] }
        let base = String(path[..<dot])
        return ["shp", "shx", "dbf", "prj", "cpg", "qix", "sbn", "sbx"].flatMap { [base + "." + $0, base + "." + $0.uppercased()] }
    }

    /// The driver `name` means and its extensions, as `meridian-gdal ogr-driver` says; when
    /// GDAL knows no such format, the child has said so (with the nearest names) and its exit
    /// code is thrown.
    static func lookUpDriver(named name: String) throws -> (driver: String, extensions: [String]) {
        guard HelperExecutable.gdal.path() != nil else {
            // A near name is a typo (usage); any other name only GDAL can tell, and it is missing.
            if let near = Suggestions.closest(to: name, among: FormatRegistry.meridian.formats.flatMap { [$0.id] + $0.aliases } + CommonGDALFormat.names) {
                throw MeridianError(.usage, "unknown format \"\(name)\"", hint: "did you mean '\(near)'?")
            }
            throw HelperExecutable.gdal.missing(Self.purpose)
        }
        let lines = try HelperExecutable.gdal.output(OGRDriverRequest(name: name).arguments, for: purpose)
        guard let driver = lines.first else { throw MeridianError(.usage, "unknown format \"\(name)\"") }
        return (driver, lines.dropFirst().first?.split(separator: " ").map(String.init) ?? [])
    }

    /// `-o out.xml`: an extension that is not a common GDAL format's is not guessed. The hint
    /// names the drivers that write it, asked of `meridian-gdal` (this is the error path only).
    static func unchosenOutputFormat(_ path: String) -> UnchosenOutputFormat {
        let ext = fileExtension(path) ?? ""
        let asked = !ext.isEmpty && HelperExecutable.gdal.path() != nil
        let writers = asked ? ((try? HelperExecutable.gdal.output(OGRDriverRequest(fileExtension: ext).arguments, for: purpose)) ?? []) : []
        return UnchosenOutputFormat(path: path, writers: writers)
    }
}

/// An output whose format neither its extension nor `--to` tells. Its hint names `--to`; a
/// subcommand whose `--to` is something else (`geodesic`'s end point) words it its own way
/// (`hint(choosing:)`).
struct UnchosenOutputFormat: MeridianFailure {
    var kind: MeridianError.Kind { .usage }
    var location: SourceLocation? { nil }
    let path: String
    /// The GDAL drivers that write the path's extension, when `meridian-gdal` said.
    let writers: [String]

    var message: String { "cannot tell the output format from \"\(path)\"" }
    var hint: String? { hint(choosing: "name the format with --to") }

    /// The hint, `choice` saying how the subcommand picks a format.
    func hint(choosing choice: String) -> String {
        // A tile container or folder is what `tile` makes from features, not a feature format.
        if ["mbtiles", "pmtiles"].contains(fileExtension(path) ?? "") || path.hasSuffix("/") {
            return "tile pyramids (.mbtiles, .pmtiles, a folder) are made by `meridian tile`; "
                + "\(choice) to write features (`meridian formats` lists the formats)"
        }
        var hint = choice
        if !writers.isEmpty, let ext = fileExtension(path) { hint += ": GDAL writes .\(ext) as \(listed(writers))" }
        return hint + " (Meridian picks a GDAL format by extension only for \(CommonGDALFormat.extensionList); `meridian formats` lists them all)"
    }
}

extension FormatRegistry {
    /// Meridian's own formats (pictures drawn by `meridian-draw`), then GDAL's through `meridian-gdal`.
    static let commandLine = FormatRegistry.meridian.adding(fallback: GDALFormats.format)
}

/// Features read by `meridian-gdal ogr-read`, streamed back as a GeoJSON text sequence.
final class ChildFeatureReader: FeatureReader {
    private let child: ChildProcess
    private let reader: GeoJSONReader
    private let diagnostics: HelperDiagnostics
    private let warnings: DiagnosticHandler?
    private var ended = false
    /// Standard input's copy, which the child reads.
    private let scratch: ScratchFile?

    init(_ arguments: [String], name: String, diagnostics warnings: DiagnosticHandler?, keeping scratch: ScratchFile? = nil) throws {
        self.scratch = scratch
        self.warnings = warnings
        (child, diagnostics) = try HelperExecutable.gdal.start(arguments, for: GDALFormats.purpose, standardOutput: .pipe,
                                                               inheriting: scratch?.descriptor)
        let input = BufferedInput(fileDescriptor: child.standardOutput!, name: name, ownsDescriptor: false)
        reader = GeoJSONReader(input: input, layout: .sequence)
    }

    func readMetadata() throws -> CollectionMetadata {
        do { return try reader.readMetadata() } catch { try endOfChild(brokenOff: true); throw error }
    }

    func next() throws -> Feature? {
        let feature: Feature?
        do { feature = try reader.next() } catch { try endOfChild(brokenOff: true); throw error }
        if feature == nil { try endOfChild(brokenOff: false) }
        return feature
    }

    var trailingMetadata: CollectionMetadata { reader.trailingMetadata }

    /// At the end of the stream, or where it broke off: the child's warnings, and its error.
    /// A stream breaks off when the child fails (it ends at once, and its error is the one to
    /// tell) or, were it ever to write something unreadable, while it goes on writing into a
    /// pipe no one reads any more: a child that does not end within two seconds is stopped, and
    /// the reading error is told.
    private func endOfChild(brokenOff: Bool) throws {
        guard !ended else { return }
        ended = true
        if brokenOff {
            for _ in 0..<200 where !child.hasEnded { usleep(10_000) }
            if !child.hasEnded {
                child.terminate()
                try? diagnostics.finish(warnings: warnings)
                return
            }
        }
        try diagnostics.finish(warnings: warnings)
    }
}

/// Features set aside, then written by `meridian-gdal ogr-write` on commit.
final class ChildFeatureWriter: PathFeatureWriter {
    private let driver: String
    private let path: String
    private let spill: FeatureSpill
    private let warnings: (@Sendable (Diagnostic) -> Void)?
    private let replacing: Bool

    init(driver: String, path: String, options: WriteOptions) throws {
        self.driver = driver
        self.path = path
        replacing = options.replacesExisting
        warnings = options.diagnostics
        spill = try FeatureSpill("gdal-output")
    }

    // (A text sequence carries no collection members: ogr-write names the layer after the file.)
    func begin(_ metadata: CollectionMetadata) throws {}
    func write(_ feature: Feature) throws { try spill.append(feature) }
    func finish(_ trailingMetadata: CollectionMetadata) throws { try spill.close() }

    func commit() throws {
        let (_, diagnostics) = try HelperExecutable.gdal.start(OGRWriteRequest(input: InheritedScratch.argument, driver: driver, output: path, replacing: replacing,
                                                                               inputs: RunInputs.recordedIdentities).arguments,
                                                               for: GDALFormats.purpose, inheriting: spill.descriptor)
        try diagnostics.finish(warnings: warnings)
    }

    func abandon() {}
}
