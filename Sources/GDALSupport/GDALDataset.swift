import CGDAL

/// A GDAL dataset that closes itself (GDALClose) when the last reference to it goes, or
/// earlier with `close()` where the closing does work whose errors matter (a writer's flush).
///
/// A dataset made from another (a VRT that gdal_translate makes of a file) keeps that one
/// open as long as it lives, and is closed before it.
public final class GDALDataset {
    private var openHandle: GDALDatasetH?
    /// The dataset this one reads from, kept open while this one is.
    private let source: GDALDataset?

    /// What kind of data a dataset is opened for.
    public enum Content {
        case raster, vector

        var openFlag: Int32 { self == .raster ? GDAL_OF_RASTER : GDAL_OF_VECTOR }
    }

    /// Takes ownership of `handle`; `source` is the dataset it reads from, if any.
    public init(_ handle: GDALDatasetH, readingFrom source: GDALDataset? = nil) {
        openHandle = handle
        self.source = source
    }

    /// Opens `path` read-only for `content`, trying only `drivers` when given; nil when GDAL
    /// cannot. With `explainingFailure`, GDAL records why it could not open a file that is
    /// there (`GDAL.lastError`: "not recognized as a supported file format"), as GDALOpen does.
    public convenience init?(opening path: String, for content: Content, drivers: [String] = [], explainingFailure: Bool = false) {
        GDAL.setUp()
        let flags = content.openFlag | GDAL_OF_READONLY | (explainingFailure ? GDAL_OF_VERBOSE_ERROR : 0)
        let openOptions = Self.openOptions(for: path, flags: flags, drivers: drivers)
        let handle = GDAL.withStringList(drivers) { list in
            GDAL.withStringList(openOptions) { options in
                GDALOpenEx(path, UInt32(flags), list.map { UnsafePointer(OpaquePointer($0)) }, options.map { UnsafePointer(OpaquePointer($0)) }, nil)
            }
        }
        guard let handle else { return nil }
        self.init(handle)
    }

    /// The open options reading `path` takes: for GML, `WRITE_GFS=NO`. GDAL's GML driver
    /// otherwise writes a `.gfs` schema beside what it reads, into the input's folder, and
    /// replaces one there that is older than the GML file: a file Meridian did not make.
    /// (Given only to the driver that reads the file: others warn about options they lack.)
    static func openOptions(for path: String, flags: Int32, drivers: [String]) -> [String] {
        guard flags & GDAL_OF_VECTOR != 0 else { return [] }
        let driver = GDAL.withStringList(drivers) { list in
            GDALIdentifyDriverEx(path, UInt32(GDAL_OF_VECTOR), list.map { UnsafePointer(OpaquePointer($0)) }, nil)
        }
        guard let driver, String(cString: GDALGetDriverShortName(driver)) == "GML" else { return [] }
        return ["WRITE_GFS=NO"]
    }

    /// A new in-memory raster (GDAL's MEM driver) of 8-bit bands.
    public static func memoryRaster(width: Int, height: Int, bands: Int) -> GDALDataset? {
        GDAL.setUp()
        return GDALCreate(GDALGetDriverByName("MEM"), "", Int32(width), Int32(height), Int32(bands), GDT_Byte, nil).map { GDALDataset($0) }
    }

    deinit { close() }

    /// The C handle, for GDAL's functions. Only valid until `close()`.
    public var handle: GDALDatasetH {
        guard let openHandle else { preconditionFailure("a GDAL dataset used after close()") }
        return openHandle
    }

    /// Closes the dataset now (writing what a writable one holds); later calls do nothing.
    public func close() {
        guard let openHandle else { return }
        GDALClose(openHandle)
        self.openHandle = nil
    }

    /// The driver's short name ("GTiff", "BSB").
    public var driverName: String { String(cString: GDALGetDriverShortName(GDALGetDatasetDriver(handle))) }
    /// The raster's width in pixels (0 for a vector dataset).
    public var width: Int { Int(GDALGetRasterXSize(handle)) }
    /// The raster's height in pixels (0 for a vector dataset).
    public var height: Int { Int(GDALGetRasterYSize(handle)) }
    /// The number of raster bands (0 for a vector dataset).
    public var bandCount: Int { Int(GDALGetRasterCount(handle)) }

    /// The files GDAL reads for the dataset (GDALGetFileList): the file itself, its sidecars,
    /// and any other a label or a VRT names.
    public var files: [String] {
        guard let list = GDALGetFileList(handle) else { return [] }
        defer { CSLDestroy(list) }
        var files: [String] = []
        var index = 0
        while let file = list[index] {
            files.append(String(cString: file))
            index += 1
        }
        return files
    }

    /// Band `index`, 1-based.
    public func band(_ index: Int) -> GDALRasterBandH? { GDALGetRasterBand(handle, Int32(index)) }
}
