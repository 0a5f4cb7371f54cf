import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
import MeridianRaster
import MeridianTiles
import Synchronization

extension TilingJobRequest {
    /// Runs a level-by-level run (`produce` makes each level's tiles) as the request says: the
    /// run into the output (resumed when asked), one shard of it, or the joining of its shards.
    /// `started` is called once the output is open (from then on it holds what a resume
    /// continues: its resume state, or a shard's), before the first level. `completing` writes
    /// what else belongs to the finished tile set before the output is finished.
    func runByLevels(_ run: LevelTilingRun, format: TileFormat, metadata: (ClosedRange<Int>?) -> TileSetMetadata,
                     completing: (TileSetMetadata) throws -> Void = { _ in }, started: () -> Void,
                     produce: LevelTilingRun.Producer) throws -> LevelTilingOutcome {
        var mode = LevelTilingMode.run(resume: resume, replacing: replacesExistingFile)
        if finish { mode = .finish(count: shardCount) }
        if let shard { mode = .shard(shard, resume: resume) }
        return try run.run(into: output, format: format, scheme: scheme, mode: mode, metadata: metadata, completing: completing, opened: started,
                           produce: produce)
    }
}

extension TilingJobOutcome {
    /// The outcome of a level-by-level run, with `details` when it made tiles.
    init(_ outcome: LevelTilingOutcome, details: () -> LevelTilingDetails) {
        switch outcome {
        case .done(let summary): self = .levels(summary, details())
        case .shardAlreadyComplete(let shard): self = .shardAlreadyComplete(shard)
        case .alreadyJoined(let count): self = .alreadyJoined(count: count)
        }
    }
}

/// Vector data into Mapbox Vector Tiles: every input read once, one layer each, into a spill
/// on disk (where the attribute choices apply), then cut level by level by the `VectorTiler`.
struct VectorTilingRun {
    let request: TilingJobRequest

    func run(events: TilingJobEvents) throws -> TilingJobOutcome {
        TilingJob.useOneMallocArena()
        let output = request.output
        // Found before the run: a run that cannot write its page does not start.
        let mapLibre = request.viewer ? try VectorTileViewer.locateMapLibre(for: output) : nil
        let spill = try VectorFeatureSpill()
        spill.attributeFilter = request.vector.attributeFilter
        let inputs = VectorInputs(request: request)
        let layers = try inputs.read(diagnostics: events.diagnostics, startLayer: spill.startLayer) { try spill.append($0) }
        let zooms = layers.zooms
        let options = request.vector.tilingOptions(zooms: zooms)
        let identity = try LevelTilingRun.identity(kind: "vector tiles", inputs: request.inputs, settings: [("zoom", "\(zooms.lowerBound)-\(zooms.upperBound)")]
                                                   + request.layerNames.map { ("layer-name", $0) } + request.vector.identitySettings)
        // The layers the features went into (a feature's `tippecanoe` member may add one), with their fields.
        let fields = Dictionary(zip(spill.layerNames, spill.fields)) { _, last in last }
        let description = "\(inputs.fileNames), tiled by Meridian"
        // The levels tiled, from the asked ones' top to the deepest that holds tiles (levels
        // added while the deepest still dropped): `vector_layers` names them.
        let metadata = { (held: ClosedRange<Int>?) -> TileSetMetadata in
            let levels = zooms.lowerBound...max(zooms.upperBound, held?.upperBound ?? zooms.upperBound)
            return TileSetMetadata.vectorTiles(name: layers.names.joined(separator: ", "), description: description, bounds: layers.bounds, zooms: levels,
                                               layers: spill.layerNames.map { ($0, fields[$0] ?? [:]) })
        }
        let cut = Mutex(VectorTilingSummary())
        let jobs = request.threads
        // With extendZoomsIfStillDropping the run goes on to the deepest level a run may add; a
        // level below the asked ones is made only while the one above it still dropped.
        let deepest = options.extendZoomsIfStillDropping ? max(zooms.upperBound, VectorTilingOptions.deepestExtension) : zooms.upperBound
        // Whether each level made still dropped; a level a resumed run kept is made again, unstored, to know.
        let stillDropping = Mutex<[Int: Bool]>([:])
        func dropped(at zoom: Int) throws -> Bool {
            if let known = stillDropping.withLock({ $0[zoom] }) { return known }
            let again = try VectorTiler(features: spill, options: options).run(jobs: jobs, level: zoom) { _, _ in }.tilesOverLimit > 0
            stillDropping.withLock { $0[zoom] = again }
            return again
        }
        // The viewer is written before the output is finished: a run stopped (or failing) while
        // it is written keeps its resume state, and its resumption writes it again.
        let completing = { (finished: TileSetMetadata) in
            if let mapLibre { try VectorTileViewer.write(finishing: output, metadata: finished, scheme: request.scheme, mapLibre: mapLibre) }
        }
        let outcome = try request.runByLevels(LevelTilingRun(zooms: zooms.lowerBound...deepest, identity: identity), format: .mvt, metadata: metadata,
                                              completing: completing, started: events.levelsStarted) { zoom, shard, store in
            if zoom > zooms.upperBound, !(try dropped(at: zoom - 1)) {
                stillDropping.withLock { $0[zoom] = false }
                return 0
            }
            // Whether a level still dropped is the whole level's: with levels added while one
            // still drops, a shard makes the last levels whole (the tiles of other shards are
            // made, and left unstored). The threshold a level that may go over the limits is
            // thinned by is the whole level's too: the tiler makes the other shards' tiles
            // that may go over them, and leaves them unwritten.
            let tiler = VectorTiler(features: spill, options: options)
            let whole = options.extendZoomsIfStillDropping && zoom >= zooms.upperBound
            let level = try tiler.runStoringOnWorkers(jobs: jobs, level: zoom, shard: whole ? nil : shard, store)
            if whole || shard == nil { stillDropping.withLock { $0[zoom] = level.tilesOverLimit > 0 } }
            cut.withLock {
                $0.tilesOverLimit += level.tilesOverLimit
                $0.featuresDroppedForSize += level.featuresDroppedForSize
                $0.featuresCoalesced += level.featuresCoalesced
                $0.polygonsRepaired += level.polygonsRepaired
                $0.idsLeftOut = level.idsLeftOut
            }
            return level.tilesMadeForOtherShards
        }
        guard case .done = outcome else { return TilingJobOutcome(outcome) { LevelTilingDetails(kind: .vectorTiles, format: .mvt, inputCount: 0) } }
        let summary = cut.withLock { $0 }
        if summary.tilesOverLimit > 0 {
            let limits = options.limits
            let merged = summary.featuresCoalesced > 0 ? "\(summary.featuresCoalesced) features were merged into others and " : ""
            events.diagnostics(Diagnostic(.warning, "\(summary.tilesOverLimit) tiles lost features so that none is over \(limits.maximumBytes) bytes gzipped or \(limits.maximumFeatures) features (each zoom level thinned alike): \(merged)\(summary.featuresDroppedForSize) features were left out of them",
                                          at: SourceLocation(file: output)))
        }
        if summary.idsLeftOut > 0 {
            events.diagnostics(Diagnostic(.warning, "\(summary.idsLeftOut) feature ids are not whole numbers of 0 or more, which vector tiles cannot hold: left out",
                                          at: SourceLocation(file: request.inputs[0])))
        }
        return TilingJobOutcome(outcome) {
            LevelTilingDetails(kind: .vectorTiles, format: .mvt, inputCount: request.inputs.count, layerCount: spill.layerNames.count, cut: summary,
                               wroteViewer: mapLibre != nil)
        }
    }
}

