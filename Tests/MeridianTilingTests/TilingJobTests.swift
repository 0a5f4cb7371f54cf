import Foundation
import MeridianCore
import MeridianGeometry
@testable import MeridianRaster
import MeridianTestSupport
import MeridianTiles
import MeridianTiling
import MeridianFormats
import Testing

/// Every tile file (`z/x/y.ext`) under a folder, by its path, with its bytes.
private func tiles(in folder: String) -> [String: Data] {
    var found: [String: Data] = [:]
    for case let path as String in FileManager.default.enumerator(atPath: folder)! {
        let parts = path.split(separator: "/")
        if parts.count == 3, Int(parts[0]) != nil, !parts[2].hasPrefix("."), let bytes = FileManager.default.contents(atPath: "\(folder)/\(path)") {
            found[path] = bytes
        }
    }
    return found
}

/// Draws, at every level, opaque red tiles (the level's first `perLevel`, along its top row;
/// only the shard's when given, as the helper does): drawn tiles without cairo.
private struct RedCorner: TileDrawing {
    var perLevel = 1

    func drawLevel(spill: FeatureSpill, zoom: Int, tileSize: Int, jobs: Int, shard: TileShardOwnership?, warnings: DiagnosticHandler?,
                   store: @escaping @Sendable (MapTile, [UInt8]) throws -> Void) throws {
        #expect(spill.descriptor >= 0)
        let red = [UInt8](repeating: 0, count: tileSize * tileSize * 4).enumerated().map { $0.offset % 4 == 0 || $0.offset % 4 == 3 ? UInt8(255) : 0 }
        for x in 0..<min(perLevel, 1 << zoom) where shard?.owns(MapTile(zoom: zoom, x: x, y: 0)) ?? true {
            try store(MapTile(zoom: zoom, x: x, y: 0), red)
        }
    }
}

/// The tiling job called as a library, without any executable.
@Suite struct TilingJobTests {
    let polygons = fixture("geojson/viewer-polygons.geojson")

    @Test func rasterRunMakesTheTilerTiles() throws {
        try withTemporaryFolderPath { folder in
            var request = TilingJobRequest(inputs: [fixture("raster/rgbsmall.tif")], output: folder + "/job", jobs: 2)
            request.zooms = 10...12
            let job = TilingJob(request)
            #expect(try job.kind() == .rasters)
            var opened = 0
            var events = TilingJobEvents()
            events.rastersOpened = { opened = $0.sources.count }
            guard case .rasters(let summary, nil) = try job.run(events: events) else { Issue.record("not a raster run"); return }
            #expect(opened == 1)
            let made = tiles(in: folder + "/job")
            #expect(summary.tileCount == made.count && !made.isEmpty)
            #expect(FileManager.default.fileExists(atPath: folder + "/job/metadata.json"))
            // The same tiles, byte for byte, as the tiler run directly on the raster.
            let tiler = try Tiler(source: try RasterSource(path: fixture("raster/rgbsmall.tif")), options: TilingOptions(zooms: 10...12, jobs: 2))
            _ = try tiler.run(into: try FolderTileSink(path: folder + "/direct", scheme: .xyz, format: .png, resume: false, identity: tiler.identity()))
            #expect(tiles(in: folder + "/direct") == made)
        }
    }

    @Test func vectorRunMakesVectorTilesWithTheirLayer() throws {
        try withTemporaryFolderPath { folder in
            var request = TilingJobRequest(inputs: [polygons], output: folder + "/vt", jobs: 2)
            request.zooms = 0...3
            request.layerNames = ["areas"]
            let job = TilingJob(request)
            #expect(try job.kind() == .vectorTiles)
            guard case .levels(let summary, let details) = try job.run() else { Issue.record("not a level run"); return }
            #expect(details.kind == .vectorTiles && details.layerCount == 1 && details.format == .mvt)
            #expect(summary.written == tiles(in: folder + "/vt").count && summary.written > 0)
            let metadata = try String(contentsOfFile: folder + "/vt/metadata.json", encoding: .utf8)
            #expect(metadata.contains("\"areas\""))
            guard case .levels(let plan) = try job.plan() else { Issue.record("not a level plan"); return }
            #expect(plan.zooms == [0, 3] && plan.tiles >= summary.written)
        }
    }

