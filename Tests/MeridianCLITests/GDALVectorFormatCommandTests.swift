import Foundation
import Testing

/// GDAL's vector formats as a user meets them: a GeoPackage of features tiled as vector data,
/// and MapInfo files (which have no 64-bit integer fields) written from integer properties.
@Suite struct GDALVectorFormatCommandTests {
    static let features = """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","properties":{"name":"Santiago","rank":7,"population":5000000000},"geometry":{"type":"Point","coordinates":[-70.66,-33.45]}},
        {"type":"Feature","properties":{"name":"Suva","rank":2,"population":93970},"geometry":{"type":"Point","coordinates":[178.44,-18.14]}}
        ]}
        """

    /// A GeoPackage of features is vector data to `tile`: GDAL tells every GeoPackage as a
    /// raster format too, and the run took it for one ("GDAL cannot read this file as a
    /// raster", 65; with `--layer-name`, "this run makes tiles of rasters", 64). A GeoPackage
    /// holding a raster is still tiled as one.
    @Test func tileTakesAGeoPackageOfFeaturesAsVectorData() throws {
        try withTemporaryFolderPath { folder in
            try Self.features.write(toFile: "\(folder)/cities.geojson", atomically: true, encoding: .utf8)
            let converted = try meridian(["convert", "\(folder)/cities.geojson", "-o", "\(folder)/cities.gpkg"])
            try #require(converted.status == 0, "\(converted.stderr)")
            let tiled = try meridian(["tile", "\(folder)/cities.gpkg", "\(folder)/tiles", "--zoom", "0-2", "--layer-name", "cities", "-q"])
            #expect(tiled.status == 0, "\(tiled.stderr)")
            #expect(FileManager.default.fileExists(atPath: "\(folder)/tiles/0/0/0.pbf"))
            let metadata = (try? String(contentsOfFile: "\(folder)/tiles/metadata.json", encoding: .utf8)) ?? ""
            #expect(metadata.contains("\"cities\""), "\(metadata)")

            let raster = try run("gdal_translate", ["-q", "-of", "GPKG", fixture("raster/rgbsmall.tif"), "\(folder)/photo.gpkg"])
            try #require(raster.status == 0, "\(raster.stderr)")
            let rasterTiles = try meridian(["tile", "\(folder)/photo.gpkg", "\(folder)/photo", "-q"])
            #expect(rasterTiles.status == 0, "\(rasterTiles.stderr)")
            let pngs = FileManager.default.enumerator(atPath: "\(folder)/photo")?.compactMap { $0 as? String }.filter { $0.hasSuffix(".png") } ?? []
            #expect(!pngs.isEmpty)
        }
    }

    /// MapInfo's TAB and MIF files have 32-bit integer fields only: an integer property was
    /// asked for as a 64-bit field, which the driver refused, so no such file could be written
    /// from data with an integer (73, in GDAL's words). Integers that fit are written as 32-bit
    /// integers; a property holding a larger one as reals, with a warning naming it.
    @Test(arguments: ["tab", "mif"]) func mapInfoTakesIntegerProperties(ext: String) throws {
        try withTemporaryFolderPath { folder in
            try Self.features.write(toFile: "\(folder)/cities.geojson", atomically: true, encoding: .utf8)
            let written = try meridian(["convert", "\(folder)/cities.geojson", "-o", "\(folder)/cities.\(ext)"])
            #expect(written.status == 0, "\(written.stderr)")
            #expect(written.stderr.contains("\"population\""), "\(written.stderr)")
            #expect(!written.stderr.contains("\"rank\""), "\(written.stderr)")
            let readBack = try meridian(["convert", "\(folder)/cities.\(ext)", "-o", "-"])
            try #require(readBack.status == 0, "\(readBack.stderr)")
            let collection = try #require(try JSONSerialization.jsonObject(with: readBack.stdoutData) as? [String: Any])
            let properties = (collection["features"] as? [[String: Any]] ?? []).compactMap { $0["properties"] as? [String: Any] }
            #expect(properties.map { $0["rank"] as? Int } == [7, 2])
            #expect(properties.map { ($0["population"] as? NSNumber)?.doubleValue } == [5_000_000_000, 93970])
            // Typed as written: a 32-bit integer field and a real one.
            let rankIsInteger = readBack.stdout.contains("\"rank\":7,") || readBack.stdout.contains("\"rank\":7}")
            #expect(rankIsInteger, "\(readBack.stdout)")
        }
    }
}
