import CGDAL
import MeridianCore

/// A file open at a descriptor (the parent's copy of standard input: a scratch file without a
/// name, inherited as `InheritedScratch`) that GDAL opens by a path of its own, in GDAL's
/// memory file system, ending with the extension a driver goes by (GDAL's CSV driver opens only
/// a `.csv`, GeoPackage warns about any other name).
///
/// The file is mapped into memory read-only and private (the kernel's page cache holds it, not
/// the heap; nothing is copied), so no file with a name is ever made: whatever GDAL writes
/// beside what it reads (GML's `.gfs` schema) goes to memory too, and a run that ends however
/// it ends (SIGKILL too) leaves nothing in `$TMPDIR`. The path, and what GDAL wrote beside it,
/// go with this object.
public final class MappedInputFile {
    /// The path GDAL opens: `/vsimem/meridian-input-PID-N/input.EXT`.
    public let path: String
    /// The folder in GDAL's memory file system that holds the path (and whatever GDAL writes beside it).
    private let folder: String
    /// The mapped file; for an empty file (which cannot be mapped), one byte of the heap that
    /// nothing reads.
    private let base: UnsafeMutableRawPointer
    private let length: Int

    /// Tells apart the mapped files of one process.
    private static let counter = Locked(0)

    /// Maps the file open at `descriptor` (which stays open and owned by the caller) under a
    /// path ending in `.fileExtension` (letters and digits only; others are left out).
    /// - Parameter name: What messages call the file (`<stdin>`).
    /// - Throws: `MeridianError` (`io`) when the file cannot be read or mapped.
    public init(descriptor: Int32, fileExtension: String?, name: String) throws {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw MeridianError(.io, "cannot read the copy of the input: \(String(cString: strerror(errno)))", at: SourceLocation(file: name))
        }
        guard let size = Int(exactly: status.st_size), size >= 0 else {
            throw MeridianError(.io, "cannot read the copy of the input: its size is \(status.st_size)", at: SourceLocation(file: name))
        }
        length = size
        if size > 0 {
            // Private and read-only: GDAL reads through the page cache, and could change nothing.
            let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0)
            guard let mapped, mapped != MAP_FAILED else {
                throw MeridianError(.io, "cannot map the copy of the input: \(String(cString: strerror(errno)))", at: SourceLocation(file: name))
            }
            base = mapped
        } else {
            base = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
        }
        let number = Self.counter.withLock { value -> Int in
            value += 1
            return value
        }
        let suffix = String((fileExtension ?? "").unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }.prefix(16))
        folder = "/vsimem/meridian-input-\(getpid())-\(number)"
        path = folder + "/input" + (suffix.isEmpty ? "" : "." + suffix)
        GDAL.setUp()
        // GDAL does not own the bytes (FALSE): they are unmapped when this object goes.
        guard let made = VSIFileFromMemBuffer(path, base.assumingMemoryBound(to: GByte.self), vsi_l_offset(size), 0) else {
            if size > 0 { munmap(base, size) } else { base.deallocate() }
            throw MeridianError(.io, "GDAL cannot open the copy of the input", at: SourceLocation(file: name))
        }
        VSIFCloseL(made)
    }

    deinit {
        VSIRmdirRecursive(folder)
        if length > 0 { munmap(base, length) } else { base.deallocate() }
    }
}
