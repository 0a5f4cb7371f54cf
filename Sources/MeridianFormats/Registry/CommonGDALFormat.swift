/// A common GDAL vector format that Meridian picks by a file's extension alone.
///
/// Only these: an extension that some other GDAL driver also claims, or that names an unusual
/// one, is not guessed. `-o out.xml` used to write NASA's PDS4 (the first of GDAL's drivers
/// declaring .xml, before GML, NAS, Interlis 2 and LV BAG) plus a folder of its tables;
/// `.pdf`, `.mbtiles`, `.json`, `.txt` and `.db` are as ambiguous. For any of those, `--to`
/// names the driver. An input of another extension is not guessed either: GDAL recognises it
/// by its content.
public struct CommonGDALFormat: Sendable, Hashable {
    /// GDAL's short name for the driver ("ESRI Shapefile").
    public let driver: String
    /// Extensions, lowercase, without the dot; the first is the one to suggest.
    public let extensions: [String]
    /// Other names accepted by `--from` and `--to`, besides the driver's and the extensions.
    public let aliases: [String]

    /// The allow-list. `.gdb` means Esri's File Geodatabase (GPSBabel's Garmin .gdb is rare).
    public static let all: [CommonGDALFormat] = [
        CommonGDALFormat(driver: "GPKG", extensions: ["gpkg"], aliases: ["geopackage"]),
        CommonGDALFormat(driver: "ESRI Shapefile", extensions: ["shp"], aliases: ["shapefile"]),
        CommonGDALFormat(driver: "FlatGeobuf", extensions: ["fgb"], aliases: []),
        CommonGDALFormat(driver: "GML", extensions: ["gml"], aliases: []),
        CommonGDALFormat(driver: "OpenFileGDB", extensions: ["gdb"], aliases: ["filegdb"]),
        CommonGDALFormat(driver: "DXF", extensions: ["dxf"], aliases: []),
        CommonGDALFormat(driver: "MapInfo File", extensions: ["tab", "mif"], aliases: ["mapinfo"]),
        CommonGDALFormat(driver: "SQLite", extensions: ["sqlite"], aliases: ["spatialite"]),
    ]

    /// The format a name means: its driver's name, an extension or an alias, in any case.
    public static func named(_ name: String) -> CommonGDALFormat? {
        let wanted = name.lowercased()
        return all.first { $0.driver.lowercased() == wanted || $0.extensions.contains(wanted) || $0.aliases.contains(wanted) }
    }

    /// The format a path's extension means, if it is one of the list's.
    public static func forPath(_ path: String) -> CommonGDALFormat? {
        guard let ext = fileExtension(path) else { return nil }
        return all.first { $0.extensions.contains(ext) }
    }

    /// Every name `named(_:)` accepts, for suggestions.
    public static var names: [String] { all.flatMap { [$0.driver] + $0.extensions + $0.aliases } }

    /// ".gpkg .shp .fgb …", for messages and help.
    public static var extensionList: String { all.flatMap(\.extensions).map { "." + $0 }.joined(separator: " ") }
}
