import CGDAL
import Foundation
import MeridianFormats

/// Small helpers around GDAL's C API: error text, string lists, thread-quiet error handling.
enum GDAL {
    /// Registers drivers once and keeps GDAL's own messages off stderr (they come back through
    /// `lastError` in Meridian's error messages).
    static let setUp: Void = {
        GDALAllRegister()
        CPLSetErrorHandler(CPLQuietErrorHandler)
        // GDAL's block cache, shared by all threads: enough for the source rows under a block
        // of tiles per thread (MERIDIAN_GDAL_CACHE_MB overrides; for measurements).
        let megabytes = getenv("MERIDIAN_GDAL_CACHE_MB").flatMap { Int64(String(cString: $0)) } ?? 64
        GDALSetCacheMax64(megabytes * 1024 * 1024)
    }()

    /// The last error GDAL recorded on this thread, if any.
    static var lastError: String? {
        guard let text = CPLGetLastErrorMsg(), text.pointee != 0 else { return nil }
        return String(cString: text)
    }

    /// A NULL-terminated string list GDAL can take (freed with `CSLDestroy`).
    static func stringList(_ strings: [String]) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil
        for s in strings { list = CSLAddString(list, s) }
        return list
    }

    /// Calls `body` with a string list that is freed afterwards.
    static func withStringList<T>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) throws -> T) rethrows -> T {
        let list = stringList(strings)
        defer { CSLDestroy(list) }
        return try body(list)
    }

    /// The WKT of a spatial reference given as anything OSRSetFromUserInput takes.
    static func wkt(_ definition: String) -> String? {
        let srs = OSRNewSpatialReference(nil)
        defer { OSRDestroySpatialReference(srs) }
        guard OSRSetFromUserInput(srs, definition) == OGRERR_NONE else { return nil }
        var text: UnsafeMutablePointer<CChar>? = nil
        guard OSRExportToWkt(srs, &text) == OGRERR_NONE, let text else { return nil }
        defer { VSIFree(text) }
        return String(cString: text)
    }

    static let webMercatorWKT = wkt("EPSG:3857")!
    /// WGS 84 in longitude, latitude order, whatever the EPSG axis order says.
    static let lonLatWKT = wkt("+proj=longlat +datum=WGS84 +no_defs")!
}

extension MeridianError {
    /// An error about `path`, with GDAL's own reason when it gave one.
    static func raster(_ kind: Kind, _ message: String, path: String, hint: String? = nil) -> MeridianError {
        var text = message
        if let reason = GDAL.lastError, !reason.isEmpty { text += ": \(reason)" }
        return MeridianError(kind, text, at: SourceLocation(file: path), hint: hint)
    }
}
