import CGDAL
#if canImport(CMalloc)
import CMalloc
#endif
import Foundation
import GDALSupport
import MeridianCommandLine
import MeridianCore
import MeridianFormats
import MeridianGeometry
import MeridianOGR
import MeridianRaster
import MeridianTiles
import Synchronization

/// `meridian tile` for vector data: Mapbox Vector Tiles, one layer per input, or image tiles of
/// the features drawn as `meridian render` draws them (`--tile-format png`, `jpeg` or `webp`).
extension Tile {
    /// Whether `path` is vector data to tile (not a raster, a GroundOverlay or a folder of them).
    static func isVector(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else { return false }
        // Any format the registry reads, as `readLayers` reads it; KML and KMZ unless they hold a GroundOverlay.
        if let format = FormatRegistry.standard.knownFormat(forPath: path), format.canRead {
            return format == .kml || format == .kmz ? !RasterSource.holdsGroundOverlay(path) : true
        }
        GDAL.setUp()
        return GDALIdentifyDriverEx(path, UInt32(GDAL_OF_RASTER), nil, nil) == nil
            && GDALIdentifyDriverEx(path, UInt32(GDAL_OF_VECTOR), nil, nil) != nil
    }

    /// Whether this run tiles vector data: `--tile-format mvt`, or inputs that are all vector data.
    func isVectorRun(_ inputs: [String]) throws -> Bool {
        let vector = inputs.map(Self.isVector)
        if tileFormatChoice == .mvt || (!vector.isEmpty && vector.allSatisfy { $0 }) {
            if let raster = zip(inputs, vector).first(where: { !$0.1 })?.0 {
                throw MeridianError(.usage, "vector tiles are made of vector data, and this is not: \(raster)",
                                    hint: "tile rasters with --tile-format png, jpeg or webp, vector data with mvt")
            }
            return true
        }
        if vector.contains(true) {
            throw MeridianError(.usage, "the inputs mix rasters and vector data; tile each kind on its own")
        }
        return false
    }

    /// Reads every input once, in order, one layer each: `startLayer` is called with each
    /// input's layer name before `each` sees its features. Returns the layer names, the bounds
    /// of all the features and the zooms their detail calls for (`--zoom` when given).
    func readLayers(_ inputs: [String], reporter: Reporter, startLayer: (String) -> Void = { _ in },
                    each: (MeridianGeometry.Feature) throws -> Void) throws -> (names: [String], bounds: BoundingBox, zooms: ClosedRange<Int>) {
        guard layerNames.isEmpty || layerNames.count == inputs.count else {
            throw MeridianError(.usage, "give --layer-name once per input (\(inputs.count)), not \(layerNames.count) times")
        }
        let messages = reporter
        var names: [String] = []
        var bounds = BoundingBox.Accumulator()
        var zoomGuess = ZoomGuess()
        for (index, path) in inputs.enumerated() {
            let reader: any FeatureReader = FormatRegistry.standard.knownFormat(forPath: path) != nil
                ? try FeatureInput(path: path, options: ReadOptions(coordinates: .geographic(for: "tiles"))).reader
                : try OGRReader(path: path, diagnostics: { messages.report($0) })
            _ = try reader.readMetadata()
            let name = layerNames.isEmpty ? ((path as NSString).lastPathComponent as NSString).deletingPathExtension : layerNames[index]
            names.append(name)
            startLayer(name)
            var droppedPositionData: Set<String> = []
            defer {
                // A tile holds each feature cut and simplified its own way: arrays per position would not fit.
                if !droppedPositionData.isEmpty {
                    messages.report(.positionDataDropped(droppedPositionData.sorted(), "have no place in vector tiles", at: SourceLocation(file: path)))
                }
            }
            while var feature = try reader.next() {
                droppedPositionData.formUnion(feature.removePositionData())
                if let geometry = feature.geometry {
                    geometry.forEachPosition { bounds.add($0) }
                    if zoom?.levels == nil { zoomGuess.add(geometry) }
                }
                try each(feature)
            }
        }
        return (names, bounds.result ?? BoundingBox(west: -180, south: -85, east: 180, north: 85), zoom?.levels ?? zoomGuess.zooms)
    }