    @Test func vectorShardsJoinedAreTheWholeRun() throws {
        try withTemporaryFolderPath { folder in
            var request = TilingJobRequest(inputs: [polygons], output: folder + "/whole", jobs: 1)
            request.zooms = 0...4
            _ = try TilingJob(request).run()
            request.output = folder + "/sharded"
            for index in 0..<2 {
                request.shard = TileShard("\(index)/2")
                guard case .levels = try TilingJob(request).run() else { Issue.record("shard \(index) made nothing"); return }
            }
            request.shard = nil
            request.finish = true
            guard case .levels = try TilingJob(request).run() else { Issue.record("the shards were not joined"); return }
            guard case .alreadyJoined(count: 2) = try TilingJob(request).run() else { Issue.record("joined twice"); return }
            #expect(tiles(in: folder + "/sharded") == tiles(in: folder + "/whole"))
        }
    }

    @Test func drawnRunStoresWhatTheDrawingDraws() throws {
        try withTemporaryFolderPath { folder in
            var request = TilingJobRequest(inputs: [polygons], output: folder + "/drawn", jobs: 1)
            request.zooms = 1...2
            request.tileFormat = .png
            #expect(throws: TilingJobError.noDrawing) { try TilingJob(request).run() }
            let job = TilingJob(request, drawing: RedCorner())
            #expect(try job.kind() == .drawnVectors)
            guard case .levels(let summary, let details) = try job.run() else { Issue.record("not a level run"); return }
            #expect(details.kind == .drawnVectors && summary.written == 2)
            #expect(Set(tiles(in: folder + "/drawn").keys) == ["1/0/0.png", "2/0/0.png"])
        }
    }

    /// A raster run with excluded values tiles as the tiler given them does, and its KML
    /// super-overlay is written by the job and counted in its outcome.
    @Test func rasterRunWithExcludedValuesAndKML() throws {
        try withTemporaryFolderPath { folder in
            let margin = fixture("raster/white-margin.tif")
            let excluded = try #require(ExcludedValues(colours: [RGB(255, 255, 255)], thresholdPercent: 60))
            var request = TilingJobRequest(inputs: [margin], output: folder + "/job", jobs: 2)
            request.zooms = 0...2
            request.kml = true
            request.raster.excludedValues = excluded
            guard case .rasters(let summary, let kml?) = try TilingJob(request).run() else { Issue.record("no raster run with KML"); return }
            let made = tiles(in: folder + "/job")
            let images = made.filter { $0.key.hasSuffix(".png") }
            #expect(kml.tileFiles == summary.tileCount && kml.tileFiles == images.count && kml.roots >= 1)
            #expect(made.keys.filter { $0.hasSuffix(".kml") }.count == images.count)
            #expect(FileManager.default.fileExists(atPath: folder + "/job/doc.kml"))
            // The tiler's tiles with those excluded values, which are not the tiles without them.
            for (name, excludedValues) in [("direct", Optional(excluded)), ("plain", nil)] {
                let tiler = try Tiler(source: try RasterSource(path: margin), options: TilingOptions(zooms: 0...2, jobs: 2, excludedValues: excludedValues))
                _ = try tiler.run(into: try FolderTileSink(path: folder + "/" + name, scheme: .xyz, format: .png, resume: false, identity: tiler.identity()))
            }
            #expect(tiles(in: folder + "/direct") == images)
            #expect(tiles(in: folder + "/plain") != images)
        }
    }

    /// Drawn tiles get a KML beside each; a shard draws only its own tiles and writes no KML,
    /// and the joined shards are the whole run, KML included.
    @Test func drawnShardsAndKML() throws {
        try withTemporaryFolderPath { folder in
            var request = TilingJobRequest(inputs: [polygons], output: folder + "/whole", jobs: 1)
            (request.zooms, request.tileFormat, request.kml) = (8...9, .png, true)
            let drawing = RedCorner(perLevel: 64)
            guard case .levels(let whole, let details) = try TilingJob(request, drawing: drawing).run() else { Issue.record("not a level run"); return }
            #expect(whole.written == 128 && details.kml?.tileFiles == 128 && details.kml?.roots == 64)
            request.output = folder + "/sharded"
            var written = 0
            for index in 0..<2 {
                request.shard = TileShard("\(index)/2")
                guard case .levels(let shard, let details) = try TilingJob(request, drawing: drawing).run() else { Issue.record("shard \(index)"); return }
                #expect(details.kml == nil && shard.made == shard.written && shard.written < 128)
                written += shard.written
            }
            #expect(written == 128)
            #expect(!FileManager.default.fileExists(atPath: folder + "/sharded/doc.kml"))
            request.shard = nil
            request.finish = true
            guard case .levels = try TilingJob(request, drawing: drawing).run() else { Issue.record("the shards were not joined"); return }
            #expect(tiles(in: folder + "/sharded") == tiles(in: folder + "/whole"))
            #expect(FileManager.default.contents(atPath: folder + "/sharded/doc.kml") == FileManager.default.contents(atPath: folder + "/whole/doc.kml"))
        }
    }

