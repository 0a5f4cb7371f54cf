import CGDAL
import Foundation
import MeridianFormats
import Testing
@testable import MeridianGeometry
import MeridianTestSupport

/// GEOS's own verdict (through GDAL's OGR_G_IsValid), so "valid" means what shapely, PostGIS
/// and QGIS mean by it.
enum GEOS {
    static func isValid(_ geometry: Geometry) throws -> Bool {
        let sink = OutputSink(collectingAs: "geometry")
        try writeGeoJSONGeometry(geometry, to: sink)
        guard let ogr = OGR_G_CreateGeometryFromJson(sink.collectedText()) else { return false }
        defer { OGR_G_DestroyGeometry(ogr) }
        CPLPushErrorHandler(CPLQuietErrorHandler)  // GEOS explains the fault on stderr
        defer { CPLPopErrorHandler() }
        return OGR_G_IsValid(ogr) != 0
    }

    static var isAvailable: Bool {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        return OGRGetGEOSVersion(&major, &minor, &patch)
    }
}

/// Natural Earth's countries: the 31 in Tests/Fixtures, or all 250 from ../shared when there.
enum NaturalEarth {
    static let sample = fixtures.appendingPathComponent("geojson/ne_10m_countries_sample.geojson").path
    static let shared = sharedFixtures.appendingPathComponent("vector/ne_10m_countries.geojson.xz")
    static var sharedIsThere: Bool { FileManager.default.fileExists(atPath: shared.path) }

    static func features(_ path: String) throws -> [Feature] {
        let input = try FeatureInput(path: path)
        return try FeatureList(reading: input.reader).features
    }

    /// All 250 countries, decompressed once per test run.
    static let all: [Feature] = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ne-countries-\(getpid()).geojson").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let xz = Process()
        xz.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        xz.arguments = ["xz", "-dc", shared.path]
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        xz.standardOutput = try? FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try? xz.run()
        xz.waitUntilExit()
        return (try? features(path)) ?? []
    }()
}

