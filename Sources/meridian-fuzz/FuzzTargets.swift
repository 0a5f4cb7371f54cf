import Foundation
import GDALSupport
import MeridianCoverage
import MeridianFormats
import MeridianGeometry
import MeridianTiles
import MeridianRaster

/// The parsers a stranger's file reaches, each as a function from bytes to "read it all or
/// throw": a crash, a hang or a trap in any of them is a finding. Errors are expected (most
/// fuzz inputs are broken); only the way a parser fails is under test.
enum FuzzTargets {
    /// Every target by name: one per format the registry reads, then the other parsers.
    static let all: [String: @Sendable ([UInt8]) -> Void] = readers.merging(others) { reader, _ in reader }

    /// One target per format the registry reads, named by the format's id: a format added to
    /// the registry is fuzzed from then on, with nothing to add here.
    static let readers: [String: @Sendable ([UInt8]) -> Void] = Dictionary(uniqueKeysWithValues: FormatRegistry.standard.readable.map { format in
        (format.id, { @Sendable bytes in read(bytes, format: format) })
    })

    /// The parsers that are not a format's reader.
    static let others: [String: @Sendable ([UInt8]) -> Void] = [
        "coverage": { bytes in _ = CoverageValidator().validate(bytes: bytes, name: "fuzz.geojson") },
        "mvt": { bytes in _ = try? VectorTile(decoding: bytes) },
        "pmtiles": { readPyramidFile($0, suffix: ".pmtiles") },
        "mbtiles": { readPyramidFile($0, suffix: ".mbtiles") },
        "tile-folder": { readTileFolder(metadataJSON: $0) },
        // A tiling run's state, a shard's frontier, a shard's or a joined run's mark (the seeds' run).
        "tiling-state": { bytes in _ = try? TilingStateFile.completedBlocks(String(decoding: bytes, as: UTF8.self), identity: seedRun,
                                                                           output: "fuzz", file: "fuzz") },
        "shard-frontier": { bytes in _ = try? FrontierFile.tileCount(bytes, path: "fuzz", charts: 3, tileSize: 4, colorChannels: 3) },
        "shard-mark": { bytes in _ = WorkMark.holds(text: String(decoding: bytes, as: UTF8.self), identity: seedRun) },
        // A QGIS control-point file, its #CRS line through GDAL's spatial references.
        "points": { bytes in _ = try? ControlPointFile(bytes: bytes, path: "fuzz.points") },
        // A GDAL VRT's sources, checked before GDAL opens it (through GDAL's own XML parser).
        "vrt": { checkVRT($0) },
    ]

    /// The bytes as a VRT in a folder of its own (with one file beside it a source may name),
    /// checked as `tile` and `convert` check one before GDAL opens it.
    static func checkVRT(_ bytes: [UInt8]) {
        let folder = NSTemporaryDirectory() + "/meridian-fuzz-vrt-\(getpid())"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: folder + "/image.tif") { FileManager.default.createFile(atPath: folder + "/image.tif", contents: Data()) }
        guard FileManager.default.createFile(atPath: folder + "/fuzz.vrt", contents: Data(bytes)) else { return }
        _ = try? VRTSources.check(folder + "/fuzz.vrt", name: "fuzz.vrt")
    }

    /// The argument that lists the targets instead of running one.
    static let listOption = "--list-targets"

    /// Prints the targets' names, sorted, one a line.
    static func printNames() {
        let out = OutputSink.standardOutput()
        for name in all.keys.sorted() { out.write(name + "\n") }
        try? out.flush()
    }

    /// The run the state seeds (Tests/Fixtures/fuzz-seeds/tiling-state, shard-mark) record.
    static let seedRun = TilingRunIdentity(lines: ["input /fuzz/chart.tif", "zoom 0-5", "tile-format png"])

    static func read(_ bytes: [UInt8], format: FeatureFormat) {
        do {
            let reader = try format.reader(for: BufferedInput(bytes: bytes, name: "fuzz"))
            _ = try reader.readMetadata()
            while try reader.next() != nil {}
        } catch {}
    }

    /// Tile archives are read from a path: the bytes go to a scratch file of the archive's
    /// extension, which is then read as `meridian tile-copy` and `convert --zoom` read it.
    static func readPyramidFile(_ bytes: [UInt8], suffix: String) {
        guard let scratch = try? ScratchFile(copying: BufferedInput(bytes: bytes, name: "fuzz"), as: "fuzz", suffix: suffix) else { return }
        readPyramid(scratch.path)
    }

    /// A tile folder whose metadata.json is the bytes, holding one tile at 0/0/0 (a vector
    /// tile's bytes, or an image's: the format is what the metadata says).
    static func readTileFolder(metadataJSON bytes: [UInt8]) {
        let folder = NSTemporaryDirectory() + "/meridian-fuzz-folder-\(getpid())"
        try? FileManager.default.createDirectory(atPath: folder + "/0/0", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: folder + "/metadata.json", contents: Data(bytes))
        for format in ["pbf", "png"] { FileManager.default.createFile(atPath: folder + "/0/0/0.\(format)", contents: Data()) }
        readPyramid(folder)
    }

    /// Everything a pyramid's reader offers: its summary (`meridian info`), its metadata, its
    /// tile addresses, each tile (inflated, and decoded when a vector tile).
    static func readPyramid(_ path: String) {
        _ = try? TilePyramids.summary(path)
        do {
            let pyramid = try TilePyramids.open(path)
            let metadata = try pyramid.pyramidMetadata()
            _ = try pyramid.zoomLevels()
            _ = try pyramid.statedCenter()
            for tile in try pyramid.tileAddresses(zooms: nil).prefix(64) {
                if metadata.format == .mvt { _ = try pyramid.vectorTile(tile) } else { _ = try pyramid.uncompressedTile(tile) }
            }
        } catch {}
    }
}