    @Test func requestsThatCannotRunAreRefused() throws {
        try withTemporaryFolderPath { folder in
            let mixed = TilingJobRequest(inputs: [fixture("raster/rgbsmall.tif"), polygons], output: folder + "/out", jobs: 1)
            #expect(throws: TilingJobError.mixedInputs) { try TilingJob(mixed).kind() }
            var raster = TilingJobRequest(inputs: [fixture("raster/rgbsmall.tif")], output: folder + "/out", jobs: 1)
            raster.tileFormat = .mvt
            #expect(throws: TilingJobError.notVectorData(fixture("raster/rgbsmall.tif"))) { try TilingJob(raster).kind() }
            var names = TilingJobRequest(inputs: [polygons], output: folder + "/out", jobs: 1)
            names.layerNames = ["one", "two"]
            #expect(throws: TilingJobError.layerNameCount(given: 2, inputs: 1)) { try TilingJob(names).run() }
            #expect(TilingJobError.layerNameCount(given: 2, inputs: 1).kind == .usage)
            for output in [folder + "/out.mbtiles", folder + "/out.pmtiles"] {
                var kml = TilingJobRequest(inputs: [fixture("raster/rgbsmall.tif")], output: output, jobs: 1)
                kml.kml = true
                #expect(throws: TilingJobError.kmlNeedsFolderOfImages) { try TilingJob(kml).run() }
                #expect(!FileManager.default.fileExists(atPath: output))
            }
            var vectorKML = TilingJobRequest(inputs: [polygons], output: folder + "/out", jobs: 1)
            vectorKML.kml = true
            // A super-overlay lays image tiles on the globe: vector tiles refuse the choice.
            #expect(throws: TilingJobError.choiceNotApplying(.kml, .vectorTiles)) { try TilingJob(vectorKML).run() }
            #expect(!FileManager.default.fileExists(atPath: folder + "/out"))
        }
    }
}

/// What the tiling job's summaries say, in words.
@Suite struct TilingJobTextTests {
    /// The super-overlay's summary names the folder's doc.kml however the folder was typed
    /// (`out/` gave `out//doc.kml`).
    @Test(arguments: [("out", "out/doc.kml"), ("out/", "out/doc.kml"), ("a/out//", "a/out/doc.kml"), ("/", "/doc.kml")])
    func kmlSummaryNamesDocKML(_ output: String, _ expected: String) {
        let text = TilingJobText.kml(KMLSuperOverlay.Written(tileFiles: 16, roots: 1), output: output)
        #expect(text == "\(expected): KML super-overlay, 16 tile KML files, 1 linked from doc.kml")
    }

    /// A slow run's rate keeps a decimal (3 tiles in 11.8 s said `0 tiles/s`); a fast one's is whole.
    @Test func slowRatesKeepADecimal() {
        #expect(TilingJobText.progress(done: 3, total: 12, seconds: 11.8).hasPrefix("3/12 tiles (25%), 0.3 tiles/s, ETA"))
        #expect(TilingJobText.progress(done: 912, total: 1000, seconds: 2).hasPrefix("912/1000 tiles (91%), 456 tiles/s"))
        #expect(TilingJobText.progress(done: 996, total: 2000, seconds: 100).hasPrefix("996/2000 tiles (49%), 10 tiles/s"))
        #expect(TilingJobText.progress(done: 0, total: 10, seconds: 1) == "0/10 tiles (0%), 0.0 tiles/s")
    }
}
