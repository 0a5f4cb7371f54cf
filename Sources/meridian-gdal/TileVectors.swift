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
        // Kept to the end of the process: a run stopped in order prints it as it exits.
        if !quiet { TemporaryFiles.setInterruptionNote(Self.nothingKeptNote) }
        // Found before the run: a run that cannot write its page does not start.
        let mapLibre = viewer ? try VectorTileViewer.locateMapLibre(for: output) : nil
        let spill = try VectorFeatureSpill()
        spill.attributeFilter = selection.attributeFilter
        let (names, bounds, asked) = try readLayers(inputs, reporter: reporter, startLayer: spill.startLayer) { try spill.append($0) }
        // A signal stops the tiling in order, so the writer removes its staging folder or partial file.
        let summary = try TemporaryFiles.stoppingInOrder {
            let store = try TilePyramidWriter(path: output, tileType: .mvt)
            let made = try VectorTiler(features: spill, options: selection.tilingOptions(zooms: asked)).run(jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount) { try store.write($0, $1) }
            try store.finish(VectorTileSetMetadata(
                name: names.joined(separator: ", "), description: "\(inputs.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")), tiled by Meridian",
                bounds: bounds, zooms: made.zooms,
                layers: spill.layerNames.map { ($0, made.fields[$0] ?? [:]) }).pyramidMetadata)
            if let mapLibre { try VectorTileViewer.write(folder: output, mapLibre: mapLibre) }
            return made
        }
        let zooms = summary.zooms
        if summary.tilesOverLimit > 0 {
            let limits = selection.tilingOptions(zooms: asked).limits
            let merged = summary.featuresCoalesced > 0 ? "\(summary.featuresCoalesced) features were merged into others and " : ""
            reporter.report(Diagnostic(.warning, "\(summary.tilesOverLimit) tiles were over \(limits.maximumBytes) bytes or \(limits.maximumFeatures) features: \(merged)\(summary.featuresDroppedForSize) features were left out of them to fit",
                                       at: SourceLocation(file: output)))
        }
        if summary.idsLeftOut > 0 {
            reporter.report(Diagnostic(.warning, "\(summary.idsLeftOut) feature ids are not whole numbers of 0 or more, which vector tiles cannot hold: left out",
                                       at: SourceLocation(file: inputs[0])))
        }
        if !quiet {
            let seconds = Date().timeIntervalSince(start)
            let repaired = summary.polygonsRepaired == 0 ? "" : ", \(summary.polygonsRepaired) polygons made valid after snapping"
            let page = mapLibre == nil ? "" : ", index.html shows them"
            Reporter.printError("\(output): \(summary.tiles) vector tile\(summary.tiles == 1 ? "" : "s"), \(spill.layerNames.count) layer\(spill.layerNames.count == 1 ? "" : "s"), zoom \(zooms.lowerBound)-\(zooms.upperBound)\(repaired)\(page), \(String(format: "%.1f", seconds)) s")
        }
    }
}

extension Tile {
    /// The line a signal's stopping a vector run prints: such a run keeps nothing.
    static var nothingKeptNote: String {
        let clear = isatty(STDERR_FILENO) == 1 ? "\r\u{1B}[K" : ""
        return "\(clear)meridian: interrupted; nothing was kept (vector data is tiled in one go): run the same command again to tile it\n"
    }

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
    /// `meridian-draw tiles` (cairo stays out of this process), encoded and stored as a
    /// raster's tiles are, into a folder (with `--viewer`), MBTiles or PMTiles.
    func drawVectors(_ inputs: [String], reporter: inout Reporter) throws {
        let start = Date()
        // Kept to the end of the process: a run stopped in order prints it as it exits.
        if !quiet { TemporaryFiles.setInterruptionNote(Self.nothingKeptNote) }
        let spill = try FeatureSpill("tiles")
        let (names, bounds, zooms) = try readLayers(inputs, reporter: reporter) { try spill.append($0) }
        try spill.close()
        let background = try backgroundColour()
        let settings = [("kind", "drawn vector data")] + inputs.map { ("input", $0) }
            + [("zoom", "\(zooms.lowerBound)-\(zooms.upperBound)"), ("tile-format", tileFormat.rawValue), ("tile-size", "\(tileSize)"),
               ("background", background?.css ?? "none")] + outputFields
        let messages = reporter
        // Drawn in one go: a run that fails or is stopped by a signal (in order) leaves nothing.
        let (metadata, tilesWritten) = try TemporaryFiles.stoppingInOrder {
            let sink = try makeSink { TilingRunIdentity(fields: settings.map { TilingRunIdentity.Field(name: $0.0, value: $0.1) }) }
            do {
                let writer = DrawnTileWriter(sink: sink, format: tileFormat, tileSize: tileSize, background: background)
                try TilesThroughHelper.draw(spill: spill.path, zooms: zooms, tileSize: tileSize, jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount,
                                            warnings: { messages.report($0) }) { tile, rgba in
                    try TemporaryFiles.checkForStop()
                    try writer.write(tile, rgba: rgba)
                }
                try TemporaryFiles.checkForStop()
                let held = try sink.zoomsWithTiles() ?? zooms
                let metadata = TileSetMetadata(name: names.joined(separator: ", "), format: tileFormat, bounds: bounds, minZoom: held.lowerBound, maxZoom: held.upperBound, tileSize: tileSize,
                                               description: "\(inputs.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")), drawn by Meridian")
                try sink.finish(metadata: metadata)
                return (metadata, writer.tilesWritten)
            } catch {
                sink.discard()
                throw error
            }
        }
        if viewer {
            try TileViewer.write(folder: output, metadata: metadata, scheme: rows)
        }
        if !quiet {
            let seconds = Date().timeIntervalSince(start)
            Reporter.printError("\(output): \(tilesWritten) \(tileFormat.rawValue.uppercased()) tiles of \(inputs.count) input\(inputs.count == 1 ? "" : "s"), zoom \(zooms.lowerBound)-\(zooms.upperBound), \(String(format: "%.1f", seconds)) s")
        }
    }
}
