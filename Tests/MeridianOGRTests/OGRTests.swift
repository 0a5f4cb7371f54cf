import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
import Testing
@testable import MeridianOGR
import MeridianTestSupport


func countries() throws -> [Feature] {
    try FeatureList(reading: FeatureInput(path: fixtures.appendingPathComponent("geojson/ne_10m_countries_sample.geojson").path).reader).features
}

@Suite struct OGRRoundTrips {
    /// Writes through GDAL, reads back through GDAL: same features, same geometry bit for bit,
    /// properties typed as they were (within what each format stores).
    @Test(arguments: ["GPKG", "FlatGeobuf", "ESRI Shapefile", "GML"])
    func writesAndReadsBack(_ driverName: String) throws {
        let features = try countries()
        try withTemporaryFolderPath { folder in
            let driver = try OGRFormats.driver(named: driverName, path: nil)
            let ext = driver.extensions.first ?? "dat"
            let path = "\(folder)/countries.\(ext)"
            let writer = try OGRWriter(driver: driver, path: path)
            try copyFeatures(from: FeatureList(features), to: writer)
            #expect(!FileManager.default.fileExists(atPath: path), "nothing is visible before commit")
            try writer.commit()
            #expect(FileManager.default.fileExists(atPath: path))
            // Neither the staging folder (`.countries.EXT.meridian-XXXXXX`) nor the output's lock is left.
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).allSatisfy { !$0.hasPrefix(".") })

