import Foundation
import MeridianCore
import Testing
import MeridianFormats
import MeridianGeometry
@testable import MeridianCoverage
import MeridianTestSupport

@Suite struct CoverageFixerTests {
    /// Every case `fix` accepts comes out valid; the ones it refuses are those whose repair would
    /// change the covered area (or that are not coverage at all).
    @Test(arguments: try expectedVerdicts())
    func fixedFilesValidate(_ expected: ExpectedVerdict) throws {
        let refused: Set<String> = ["truncated.geojson", "hole.geojson", "too-many-polygons.geojson", "empty-multipolygon.geojson",
                                    "latitude-out-of-range.geojson", "string-coordinates.geojson", "short-ring.geojson"]
        let path = fixture("coverage/cases/\(expected.file)")
        guard !refused.contains(expected.file) else {
            #expect(throws: MeridianError.self) { try CoverageFixer().fix(path: path) }
            return
        }
        let result = try CoverageFixer().fix(path: path)
        let sink = OutputSink(collectingAs: "fixed.geojson")
        try writeGeoJSONGeometry(.multiPolygon(result.coverage), to: sink, options: WriteOptions(precision: 6))
        let report = CoverageValidator().validate(bytes: Array(sink.collectedText().utf8), name: "fixed.geojson")
        #expect(report.isValid, "\(report.text(colour: false))")
        // What fix can repair is gone; what it must not touch (shape, point count) may remain.
        let left = Set(report.warnings.map(\.rule)).subtracting([.selfIntersection, .pointCount])
        #expect(left.isEmpty, "\(expected.file): \(left)")
        if !expected.rules.isEmpty && expected.valid == false {
            #expect(!result.changes.isEmpty || expected.rules == ["extension"])
        }
    }

    /// What fix must leave (it would change the area) is reported, with the written file's places.
    @Test func reportsWhatItCannotRepair() throws {
        let bowtie = try CoverageFixer().fix(path: fixture("coverage/cases/bowtie.geojson"))
        #expect(!bowtie.passes)
        #expect(bowtie.remaining.map(\.rule) == [.selfIntersection])
        #expect(bowtie.remaining.first?.line != nil)
        #expect(CoverageRule.selfIntersection.whyLeftAsItIs != nil)
        let clockwise = try CoverageFixer().fix(path: fixture("coverage/cases/clockwise.geojson"))
        #expect(clockwise.passes, "\(clockwise.remaining)")
    }

    @Test func cutsAtTheAntimeridianKeepingTheArea() throws {
        let result = try CoverageFixer().fix(path: fixture("coverage/cases/crosses-antimeridian.geojson"))
        #expect(result.coverage.polygons.count == 2)
        let area = CoverageArea(polygons: result.coverage.polygons.compactMap(\.exterior))
        for lon in [179.2, 179.9, 180, -180, -179.5] {
            #expect(!area.polygons(covering: Position(longitude: lon, latitude: -16.5)).isEmpty, "\(lon)")
        }
        #expect(area.polygons(covering: Position(longitude: 178.9, latitude: -16.5)).isEmpty)
        #expect(result.changes.contains(.cutAtAntimeridian))
    }
}
