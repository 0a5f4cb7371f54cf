import CGDAL

/// A GDAL spatial reference (OGRSpatialReferenceH) that frees itself.
public final class SpatialReference {
    /// The C handle, for GDAL's functions; owned by this object and valid while it lives.
    public let handle: OGRSpatialReferenceH

    private init(_ handle: OGRSpatialReferenceH) {
        self.handle = handle
    }

    /// A spatial reference written as an `EPSG:n` code, WKT or a PROJ string
    /// (`CoordinateReferenceSystemText`), read by the matching OSR import; nil when the text is
    /// none of these or GDAL does not understand it.
    ///
    /// Never OSRSetFromUserInput: text that comes from inside a file would reach what that
    /// takes besides, URLs it fetches and file names it reads.
    public convenience init?(_ definition: String) {
        guard let text = CoordinateReferenceSystemText(definition) else { return nil }
        GDAL.setUp()
        self.init(OSRNewSpatialReference(nil))
        let imported: OGRErr
        switch text {
        case .epsg(let code): imported = OSRImportFromEPSG(handle, code)
        case .wkt(let wkt):
            // OSRImportFromWkt moves the pointer along the text; it writes nothing there.
            imported = wkt.withCString { start in
                var cursor: UnsafeMutablePointer<CChar>? = UnsafeMutablePointer(mutating: start)
                return OSRImportFromWkt(handle, &cursor)
            }
        case .proj(let proj): imported = OSRImportFromProj4(handle, proj)
        }
        guard imported == OGRERR_NONE else { return nil }
    }

    /// WGS 84 (EPSG:4326) with longitude first, as GeoJSON and WKB give coordinates, whatever
    /// the EPSG axis order says.
    public static func wgs84LongitudeLatitude() -> SpatialReference {
        GDAL.setUp()
        let reference = SpatialReference(OSRNewSpatialReference(nil))
        OSRImportFromEPSG(reference.handle, 4326)
        OSRSetAxisMappingStrategy(reference.handle, OAMS_TRADITIONAL_GIS_ORDER)
        return reference
    }

    deinit { OSRDestroySpatialReference(handle) }

    /// Its WKT, or nil when GDAL cannot write it.
    public var wkt: String? {
        var text: UnsafeMutablePointer<CChar>? = nil
        guard OSRExportToWkt(handle, &text) == OGRERR_NONE, let text else { return nil }
        defer { VSIFree(text) }
        return String(cString: text)
    }

    /// The WKT of `definition` (as `init(_:)` takes it), or nil.
    public static func wkt(_ definition: String) -> String? { SpatialReference(definition)?.wkt }
}

/// Text naming a coordinate reference system, as Meridian accepts it from inside a file (a
/// QGIS `.points` file's `#CRS:` line): an EPSG code, WKT or a PROJ string, recognised here
/// before GDAL sees it, so that nothing else such text could mean to GDAL (a URL, a file name,
/// a PROJ `+init` file or grid given by path) is ever fetched or read.
public enum CoordinateReferenceSystemText: Equatable, Sendable {
    /// `EPSG:4326`: the code.
    case epsg(Int32)
    /// WKT 1 or 2: `GEOGCS[…]`, `PROJCRS[…]`, ….
    case wkt(String)
    /// A PROJ string: `+proj=… +key=value …`, no value naming a file by path.
    case proj(String)

    /// What `text` is, or nil when it is none of the three.
    public init?(_ text: String) {
        var trimmed = Substring(text).drop { $0.isWhitespace }
        while trimmed.last?.isWhitespace == true { trimmed.removeLast() }
        let text = String(trimmed)
        if let code = Self.epsgCode(text) {
            self = .epsg(code)
        } else if Self.isWKT(text) {
            self = .wkt(text)
        } else if Self.isPROJ(text) {
            self = .proj(text)
        } else {
            return nil
        }
    }

    /// The code of `EPSG:n` (any case), when it is one.
    static func epsgCode(_ text: String) -> Int32? {
        guard text.count > 5, text.prefix(5).uppercased() == "EPSG:" else { return nil }
        let digits = text.dropFirst(5)
        guard digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int32(digits)
    }

    /// Whether `text` opens as WKT does: an upper-case keyword (GEOGCS, PROJCRS, COMPD_CS, …)
    /// and its bracket.
    static func isWKT(_ text: String) -> Bool {
        let keyword = text.prefix { $0.isASCII && ($0.isUppercase || $0.isNumber || $0 == "_") }
        guard keyword.count >= 4, keyword.first!.isLetter else { return false }
        let rest = text.dropFirst(keyword.count).drop { $0 == " " }
        return rest.first == "[" || rest.first == "("
    }

    /// Whether `text` is a PROJ string: `+key` or `+key=value` words, the first `+proj=`, where
    /// no value is a path or URL (PROJ would read `+init=/etc/passwd:x` or a `+nadgrids` file
    /// by path); grid and init names without a slash are looked up in PROJ's own data only.
    static func isPROJ(_ text: String) -> Bool {
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        guard let first = words.first, first.hasPrefix("+proj=") else { return false }
        return words.allSatisfy { word in
            guard word.hasPrefix("+"), word.count > 1 else { return false }
            let value = word.drop { $0 != "=" }.dropFirst()
            return !value.contains("/") && !value.contains("\\") && !value.contains(":")
        }
    }
}
