import Foundation
import Testing

@Suite struct CoverageCommandTests {
    @Test func validateReportsJSONAndExitCodes() throws {
        let valid = try meridian(["coverage", "validate", fixture("coverage/cases/bay-area.geojson")])
        #expect(valid.status == 0)
        #expect(valid.stdout.hasPrefix("\(fixture("coverage/cases/bay-area.geojson")): valid"))

        let several = try meridian(["coverage", "validate", "--format", "json",
                                    fixture("coverage/cases/clockwise.geojson"), fixture("coverage/cases/hole.geojson")])
        #expect(several.status == ExitStatus.checkFailed)
        let reports = try #require(try JSONSerialization.jsonObject(with: several.stdoutData) as? [[String: Any]])
        #expect(reports.count == 2)
        #expect(reports[0]["valid"] as? Bool == true)
        let warning = try #require((reports[0]["warnings"] as? [[String: Any]])?.first)
        #expect(warning["rule"] as? String == "winding")
        #expect(warning["polygon"] as? Int == 0)
        #expect(warning["line"] is Int && warning["column"] is Int)
        let error = try #require((reports[1]["errors"] as? [[String: Any]])?.first)
        #expect(error["rule"] as? String == "holes")
        #expect(error["ring"] as? Int == 1)
    }

    @Test func strictFailsOnWarnings() throws {
        #expect(try meridian(["coverage", "validate", fixture("coverage/cases/clockwise.geojson")]).status == 0)
        #expect(try meridian(["coverage", "validate", "--strict", fixture("coverage/cases/clockwise.geojson")]).status == ExitStatus.checkFailed)
    }

    /// The reports say what the exit status says: `--strict --format json` printed
    /// `"valid": true` and nothing else while exiting 1 on a warning.
    @Test func reportsAgreeWithTheExitStatus() throws {
        let file = fixture("coverage/cases/clockwise.geojson")
        for strict in [false, true] {
            let json = try meridian(["coverage", "validate", "--format", "json", file] + (strict ? ["--strict"] : []))
            #expect(json.status == (strict ? 1 : 0))
            let report = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
            #expect(report["valid"] as? Bool == true, "App Store Connect accepts it either way")
            #expect(report["passes"] as? Bool == !strict, "\(json.stdout)")
            #expect(report["strict"] as? Bool == strict)

            let text = try meridian(["coverage", "validate", file] + (strict ? ["--strict"] : []))
            #expect(text.status == (strict ? 1 : 0))
            #expect(text.stdout.contains("FAILS --strict") == strict, "\(text.stdout)")
        }
        let clean = try meridian(["coverage", "validate", "--strict", "--format", "json", fixture("coverage/cases/bay-area.geojson")])
        #expect(clean.status == 0)
        #expect(clean.stdout.contains("\"passes\": true"))
    }

    @Test func validateReadsStandardInput() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: fixture("coverage/cases/comment.geojson")))
        let run = try meridian(["coverage", "validate"], stdin: data)
        #expect(run.status == ExitStatus.checkFailed)
        #expect(run.stdout.contains("error[comments]: <stdin>:1:1"))
    }

    @Test func testAnswersForRoutes() throws {
        let file = fixture("coverage/cases/bay-area.geojson")
        let covered = try meridian(["coverage", "test", file, "--from", "37.3382,-121.8863", "--to", "37.5,-122.0"])
        #expect(covered.status == 0, "\(covered.stderr)")
        #expect(covered.stdout.hasPrefix("covered: from 37.3382,-121.8863 in polygon 1"))
        let outside = try meridian(["coverage", "test", file, "--from", "37.3382,-121.8863", "--to", "38.5816,-121.4944"])
        #expect(outside.status == ExitStatus.checkFailed)
        #expect(outside.stdout.contains("NOT covered"))
        #expect(try meridian(["coverage", "test", file, "--from", "37.3,-121.8"]).status == ExitStatus.usage)
    }

    @Test func testReadsRoutesFromCSV() throws {
        try withTemporaryFolder { folder in
            let csv = folder.appendingPathComponent("routes.csv")
            try "from_lat,from_lon,to_lat,to_lon\n-16.5,179.5,-16.5,-179.5\n-16.5,179.5,-16.5,178.0\n".write(to: csv, atomically: true, encoding: .utf8)
            let run = try meridian(["coverage", "test", fixture("coverage/cases/crosses-antimeridian.geojson"), "--routes", csv.path])
            #expect(run.status == ExitStatus.checkFailed)
            let lines = run.stdout.split(separator: "\n")
            #expect(lines.count == 2)
            #expect(lines[0].hasPrefix("covered"))
            #expect(lines[1].hasPrefix("NOT covered"))
        }
    }
}

