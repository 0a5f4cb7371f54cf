import Foundation
import Testing
import MeridianFormats
import MeridianGeometry
@testable import MeridianCoverage
import MeridianTestSupport

struct ExpectedVerdict: Sendable, CustomTestStringConvertible {
    var file: String
    var valid: Bool
    var rules: [String]
    var testDescription: String { file }
}

/// coverage/cases/expected.tsv: file, verdict, rule ids that must be reported.
func expectedVerdicts() throws -> [ExpectedVerdict] {
    try fixtureTable("coverage/cases/expected.tsv", header: true).map { fields in
        ExpectedVerdict(file: fields[0], valid: fields[1] == "valid",
                               rules: fields.count > 2 ? fields[2].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } : [])
    }
}

@Suite struct CoverageValidatorTests {
    @Test func theTableHasEveryCase() throws {
        #expect(try expectedVerdicts().count == 19)
    }

    @Test(arguments: try expectedVerdicts())
    func givesTheExpectedVerdict(_ expected: ExpectedVerdict) throws {
        let report = try CoverageValidator().validate(path: fixture("coverage/cases/\(expected.file)"))
        #expect(report.isValid == expected.valid, "\(report.text(colour: false))")
        let reported = Set(report.issues.map(\.rule.id))
        for rule in expected.rules {
            #expect(reported.contains(rule), "\(expected.file) should report \(rule): \(report.text(colour: false))")
        }
        // Every finding has a place in the file, except the file-level ones.
        for issue in report.issues where ![.extension, .area, .overlap].contains(issue.rule) {
            #expect(issue.line != nil, "\(issue)")
        }
    }

    @Test func realFilesAreValidWithOnlyTheWarningsTheyDeserve() throws {
        let real = try FileManager.default.contentsOfDirectory(atPath: fixture("coverage/real")).sorted()
        #expect(real.count == 3)
        for file in real {
            let report = try CoverageValidator().validate(path: fixture("coverage/real/\(file)"))
            #expect(report.isValid, "\(report.text(colour: false))")
            let warnings = Set(report.warnings.map(\.rule))
            if file.contains("recycle-ios") {
                #expect(warnings == [.winding, .precision])
            } else {
                #expect(warnings.isEmpty, "\(file): \(warnings)")
            }
        }
    }

    @Test func pointsAtTheProblem() throws {
        let text = """
            {"type": "MultiPolygon", "crs": {"type": "name"},
             "coordinates": [[[[0, 0], [1, 0], [1, 1], [1, 1], [0, 1, 5]]], [[[2, 0], [3, 0], [2, 1]]]]}
            """
        let report = CoverageValidator().validate(bytes: Array(text.utf8), name: "x.geojson")
        let closure = try #require(report.issues.first { $0.rule == .ringClosure })
        #expect(closure.polygon == 0 && closure.ring == 0 && closure.position == 4)
        #expect(closure.line == 2)
        let duplicate = try #require(report.issues.first { $0.rule == .duplicatePoint })
        #expect(duplicate.position == 3)
        #expect(report.issues.contains { $0.rule == .ringLength && $0.polygon == 1 })
        #expect(report.issues.contains { $0.rule == .altitude })
        #expect(report.issues.contains { $0.rule == .crs && $0.line == 1 })
        #expect(!report.isValid)
    }

    @Test func findsOverlapsBboxAndWholeWorld() {
        let overlapping = """
            {"type":"MultiPolygon","bbox":[0,0,1,1],"coordinates":[[[[0,0],[2,0],[2,2],[0,2],[0,0]]],[[[1,1],[3,1],[3,3],[1,3],[1,1]]]]}
            """
        let report = CoverageValidator().validate(bytes: Array(overlapping.utf8), name: "o.geojson")
        #expect(report.issues.contains { $0.rule == .overlap })
        #expect(report.issues.contains { $0.rule == .bbox })

        let touching = """
            {"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,1],[0,0]]],[[[1,0],[2,0],[2,1],[1,1],[1,0]]]]}
            """
        #expect(CoverageValidator().validate(bytes: Array(touching.utf8), name: "t.geojson").issues.isEmpty)

        let world = """
            {"type":"MultiPolygon","coordinates":[[[[-180,-85],[180,-85],[180,85],[-180,85],[-180,-85]]]]}
            """
        #expect(CoverageValidator().validate(bytes: Array(world.utf8), name: "w.geojson").issues.map(\.rule) == [.area])
    }

