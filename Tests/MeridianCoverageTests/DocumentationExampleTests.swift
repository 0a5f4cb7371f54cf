import MeridianCoverage
import MeridianFormats
import MeridianGeometry
import MeridianTestSupport
import Testing

/// The example in MeridianCoverage.docc/ValidatingACoverageFile.md, kept compiling and true.
@Suite struct DocumentationExampleTests {
    @Test func validatingACoverageFile() throws {
        try withTemporaryFolderPath { folder in
            let path = fixture("coverage/cases/unclosed-ring.geojson")

            // Validate the file against Apple's rules.
            let report = try CoverageValidator().validate(path: path)
            #expect(!report.isValid)
            for issue in report.errors {
                // e.g. "ring-closure at line 22: the ring is not closed: …" and the rule's hint.
                print("\(issue.rule.id) at line \(issue.line ?? 0): \(issue.message)")
                print("  hint: \(issue.rule.hint)")
            }
            let finding = try #require(report.errors.first)
            #expect(report.errors.count == 1)
            #expect(finding.rule == .ringClosure)
            #expect(finding.polygon == 0 && finding.ring == 0)
            #expect(finding.line != nil)

            // Repair what can be repaired without changing the area covered, and write the result.
            let fixed = try CoverageFixer().fix(path: path)
            #expect(fixed.changes.contains(.closedOpenRings))
            #expect(fixed.passes)
            let output = folder + "/coverage.geojson"
            let target = try OutputTarget.open(output)
            try target.commit { try CoverageFile.write(fixed.coverage, to: target.sink) }
            #expect(try CoverageValidator().validate(path: output).passes(strict: true))

            // Would Maps suggest the app for a route? Both ends must be covered.
            let area = try CoverageArea(path: output)
            let sanFrancisco = Position(longitude: -122.4194, latitude: 37.7749)
            let sanJose = Position(longitude: -121.8863, latitude: 37.3382)
            let losAngeles = Position(longitude: -118.2437, latitude: 34.0522)
            #expect(area.check(from: sanFrancisco, to: sanJose).isCovered)
            let route = area.check(from: sanFrancisco, to: losAngeles)
            #expect(!route.isCovered)
            #expect(route.fromPolygons == [0] && route.toPolygons.isEmpty)
        }
    }
}