            // FlatGeobuf sorts features along a Hilbert curve for its index: match them by name.
            func byName(_ list: [Feature]) -> [Feature] {
                list.sorted { ($0.properties?["NAME"]?.stringValue ?? "") < ($1.properties?["NAME"]?.stringValue ?? "") }
            }
            let back = byName(try FeatureList(reading: OGRReader(path: path)).features)
            #expect(back.count == features.count)
            for (a, b) in zip(byName(features), back) {
                if driverName == "GML" {
                    // GDAL's GML writer prints 15 significant digits.
                    let x = coordinates(a.geometry), y = coordinates(b.geometry)
                    #expect(x.count == y.count && zip(x, y).allSatisfy { abs($0 - $1) < 1e-12 }, "GML: \(a.properties?["NAME"] ?? "?")")
                } else {
                    #expect(rings(a.geometry) == rings(b.geometry), "\(driverName): \(a.properties?["NAME"] ?? "?")")
                }
            }
            let first = byName(features)[0]
            if driverName != "ESRI Shapefile" {  // ten-character names and no 64-bit integers in .dbf
                #expect(back[0].properties?["NAME_LONG"] == first.properties?["NAME_LONG"])
                #expect(back[0].properties?["POP_EST"] == first.properties?["POP_EST"])
            }
        }
    }

    func coordinates(_ geometry: Geometry?) -> [Double] {
        var out: [Double] = []
        geometry?.forEachPosition { out += [$0.longitude, $0.latitude] }
        return out
    }

    func rings(_ geometry: Geometry?) -> [[UInt64]] {
        var out: [[UInt64]] = []
        geometry?.forEachPosition { out.append([$0.longitude.bitPattern, $0.latitude.bitPattern]) }
        return out
    }

    @Test func fieldsAreTyped() throws {
        let features = [
            Feature(geometry: .point(Point(Position(longitude: 1, latitude: 2))),
                    properties: ["n": .integer(1), "x": .integer(2), "ok": .bool(true), "tags": .array([.string("a")]), "s": .string("z")]),
            Feature(geometry: .point(Point(Position(longitude: 3, latitude: 4))),
                    properties: ["n": .integer(5), "x": .double(2.5), "ok": .bool(false), "tags": .null, "s": .integer(7)]),
        ]
        try withTemporaryFolderPath { folder in
            let path = "\(folder)/typed.gpkg"
            let writer = try OGRWriter(driver: try OGRFormats.driver(named: nil, path: path), path: path)
            try copyFeatures(from: FeatureList(features), to: writer)
            try writer.commit()
            let back = try FeatureList(reading: OGRReader(path: path)).features
            #expect(back[1].properties?["n"] == .integer(5))      // Integer64
            #expect(back[0].properties?["x"] == .double(2))        // integers and reals: Real
            #expect(back[1].properties?["ok"] == .bool(false))     // Boolean
            #expect(back[0].properties?["tags"] == .string("[\"a\"]"))  // JSON text
            #expect(back[1].properties?["tags"] == .null)
            #expect(back[1].properties?["s"] == .string("7"))     // mixed with text: String
        }
    }

    @Test func abandonLeavesNothing() throws {
        try withTemporaryFolderPath { folder in
            let path = "\(folder)/gone.gpkg"
            let writer = try OGRWriter(driver: try OGRFormats.driver(named: "gpkg", path: nil), path: path)
            try copyFeatures(from: FeatureList(try countries()), to: writer)
            writer.abandon()
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        }
    }

    @Test func knowsDriversByNameAndExtension() throws {
        #expect(try OGRFormats.driver(named: "shp", path: nil).name == "ESRI Shapefile")
        #expect(try OGRFormats.driver(named: nil, path: "/x/y.fgb").name == "FlatGeobuf")
        #expect(try OGRFormats.driver(named: nil, path: "/x/y.shp").name == "ESRI Shapefile")
        #expect(throws: OGRFormatError.unknownFormat(name: "nosuchformat")) { try OGRFormats.driver(named: "nosuchformat", path: nil) }
        // An extension several drivers declare names none of them.
        #expect(throws: OGRFormatError.formatNotImplied(path: "/x/y.xml")) { try OGRFormats.driver(named: nil, path: "/x/y.xml") }
        #expect(throws: OGRFormatError.unknownFormat(name: "xml")) { try OGRFormats.driver(named: "xml", path: nil) }
        // The library names no command-line flag; meridian-gdal words these for its options.
        for error in [OGRFormatError.unknownFormat(name: "xml"), .formatNotImplied(path: nil)] {
            #expect(!error.message.contains("--") && !(error.hint ?? "").contains("--"))
        }
        #expect(OGRFormats.writers(forExtension: "xml").map(\.name).contains("GML"))
        #expect(OGRFormats.drivers.filter(\.canWrite).count > 20)
    }

    /// Issue 13: names that differ only in case are renamed as ogr2ogr renames them, checked
    /// against every name taken so far.
    @Test func distinctNamesFollowOgr2ogr() {
        #expect(FieldSchema.distinctNames(["NAME", "name", "Name", "name2", "other"]) == ["NAME", "name2", "Name3", "name22", "other"])
        #expect(FieldSchema.distinctNames(["a", "b"]) == ["a", "b"])
        #expect(FieldSchema.sameName("Straße", "STRAßE") && !FieldSchema.sameName("é", "É"))  // ASCII case only, as GDAL and SQLite
    }

    /// Each renamed field is a warning, and every value lands in a field of its own.
    @Test(arguments: ["GPKG", "ESRI Shapefile"])
    func renamedFieldsAreReportedAndKeepTheirValues(_ driverName: String) throws {
        let feature = Feature(geometry: .point(Point(Position(longitude: 1, latitude: 2))),
                              properties: ["NAME": "A", "name": "a", "population_2020": 1, "population_2021": 2])
        try withTemporaryFolderPath { folder in
            let driver = try OGRFormats.driver(named: driverName, path: nil)
            let path = "\(folder)/names.\(driver.extensions.first ?? "dat")"
            var warnings: [Diagnostic] = []
            let writer = try OGRWriter(driver: driver, path: path, diagnostics: { warnings.append($0) })
            try copyFeatures(from: FeatureList([feature]), to: writer)
            try writer.commit()
            #expect(warnings.contains { $0.severity == .warning && $0.message.contains("\"name2\"") }, "\(warnings)")
            if driverName == "ESRI Shapefile" { #expect(warnings.count == 3, "\(warnings)") }
            let back = try FeatureList(reading: OGRReader(path: path)).features[0].properties ?? [:]
            #expect(back.count == 4, "\(back)")
            #expect(Set(back.values) == ["A", "a", .integer(1), .integer(2)], "\(back)")
        }
    }
}
