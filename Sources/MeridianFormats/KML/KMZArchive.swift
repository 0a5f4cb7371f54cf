#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import MeridianGeometry
import ZIPFoundation

/// KMZ: a zip archive holding a KML document (`doc.kml`, else the first `.kml` at the root) and
/// the files it refers to. Read with ZIPFoundation, guarded against zip bombs (an entry may not
/// inflate past its declared size, nor past `maximumDocumentSize`) and path traversal (entries
/// named with `..` or an absolute path are never used).
enum KMZArchive {
    static let maximumDocumentSize: UInt64 = 4 << 30

    /// Opens the archive an input holds: from its path; standard input (which a zip's random
    /// access cannot read as it streams) is first copied to a scratch file, unlinked once open.
    /// Not ZIPFoundation's in-memory archives: they hold the whole input in memory, and they
    /// leak when the bytes are not a zip (found by Scripts/fuzz).
    /// The scratch copy of standard input comes back too: the caller keeps it while it reads.
    static func open(_ input: BufferedInput) throws -> (archive: Archive, scratch: ScratchFile?) {
        do {
            if let path = input.path {
                try requireEndRecord(path, name: input.name)
                return (try Archive(url: URL(fileURLWithPath: path), accessMode: .read), nil)
            }
            let scratch = try ScratchFile("kmz-input")
            try input.forEachChunk { chunk, _ in scratch.sink.write(UnsafeRawBufferPointer(chunk)) }
            try scratch.sink.flush()
            try requireEndRecord(scratch.path, name: input.name)
            return (try Archive(url: URL(fileURLWithPath: scratch.path), accessMode: .read), scratch)
        } catch let error as MeridianError {
            throw error
        } catch {
            throw MeridianError(.badInput, "not a readable KMZ (zip) archive: \(error)", at: SourceLocation(file: input.name),
                                hint: "the file may be truncated")
        }
    }

    /// A zip ends with its end-of-central-directory record, within the last 65,557 bytes (22
    /// and a comment of at most 65,535). ZIPFoundation looks for it byte by byte through the
    /// whole file, minutes for a large file that is not a zip: look in the tail first.
    static func requireEndRecord(_ path: String, name: String) throws {
        guard let file = fopen(path, "rb") else { return }  // ZIPFoundation reports it
        defer { fclose(file) }
        fseeko(file, 0, SEEK_END)
        let size = ftello(file)
        let tail = min(size, 65_557)
        fseeko(file, size - tail, SEEK_SET)
        var bytes = [UInt8](repeating: 0, count: Int(tail))
        let read = fread(&bytes, 1, bytes.count, file)
        let signature: [UInt8] = [0x50, 0x4B, 0x05, 0x06]
        let found = read >= 22 && (0...(read - 22)).contains { i in bytes[i..<(i + 4)].elementsEqual(signature) }
        guard found else {
            throw MeridianError(.badInput, "not a KMZ (zip) archive: it has no end-of-central-directory record",
                                at: SourceLocation(file: name), hint: "the file may be truncated, or not a zip at all")
        }
    }

    static func isSafe(_ path: String) -> Bool {
        !path.hasPrefix("/") && !path.split(separator: "/").contains("..") && !path.contains("\\")
    }

    /// The archive's main KML document.
    static func mainDocument(in archive: Archive, name: String) throws -> Entry {
        let documents = archive.filter { $0.type == .file && $0.path.lowercased().hasSuffix(".kml") && isSafe($0.path) }
        if let doc = documents.first(where: { $0.path.lowercased() == "doc.kml" }) { return doc }
        if let root = documents.first(where: { !$0.path.contains("/") }) { return root }
        if let any = documents.first { return any }
        throw MeridianError(.badInput, "this KMZ archive holds no .kml document", at: SourceLocation(file: name),
                            hint: "a KMZ is a zip with doc.kml at its root")
    }

