import CMinizip
import MeridianCore

/// A zip archive read with minizip (zlib's contrib/minizip), for KMZ.
///
/// Why minizip and not ZIPFoundation: ZIPFoundation 0.9.x's Linux inflate loop never ends on a
/// deflate stream that stops short of its end (Scripts/fuzz found it: it reads 0 bytes at end
/// of file for ever), and it scans a whole file byte by byte for the end record. minizip looks
/// for the end record in the last 64 KiB only, reads an entry's bytes no further than its
/// compressed size, inflates no further than its declared size and checks the CRC-32 at the
/// end, so every read ends.
final class ZipArchive {
    struct Entry {
        /// The entry's name in the archive, `/`-separated.
        let path: String
        let compressedSize: UInt64
        let uncompressedSize: UInt64
        var isDirectory: Bool { path.hasSuffix("/") }
        fileprivate let isEncrypted: Bool
        /// 0 stored, 8 deflated; others (bzip2 12, LZMA 14, …) are refused.
        fileprivate let method: UInt
        fileprivate let position: unz64_file_pos
    }

    /// The archive's name in messages.
    let name: String
    /// Entries in central-directory order.
    let entries: [Entry]
    private let handle: unzFile

    /// More entries than this in one archive is crafted (each takes 46 bytes or more of its
    /// central directory); the list is held in memory.
    static let maximumEntryCount = 1 << 20

    init(path: String, name: String) throws {
        self.name = name
        guard let handle = unzOpen64(path) else {
            var info = stat()
            if stat(path, &info) != 0 {
                throw MeridianError(.inputUnavailable, "cannot open \(path): \(String(cString: strerror(errno)))")
            }
            throw MeridianError(.badInput, "not a zip archive: it has no readable end-of-central-directory record",
                                at: SourceLocation(file: name), hint: "the file may be truncated, or not a zip at all")
        }
        self.handle = handle
        do {
            entries = try Self.readEntries(handle, name: name)
        } catch {
            unzClose(handle)
            throw error
        }
    }

    deinit { unzClose(handle) }

    private static func readEntries(_ handle: unzFile, name: String) throws -> [Entry] {
        var entries: [Entry] = []
        var nameBuffer = [CChar](repeating: 0, count: 65_536)  // a name's length is 16 bits
        var status = unzGoToFirstFile(handle)
        while status == UNZ_OK {
            guard entries.count < maximumEntryCount else {
                throw MeridianError(.badInput, "the archive holds more than \(maximumEntryCount) entries",
                                    at: SourceLocation(file: name), hint: "the archive is damaged or crafted")
            }
            var info = unz_file_info64()
            var position = unz64_file_pos()
            status = unzGetCurrentFileInfo64(handle, &info, &nameBuffer, uLong(nameBuffer.count), nil, 0, nil, 0)
            if status == UNZ_OK { status = unzGetFilePos64(handle, &position) }
            guard status == UNZ_OK else { break }
            let length = min(Int(info.size_filename), nameBuffer.count - 1)
            let path = nameBuffer.withUnsafeBufferPointer { buffer in
                String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: length), as: UTF8.self)
            }
            entries.append(Entry(path: path, compressedSize: info.compressed_size, uncompressedSize: info.uncompressed_size,
                                 isEncrypted: info.flag & 1 != 0, method: UInt(info.compression_method), position: position))
            status = unzGoToNextFile(handle)
        }
        guard status == UNZ_END_OF_LIST_OF_FILE else {
            throw MeridianError(.badInput, "the archive's central directory is damaged after \(entries.count) \(entries.count == 1 ? "entry" : "entries")",
                                at: SourceLocation(file: name), hint: "the file may be truncated")
        }
        return entries
    }

    /// An input over an entry's bytes, inflated as they are read: the entry is never written
    /// out, so an archive costs neither memory nor disk, and a zip bomb costs only the time to
    /// read it. Refuses an entry declared larger than `limit` and an encrypted one; the input
    /// fails (`badInput`) if the bytes do not inflate to the size and CRC-32 the header declares
    /// (a bomb that understates its size ends there). The archive reads one entry at a time:
    /// finish with one input before asking for the next.
    func input(for entry: Entry, limit: UInt64) throws -> BufferedInput {
        let stream = try EntryStream(archive: self, entry: entry, limit: limit)
        return BufferedInput(name: stream.location.file) { try stream.read(into: $0) }
    }

    /// minizip's current entry, open for reading; closed at its end or when dropped.
    private final class EntryStream {
        let archive: ZipArchive
        let entry: Entry
        let location: SourceLocation
        private var isOpen = false
        private var total: UInt64 = 0

        init(archive: ZipArchive, entry: Entry, limit: UInt64) throws {
            self.archive = archive
            self.entry = entry
            location = SourceLocation(file: "\(archive.name):\(entry.path)")
            guard !entry.isEncrypted else {
                throw MeridianError(.badInput, "\(entry.path) is encrypted", at: location, hint: "Meridian reads unencrypted archives only")
            }
            // minizip hands over a bzip2 entry's raw bytes when it is built without bzip2, as
            // Debian's is: refuse every method but the two KMZ uses.
            guard entry.method == 0 || entry.method == UInt(Z_DEFLATED) else {
                throw MeridianError(.badInput, "\(entry.path) uses compression method \(entry.method)", at: location,
                                    hint: "Meridian reads stored and deflated entries, the two KMZ uses")
            }
            guard entry.uncompressedSize <= limit else {
                throw MeridianError(.badInput, "\(entry.path) would inflate to \(entry.uncompressedSize >> 20) MiB, more than Meridian reads",
                                    at: location, hint: "this looks like a zip bomb")
            }
            var position = entry.position
            guard unzGoToFilePos64(archive.handle, &position) == UNZ_OK else {
                throw MeridianError(.badInput, "cannot find \(entry.path) in the archive", at: location, hint: "the archive is damaged")
            }
            let opened = unzOpenCurrentFile(archive.handle)
            guard opened == UNZ_OK else {
                throw MeridianError(.badInput, "cannot open \(entry.path): \(ZipArchive.describe(opened))", at: location,
                                    hint: "the archive is damaged, or uses a compression other than deflate")
            }
            isOpen = true
        }

        deinit { if isOpen { unzCloseCurrentFile(archive.handle) } }

        func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            guard isOpen else { return 0 }
            let count = unzReadCurrentFile(archive.handle, buffer.baseAddress, UInt32(min(buffer.count, Int(UInt32.max))))
            if count > 0 {
                total += UInt64(count)
                return Int(count)
            }
            isOpen = false
            let check = unzCloseCurrentFile(archive.handle)
            guard count == 0 else {
                throw MeridianError(.badInput, "cannot inflate \(entry.path): \(ZipArchive.describe(count))", at: location,
                                    hint: "the archive is damaged or truncated")
            }
            guard total == entry.uncompressedSize, check == UNZ_OK else {
                throw MeridianError(.badInput, "\(entry.path) does not inflate to the \(entry.uncompressedSize) bytes and CRC-32 its header declares",
                                    at: location, hint: "the archive is damaged or crafted (a zip bomb understates its size)")
            }
            return 0
        }
    }

    fileprivate static func describe(_ status: Int32) -> String {
        switch status {
        case UNZ_ERRNO: return "the archive ends early"
        case UNZ_BADZIPFILE: return "a damaged header or an unknown compression method"
        case UNZ_CRCERROR: return "its CRC-32 does not match"
        case Z_DATA_ERROR: return "the compressed data is damaged"
        case Z_BUF_ERROR: return "the compressed data ends early"
        case Z_MEM_ERROR: return "out of memory"
        default: return "minizip error \(status)"
        }
    }
}

