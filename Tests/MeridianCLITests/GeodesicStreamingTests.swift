import Foundation
import Testing

/// `meridian geodesic` streams its input feature by feature, as `convert` does: the same bytes
/// as when it read the whole input first (Tests/Fixtures/geodesic, written by that version), a
/// peak memory that does not grow with the input, and no output when it fails part-way.
@Suite struct GeodesicStreamingTests {
    /// Each run's output is byte for byte the file the whole-input version wrote: GeoJSON with
    /// the great circle between the ends before the densified input, KML, GeoJSON text
    /// sequences from standard input, longitudes running on past ±180°.
    @Test func writesWhatItWroteBeforeStreaming() throws {
        let runs: [(arguments: [String], stdin: String?, expected: String)] = [
            (["gpx/mixed.gpx", "--from", "33.9416,-118.4085", "--to", "35.5494,139.7798", "--spacing-km", "400"], nil, "mixed-and-pacific.geojson"),
            (["geojson/edge-cases.geojson", "--antimeridian", "continuous", "--spacing-km", "100"], nil, "edge-cases-continuous.geojson"),
            (["gpx/mixed.gpx", "--spacing-km", "20"], nil, "mixed.kml"),
            (["-", "--spacing-km", "300"], "geojson/sequence.geojsonl", "sequence.geojsons"),
        ]
        try withTemporaryFolder { folder in
            for (arguments, stdin, expected) in runs {
                let output = folder.appendingPathComponent(expected).path
                let input = arguments[0] == "-" ? "-" : fixture(arguments[0])
                let made = try meridian(["geodesic", input] + arguments.dropFirst() + ["-o", output],
                                        stdin: try stdin.map { try Data(contentsOf: URL(fileURLWithPath: fixture($0))) })
                #expect(made.status == 0, "\(expected): \(made.stderr)")
                let written = try Data(contentsOf: URL(fileURLWithPath: output))
                #expect(written == (try Data(contentsOf: URL(fileURLWithPath: fixture("geodesic/" + expected)))), "\(expected) differs")
            }
        }
    }

    /// Runs `meridian` with its standard streams in files and returns its exit status and its
    /// peak resident memory (VmHWM, read from /proc while it runs) in kilobytes.
    static func peakMemory(_ arguments: [String], in folder: URL) throws -> (status: Int32, kilobytes: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: meridianBinary)
        process.arguments = arguments
        let errors = folder.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var peak = 0
        while process.isRunning {
            let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
            if let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) {
                peak = max(peak, kilobytes)
            }
            usleep(20_000)
        }
        process.waitUntilExit()
        return (process.terminationStatus, peak)
    }

    /// 200,000 lines take no more memory than 20,000 (within 32 MB, which the whole-input
    /// version, holding every feature, passed by some 100 MB), and every feature is written,
    /// densified as one feature alone is.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "peak memory is read from Linux's /proc"))
    func largeInputRunsInBoundedMemory() throws {
        try withTemporaryFolder { folder in
            func line(_ i: Int) -> String {
                let longitude = Double(i % 3400) / 10 - 170, latitude = Double(i % 1200) / 10 - 60
                return #"{"type":"Feature","properties":{"id":\#(i)},"geometry":{"type":"LineString","coordinates":[[\#(longitude),\#(latitude)],[\#(longitude + 0.05),\#(latitude + 0.03)]]}}"#
            }
            var peaks: [Int: Int] = [:]
            for count in [20_000, 200_000] {
                let input = folder.appendingPathComponent("lines-\(count).geojsons"), output = folder.appendingPathComponent("curved-\(count).geojsons")
                try Data((0..<count).map(line).joined(separator: "\n").utf8).write(to: input)
                let (status, peak) = try Self.peakMemory(["geodesic", input.path, "-o", output.path], in: folder)
                #expect(status == 0, "\(count) lines: exit \(status)")
                peaks[count] = peak
                let written = try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
                #expect(written.count == count)
                if count == 200_000 {
                    let alone = folder.appendingPathComponent("alone.geojsons")
                    let made = try meridian(["geodesic", "-", "-o", alone.path], stdin: Data(line(count - 1).utf8))
                    #expect(made.status == 0, "\(made.stderr)")
                    #expect(try String(contentsOf: alone, encoding: .utf8).split(separator: "\n") == written.suffix(1))
                }
            }
            let small = try #require(peaks[20_000]), large = try #require(peaks[200_000])
            #expect(small > 0 && large - small < 32_000, "peak memory: \(small) KB for 20,000 lines, \(large) KB for 200,000")
        }
    }

    /// A feature that the output cannot hold, far into the input, stops the run with 65 naming
    /// the input's line, and nothing is written: the densified features before it were
    /// streamed into the output's staged file, never into place.
    @Test func failingPartWayWritesNothing() throws {
        try withTemporaryFolder { folder in
            let input = folder.appendingPathComponent("lines.geojsons")
            var lines = (0..<5_000).map { #"{"type":"Feature","properties":{"id":\#($0)},"geometry":{"type":"LineString","coordinates":[[0,0],[2,1]]}}"# }
            lines.append(#"{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[0,0],[300,100]]}}"#)
            try Data(lines.joined(separator: "\n").utf8).write(to: input)
            let made = try meridian(["geodesic", input.path, "-o", folder.appendingPathComponent("curved.kml").path])
            #expect(made.status == ExitStatus.badInput, "\(made.stderr)")
            #expect(made.stderr.contains("\(input.path):5001:"), "\(made.stderr)")
            #expect(contents(of: folder) == ["lines.geojsons"])
        }
    }
}
