import CGDAL
import MeridianCore
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
        CPLSetErrorHandler(CPLQuietErrorHandler)
        keepOffTheNetwork()
        // A VRT's pixel function may be Python code written in the file, which GDAL runs when
        // this is YES in the environment: a file from elsewhere runs nothing.
        CPLSetConfigOption("GDAL_VRT_ENABLE_PYTHON", "NO")
        SQLiteConnectionRules.install()
        GDALAllRegister()
        for name in networkDrivers {
            guard let driver = GDALGetDriverByName(name) else { continue }
            GDALDeregisterDriver(driver)
            GDALDestroyDriver(driver)
        }
        GDALSetCacheMax64(Int64(defaultBlockCacheMegabytes) * 1024 * 1024)
    }()

    /// GDAL's drivers that exist to reach a server (given a URL or a `WMS:`-style name), or a
    /// database server through its own client library (`PG:host=…`, which no HTTP setting
    /// stops: a VRT naming one connected to it), or that run another program (GPSBabel runs
    /// `gpsbabel`); they are deregistered as soon as GDAL registers them.
    static let networkDrivers = ["HTTP", "WMS", "WMTS", "WCS", "WFS", "OAPIF", "OGCAPI", "STACTA", "STACIT", "EEDAI", "EEDA",
                                 "DAAS", "PLMOSAIC", "PLSCENES", "NGW", "ESRIC", "CSW", "Elasticsearch", "Carto", "AmigoCloud",
                                 "GNMDatabase", "PostgreSQL", "PostGISRaster", "MySQL", "MSSQLSpatial", "ODBC", "PGeo", "OCI",
                                 "GeoRaster", "HANA", "MongoDBv3", "DODS", "Ingres", "CouchDB", "Cloudant", "GPSBabel"]

    /// Switches off what GDAL can fetch over a network, for the whole process, before any driver
    /// is registered: the README promises nothing external is ever fetched, and a raster or
    /// VRT from elsewhere can name `/vsicurl/` sources or a server. (`setUp` deregisters the
    /// network drivers after this.) Every request through CPLHTTPFetch (the drivers that read a URL
    /// they are given, GeoJSON's among them) is answered by a callback with an error, never
    /// sent; /vsicurl/ and the cloud file systems built on it (/vsis3/, /vsigs/, /vsiaz/, …)
    /// treat every file as absent without a request, because none ends in the one extension
    /// they are allowed (CPL_VSIL_CURL_ALLOWED_EXTENSIONS, checked before each HEAD or GET);
    /// PROJ downloads no grids. (Checked on GDAL 3.6.2 with a listener on 127.0.0.1: the
    /// NothingExternalTests.)
    static func keepOffTheNetwork() {
        CPLSetConfigOption("CPL_VSIL_CURL_ALLOWED_EXTENSIONS", ".meridian-never-fetched")
        CPLHTTPSetFetchCallback({ _, _, _, _, _, _, _ in
            let refusal = CPLCalloc(1, MemoryLayout<CPLHTTPResult>.size).assumingMemoryBound(to: CPLHTTPResult.self)
            refusal.pointee.nStatus = 1
            refusal.pointee.pszErrBuf = CPLStrdup("Meridian fetches nothing over a network")
            return refusal
        }, nil)
        OSRSetPROJEnableNetwork(0)
    }

    /// Whether `path` names one of GDAL's virtual file systems (`/vsicurl/`, `/vsicurl?`,
    /// `/vsis3/`, `/vsizip/`, `/vsimem/`, …) in any spelling: any case, percent-escaped any
    /// number of times, with backslashes or doubled slashes, anywhere in the path. Paths that come
    /// from inside a file (a GroundOverlay's href, a list of inputs) must not, since through
    /// them GDAL reaches the network, other archives and memory.
    public static func namesVirtualFileSystem(_ path: String) -> Bool {
        var text = Array(path.utf8)
        // Undo percent-escapes until none is left (bounded: each round shortens the text).
        for _ in 0..<16 {
            let decoded = percentDecoded(text)
            if decoded == text { break }
            text = decoded
        }
        let lowered = String(decoding: text, as: UTF8.self).lowercased()
        return lowered.split { $0 == "/" || $0 == "\\" }.contains { component in
            guard component.hasPrefix("vsi") else { return false }
            let name = component.dropFirst(3).prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
            let after = component.dropFirst(3 + name.count).first
            return after == nil || after == "?" || after == "{"
        }
    }

    /// `bytes` with each `%XX` replaced by its byte.
    static func percentDecoded(_ bytes: [UInt8]) -> [UInt8] {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let byte = WKB.bytes(fromHex: bytes[(i + 1)...(i + 2)])?.first {
                decoded.append(byte)
                i += 3
            } else {
                decoded.append(bytes[i])
                i += 1
            }
        }
        return decoded
    }

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
