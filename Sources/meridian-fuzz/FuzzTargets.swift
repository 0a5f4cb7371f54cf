import MeridianCoverage
import MeridianFormats
import MeridianGeometry
import MeridianRaster

/// The parsers a stranger's file reaches, each as a function from bytes to "read it all or
/// throw": a crash, a hang or a trap in any of them is a finding. Errors are expected (most
/// fuzz inputs are broken); only the way a parser fails is under test.
enum FuzzTargets {
    static let all: [String: @Sendable ([UInt8]) -> Void] = [
        "geojson": { read($0, format: "geojson") },
        "geojsonseq": { read($0, format: "geojsonseq") },
        "kml": { read($0, format: "kml") },
        "kmz": { read($0, format: "kmz") },
        "gpx": { read($0, format: "gpx") },
        "wkt": { read($0, format: "wkt") },
        "wkb": { read($0, format: "wkb") },
        "csv": { read($0, format: "csv") },
        "coverage": { bytes in _ = CoverageValidator().validate(bytes: bytes, name: "fuzz.geojson") },
        // A tiling run's state, a shard's frontier, a shard's or a joined run's mark (the seeds' run).
        "tiling-state": { bytes in _ = try? TilingStateFile.completedBlocks(String(decoding: bytes, as: UTF8.self), identity: seedRun,
                                                                           output: "fuzz", file: "fuzz") },
        "shard-frontier": { bytes in _ = try? FrontierFile.tileCount(bytes, path: "fuzz", charts: 3, tileSize: 4, colorChannels: 3) },
        "shard-mark": { bytes in _ = WorkMark.holds(text: String(decoding: bytes, as: UTF8.self), identity: seedRun) },
    ]

    /// The run the state seeds (Tests/Fixtures/fuzz-seeds/tiling-state, shard-mark) record.
    static let seedRun = TilingRunIdentity(lines: ["input /fuzz/chart.tif", "zoom 0-5", "tile-format png"])

    static func read(_ bytes: [UInt8], format: String) {
        do {
            let reader = try FormatRegistry.standard.format(named: format).reader(for: BufferedInput(bytes: bytes, name: "fuzz"))
            _ = try reader.readMetadata()
            while try reader.next() != nil {}
        } catch {}
    }
}
