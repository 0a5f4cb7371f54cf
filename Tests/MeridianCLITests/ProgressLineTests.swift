import Foundation
import Testing

/// The progress line on a terminal ends with the run's true count as all of the work (100%),
/// not where the last tenth of a second's drawing fell or short of a bound counted against.
@Suite struct ProgressLineTests {
    /// What reaches a terminal that is both the standard output and the standard error of
    /// `meridian arguments` (util-linux's `script`, as `meridianOnTerminal`).
    static func terminalText(_ arguments: [String]) throws -> (status: Int32, text: String) {
        func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let probe = try run("script", ["-qec", "test -t 2", "/dev/null"])
        try #require(probe.status == 0, "script gives no terminal: \(probe.stderr)")
        let terminal = try run("script", ["-qec", ([meridianBinary] + arguments).map(quoted).joined(separator: " "), "/dev/null"])
        return (terminal.status, terminal.stdout)
    }

    /// The drawings of the progress line, in order (each starts with a carriage return and a clear).
    static func drawings(_ text: String) -> [String] {
        text.components(separatedBy: "\r\u{1B}[K").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    /// Issue 29: a raster tiled on a terminal: the last drawing is "N/N tiles (100%)", N the
    /// tiles the summary reports, where it stopped at the count of the last drawing against
    /// the bound (96%).
    @Test func tilingEndsAtAllOfItsTrueCount() throws {
        try withTemporaryFolder { folder in
            let (status, text) = try Self.terminalText(["tile", fixture("raster/RGB.byte.half.tif"), folder.appendingPathComponent("out").path, "--zoom", "6-10"])
            #expect(status == 0, "\(text)")
            let lines = Self.drawings(text)
            let summary = try #require(lines.last { $0.contains(" tiles, zoom ") }, "\(lines)")
            let count = try #require(summary.split(separator: ":").last?.split(separator: " ").first, "\(summary)")
            let last = try #require(lines.last { $0.contains(" tiles (") }, "\(lines)")
            #expect(last.hasPrefix("\(count)/\(count) tiles (100%)"), "\(lines)")
        }
    }

    /// A run of one tile at one zoom level says so ("1 tile, zoom 3", where it said "1 tiles,
    /// zoom 3-3"), for a raster and for vector tiles alike.
    @Test func oneTileAtOneLevelIsCountedInTheSingular() throws {
        try withTemporaryFolder { folder in
            let raster = folder.appendingPathComponent("raster").path
            let tiled = try meridian(["tile", fixture("raster/rgbsmall.tif"), raster, "--zoom", "3"])
            #expect(tiled.status == 0 && tiled.stderr.hasPrefix("\(raster): 1 tile, zoom 3, "), "\(tiled.stderr)")
            let vectors = folder.appendingPathComponent("vectors").path
            let cut = try meridian(["tile", packageRoot.appendingPathComponent("examples/data/lanai-harbours.geojson").path, vectors, "--zoom", "0"])
            #expect(cut.status == 0 && cut.stderr.hasPrefix("\(vectors): 1 vector tile, ") && cut.stderr.contains(", zoom 0, "), "\(cut.stderr)")
        }
    }

    /// A conversion's count is worded for one feature too ("1 feature", where it said "1 features").
    @Test func oneFeatureIsCountedInTheSingular() throws {
        try withTemporaryFolder { folder in
            let (status, text) = try Self.terminalText(["convert", fixture("coverage/cases/bay-area.geojson"), "-o", folder.appendingPathComponent("out.geojson").path])
            #expect(status == 0, "\(text)")
            let lines = Self.drawings(text)
            #expect(lines.contains { $0.hasPrefix("1 feature,") } && !lines.contains { $0.hasPrefix("1 features") }, "\(lines)")
        }
    }
}
