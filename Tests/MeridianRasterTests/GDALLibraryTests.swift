import Testing
@testable import MeridianRaster

@Suite struct GDALLibraryTests {
    @Test func linksGDAL36OrNewer() {
        #expect(GDALLibrary.versionNumber >= 3_060_000, "GDAL \(GDALLibrary.version)")
        #expect(GDALLibrary.version.hasPrefix("3."))
    }

    @Test func registersTheDriversTilingNeeds() {
        let names = Set(GDALLibrary.driverNames)
        for driver in ["GTiff", "BSB", "PNG", "JPEG", "MBTiles", "VRT"] {
            #expect(names.contains(driver), "GDAL has no \(driver) driver")
        }
    }
}