@Suite(.enabled(if: GEOS.isAvailable)) struct SimplifyValidityTests {
    /// Simplifies at every zoom level 0–12 (5 screen points) and checks each polygon with GEOS:
    /// valid wherever the input was, and not empty when the country is bigger than a pixel.
    func checkZoomLevels(_ countries: [Feature], keepTopology: Bool) throws {
        let inputValid = try countries.map { try $0.geometry.map(GEOS.isValid) ?? true }
        for level in 0...12 {
            let tolerance = 5 / ZoomScale.scale(forLevel: Double(level))
            var simplifier = GeometrySimplifier(tolerance: tolerance, method: .douglasPeucker)
            let outputs: [Geometry?] = keepTopology
                ? alignedTopologyResults(countries, &simplifier)
                : countries.map { $0.geometry.flatMap { simplifier.simplify($0) } }
            for (index, (country, output)) in zip(countries, outputs).enumerated() {
                let name = country.properties?["NAME"].map { "\($0)" } ?? "?"
                guard let output else {
                    #expect(!biggerThan(tolerance, country.geometry), "z\(level): \(name) vanished")
                    continue
                }
                if inputValid[index] {
                    #expect(try GEOS.isValid(output), "z\(level)\(keepTopology ? " keep-topology" : ""): \(name) is invalid")
                }
            }
        }
    }

    /// Topology results lined up with the input (a vanished country leaves nil).
    func alignedTopologyResults(_ countries: [Feature], _ simplifier: inout GeometrySimplifier) -> [Geometry?] {
        let tagged = countries.enumerated().map { index, country in
            var feature = country
            feature.id = .integer(Int64(index))
            return feature
        }
        var byIndex: [Int: Geometry] = [:]
        for feature in simplifier.simplifyKeepingTopology(tagged) {
            if case .integer(let n)? = feature.id { byIndex[Int(n)] = feature.geometry }
        }
        return countries.indices.map { byIndex[$0] }
    }

    func biggerThan(_ tolerance: Double, _ geometry: Geometry?) -> Bool {
        !GeometrySimplifier(tolerance: tolerance, method: .douglasPeucker).isSmallerThanTolerance(MapRect(enclosing: (geometry?.paths ?? []).flatMap(\.positions)))
    }

    /// Pitcairn at zoom 12: Douglas-Peucker ring by ring makes two of its rings cross; the
    /// repair puts back what it takes to keep them apart.
    @Test func pitcairnIsRepaired() throws {
        let countries = try NaturalEarth.features(NaturalEarth.sample)
        let pitcairn = try #require(countries.first { $0.properties?["NAME"]?.stringValue == "Pitcairn Is." }?.geometry)
        let tolerance = 5 / ZoomScale.scale(forLevel: 12)
        let ringByRing = pitcairn.rebuilt { path in
            Simplify.keptIndices(path.positions.map(MapPoint.init), tolerance: tolerance, method: .douglasPeucker).map { path.positions[$0] }
        }
        #expect(try !GEOS.isValid(try #require(ringByRing)), "the case must bite")
        var simplifier = GeometrySimplifier(tolerance: tolerance, method: .douglasPeucker)
        let simplified = simplifier.simplify(pitcairn)
        let repaired = try #require(simplified)
        #expect(try GEOS.isValid(repaired))
        #expect(repaired.paths.map(\.positions.count).reduce(0, +) < pitcairn.paths.map(\.positions.count).reduce(0, +))
    }

    @Test func sampleCountriesStayValidAtEveryZoom() throws {
        let countries = try NaturalEarth.features(NaturalEarth.sample)
        #expect(countries.count == 31)
        try checkZoomLevels(countries, keepTopology: false)
    }

    @Test func sampleCountriesStayValidKeepingTopology() throws {
        try checkZoomLevels(try NaturalEarth.features(NaturalEarth.sample), keepTopology: true)
    }

    /// Zoomed out, whole countries vanish (12 of the 31 at zoom 6); --keep-small keeps every
    /// one as a valid polygon, GEOS says, its rings closed with four positions or more.
    @Test(arguments: [false, true]) func keepSmallKeepsEveryCountryValid(keepTopology: Bool) throws {
        let countries = try NaturalEarth.features(NaturalEarth.sample)
        let inputValid = try countries.map { try $0.geometry.map(GEOS.isValid) ?? true }
        for level in [0, 3, 6] {
            let tolerance = 5 / ZoomScale.scale(forLevel: Double(level))
            var plain = GeometrySimplifier(tolerance: tolerance, method: .douglasPeucker)
            let vanished = (keepTopology ? alignedTopologyResults(countries, &plain) : countries.map { plain.simplify($0.geometry!) })
                .filter { $0 == nil }.count
            #expect(plain.droppedGeometries == vanished)
            if level == 6 { #expect(vanished == 12, "the case must bite") }

            var small = GeometrySimplifier(tolerance: tolerance, method: .douglasPeucker, keepSmall: true)
            let outputs = keepTopology ? alignedTopologyResults(countries, &small) : countries.map { small.simplify($0.geometry!) }
            #expect(small.droppedGeometries == 0)
            for (index, (country, output)) in zip(countries, outputs).enumerated() {
                let name = country.properties?["NAME"].map { "\($0)" } ?? "?"
                let geometry = try #require(output, "z\(level): \(name) vanished with keepSmall")
                for ring in geometry.paths where ring.isRing {
                    #expect(ring.positions.count >= 4 && ring.positions.first == ring.positions.last, "z\(level): \(name)")
                    #expect(Rings.signedArea(Rings.unwrapped(ring.positions)) != 0, "z\(level): \(name) has a flat ring")
                }
                if inputValid[index] { #expect(try GEOS.isValid(geometry), "z\(level): \(name) is invalid") }
            }
        }
    }

    @Test(.enabled(if: NaturalEarth.sharedIsThere), .timeLimit(.minutes(10)))
    func allCountriesStayValidAtEveryZoom() throws {
        #expect(NaturalEarth.all.count == 250)
        try checkZoomLevels(NaturalEarth.all, keepTopology: false)
    }
}
