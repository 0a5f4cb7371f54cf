import Foundation
import Testing
import MeridianGeometry
@testable import MeridianFormats

@Suite struct GeoJSONWriterTests {
    @Test func naturalEarthSampleRoundTripsBitForBit() throws {
        let original = try readAll(path: fixture("geojson/ne_10m_countries_sample.geojson"))
        #expect(original.features.count == 31)
        let text = try write(original)
        let again = try readAll(text: text)
        #expect(identical(again.features, original.features))
        #expect(again.metadata == original.metadata)
        // Every coordinate is written in its shortest round-trip form.
        var expected: [String] = []
        for feature in original.features {
            feature.geometry?.forEachPosition { expected += ["\($0.longitude)", "\($0.latitude)"] }
        }
        let firstFeature = try #require(text.split(separator: "\n").dropFirst().first)
        #expect(firstFeature.contains("[\(expected[0]),\(expected[1])]"))
    }

    @Test func edgeCasesMatchTheGoldenOutput() throws {
        let original = try readAll(path: fixture("geojson/edge-cases.geojson"))
        let text = try write(original)
        let golden = try String(contentsOfFile: fixture("geojson/edge-cases.golden.geojson"), encoding: .utf8)
        #expect(text == golden)
        #expect(identical(try readAll(text: text).features, original.features))
    }

    @Test func prettyOutputReadsBackTheSame() throws {
        let original = try readAll(path: fixture("geojson/edge-cases.geojson"))
        let text = try write(original, options: WriteOptions(formatOptions: GeoJSONWriteOptions(pretty: true)))
        #expect(text.contains("\n    {\n      \"type\": \"Feature\",\n      \"id\": \"a-1\","))
        #expect(text.contains("\"coordinates\": [8.5417, 47.3769, 408.0]"))
        #expect(identical(try readAll(text: text).features, original.features))
    }

    @Test func sequencesWriteOneFeaturePerLine() throws {
        let original = try readAll(path: fixture("geojson/edge-cases.geojson"))
        let text = try write(original, sequence: true)
        #expect(text.split(separator: "\n").count == 6)
        #expect(!text.contains("FeatureCollection"))
        #expect(identical(try readAll(text: text).features, original.features))

        let rs = try write(original, options: WriteOptions(formatOptions: GeoJSONSeqWriteOptions(recordSeparator: true)), sequence: true)
        #expect(rs.hasPrefix("\u{1E}{\"type\":\"Feature\""))
        #expect(identical(try readAll(text: rs, layout: .sequence).features, original.features))
    }

    @Test(arguments: [
        (1.23456789, 3, "1.235"), (-0.0000001, 6, "0.0"), (2.5, 0, "2"), (-0.4, 0, "0"), (180.0, 6, "180.0"),
        (0.1, 17, "0.1"), (-73.98765, 2, "-73.99"), (-73.999, 2, "-74.0"), (1e-7, 6, "0.0"), (12.5, 1, "12.5"),
        (1e21, 2, "1000000000000000000000.0"),
    ])
    func precisionRounds(_ value: Double, _ digits: Int, _ expected: String) {
        let sink = OutputSink(collectingAs: "x")
        JSONEmitter(sink: sink, pretty: false).coordinate(value, precision: digits)
        #expect(sink.collectedText() == expected)
    }

    @Test func precisionAppliesToEveryCoordinate() throws {
        let original = try readAll(path: fixture("geojson/ne_10m_countries_sample.geojson"))
        let text = try write(original, options: WriteOptions(precision: 6))
        let rounded = try readAll(text: text)
        for (a, b) in zip(original.features, rounded.features) {
            var pa: [Position] = [], pb: [Position] = []
            a.geometry?.forEachPosition { pa.append($0) }
            b.geometry?.forEachPosition { pb.append($0) }
            #expect(pa.count == pb.count)
            #expect(zip(pa, pb).allSatisfy { abs($0.longitude - $1.longitude) <= 5e-7 && abs($0.latitude - $1.latitude) <= 5e-7 })
        }
        #expect(text.utf8.count < (try write(original)).utf8.count)
    }

    @Test func stringsAreEscapedOnlyWhereJSONRequires() {
        let sink = OutputSink(collectingAs: "x")
        JSONEmitter(sink: sink, pretty: false).value(.string("a\"b\\c\n\t\u{1}é/🗺"))
        #expect(sink.collectedText() == #""a\"b\\c\n\t\u0001é/🗺""#)
    }

    @Test(.enabled(if: sharedFixtureExists("vector/ne_10m_countries.geojson.xz")),
          .timeLimit(.minutes(10)))
    func allNaturalEarthCountriesRoundTripBitForBit() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ne-\(UUID()).geojson").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let xz = Process()
        xz.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        xz.arguments = ["xz", "-dc", sharedFixture("vector/ne_10m_countries.geojson.xz")]
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        xz.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try xz.run()
        xz.waitUntilExit()
        try #require(xz.terminationStatus == 0)

        let original = try readAll(path: path)
        #expect(original.features.count == 250)
        let again = try readAll(text: try write(original))
        #expect(identical(again.features, original.features))
        #expect(again.metadata == original.metadata)
    }
}
