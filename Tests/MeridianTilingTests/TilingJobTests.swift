import Foundation
import MeridianCore
import MeridianGeometry
import MeridianRaster
import MeridianTestSupport
import MeridianTiling
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

/// Draws, at every level, one opaque red tile (the level's first): drawn tiles without cairo.
private struct RedCorner: TileDrawing {
    func drawLevel(spill: String, zoom: Int, tileSize: Int, jobs: Int, warnings: DiagnosticHandler?,
                   store: @escaping @Sendable (MapTile, [UInt8]) throws -> Void) throws {
        #expect(FileManager.default.fileExists(atPath: spill))
        try store(MapTile(zoom: zoom, x: 0, y: 0), [UInt8](repeating: 0, count: tileSize * tileSize * 4).enumerated().map { $0.offset % 4 == 0 || $0.offset % 4 == 3 ? 255 : 0 })
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
            guard case .rasters(let summary) = try job.run(events: events) else { Issue.record("not a raster run"); return }
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
            #expect(!FileManager.default.fileExists(atPath: folder + "/out"))
        }
    }
}