    /// Reads every input once, one layer each, into a spill on disk, and writes its vector tiles.
    func tileVectors(_ inputs: [String], reporter: inout Reporter) throws {
        let start = Date()
        Self.useOneMallocArena()
        // Kept to the end of the process: a run stopped by a signal (reading included) prints how to go on as it exits.
        if !quiet && !plan { TemporaryFiles.setInterruptionNote(resumeNote) }
        // Found before the run: a run that cannot write its page does not start.
        let mapLibre = viewer && !plan ? try VectorTileViewer.locateMapLibre(for: output) : nil
        let spill = try VectorFeatureSpill()
        spill.attributeFilter = selection.attributeFilter
        let (names, bounds, zooms) = try readLayers(inputs, reporter: reporter, startLayer: spill.startLayer) { try spill.append($0) }
        if plan { return print(try Self.levelPlanText(bounds: bounds, zooms: zooms, format: planFormat), terminator: "") }
        let options = selection.tilingOptions(zooms: zooms)
        let identity = try LevelTilingRun.identity(kind: "vector tiles", inputs: inputs, settings: [("zoom", "\(zooms.lowerBound)-\(zooms.upperBound)")]
                                                   + layerNames.map { ("layer-name", $0) } + selection.identitySettings)
        // The layers the features went into (a feature's `tippecanoe` member may add one), with their fields.
        let fields = Dictionary(zip(spill.layerNames, spill.fields)) { _, last in last }
        let description = "\(inputs.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")), tiled by Meridian"
        // The levels tiled, from the asked ones' top to the deepest that holds tiles (levels
        // added while the deepest still dropped): `vector_layers` names them.
        let metadata = { (held: ClosedRange<Int>?) -> TileSetMetadata in
            let levels = zooms.lowerBound...max(zooms.upperBound, held?.upperBound ?? zooms.upperBound)
            return TileSetMetadata.vectorTiles(name: names.joined(separator: ", "), description: description, bounds: bounds, zooms: levels,
                                               layers: spill.layerNames.map { ($0, fields[$0] ?? [:]) })
        }
        let cut = Mutex(VectorTilingSummary())
        let jobs = jobs ?? ProcessInfo.processInfo.activeProcessorCount
        // With --extend-zooms-if-still-dropping the run goes on to the deepest level a run may
        // add; a level below the asked ones is made only while the one above it still dropped.
        let deepest = options.extendZoomsIfStillDropping ? max(zooms.upperBound, VectorTilingOptions.deepestExtension) : zooms.upperBound
        // Whether each level made still dropped; a level a resumed run kept is made again, unstored, to know.
        let stillDropping = Mutex<[Int: Bool]>([:])
        func dropped(at zoom: Int) throws -> Bool {
            if let known = stillDropping.withLock({ $0[zoom] }) { return known }
            let again = try VectorTiler(features: spill, options: options).run(jobs: jobs, level: zoom) { _, _ in }.tilesOverLimit > 0
            stillDropping.withLock { $0[zoom] = again }
            return again
        }
        guard let stored = try runByLevels(LevelTilingRun(zooms: zooms.lowerBound...deepest, identity: identity), metadata: metadata, produce: { zoom, shard, store in
            if zoom > zooms.upperBound, !(try dropped(at: zoom - 1)) {
                stillDropping.withLock { $0[zoom] = false }
                return
            }
            // Whether a level still dropped is the whole level's, and so is the threshold a level
            // that may go over the limits is thinned by: a shard makes such levels whole (the
            // tiles of other shards are made, and left unstored).
            let tiler = VectorTiler(features: spill, options: options)
            let whole = try options.extendZoomsIfStillDropping && zoom >= zooms.upperBound
                || shard != nil && tiler.levelMayExceedLimits(zoom: zoom)
            let level = try tiler.run(jobs: jobs, level: zoom, shard: whole ? nil : shard) { try store($0, $1) }
            if whole || shard == nil { stillDropping.withLock { $0[zoom] = level.tilesOverLimit > 0 } }
            cut.withLock {
                $0.tilesOverLimit += level.tilesOverLimit
                $0.featuresDroppedForSize += level.featuresDroppedForSize
                $0.featuresCoalesced += level.featuresCoalesced
                $0.polygonsRepaired += level.polygonsRepaired
                $0.idsLeftOut = level.idsLeftOut
            }
        }) else { return }
        if let mapLibre { try writingViewer(tiles: stored.written + stored.kept) { try VectorTileViewer.write(folder: output, mapLibre: mapLibre) } }
        let summary = cut.withLock { $0 }
        if summary.tilesOverLimit > 0 {
            let limits = options.limits
            let merged = summary.featuresCoalesced > 0 ? "\(summary.featuresCoalesced) features were merged into others and " : ""
            reporter.report(Diagnostic(.warning, "\(summary.tilesOverLimit) tiles lost features so that none is over \(limits.maximumBytes) bytes or \(limits.maximumFeatures) features (each zoom level thinned alike): \(merged)\(summary.featuresDroppedForSize) features were left out of them",
                                       at: SourceLocation(file: output)))
        }
        if summary.idsLeftOut > 0 {
            reporter.report(Diagnostic(.warning, "\(summary.idsLeftOut) feature ids are not whole numbers of 0 or more, which vector tiles cannot hold: left out",
                                       at: SourceLocation(file: inputs[0])))
        }
        if !quiet {
            let repaired = summary.polygonsRepaired == 0 ? "" : ", \(summary.polygonsRepaired) polygons made valid after snapping"
            let page = mapLibre == nil ? "" : ", index.html shows them"
            Reporter.printError(levelSummaryText(stored, what: "vector tile", extra: ", \(spill.layerNames.count) layer\(spill.layerNames.count == 1 ? "" : "s")\(repaired)\(page)", start: start))
        }
    }

    /// Runs a level-by-level run (`produce` makes each level's tiles) as the options say: the
    /// run into the output (resumed with --resume), one shard of it (--shard), or the joining of
    /// its shards (--finish); nil (said) when there was nothing to do.
    func runByLevels(_ run: LevelTilingRun, metadata: (ClosedRange<Int>?) -> TileSetMetadata,
                     produce: LevelTilingRun.Producer) throws -> LevelTilingSummary? {
        var mode = LevelTilingMode.run(resume: resume)
        if finish { mode = .finish(count: shards) }
        if let shard {
            let shard = try resolvedShard(shard)
            if let shards, shards != shard.count { throw MeridianError(.usage, "--shards \(shards) disagrees with --shard \(shard)") }
            mode = .shard(shard, resume: resume)
        }
        switch try run.run(into: output, format: tileFormat, scheme: rows, mode: mode, metadata: metadata, produce: produce) {
        case .done(let summary): return summary
        case .shardAlreadyComplete(let shard):
            if !quiet { Reporter.printError("\(output): shard \(shard) has already completed; nothing to do") }
        case .alreadyJoined(let count):
            if !quiet { Reporter.printError("\(output): the \(count) shards were joined already; nothing to do") }
        }
        return nil
    }

    /// What a level-by-level run prints when done: the tiles written (and kept, resumed; or a
    /// shard's, or that the shards were joined).
    func levelSummaryText(_ summary: LevelTilingSummary, what: String, extra: String, start: Date) -> String {
        let time = String(format: "%.1f s", Date().timeIntervalSince(start)), zooms = "zoom \(summary.zooms.lowerBound)-\(summary.zooms.upperBound)"
        if finish { return "\(output): shards joined; \(zooms), \(time)" }
        if let shard { return "\(output): shard \(shard): \(summary.written) tiles written (\(summary.made) made), \(time)" }
        let count = summary.written + summary.kept
        let kept = resume ? " (\(summary.written) written now, \(summary.kept) kept from the interrupted run)" : ""
        return "\(output): \(count) \(what)\(count == 1 ? "" : "s")\(kept)\(extra), \(zooms), \(time)"
    }

    /// `--plan` of vector data: the tiles at most at each level, as a table or JSON.
    static func levelPlanText(bounds: BoundingBox, zooms: ClosedRange<Int>, format: PlanFormat) throws -> String {
        let plan = LevelTilingRun.plan(bounds: bounds, zooms: zooms)
        if format == .json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            return String(decoding: try encoder.encode(plan), as: UTF8.self) + "\n"
        }
        var lines = ["zoom  tiles"]
        for zoom in zooms {
            let level = "\(zoom)"
            lines.append(level + String(repeating: " ", count: max(0, 4 - level.count)) + "  \(plan.tilesPerZoom[level] ?? 0)")
        }
        lines += ["", "\(plan.tiles) tiles at most, over the data's bounds, zoom \(zooms.lowerBound)-\(zooms.upperBound)"]
        return lines.joined(separator: "\n") + "\n"
    }
}