/// Writes a zip archive with minizip: entries deflated one after another, then the central
/// directory. Names are marked UTF-8; entries of 4 GiB or more are written as zip64.
public final class ZipArchiveWriter {
    private var handle: zipFile?
    private let path: String

    /// Creates (or truncates) the archive at `path`.
    public init(path: String) throws {
        self.path = path
        guard let handle = zipOpen64(path, APPEND_STATUS_CREATE) else {
            throw MeridianError(.cannotCreateOutput, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        self.handle = handle
    }

    deinit { if let handle { zipClose(handle, nil) } }

    /// Adds one deflated entry of `size` bytes; `contents` writes them through the function it
    /// is given.
    public func addEntry(_ name: String, size: UInt64,
                         contents: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        guard let handle else { throw MeridianError(.io, "the zip archive \(path) is already closed") }
        var info = zip_fileinfo()
        var now = time(nil)
        var local = tm()
        localtime_r(&now, &local)  // zip times are local, by DOS's convention
        info.tmz_date = tm_zip(tm_sec: uInt(local.tm_sec), tm_min: uInt(local.tm_min), tm_hour: uInt(local.tm_hour),
                               tm_mday: uInt(local.tm_mday), tm_mon: uInt(local.tm_mon), tm_year: uInt(local.tm_year + 1900))
        let utf8Names: uLong = 1 << 11
        try check(zipOpenNewFileInZip4_64(handle, name, &info, nil, 0, nil, 0, nil, Z_DEFLATED, Z_DEFAULT_COMPRESSION, 0,
                                          -MAX_WBITS, DEF_MEM_LEVEL, Z_DEFAULT_STRATEGY, nil, 0, 0, utf8Names,
                                          size >= 0xFFFF_FFFF ? 1 : 0))
        try contents { bytes in
            guard bytes.count > 0 else { return }
            try check(zipWriteInFileInZip(handle, bytes.baseAddress, UInt32(bytes.count)))
        }
        try check(zipCloseFileInZip(handle))
    }

    /// Writes the central directory and closes the file.
    public func close() throws {
        guard let handle else { return }
        self.handle = nil
        try check(zipClose(handle, nil))
    }

    private func check(_ status: Int32) throws {
        guard status != ZIP_OK else { return }
        let reason = status == ZIP_ERRNO ? String(cString: strerror(errno)) : "minizip error \(status)"
        throw MeridianError(.io, "cannot write the zip archive \(path): \(reason)")
    }
}
