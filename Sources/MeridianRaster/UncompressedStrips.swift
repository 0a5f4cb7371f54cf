import CGDAL
import GDALSupport
import MeridianCore

/// An uncompressed RGBA GeoTIFF's windows read straight from its strips with pread(2), one call
/// a window row, into the window's buffer: what GDAL's direct I/O (`GTIFF_DIRECT_IO`) does,
/// without its cost. GDAL reads each row through its file layer's buffered stream: a seek and
/// two reads of 4 KiB a row (1.5 million system calls and 1.2 s of system time for the 1,140
/// base tiles of NOAA 19350 as an RGBA GeoTIFF), and the reads take turns behind the window
/// reader's lock. pread moves no shared offset, so the threads read at once.
///
/// Taken only where the bytes are GDAL's own for the same window, so tiles do not change: a
/// GeoTIFF opened as it is (nothing prepared), uncompressed, pixel-interleaved, of exactly four
/// 8-bit bands read in their order (red, green, blue, alpha), in strips a whole row wide. Where
/// the strips lie comes from GDAL (its TIFF metadata: each strip's offset and size), each one
/// checked to hold its rows inside the file; and two rows read both ways at the start must
/// agree, else GDAL keeps reading (a layout this misreads, such as a colour space GDAL
/// converts, gives other bytes).
final class UncompressedStrips {
    private let descriptor: Int32
    private let path: String
    private let width: Int
    private let height: Int
    private let rowsPerStrip: Int
    /// The byte offset of each strip in the file.
    private let stripOffsets: [Int]

    private init(descriptor: Int32, path: String, width: Int, height: Int, rowsPerStrip: Int, stripOffsets: [Int]) {
        self.descriptor = descriptor
        self.path = path
        self.width = width
        self.height = height
        self.rowsPerStrip = rowsPerStrip
        self.stripOffsets = stripOffsets
    }

    deinit { close(descriptor) }

    /// The strips of `file` (at `path`), when its windows read with band map `bandMap` can be
    /// read from them as GDAL would; nil otherwise (GDAL reads them).
    static func open(_ file: GDALDataset, path: String, bandMap: [Int32]) -> UncompressedStrips? {
        let handle = file.handle
        guard file.driverName == "GTiff", file.bandCount == 4, bandMap == [1, 2, 3, 4],
              (1...4).allSatisfy({ GDALGetRasterDataType(file.band($0)) == GDT_Byte }),
              GDALGetMetadataItem(handle, "COMPRESSION", "IMAGE_STRUCTURE") == nil,
              GDALGetMetadataItem(handle, "INTERLEAVE", "IMAGE_STRUCTURE").map({ String(cString: $0) }) == "PIXEL",
              GDALGetMetadataItem(file.band(1), "NBITS", "IMAGE_STRUCTURE") == nil
        else { return nil }
        let width = file.width, height = file.height
        var blockWidth: Int32 = 0, blockHeight: Int32 = 0
        GDALGetBlockSize(file.band(1), &blockWidth, &blockHeight)
        guard width > 0, height > 0, Int(blockWidth) == width, blockHeight > 0 else { return nil }
        let rowsPerStrip = Int(blockHeight)
        // Bytes of a row, and of a strip: at most the file's size, checked below (a raster of
        // 2^31 × 2^31 pixels says it needs more than Int holds).
        let (rowBytes, rowOverflow) = width.multipliedReportingOverflow(by: 4)
        guard !rowOverflow, !rowBytes.multipliedReportingOverflow(by: rowsPerStrip).overflow else { return nil }

        let descriptor = Platform.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            return nil
        }
        let fileSize = Int(status.st_size)
        let strips = (height - 1) / rowsPerStrip + 1
        var offsets: [Int] = []
        offsets.reserveCapacity(strips)
        for strip in 0..<strips {
            let rows = min(rowsPerStrip, height - strip * rowsPerStrip)
            // Each strip holds its rows whole inside the file (a sparse file's missing strip,
            // offset 0, does not: GDAL fills it, and reads it).
            let needed = rowBytes * rows
            guard let offset = metadataInteger(file, "BLOCK_OFFSET_0_\(strip)"), let size = metadataInteger(file, "BLOCK_SIZE_0_\(strip)"),
                  offset > 0, size >= needed, needed <= fileSize, offset <= fileSize - needed
            else {
                close(descriptor)
                return nil
            }
            offsets.append(offset)
        }
        let reader = UncompressedStrips(descriptor: descriptor, path: path, width: width, height: height, rowsPerStrip: rowsPerStrip, stripOffsets: offsets)
        // The first and the last rows read both ways must be the same bytes.
        for row in Set([0, height - 1]) {
            var gdal = [UInt8](repeating: 0, count: rowBytes), own = gdal
            var bands = bandMap
            let read = GDALDatasetRasterIO(handle, GF_Read, 0, Int32(row), Int32(width), 1, &gdal, Int32(width), 1,
                                           GDT_Byte, 4, &bands, 4, Int32(rowBytes), 1)
            guard read == CE_None, (try? own.withUnsafeMutableBytes({ try reader.read(x: 0, y: row, width: width, height: 1, into: $0.baseAddress!) })) != nil,
                  own == gdal
            else { return nil }
        }
        return reader
    }

    /// A metadata item of the TIFF domain of the first band, as a non-negative integer.
    private static func metadataInteger(_ file: GDALDataset, _ name: String) -> Int? {
        GDALGetMetadataItem(file.band(1), name, "TIFF").flatMap { Int(String(cString: $0)) }.flatMap { $0 >= 0 ? $0 : nil }
    }

    /// Reads the window at (`x`, `y`) of `w` × `h` pixels (inside the raster), 4 bytes a pixel,
    /// row by row into `buffer`.
    /// - Throws: `MeridianError` (I/O) when the file gives fewer bytes than its strips hold
    ///   (it was cut short since it was opened) or cannot be read.
    func read(x: Int, y: Int, width w: Int, height h: Int, into buffer: UnsafeMutableRawPointer) throws {
        precondition(x >= 0 && y >= 0 && w > 0 && h > 0 && x + w <= width && y + h <= height)
        let rowBytes = w * 4
        for row in 0..<h {
            let line = y + row
            var offset = stripOffsets[line / rowsPerStrip] + ((line % rowsPerStrip) * width + x) * 4
            var target = buffer + row * rowBytes, left = rowBytes
            while left > 0 {
                let got = pread(descriptor, target, left, off_t(offset))
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else {
                    let reason = got < 0 ? String(cString: strerror(errno)) : "the file is shorter than its strips"
                    throw MeridianError(.io, "cannot read the raster: \(reason)", at: SourceLocation(file: path))
                }
                target += got
                offset += got
                left -= got
            }
        }
    }
}
