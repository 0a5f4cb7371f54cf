import Foundation
import Testing

@Suite struct KMLCommandTests {
    static let ogrinfo = ["/usr/bin/ogrinfo", "/usr/local/bin/ogrinfo"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test func convertsKMLToGeoJSONWithFoldersAndStyles() throws {
        let run = try meridian(["convert", fixture("kml/togeojson/ground_overlay.kml"), "--to", "geojson"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\"folder\":\"Ground Overlays\""))
        #expect(run.stdout.contains("\"@geometry-type\":\"groundoverlay\""))

        let tree = try meridian(["convert", fixture("kml/togeojson/ground_overlay.kml"), "--folders", "tree"])
        #expect(tree.status == 0)
        #expect(tree.stdout.hasPrefix("{\"type\":\"root\",\"children\":["))
        #expect(try meridian(["convert", fixture("kml/togeojson/ground_overlay.kml"), "--folders", "tree", "--to", "kml"]).status == 64)
    }

    @Test func infoShowsFoldersAndStyles() throws {
        let run = try meridian(["info", fixture("kml/togeojson/styles.kml"), "--format", "json"])
        #expect(run.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: run.stdoutData) as? [String: Any])
        #expect(report["format"] as? String == "kml")
        #expect((report["folders"] as? Int ?? 0) >= 1)
        #expect((report["styles"] as? Int ?? 0) >= 3)
    }

    @Test func warnsWithFileAndLine() throws {
        let run = try meridian(["convert", fixture("kml/encodings/sloppy.kml")])
        #expect(run.status == 0)
        #expect(run.stderr.contains("meridian: warning: \(fixture("kml/encodings/sloppy.kml")):3: element <placemark> read as <Placemark>"))
        #expect(try meridian(["convert", fixture("kml/encodings/sloppy.kml"), "--quiet"]).stderr.isEmpty)
    }

    @Test func malformedKMLExits65WithLineAndColumn() throws {
        let run = try meridian(["convert", "--from", "kml"], stdin: Data("<kml>\n<Document>\n<Placemark></Document>".utf8))
        #expect(run.status == 65)
        #expect(run.stderr.hasPrefix("meridian: error: <stdin>:3:"))
    }

    /// GDAL reads the KML and KMZ Meridian writes, with every feature.
    @Test(.enabled(if: ogrinfo != nil), arguments: ["kml", "kmz"])
    func ogrinfoReadsWhatMeridianWrites(_ format: String) throws {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("countries.\(format)").path
            #expect(try meridian(["convert", fixture("geojson/ne_10m_countries_sample.geojson"), "-o", path]).status == 0)
            let info = try run(Self.ogrinfo!, ["-so", "-al", path])
            #expect(info.status == 0)
            #expect(info.stdout.contains("Feature Count: 31"), "\(info.stdout.prefix(500))")
        }
    }
}