    /// Inflates one entry into an unlinked temporary file and returns an input over it: the KML
    /// then streams from disk like any other, in constant memory.
    static func extract(_ entry: Entry, from archive: Archive, archiveName: String) throws -> BufferedInput {
        let declared = entry.uncompressedSize
        let where_ = SourceLocation(file: "\(archiveName):\(entry.path)")
        guard declared <= maximumDocumentSize else {
            throw MeridianError(.badInput, "\(entry.path) would inflate to \(declared >> 20) MiB, more than Meridian extracts",
                                at: where_, hint: "this looks like a zip bomb")
        }
        // Sizes the archive cannot hold send ZIPFoundation reading past its end without end
        // (found by Scripts/fuzz): refuse them first.
        var info = stat()
        if stat(archive.url.path, &info) == 0, entry.compressedSize > UInt64(info.st_size) {
            throw MeridianError(.badInput, "\(entry.path) claims \(entry.compressedSize) compressed bytes in a \(info.st_size)-byte archive",
                                at: where_, hint: "the archive is damaged or crafted")
        }
        // Deflate expands at most 1,032 to 1: a larger claim is crafted, and ZIPFoundation
        // (0.9.x on Linux) spins for ever on a stream that ends before its claimed size.
        if entry.isCompressed && declared > entry.compressedSize * 1032 + 65_536 {
            throw MeridianError(.badInput, "\(entry.path) claims to inflate \(entry.compressedSize) bytes to \(declared), more than deflate can",
                                at: where_, hint: "the archive is damaged or crafted")
        }
        if !entry.isCompressed && entry.compressedSize != declared {
            throw MeridianError(.badInput, "\(entry.path) is stored uncompressed but its two sizes differ", at: where_,
                                hint: "the archive is damaged or crafted")
        }
        let (fd, path) = try TemporaryFiles.scratch("kmz")
        unlink(path)  // gone from the folder; the descriptor keeps it
        TemporaryFiles.shared.unregister(path)
        var written: UInt64 = 0
        do {
            _ = try archive.extract(entry, bufferSize: 1 << 16) { data in
                written += UInt64(data.count)
                if written > declared || written > maximumDocumentSize {
                    throw MeridianError(.badInput, "\(entry.path) inflates past its declared size", at: where_,
                                        hint: "this looks like a zip bomb")
                }
                try data.withUnsafeBytes { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                        if n < 0 {
                            if errno == EINTR { continue }
                            throw MeridianError(.io, "cannot write a temporary file: \(String(cString: strerror(errno)))")
                        }
                        offset += n
                    }
                }
            }
        } catch let error as MeridianError {
            close(fd)
            throw error
        } catch {
            close(fd)
            throw MeridianError(.badInput, "cannot inflate \(entry.path): \(error)", at: where_)
        }
        lseek(fd, 0, SEEK_SET)
        return BufferedInput(fileDescriptor: fd, name: "\(archiveName):\(entry.path)", ownsDescriptor: true)
    }
}

/// A KMZ reader: the archive's main document through the streaming KML reader.
public final class KMZReader: KMLDocumentReader {
    private let kml: KMLReader
    /// The archive's other files (images of GroundOverlays, icons), by path.
    public let entries: [String]
    /// Standard input's copy, kept while the archive is read.
    private let scratch: ScratchFile?

    public init(input: BufferedInput, options: ReadOptions = .init()) throws {
        let (archive, scratch) = try KMZArchive.open(input)
        self.scratch = scratch
        let document = try KMZArchive.mainDocument(in: archive, name: input.name)
        entries = archive.filter { $0.type == .file && KMZArchive.isSafe($0.path) }.map(\.path)
        for entry in archive where !KMZArchive.isSafe(entry.path) {
            options.diagnostics?(Diagnostic(.warning, "ignoring the archive entry \"\(entry.path)\": it points outside the archive",
                                            at: SourceLocation(file: input.name)))
        }
        let inner = try KMZArchive.extract(document, from: archive, archiveName: input.name)
        kml = KMLReader(input: inner, options: options.kml, readOptions: options)
        kml.externalStyles = try Self.stylesOfOtherDocuments(in: archive, besides: document, name: input.name, options: options)
    }

    /// The styles of the archive's other KML documents, for styleUrls like `styles.kml#red`.
    private static func stylesOfOtherDocuments(in archive: Archive, besides main: Entry, name: String,
                                               options: ReadOptions) throws -> [String: JSONObject] {
        var styles: [String: JSONObject] = [:]
        let others = archive.filter { $0.type == .file && $0.path != main.path && $0.path.lowercased().hasSuffix(".kml") && KMZArchive.isSafe($0.path) }
        for entry in others.prefix(32) {
            let reader = KMLReader(input: try KMZArchive.extract(entry, from: archive, archiveName: name), readOptions: options)
            while try reader.next() != nil {}
            for (id, style) in reader.styles { styles["\(entry.path)#\(id)"] = style }
        }
        return styles
    }

    public func readMetadata() throws -> CollectionMetadata { try kml.readMetadata() }
    public func next() throws -> Feature? { try kml.next() }
    public var trailingMetadata: CollectionMetadata { kml.trailingMetadata }
    public var folderTree: KMLFolderTree? { kml.folderTree }
    public var statistics: KMLStatistics { kml.statistics }
}
