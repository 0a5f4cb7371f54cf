import Foundation
import MeridianCore
import Testing
import MeridianGeometry
@testable import MeridianFormats

/// Every KML and KMZ file in the conformance sets of ../shared (GDAL's autotest, the OGC KML 2.2
/// test suite, giscore's sloppy real-world files) either converts or is refused as bad input
/// with a line and column: no crash, no hang, no other kind of error.
@Suite struct KMLConformanceTests {
    static let folders = ["kml/gdal-autotest", "kml/ogc-ets-kml22", "kml/giscore"].map {
        sharedFixtures.appendingPathComponent($0).path
    }
    static var files: [String] {
        folders.flatMap { folder -> [String] in
            let walker = FileManager.default.enumerator(atPath: folder)
            return (walker?.allObjects as? [String] ?? [])
                .filter { $0.lowercased().hasSuffix(".kml") || $0.lowercased().hasSuffix(".kmz") }
                .map { "\(folder)/\($0)" }
        }.sorted()
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: folders[0])), .timeLimit(.minutes(10)))
    func everyFileConvertsOrIsRefusedWithALocation() throws {
        let files = Self.files
        #expect(files.count > 200)
        var converted = 0, refused = 0
        for path in files {
            do {
                let (features, _, _) = try readKML(path)
                _ = try write(ReadResult(features: features, metadata: .init(), trailing: .init(), warnings: []))
                converted += 1
            } catch let error as MeridianError {
                #expect(error.kind == .badInput, "\(path): \(error)")
                #expect(error.location?.line != nil || path.lowercased().hasSuffix(".kmz"), "\(path): \(error) has no line")
                refused += 1
            }
        }
        #expect(converted > refused)
    }

    @Test(.enabled(if: sharedFixtureExists("kml/large/airspaces_global.kmz")),
          .timeLimit(.minutes(10)))
    func airspacesConvertInFull() throws {
        let (features, reader, _) = try readKML(sharedFixture("kml/large/airspaces_global.kmz"))
        #expect(features.count == 27_196)
        #expect(reader.statistics.folders == 4_859)
        #expect(features.allSatisfy { $0.properties?["folder"]?.stringValue?.isEmpty == false })
        #expect(features.filter { $0.properties?["fill"] != nil }.count > 27_000)
    }
}
