import CGDAL
import MeridianFormats

/// GDAL's C API as MeridianRaster and MeridianOGR use it: registration, the version, errors,
/// string lists. Datasets (`GDALDataset`), spatial references (`SpatialReference`) and GDAL's
/// messages (`GDALMessages`) have their own types.
///
/// Kept out of the `meridian` executable: linking libgdal makes every process load about 120
/// shared libraries, which costs about 90 ms of start-up and 35 MB of resident memory even for
/// `meridian --version` (measured on GDAL 3.6.2, Debian 12). Only `meridian-gdal` links it.
public enum GDAL {
    /// The block cache's size until a caller sets another (`setBlockCacheSize`): enough for
    /// the source rows under a block of tiles per tiling thread.
    public static let defaultBlockCacheMegabytes = 64

    /// Registers every driver, once per process, and keeps GDAL's own messages off standard
    /// error: they come back in Meridian's error messages (`lastError`) or, while a
    /// `GDALMessages` captures them, as Meridian's warnings. Every entry point that opens,
    /// creates or lists through GDAL calls this first.
    public static func setUp() {
        _ = registration
    }

    private static let registration: Void = {
        GDALAllRegister()
        CPLSetErrorHandler(CPLQuietErrorHandler)
        GDALSetCacheMax64(Int64(defaultBlockCacheMegabytes) * 1024 * 1024)
    }()

    /// Sets the size of GDAL's block cache, which every thread of the process shares. Call it
    /// only while no thread is using GDAL (before a run starts its workers).
    public static func setBlockCacheSize(megabytes: Int) {
        setUp()
        GDALSetCacheMax64(Int64(megabytes) * 1024 * 1024)
    }

    /// GDAL's release name, e.g. "3.6.2".
    public static var version: String { String(cString: GDALVersionInfo("RELEASE_NAME")) }

    /// GDAL's version as a number, e.g. 3060200 for 3.6.2.
    public static var versionNumber: Int { Int(String(cString: GDALVersionInfo("VERSION_NUM"))) ?? 0 }

    /// The short names of the registered drivers, e.g. "GTiff", "BSB", "MBTiles".
    public static var driverNames: [String] {
        drivers.map { String(cString: GDALGetDriverShortName($0)) }
    }

    /// Every registered driver.
    public static var drivers: [GDALDriverH] {
        setUp()
        return (0..<GDALGetDriverCount()).compactMap { GDALGetDriver($0) }
    }

    /// The last error GDAL recorded on this thread, if any.
    public static var lastError: String? {
        guard let text = CPLGetLastErrorMsg(), text.pointee != 0 else { return nil }
        return String(cString: text)
    }

    /// Whether the last error GDAL recorded on this thread was a failure (not a warning).
    public static var lastErrorIsFailure: Bool {
        CPLGetLastErrorType() == CE_Failure || CPLGetLastErrorType() == CE_Fatal
    }

    /// A NULL-terminated string list GDAL can take, freed with `CSLDestroy` (nil when empty).
    public static func stringList(_ strings: [String]) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil
        for s in strings { list = CSLAddString(list, s) }
        return list
    }

    /// Calls `body` with a string list that is freed afterwards.
    public static func withStringList<T>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) throws -> T) rethrows -> T {
        let list = stringList(strings)
        defer { CSLDestroy(list) }
        return try body(list)
    }
}

extension MeridianError {
    /// An error about `path`, with GDAL's own reason after `message` when it gave one.
    public static func gdal(_ kind: Kind, _ message: String, path: String, hint: String? = nil) -> MeridianError {
        var text = message
        if let reason = GDAL.lastError, !reason.isEmpty { text += ": \(reason)" }
        return MeridianError(kind, text, at: SourceLocation(file: path), hint: hint)
    }
}
