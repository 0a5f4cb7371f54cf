import CGDAL
import GDALSupport
import MeridianCore
import MeridianFormats

/// GDAL/OGR's vector drivers, for the formats Meridian does not write itself (GeoPackage,
/// Shapefile, FlatGeobuf, GML, …): what the installed GDAL offers, and the driver a name or
/// a file extension means.
public enum OGRFormats {
    /// One of the installed GDAL's vector drivers, as ``OGRFormats/drivers`` lists it.
    public struct Driver: Sendable, Hashable {
        /// GDAL's short name ("GPKG", "ESRI Shapefile").
        public var name: String
        /// GDAL's long name ("GeoPackage", "ESRI Shapefile"), for people.
        public var longName: String
        /// Extensions GDAL declares, lowercase ("gpkg"; "shp dbf" → ["shp", "dbf"]).
        public var extensions: [String]
        /// Whether the driver creates files (``OGRWriter`` needs one that does); otherwise it only reads.
        public var canWrite: Bool
    }

    /// Every vector driver of the installed GDAL.
    public static var drivers: [Driver] {
        GDAL.drivers.compactMap { driver in
            guard metadata(driver, GDAL_DCAP_VECTOR) == "YES" else { return nil }
            let name = String(cString: GDALGetDriverShortName(driver))
            let extensions = (metadata(driver, GDAL_DMD_EXTENSIONS) ?? metadata(driver, GDAL_DMD_EXTENSION) ?? "")
                .lowercased().split(separator: " ").map(String.init)
            let canWrite = metadata(driver, GDAL_DCAP_CREATE) == "YES"
            return Driver(name: name, longName: String(cString: GDALGetDriverLongName(driver)), extensions: extensions, canWrite: canWrite)
        }
    }

    static func metadata(_ driver: GDALDriverH, _ key: String) -> String? {
        GDALGetMetadataItem(driver, key, nil).map { String(cString: $0) }
    }

    /// The driver called `name` (its short name in any case, or one of `CommonGDALFormat`'s
    /// names such as "shp"), or for `path` the common format its extension means. Never the
    /// first driver that happens to declare an extension: "xml" is PDS4's, GML's and others'.
    public static func driver(named name: String?, path: String?) throws -> Driver {
        let all = drivers
        if let name {
            let wanted = (CommonGDALFormat.named(name)?.driver ?? name).lowercased()
            if let driver = all.first(where: { $0.name.lowercased() == wanted }) { return driver }
            throw OGRFormatError.unknownFormat(name: name)
        }
        if let path, let common = CommonGDALFormat.forPath(path), let driver = all.first(where: { $0.name == common.driver }) {
            return driver
        }
        throw OGRFormatError.formatNotImplied(path: path)
    }

    /// The drivers that write files with this extension (for a hint when it is not a common one).
    public static func writers(forExtension ext: String) -> [Driver] {
        drivers.filter { $0.canWrite && $0.extensions.contains(ext.lowercased()) }
    }
}

/// Why no GDAL driver was found for a format (`OGRFormats.driver(named:path:)`).
public enum OGRFormatError: MeridianFailure, Equatable {
    /// `name` is neither a driver's short name nor a common format's name.
    case unknownFormat(name: String)
    /// No name was given, and the path's extension is not a common format's (or there is no path).
    case formatNotImplied(path: String?)

    /// Always a usage error: the format asked for (or implied) is wrong.
    public var kind: MeridianError.Kind { .usage }
    /// Always nil: the error is about the command, not a place in a file.
    public var location: SourceLocation? { nil }

    /// What is wrong, naming the format or path.
    public var message: String {
        switch self {
        case .unknownFormat(let name): "unknown format \"\(name)\""
        case .formatNotImplied(let path): "cannot tell the format of \"\(path ?? "the output")\""
        }
    }

    /// How to name a format that works.
    public var hint: String? {
        switch self {
        case .unknownFormat: "GDAL \(GDAL.version) has no vector driver of that name (OGRFormats.drivers lists them)"
        case .formatNotImplied: "name the format: a GDAL driver's short name, or a common one such as gpkg"
        }
    }
}