/// Vector data drawn into PNG, JPEG or WebP tiles with its simplestyle properties: the
/// features spilled once, each level drawn by the job's `TileDrawing`, and encoded and stored
/// as a raster's tiles are.
struct DrawnTilingRun {
    let request: TilingJobRequest
    let drawing: any TileDrawing

    func run(events: TilingJobEvents) throws -> TilingJobOutcome {
        let spill = try FeatureSpill("tiles")
        let inputs = VectorInputs(request: request)
        let layers = try inputs.read(diagnostics: events.diagnostics, startLayer: { _ in }) { try spill.append($0) }
        try spill.close()
        let zooms = layers.zooms, format = request.tileFormat ?? .png, tileSize = request.pixelsPerTile, background = request.background
        let identity = try LevelTilingRun.identity(kind: "drawn vector data", inputs: request.inputs, settings: [
            ("zoom", "\(zooms.lowerBound)-\(zooms.upperBound)"), ("tile-format", format.rawValue), ("tile-size", "\(tileSize)"),
            ("background", background?.css ?? "none")] + request.outputFields)
        let description = "\(inputs.fileNames), drawn by Meridian"
        let metadata = { (held: ClosedRange<Int>?) in
            TileSetMetadata(name: layers.names.joined(separator: ", "), format: format, bounds: layers.bounds, minZoom: (held ?? zooms).lowerBound,
                            maxZoom: (held ?? zooms).upperBound, tileSize: tileSize, description: description)
        }
        let encoder = DrawnTileEncoder(format: format, tileSize: tileSize, background: background)
        let (jobs, drawing, diagnostics) = (request.threads, drawing, events.diagnostics)
        // The viewer and the KML super-overlay are written before the output is finished: a run
        // stopped (or failing) while they are written keeps its resume state, and its
        // resumption writes them again.
        var kml: KMLSuperOverlay.Written?
        let completing = { (finished: TileSetMetadata) in
            if request.viewer { try TileViewer.write(folder: request.output, metadata: finished, scheme: request.scheme) }
            kml = try request.writeKML(finished)
        }
        let outcome = try request.runByLevels(LevelTilingRun(zooms: zooms, identity: identity), format: format, metadata: metadata,
                                              completing: completing, started: events.levelsStarted) { zoom, shard, store in
            try drawing.drawLevel(spill: spill, zoom: zoom, tileSize: tileSize, jobs: jobs, shard: shard, warnings: diagnostics) { tile, rgba in
                if let bytes = try encoder.encoded(tile, rgba: rgba) { try store(tile, bytes) }
            }
            return 0
        }
        return TilingJobOutcome(outcome) { LevelTilingDetails(kind: .drawnVectors, format: format, inputCount: request.inputs.count, kml: kml) }
    }
}