    /// Findings that are not about one of the file's positions say where on the Earth they are:
    /// where edges cross, where the ring crosses ±180°; and every polygon is kept as read.
    @Test func recordsWhereAFindingPoints() throws {
        let bowtie = try CoverageValidator().validate(path: fixture("coverage/cases/bowtie.geojson"))
        let crossing = try #require(bowtie.issues.first { $0.rule == .selfIntersection })
        #expect(crossing.point == Position(longitude: 1, latitude: 1))
        #expect(crossing.message.contains("at 1, 1"))
        let fiji = try CoverageValidator().validate(path: fixture("coverage/cases/crosses-antimeridian.geojson"))
        #expect(fiji.issues.first { $0.rule == .antimeridian }?.point == Position(longitude: 180, latitude: -17))
        let overlapping = """
            {"type":"MultiPolygon","coordinates":[[[[0,0],[2,0],[2,2],[0,2],[0,0]]],[[[1,1],[3,1],[3,3],[1,3],[1,1]]]]}
            """
        let overlap = CoverageValidator().validate(bytes: Array(overlapping.utf8), name: "o.geojson")
        #expect(overlap.issues.first { $0.rule == .overlap }?.point == Position(longitude: 2, latitude: 1))
        let json = overlap.jsonValue().jsonText
        #expect(json.contains(#""point":[2.0,1.0]"#) || json.contains(#""point":[2,1]"#), "\(json)")

        let hole = try CoverageValidator().validate(path: fixture("coverage/cases/hole.geojson"))
        #expect(hole.polygons.count == 1 && hole.polygons[0].count == 2 && hole.polygons[0][1].first == Position(longitude: 0, latitude: 45))
        let unreadable = CoverageValidator().validate(bytes: Array(#"{"type":"MultiPolygon","coordinates":[[[[0,0],[1,"x"],[1,1],[0,0]]]]}"#.utf8), name: "u.geojson")
        #expect(unreadable.polygons == [[[Position(longitude: 0, latitude: 0), nil, Position(longitude: 1, latitude: 1), Position(longitude: 0, latitude: 0)]]])
    }

    @Test func nanIsAPositionErrorNotASyntaxError() {
        let text = #"{"type":"MultiPolygon","coordinates":[[[[0,0],[1,NaN],[1,1],[0,0]]]]}"#
        let report = CoverageValidator().validate(bytes: Array(text.utf8), name: "n.geojson")
        #expect(report.errors.map(\.rule) == [.position])
    }
}

@Suite struct CoverageAreaTests {
    static let fiji = CoverageArea(polygons: [[
        Position(longitude: 179, latitude: -17), Position(longitude: -179, latitude: -17),
        Position(longitude: -179, latitude: -16), Position(longitude: 179, latitude: -16),
        Position(longitude: 179, latitude: -17),
    ]])

    @Test func coversAcrossTheAntimeridian() {
        #expect(Self.fiji.polygons(covering: Position(longitude: 179.5, latitude: -16.5)) == [0])
        #expect(Self.fiji.polygons(covering: Position(longitude: -179.5, latitude: -16.5)) == [0])
        #expect(Self.fiji.polygons(covering: Position(longitude: 180, latitude: -16.5)) == [0])
        #expect(Self.fiji.polygons(covering: Position(longitude: 178.5, latitude: -16.5)).isEmpty)
        #expect(Self.fiji.polygons(covering: Position(longitude: 0, latitude: -16.5)).isEmpty)
    }

    @Test func theBoundaryCountsAsInside() {
        let square = CoverageArea(polygons: [[
            Position(longitude: 0, latitude: 0), Position(longitude: 1, latitude: 0), Position(longitude: 1, latitude: 1),
            Position(longitude: 0, latitude: 1), Position(longitude: 0, latitude: 0),
        ]])
        #expect(square.polygons(covering: Position(longitude: 1, latitude: 0.5)) == [0])  // east edge
        #expect(square.polygons(covering: Position(longitude: 0, latitude: 0)) == [0])    // corner
        #expect(square.polygons(covering: Position(longitude: 1.0000001, latitude: 0.5)).isEmpty)
        let route = square.check(from: Position(longitude: 0.5, latitude: 0.5), to: Position(longitude: 2, latitude: 2))
        #expect(!route.isCovered && route.fromPolygons == [0] && route.toPolygons.isEmpty)
    }

    @Test func readsTheBayArea() throws {
        let area = try CoverageArea(path: fixture("coverage/cases/bay-area.geojson"))
        // San José is inside; Sacramento is not.
        #expect(area.check(from: Position(longitude: -121.8863, latitude: 37.3382), to: Position(longitude: -122.0, latitude: 37.5)).isCovered)
        #expect(area.polygons(covering: Position(longitude: -121.4944, latitude: 38.5816)).isEmpty)
    }
}
