import Foundation
import MeridianFormats
import MeridianGeometry
import MeridianOGR
import MeridianTestSupport
import Testing

/// The code of the MeridianOGR catalog's article (WritingGDALFormats.md).
@Suite struct DocumentationExampleTests {
    @Test func writingAndReadingBackAGeoPackage() throws {
        try withTemporaryFolderPath { folder in
            let cities = [
                Feature(geometry: .point(Point(Position(longitude: 8.5417, latitude: 47.3769))),
                        properties: ["name": .string("Zürich"), "population": .integer(443_037)]),
                Feature(geometry: .point(Point(Position(longitude: 6.1432, latitude: 46.2044))),
                        properties: ["name": .string("Geneva"), "population": .integer(203_856)]),
            ]

            let path = folder + "/cities.gpkg"
            let driver = try OGRFormats.driver(named: nil, path: path)  // GPKG, from the extension
            let writer = try OGRWriter(driver: driver, path: path)
            try copyFeatures(from: FeatureList(cities), to: writer)
            try writer.commit()

            let back = try FeatureList(reading: OGRReader(path: path)).features
            #expect(driver.name == "GPKG")
            #expect(back.map { $0.properties?["name"]?.stringValue ?? "?" } == ["Zürich", "Geneva"])
            #expect(back[0].properties?["population"] == .integer(443_037))
            #expect(back[1].geometry == cities[1].geometry)

            let shapefile = try OGRFormats.driver(named: "shp", path: nil)
            #expect(shapefile.name == "ESRI Shapefile" && shapefile.canWrite)
        }
    }
}
