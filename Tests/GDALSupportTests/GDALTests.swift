import Testing
import GDALSupport

@Suite struct GDALTests {
    @Test func linksGDAL36OrNewer() {
        #expect(GDAL.versionNumber >= 3_060_000, "GDAL \(GDAL.version)")
        #expect(GDAL.version.hasPrefix("3."))
    }

    @Test func registersTheDriversTilingNeeds() {
        let names = Set(GDAL.driverNames)
        for driver in ["GTiff", "BSB", "PNG", "JPEG", "MBTiles", "VRT"] {
            #expect(names.contains(driver), "GDAL has no \(driver) driver")
        }
    }
}
