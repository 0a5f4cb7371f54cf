import CGDAL

/// The GDAL library under the raster module: the one place Meridian talks to GDAL rasters.
///
/// Kept out of the `meridian` executable until a subcommand needs it: linking libgdal makes
/// every process load about 120 shared libraries, which costs about 90 ms of start-up and
/// 35 MB of resident memory even for `meridian --version` (measured on GDAL 3.6.2, Debian 12).
public enum GDALLibrary {
    /// GDAL's release name, e.g. "3.6.2".
    public static var version: String { String(cString: GDALVersionInfo("RELEASE_NAME")) }

    /// GDAL's version as a number, e.g. 3060200 for 3.6.2.
    public static var versionNumber: Int { Int(String(cString: GDALVersionInfo("VERSION_NUM"))) ?? 0 }

    /// Registers every raster and vector driver once per process.
    public static func registerDrivers() {
        GDALAllRegister()
    }

    /// The number of drivers registered.
    public static var driverCount: Int { Int(GDALGetDriverCount()) }

    /// The short names of the registered drivers, e.g. "GTiff", "BSB", "MBTiles".
    public static var driverNames: [String] {
        registerDrivers()
        return (0..<GDALGetDriverCount()).compactMap { index in
            GDALGetDriver(index).flatMap { GDALGetDriverShortName($0) }.map { String(cString: $0) }
        }
    }
}