extension Tile {
    /// Makes glibc's malloc serve every thread from one arena. Each level's pieces are made and
    /// freed on the worker threads; with an arena per thread (glibc's default) the freed memory
    /// of one level lies spread over the arenas and the next level grows them again: zoom 0-8 of
    /// the countries peaked at 114 MB, and at 94 MB with one arena, in the same user time.
    /// Called before the run's threads start (malloc's settings are the process's).
    static func useOneMallocArena() {
        #if canImport(Glibc) && canImport(CMalloc)
        _ = mallopt(M_ARENA_MAX, 1)
        #endif
    }

    /// Draws the features of every input (in order, the first underneath) into PNG, JPEG or
    /// WebP tiles with their simplestyle properties, as `meridian render` draws them: drawn by
    /// `meridian-draw tiles` (cairo stays out of this process) level by level, encoded and
    /// stored as a raster's tiles are, into a folder (with `--viewer`), MBTiles or PMTiles.
    func drawVectors(_ inputs: [String], reporter: inout Reporter) throws {
        let start = Date()
        if !quiet && !plan { TemporaryFiles.setInterruptionNote(resumeNote) }
        let spill = try FeatureSpill("tiles")
        let (names, bounds, zooms) = try readLayers(inputs, reporter: reporter) { try spill.append($0) }
        try spill.close()
        if plan { return print(try Self.levelPlanText(bounds: bounds, zooms: zooms, format: planFormat), terminator: "") }
        let background = try backgroundColour()
        let identity = try LevelTilingRun.identity(kind: "drawn vector data", inputs: inputs, settings: [
            ("zoom", "\(zooms.lowerBound)-\(zooms.upperBound)"), ("tile-format", tileFormat.rawValue), ("tile-size", "\(tileSize)"),
            ("background", background?.css ?? "none")] + outputFields)
        let (format, tileSize, output) = (tileFormat, tileSize, output)
        let finished = Mutex<TileSetMetadata?>(nil)
        let metadata = { (held: ClosedRange<Int>?) in
            let metadata = TileSetMetadata(name: names.joined(separator: ", "), format: format, bounds: bounds, minZoom: (held ?? zooms).lowerBound,
                                           maxZoom: (held ?? zooms).upperBound, tileSize: tileSize,
                                           description: "\(inputs.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")), drawn by Meridian")
            finished.withLock { $0 = metadata }
            return metadata
        }
        let messages = reporter
        let encoder = DrawnTileEncoder(format: format, tileSize: tileSize, background: background)
        let jobs = jobs ?? ProcessInfo.processInfo.activeProcessorCount
        guard let stored = try runByLevels(LevelTilingRun(zooms: zooms, identity: identity), metadata: metadata, produce: { zoom, shard, store in
            try TilesThroughHelper.draw(spill: spill, zooms: zoom...zoom, tileSize: tileSize, jobs: jobs, shard: shard,
                                        warnings: { messages.report($0) }) { tile, rgba in
                if let bytes = try encoder.encoded(tile, rgba: rgba) { try store(tile, bytes) }
            }
        }) else { return }
        if viewer, let metadata = finished.withLock({ $0 }) {
            try writingViewer(tiles: stored.written + stored.kept) { try TileViewer.write(folder: output, metadata: metadata, scheme: rows) }
        }
        if kml, let metadata = finished.withLock({ $0 }) { try writeKML(metadata) }
        if !quiet { Reporter.printError(levelSummaryText(stored, what: "\(format.rawValue.uppercased()) tile", extra: " of \(inputs.count) input\(inputs.count == 1 ? "" : "s")", start: start)) }
    }
}
