import MeridianCore
import MeridianGeometry

/// KMZ: a zip archive holding a KML document (`doc.kml`, else the first `.kml` at the root) and
/// the files it refers to. Read with `ZipArchive` (minizip): documents inflate as the KML
/// reader reads them, never past their declared size nor `maximumDocumentSize` (zip bombs), and
/// entries named with `..`, `\\` or an absolute path are never used (path traversal).
enum KMZArchive {
    static let maximumDocumentSize: UInt64 = 4 << 30

    /// Opens the archive an input holds: from its path when it is a file; standard input or a
    /// pipe (`<(…)`), which a zip's random access cannot read as they stream, is first copied
    /// to a scratch file. The scratch copy comes back too: the caller keeps it while it reads.
    static func open(_ input: BufferedInput) throws -> (archive: ZipArchive, scratch: ScratchFile?) {
        if let path = input.regularFilePath { return (try ZipArchive(path: path, name: input.name), nil) }
        let scratch = try ScratchFile.copyOpenedByPath(input, as: "kmz-input")
        return (try ZipArchive(path: scratch.pathInThisProcess ?? scratch.path, name: input.name), scratch)
    }

    static func isSafe(_ path: String) -> Bool {
        !path.hasPrefix("/") && !path.split(separator: "/").contains("..") && !path.contains("\\")
    }

    /// The archive's files whose names stay inside it.
    static func safeFiles(of archive: ZipArchive) -> [ZipArchive.Entry] {
        archive.entries.filter { !$0.isDirectory && isSafe($0.path) }
    }

    /// The archive's main KML document.
    static func mainDocument(in archive: ZipArchive) throws -> ZipArchive.Entry {
        let documents = safeFiles(of: archive).filter { $0.path.lowercased().hasSuffix(".kml") }
        if let doc = documents.first(where: { $0.path.lowercased() == "doc.kml" }) { return doc }
        if let root = documents.first(where: { !$0.path.contains("/") }) { return root }
        if let any = documents.first { return any }
        throw MeridianError(.badInput, "this KMZ archive holds no .kml document", at: SourceLocation(file: archive.name),
                            hint: "a KMZ is a zip with doc.kml at its root")
    }

    /// An entry's KML, inflated as the reader reads it.
    static func input(for entry: ZipArchive.Entry, in archive: ZipArchive) throws -> BufferedInput {
        try archive.input(for: entry, limit: maximumDocumentSize)
    }
}

/// A KMZ reader: the archive's main document through the streaming KML reader.
public final class KMZReader: KMLDocumentReader {
    private let kml: KMLReader
    /// The archive's other files (images of GroundOverlays, icons), by path.
    public let entries: [String]
    /// Standard input's copy, kept while the archive is read.
    private let scratch: ScratchFile?

    /// Opens the archive `input` holds and prepares its main document (`doc.kml`, else the first
    /// `.kml` at the root) for streaming; the styles of the archive's other KML documents are read
    /// first, and entries that point outside the archive are skipped with a warning.
    /// - Parameters:
    ///   - input: The archive: a file is read in place, standard input or a pipe is first copied to
    ///     a scratch file that lives as long as the reader.
    ///   - options: Folder handling, the layer to keep, and where warnings go.
    /// - Throws: `MeridianError` (`badInput`) when the input is not a zip archive or holds no KML
    ///   document, `inputUnavailable` when it cannot be opened.
    public init(input: BufferedInput, options: ReadOptions = .init()) throws {
        let (archive, scratch) = try KMZArchive.open(input)
        self.scratch = scratch
        let document = try KMZArchive.mainDocument(in: archive)
        entries = KMZArchive.safeFiles(of: archive).map(\.path)
        for entry in archive.entries where !KMZArchive.isSafe(entry.path) {
            options.diagnostics?(Diagnostic(.warning, "ignoring the archive entry \"\(entry.path)\": it points outside the archive",
                                            at: SourceLocation(file: input.name)))
        }
        // The other documents first: the archive reads one entry at a time, and the main one
        // streams for as long as its features are read.
        let externalStyles = try Self.stylesOfOtherDocuments(in: archive, besides: document, options: options)
        kml = KMLReader(input: try KMZArchive.input(for: document, in: archive), options: options.kml, readOptions: options)
        kml.externalStyles = externalStyles
    }

    /// The styles of the archive's other KML documents, for styleUrls like `styles.kml#red`.
    private static func stylesOfOtherDocuments(in archive: ZipArchive, besides main: ZipArchive.Entry,
                                               options: ReadOptions) throws -> [String: JSONObject] {
        var styles: [String: JSONObject] = [:]
        let others = KMZArchive.safeFiles(of: archive).filter { $0.path != main.path && $0.path.lowercased().hasSuffix(".kml") }
        for entry in others.prefix(32) {
            // (Read for their styles only: no layer is picked in them.)
            let reader = KMLReader(input: try KMZArchive.input(for: entry, in: archive), readOptions: ReadOptions(diagnostics: options.diagnostics))
            while try reader.next() != nil {}
            for (id, style) in reader.styles { styles["\(entry.path)#\(id)"] = style }
        }
        return styles
    }

    /// Reads as far as the first feature and returns the main document's `name`, if it has one.
    public func readMetadata() throws -> CollectionMetadata { try kml.readMetadata() }
    /// The main document's next feature, or nil at its end.
    /// - Throws: `MeridianError` (`badInput`) for malformed XML or a damaged entry.
    public func next() throws -> Feature? { try kml.next() }
    /// Always empty: KML has no members after its features.
    public var trailingMetadata: CollectionMetadata { kml.trailingMetadata }
    /// The main document's folder tree, when the options asked for `tree`.
    public var folderTree: KMLFolderTree? { kml.folderTree }
    /// Folders and styles in the main document, once `next()` has returned nil.
    public var statistics: KMLStatistics { kml.statistics }
    /// The GroundOverlay behind the feature ``next()`` returned last, if any; its `imageHref` may
    /// name one of ``entries``.
    public var groundOverlay: KMLGroundOverlay? { kml.groundOverlay }
}