@Suite struct CoverageFixCommandTests {
    @Test func fixWritesAValidFileAndListsChanges() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("fixed.geojson").path
            let run = try meridian(["coverage", "fix", fixture("coverage/cases/feature-collection.geojson"), "-o", out])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("unwrapped the geometry from its FeatureCollection"))
            #expect(try meridian(["coverage", "validate", "--strict", out]).status == 0)
        }
    }

    /// A ring that crosses itself used to bring "nothing to change" and exit 0, though the file
    /// still failed validate --strict: now the reason, a pointer to make, and exit 1.
    @Test func fixSaysWhatItCannotRepair() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("fixed.geojson").path
            let bowtie = fixture("coverage/cases/bowtie.geojson")
            let run = try meridian(["coverage", "fix", bowtie, "-o", out])
            #expect(run.status == ExitStatus.checkFailed, "\(run.stderr)")
            #expect(!run.stderr.contains("nothing to change"))
            #expect(run.stderr.contains("left as it is: untangling a ring"), "\(run.stderr)")
            #expect(run.stderr.contains("meridian coverage make"))
            #expect(FileManager.default.fileExists(atPath: out), "the safe repairs are written")
            #expect(try meridian(["coverage", "validate", "--strict", out]).status == ExitStatus.checkFailed)

            let made = folder.appendingPathComponent("made.geojson").path
            #expect(try meridian(["coverage", "make", bowtie, "-o", made]).status == 0)
            #expect(try meridian(["coverage", "validate", "--strict", made]).status == 0)
        }
    }

    @Test func fixRefusesHolesWithExit65() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("fixed.geojson").path
            let run = try meridian(["coverage", "fix", fixture("coverage/cases/hole.geojson"), "-o", out])
            #expect(run.status == ExitStatus.badInput)
            #expect(run.stderr.contains("has a hole"))
            #expect(contents(of: folder).isEmpty)
        }
    }

    @Test func southernLatitudesNeedNoEqualsSign() throws {
        let run = try meridian(["coverage", "test", fixture("coverage/cases/crosses-antimeridian.geojson"),
                                "--from", "-16.5,179.5", "--to", "-16.5,-179.5"])
        #expect(run.status == 0, "\(run.stderr)")
    }
}

@Suite struct CoverageMakeCommandTests {
    /// The summary counts in words: "made 1 polygon", "made 2 polygons" (it said "polygon(s)").
    @Test func makeCountsThePolygonsItMade() throws {
        try withTemporaryFolder { folder in
            let one = try meridian(["coverage", "make", "--bbox", "-74.1,-34.0,-70.2,-32.9", "-o", folder.appendingPathComponent("one.geojson").path])
            #expect(one.status == 0, "\(one.stderr)")
            #expect(one.stderr.contains("made 1 polygon covering"), "\(one.stderr)")
            // Across ±180° the box is cut in two.
            let two = try meridian(["coverage", "make", "--bbox", "170,-20,-170,-10", "-o", folder.appendingPathComponent("two.geojson").path])
            #expect(two.status == 0, "\(two.stderr)")
            #expect(two.stderr.contains("made 2 polygons covering"), "\(two.stderr)")
        }
    }

    @Test func makeWritesAFileThatPassesStrictValidation() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("coverage.geojson").path
            let run = try meridian(["coverage", "make", fixture("kml/togeojson/polygon.kml"), "-o", out])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains(" polygon covering ") || run.stderr.contains(" polygons covering "), "\(run.stderr)")
            #expect(try meridian(["coverage", "validate", "--strict", out]).status == 0)

            let box = folder.appendingPathComponent("box.geojson").path
            #expect(try meridian(["coverage", "make", "--bbox", "-122.6,37.2,-121.6,38.1", "-o", box]).status == 0)
            #expect(try meridian(["coverage", "test", box, "--from", "37.33,-121.88", "--to", "37.77,-122.41"]).status == 0)

            // Asked for the whole world, it makes it, but does not claim it passes.
            let world = folder.appendingPathComponent("world.geojson").path
            let asked = try meridian(["coverage", "make", "--bbox", "-180,-85,180,85", "-o", world])
            #expect(asked.status == ExitStatus.checkFailed, "\(asked.stderr)")
            #expect(asked.stderr.contains("validate --strict"))
            #expect(try meridian(["coverage", "validate", "--strict", world]).status == ExitStatus.checkFailed)
        }
    }
}
