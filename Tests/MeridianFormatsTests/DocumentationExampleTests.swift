import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
import MeridianTestSupport
import Testing

// The examples of MeridianFormats' articles (Sources/MeridianFormats/MeridianFormats.docc),
// word for word, so that they are known to compile against the public API (a plain import, not
// @testable) and to do what the articles say. Change them together.

// MARK: - ReadingAnyFormat.md

/// Counts a file's features by geometry type, whatever its format.
func summarize(_ path: String) throws -> (name: String?, counts: [String: Int]) {
    // The registry picks the format from the extension, else from the first bytes.
    let source = try FeatureInput(path: path)
    let metadata = try source.reader.readMetadata()
    var counts: [String: Int] = [:]
    while let feature = try source.reader.next() {  // one feature in memory at a time
        counts[feature.geometry?.type.rawValue ?? "null", default: 0] += 1
    }
    return (metadata.name, counts)
}

/// Where a file is broken, as compilers say it: `FILE:LINE:COLUMN: message`.
func firstProblem(in path: String) -> String? {
    do {
        let source = try FeatureInput(path: path)
        while try source.reader.next() != nil {}
        return nil
    } catch let failure as any MeridianFailure {
        // failure.exitCode is sysexits.h's: 65 for bad data, 66 for a file that cannot be read.
        let place = failure.location.map { "\($0): " } ?? ""
        return place + failure.message
    } catch {
        return "\(error)"
    }
}

// MARK: - WritingAnyFormat.md

/// Converts any readable file to the format its output path names (walk.gpx to walk.kml).
@discardableResult
func convert(_ input: String, to output: String) throws -> Int {
    let source = try FeatureInput(path: input)
    // The extension picks the writer. Bytes go to a hidden temporary file beside `output`,
    // renamed over it by commit; if anything throws, nothing appears at `output`.
    let destination = try FeatureOutput(path: output, protectedInput: input)
    var written = 0
    try destination.commit {
        written = try copyFeatures(from: source.reader, to: destination.writer)
    }
    return written
}

@Suite struct DocumentationExampleTests {
    @Test func summarizeReadsAGPXFileByItsExtension() throws {
        let summary = try summarize(fixture("gpx/mixed.gpx"))
        #expect(summary.name == "Bay walk")
        #expect(summary.counts == ["Point": 1, "LineString": 1, "MultiLineString": 1])
    }

    @Test func summarizeReadsGeoJSON() throws {
        let summary = try summarize(fixture("geojson/ne_10m_countries_sample.geojson"))
        #expect(summary.name == "ne_10m_admin_0_countries_deu")
        #expect(summary.counts.values.reduce(0, +) == 31)
    }

    @Test func firstProblemNamesFileLineAndColumn() {
        let path = fixture("malformed/bad-escape.geojson")
        let problem = firstProblem(in: path)
        #expect(problem?.hasPrefix("\(path):1:47: invalid escape \\q") == true, "\(problem ?? "nil")")
        #expect(firstProblem(in: fixture("gpx/mixed.gpx")) == nil)
    }

    @Test func aMissingFileIsInputUnavailable() throws {
        let error = #expect(throws: MeridianError.self) { try FeatureInput(path: "/nonexistent/walk.gpx") }
        #expect(error?.kind == .inputUnavailable)
        #expect(error?.exitCode == 66)
        #expect(error?.location?.file == "/nonexistent/walk.gpx")
    }

    /// The article's in-memory input, named by format.
    @Test func aFormatByNameReadsAnInputWithoutAPath() throws {
        let input = BufferedInput(string: """
            {"type":"Point","coordinates":[2.35,48.85]}
            {"type":"Point","coordinates":[4.83,45.76]}
            """, name: "<stdin>")
        let format = try FormatRegistry.standard.inputFormat(for: input, path: nil, explicit: "geojsonseq")
        let reader = try format.reader(for: input)
        var longitudes: [Double] = []
        while let feature = try reader.next() {
            if case .point(let point)? = feature.geometry { longitudes.append(point.coordinates.longitude) }
        }
        #expect(format.id == "geojsonseq")
        #expect(longitudes == [2.35, 4.83])
    }

    @Test func convertWritesKMLAndLeavesNoTemporaryFile() throws {
        try withTemporaryFolderPath { folder throws in
            let output = "\(folder)/walk.kml"
            #expect(try convert(fixture("gpx/mixed.gpx"), to: output) == 3)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["walk.kml"])
            let summary = try summarize(output)
            #expect(summary.name == "Bay walk")
            #expect(summary.counts.values.reduce(0, +) == 3)
        }
    }

    @Test func aFailedConversionLeavesNothing() throws {
        try withTemporaryFolderPath { folder throws in
            #expect(throws: MeridianError.self) { try convert(fixture("malformed/bad-escape.geojson"), to: "\(folder)/out.kml") }
            #expect(throws: (any Error).self) { try convert(fixture("gpx/mixed.gpx"), to: "\(folder)/out.unknown") }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        }
    }

    /// The article's writer chosen by name, into memory.
    @Test func aWriterByNameIntoMemory() throws {
        let csv = try FormatRegistry.standard.format(named: "csv")
        let sink = OutputSink(collectingAs: "stations.csv")
        let writer = try csv.writer(for: sink, options: WriteOptions(precision: 4))
        try writer.begin(CollectionMetadata())
        try writer.write(Feature(geometry: .point(Point(Position(longitude: 2.3522219, latitude: 48.856614))),
                                 properties: ["name": .string("Paris")]))
        try writer.finish(CollectionMetadata())
        #expect(sink.collectedText() == "longitude,latitude,name\r\n2.3522,48.8566,Paris\r\n")
    }

    /// The article's raw bytes written atomically.
    @Test func anOutputTargetAppearsOnlyWhenCommitted() throws {
        try withTemporaryFolderPath { folder throws in
            let path = "\(folder)/notes.txt"
            let target = try OutputTarget.open(path)
            target.sink.write("written whole or not at all\n")
            #expect(!FileManager.default.fileExists(atPath: path))
            try target.commit()
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "written whole or not at all\n")

            let abandoned = try OutputTarget.open("\(folder)/never.txt")
            abandoned.sink.write("draft")
            abandoned.abandon()
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["notes.txt"])
        }
    }
}
