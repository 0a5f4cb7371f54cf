import Foundation
import MeridianCore
import Testing
import MeridianFormats
import MeridianGeometry
@testable import MeridianCoverage
import MeridianTestSupport

/// Natural Earth's countries in ../shared/fixtures (developer machines and CI).
let sharedCountries = sharedFixtures.appendingPathComponent("vector/ne_10m_countries.geojson.xz")

/// Every feature of a GeoJSON file.
func features(at path: String) throws -> [Feature] {
    let input = try FeatureInput(path: path)
    var out: [Feature] = []
    while let feature = try input.reader.next() { out.append(feature) }
    return out
}

/// `make` for one country: the result passes `validate --strict` and covers every vertex.
func expectGoodCoverage(for feature: Feature, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
    let name = feature.properties?["NAME"]?.stringValue ?? "?"
    var parts: [[Position]] = []
    switch feature.geometry {
    case .polygon(let p)?: parts = [p.rings[0]]
    case .multiPolygon(let m)?: parts = m.polygons.map { $0.rings[0] }
    default: return
    }
    let result = try CoverageMaker().make(parts: parts)
    let sink = OutputSink(collectingAs: "coverage.geojson")
    try writeGeoJSONGeometry(.multiPolygon(result.coverage), to: sink, options: WriteOptions(precision: 6))
    let report = CoverageValidator().validate(bytes: Array(sink.collectedText().utf8), name: "\(name).geojson")
    #expect(report.issues.isEmpty, "\(name): \(report.text(colour: false))", sourceLocation: sourceLocation)
    let area = CoverageArea(polygons: result.coverage.polygons.map { $0.rings[0] })
    var uncovered = 0
    feature.geometry?.forEachPosition { if area.polygons(covering: $0).isEmpty { uncovered += 1 } }
    #expect(uncovered == 0, "\(name): \(uncovered) vertices outside the coverage", sourceLocation: sourceLocation)
}

@Suite struct CoverageMakerTests {
    @Test func everySampleCountryIsCoveredWithAValidFile() throws {
        let countries = try features(at: fixture("geojson/ne_10m_countries_sample.geojson"))
        #expect(countries.count == 31)
        for country in countries { try expectGoodCoverage(for: country) }
    }

    /// The acceptance set: at least 20 countries, among them many-island ones, ones across the
    /// antimeridian and one with a hole (South Africa around Lesotho).
    @Test(.enabled(if: FileManager.default.fileExists(atPath: sharedCountries.path)), .timeLimit(.minutes(10)))
    func naturalEarthCountries() throws {
        let names: Set<String> = ["Indonesia", "Canada", "Greece", "Fiji", "Russia", "South Africa", "Philippines", "Japan",
                                  "Norway", "Chile", "New Zealand", "France", "Italy", "Croatia", "Denmark", "United Kingdom",
                                  "Malaysia", "Papua New Guinea", "Kiribati", "Bahamas", "Maldives", "Brazil", "Australia"]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ne-\(UUID()).geojson").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let xz = Process()
        xz.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        xz.arguments = ["xz", "-dc", sharedCountries.path]
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        xz.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try xz.run()
        xz.waitUntilExit()
        let chosen = try features(at: path).filter { names.contains($0.properties?["NAME"]?.stringValue ?? "") }
        #expect(chosen.count == names.count)
        for country in chosen { try expectGoodCoverage(for: country) }
    }

    @Test func aBoxAcrossTheAntimeridianIsCut() throws {
        let result = try CoverageMaker().make(covering: BoundingBox(west: 170, south: -20, east: -170, north: -10))
        #expect(result.coverage.polygons.count == 2)
        let area = CoverageArea(polygons: result.coverage.polygons.map { $0.rings[0] })
        #expect(!area.polygons(covering: Position(longitude: 180, latitude: -15)).isEmpty)
        #expect(!area.polygons(covering: Position(longitude: -175, latitude: -15)).isEmpty)
        #expect(area.polygons(covering: Position(longitude: 0, latitude: -15)).isEmpty)
    }

    @Test func pointsWithABufferBecomeCircles() throws {
        let maker = CoverageMaker()
        let center = Position(longitude: 8.54, latitude: 47.37)
        let result = try maker.make(parts: [maker.circle(center, 5)])
        let area = CoverageArea(polygons: result.coverage.polygons.map { $0.rings[0] })
        // 4.9 km north and east are covered; 6 km is not.
        #expect(!area.polygons(covering: Position(longitude: 8.54, latitude: 47.37 + 4.9 / 111.2)).isEmpty)
        #expect(!area.polygons(covering: Position(longitude: 8.54 + 4.9 / (111.2 * cos(47.37 * .pi / 180)), latitude: 47.37)).isEmpty)
        #expect(area.polygons(covering: Position(longitude: 8.54, latitude: 47.37 + 6.5 / 111.2)).isEmpty)
    }
}
