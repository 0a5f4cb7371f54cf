import Foundation
import Testing

@Suite struct InfoCommandTests {
    @Test func summarisesAsJSON() throws {
        let run = try meridian(["info", fixture("geojson/ne_10m_countries_sample.geojson"), "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: run.stdoutData) as? [String: Any])
        #expect(report["features"] as? Int == 31)
        #expect(report["format"] as? String == "geojson")
        #expect(report["name"] as? String == "ne_10m_admin_0_countries_deu")
        let types = try #require(report["geometryTypes"] as? [String: Int])
        #expect(types.values.reduce(0, +) == 31)
        #expect(report["nullGeometries"] as? Int == 0)
        let bbox = try #require(report["bbox"] as? [Double])
        #expect(bbox.count == 4)
        #expect(bbox[0] == -180 && bbox[2] == 180)  // Fiji reaches both sides of the antimeridian
        let properties = try #require(report["properties"] as? [[String: Any]])
        #expect(properties.first?["name"] as? String == "ADM0_A3_DE")
        #expect(properties.contains { $0["name"] as? String == "NAME" && ($0["types"] as? [String]) == ["string"] })
    }

    @Test func summarisesAsText() throws {
        let run = try meridian(["info", fixture("geojson/edge-cases.geojson")])
        #expect(run.status == 0)
        #expect(run.stdout.contains("features:   6"))
        #expect(run.stdout.contains("geometry:   Point 1, GeometryCollection 1, Polygon 1, MultiPolygon 1, MultiLineString 1, null 1"))
        #expect(run.stdout.contains("with altitude"))
    }

    @Test func boundsAcrossTheAntimeridianAsRFC7946WritesThem() throws {
        // Fiji's islands either side of 180°: west > east, not the whole world's width.
        let fiji = Data(#"""
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[177.2,-17.6]}},
            {"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[179.9,-16.1],[-179.8,-16.3],[-178.5,-19.2]]}}]}
            """#.utf8)
        let json = try meridian(["info", "--format", "json"], stdin: fiji)
        #expect(json.status == 0, "\(json.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
        #expect(report["bbox"] as? [Double] == [177.2, -19.2, -178.5, -16.1])
        let text = try meridian(["info"], stdin: fiji)
        #expect(text.status == 0)
        #expect(text.stdout.contains("W 177.2, S -19.2, E -178.5, N -16.1 (across the antimeridian)"), "\(text.stdout)")
    }

    @Test func readsStandardInput() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: fixture("geojson/sequence.geojsonl")))
        let run = try meridian(["info", "--format", "json"], stdin: data)
        #expect(run.status == 0)
        #expect(run.stdout.contains("\"features\": 3"))
        #expect(run.stdout.contains("\"file\": \"<stdin>\""))
    }
}

@Suite struct GeneralCommandTests {
    @Test func printsItsVersion() throws {
        let run = try meridian(["--version"])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("meridian 0."))
        #expect(run.stdout.contains("expat 2."))
    }

    /// `meridian --version` names the newest version in CHANGELOG.md (its first `## [x.y.z]`
    /// heading), so a release cannot ship with the two out of step.
    @Test func versionIsTheChangelogsNewest() throws {
        let changelog = try String(contentsOf: packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let heading = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") })
        let newest = heading.dropFirst(4).prefix { $0 != "]" }
        let run = try meridian(["--version"])
        #expect(run.stdout.hasPrefix("meridian \(newest)"), "CHANGELOG.md's newest is \(newest); --version said \(run.stdout)")
    }

    @Test(arguments: [[], ["convert"], ["info"]])
    func everySubcommandHasHelp(_ subcommand: [String]) throws {
        let run = try meridian(subcommand + ["--help"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("USAGE: meridian"))
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func generatesShellCompletions(_ shell: String) throws {
        let run = try meridian(["--generate-completion-script", shell])
        #expect(run.status == 0)
        #expect(run.stdout.contains("meridian"))
    }
}

/// The man pages in man/ (Scripts/generate-man-pages) read without a warning from groff's mdoc.
@Suite struct ManPageTests {
    static let pages = ((try? FileManager.default.contentsOfDirectory(atPath: fixtures.deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("man").path)) ?? []).filter { $0.hasSuffix(".1") }.sorted()

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/groff"), "needs groff"))
    func manPagesAreCleanMdoc() throws {
        #expect(Self.pages.count >= 15)
        let folder = fixtures.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("man")
        for page in Self.pages {
            let result = try run("/usr/bin/groff", ["-mandoc", "-Tutf8", "-ww", "-z", folder.appendingPathComponent(page).path])
            #expect(result.status == 0 && result.stderr.isEmpty, "\(page): \(result.stderr)")
        }
    }
}

/// The README says what Scripts/bootstrap installs, every package of it.
@Suite struct ReadmeTests {
    @Test func readmeNamesEveryPackageBootstrapInstalls() throws {
        let root = fixtures.deletingLastPathComponent().deletingLastPathComponent()
        let script = try String(contentsOf: root.appendingPathComponent("Scripts/bootstrap"), encoding: .utf8)
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let lists = script.split(separator: "\n").filter { $0.hasPrefix("packages=(") || $0.hasPrefix("    packages+=(") }
        let packages = lists.flatMap { line in
            line.drop { $0 != "(" }.dropFirst().prefix { $0 != ")" }.split(separator: " ").map(String.init)
        }
        #expect(packages.count >= 10)
        for package in packages {
            #expect(readme.contains("`\(package)`"), "README does not name \(package)")
        }
    }
}
