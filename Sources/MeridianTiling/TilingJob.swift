#if canImport(CMalloc)
import CMalloc
#endif
import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
import MeridianRaster
import MeridianTiles

/// `meridian tile` as a library call, in the spirit of GDAL 3.11's algorithm objects (where
/// `gdal raster tile` is a library call first): a `TilingJobRequest` in; a plan, progress,
/// diagnostics and a ``TilingJobOutcome`` out. One job tiles rasters, vector data into Mapbox
/// Vector Tiles, or vector data drawn into PNG, JPEG or WebP tiles, each through the same tile
/// sinks, with their resume state, shards and joining.
///
/// ```swift
/// var request = TilingJobRequest(inputs: ["chart.tif"], output: "chart-tiles", jobs: 4)
/// request.zooms = 8...12
/// let outcome = try TilingJob(request).run()
/// ```
public struct TilingJob: Sendable {
    /// What to make.
    public let request: TilingJobRequest
    /// What draws image tiles of vector data (a process that links cairo); nil: such runs are refused.
    public let drawing: (any TileDrawing)?

    /// A job for `request`.
    /// - Parameters:
    ///   - request: The inputs, the output and the run's choices.
    ///   - drawing: What draws vector data into image tiles, for runs that do.
    public init(_ request: TilingJobRequest, drawing: (any TileDrawing)? = nil) {
        self.request = request
        self.drawing = drawing
    }

    /// What the run makes, by its inputs and its tile format.
    /// - Throws: `MeridianError` (input unavailable) for an input that cannot be read, which is
    ///   neither kind (a mistyped name would otherwise be taken for a raster, and a choice for
    ///   vector tiles refused for the wrong reason), (bad input) for a PMTiles archive or a
    ///   folder of tiles; ``TilingJobError`` when Mapbox Vector Tiles
    ///   are asked of a raster, or the inputs mix rasters and vector data.
    public func kind() throws -> TilingJobKind {
        for path in request.inputs where access(path, R_OK) != 0 {
            throw MeridianError(.inputUnavailable, "cannot open input: \(String(cString: strerror(errno)))", at: SourceLocation(file: path))
        }
        // A PMTiles archive or a folder of tiles is no raster GDAL reads nor vector data: the run
        // said "GDAL cannot read this file as a raster". (An MBTiles file may be a raster GDAL reads.)
        for path in request.inputs where TileContainer(path: path) != .mbtiles && TilePyramids.isPyramid(path) {
            throw MeridianError(.badInput, "a tile pyramid: tile makes tiles of rasters and vector data, not of tiles", at: SourceLocation(file: path),
                                hint: "tile-copy copies a pyramid into another container or zoom range; convert reads its features back")
        }
        let vector = request.inputs.map(VectorInputs.isVector)
        if request.tileFormat == .mvt || (!vector.isEmpty && vector.allSatisfy { $0 }) {
            if let raster = zip(request.inputs, vector).first(where: { !$0.1 })?.0 { throw TilingJobError.notVectorData(raster) }
            return request.tileFormat == nil || request.tileFormat == .mvt ? .vectorTiles : .drawnVectors
        }
        if vector.contains(true) { throw TilingJobError.mixedInputs }
        return .rasters
    }

    /// What the run makes, checked against the request: every choice made must be one a run of
    /// that kind honours.
    /// - Throws: ``TilingJobError`` as ``kind()`` does, and `choiceNotApplying` for the first
    ///   choice made that the run would do nothing with.
    public func checkedKind() throws -> TilingJobKind {
        let kind = try kind()
        if let refused = TilingChoice.notApplying(in: request, to: kind) { throw TilingJobError.choiceNotApplying(refused, kind) }
        return kind
    }

    /// What the run would do, without tiling: for rasters each chart, its zooms, the tiles and
    /// the time and disk they would take; for vector data the tiles at most at each level.
    /// - Parameter events: Where the inputs' warnings go.
    public func plan(events: TilingJobEvents = TilingJobEvents()) throws -> TilingJobPlan {
        switch try checkedKind() {
        case .rasters: return .rasters(try tiler(events: events).plan())
        case .vectorTiles, .drawnVectors:
            let layers = try VectorInputs(request: request).read(diagnostics: events.diagnostics) { _ in } each: { _ in }
            return .levels(LevelTilingRun.plan(bounds: layers.bounds, zooms: layers.zooms))
        }
    }

    /// Runs the job: the whole run, one shard of it, or the joining of its shards, as the request says.
    /// - Parameter events: Where progress, the inputs found and the warnings go.
    /// - Returns: What was made, or that there was nothing to do.
    /// - Throws: ``TilingJobError`` (for a choice the run would do nothing with, and when a KML super-overlay is asked of vector tiles or of
    ///   an MBTiles or PMTiles output); the sinks' `TileOutputError`; a raster's, a reader's or the helper's errors.
    public func run(events: TilingJobEvents = TilingJobEvents()) throws -> TilingJobOutcome {
        let kind = try checkedKind()
        if request.kml && (kind == .vectorTiles || request.isMBTiles || request.isPMTiles) { throw TilingJobError.kmlNeedsFolderOfImages }
        switch kind {
        case .rasters: return try runRasters(events: events)
        case .vectorTiles: return try VectorTilingRun(request: request).run(events: events)
        case .drawnVectors:
            guard let drawing else { throw TilingJobError.noDrawing }
            return try DrawnTilingRun(request: request, drawing: drawing).run(events: events)
        }
    }

    /// The tiler of the request's rasters (the inputs found are handed to `events` first).
    func tiler(events: TilingJobEvents) throws -> Tiler {
        let found = try TileInputs.open(request.inputs, options: request.raster.source)
        events.rastersOpened(found)
        let raster = request.raster
        return try Tiler(catalog: TileCatalog(sources: found.sources, quilt: raster.quilt ?? .scale, overzoom: raster.overzoom,
                                                       tileSize: request.pixelsPerTile),
                         options: TilingOptions(zooms: request.zooms, tileSize: request.pixelsPerTile, format: request.tileFormat ?? .png,
                                                resampling: raster.resampling ?? .average, jobs: request.threads, background: request.background,
                                                measurement: raster.measurement, excludedValues: raster.excludedValues))
    }

    /// Tiles rasters: the run, a shard or the joining, with the viewer and the KML super-overlay; then the warning for levels left empty.
    func runRasters(events: TilingJobEvents) throws -> TilingJobOutcome {
        let tiler = try tiler(events: events)
        let format = request.tileFormat ?? .png, output = request.output
        let summary: TilingSummary
        // The viewer and the KML super-overlay are written before the output is finished: a run
        // stopped (or failing) while they are written keeps its resume state, and its
        // resumption writes them again.
        var kml: KMLSuperOverlay.Written?
        let completing = { (metadata: TileSetMetadata) in
            if request.viewer { try TileViewer.write(folder: output, metadata: metadata, scheme: request.scheme) }
            kml = try request.writeKML(metadata)
        }
        if request.finish {
            let workspace = ShardWorkspace(output: output)
            let joining = try workspace.openJoining(output: output, count: request.shardCount, format: format, scheme: request.scheme) {
                try tiler.identity(output: request.outputFields + [("shards", "\($0)")])
            }
            guard let sink = joining.sink else { return .alreadyJoined(count: joining.count) }
            guard let joined = try tiler.finishShards(count: joining.count, of: joining.run, into: sink, workspace: workspace, completing: completing) else { return .unchanged }
            summary = joined
        } else if let shard = request.shard {
            let run = try tiler.identity(output: request.outputFields + [("shards", "\(shard.count)")])
            let workspace = ShardWorkspace(output: output)
            guard let sink = try workspace.openShardSink(shard, of: run, output: output, format: format, scheme: request.scheme, resume: request.resume),
                  let made = try tiler.runShard(shard, of: run, into: sink, workspace: workspace, progress: events.progress)
            else { return .shardAlreadyComplete(shard) }
            return .rasters(made, kml: nil)
        } else {
            let sink = try TileSinks.open(output, format: format, scheme: request.scheme,
                                          for: .run(resume: request.resume, checkpointBytes: nil) { try tiler.identity(output: request.outputFields) },
                                          replacing: request.replacesExistingFile)
            summary = try tiler.run(into: sink, progress: events.progress, completing: completing)
        }
        if let shortfall = TilingJobText.zoomShortfall(summary) {
            events.diagnostics(Diagnostic(.warning, shortfall, at: SourceLocation(file: tiler.sources.count == 1 ? tiler.sources[0].path : output)))
        }
        return .rasters(summary, kml: kml)
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
}

/// Draws one zoom level of features into image tiles, for a ``TilingJob`` that makes image
/// tiles of vector data (the drawing links cairo, which a process linking GDAL keeps out: the
/// command line draws through its `meridian-draw` helper).
public protocol TileDrawing: Sendable {
    /// Draws every tile of level `zoom` where something shows (only `shard`'s, when given),
    /// handing each to `store`.
    /// - Parameters:
    ///   - spill: A GeoJSON text sequence of the features (a closed `FeatureSpill`, nameless: read it through its descriptor).
    ///   - zoom: The zoom level.
    ///   - shard: The shard whose tiles to draw (it draws no other); nil for every tile.
    ///   - tileSize: Tile width and height in pixels.
    ///   - jobs: Threads drawing, and threads calling `store`.
    ///   - warnings: Where the drawing's warnings go.
    ///   - store: Takes each tile and its pixels (RGBA rows, not premultiplied), from several threads, in no set order.
    func drawLevel(spill: FeatureSpill, zoom: Int, tileSize: Int, jobs: Int, shard: TileShardOwnership?, warnings: DiagnosticHandler?,
                   store: @escaping @Sendable (MapTile, [UInt8]) throws -> Void) throws
}

/// Where a ``TilingJob`` tells what happens as it runs.
public struct TilingJobEvents {
    /// The inputs' and the run's warnings.
    public var diagnostics: DiagnosticHandler = { _ in }
    /// The rasters found (and the inputs skipped), before a raster run starts.
    public var rastersOpened: (TileInputs.Found) -> Void = { _ in }
    /// A raster run's progress, from its worker threads.
    public var progress: @Sendable (TilingProgress) -> Void = { _ in }
    /// A level-by-level run (vector or drawn tiles) starts its first level: its output (and
    /// its resume state) exists from here on, so that an interruption keeps something to resume.
    public var levelsStarted: () -> Void = {}

    /// Events that go nowhere; set the ones wanted.
    public init() {}
}

/// What ``TilingJob/plan(events:)`` finds.
public enum TilingJobPlan: Sendable {
    /// A raster run's plan: charts, zooms, tiles, time and disk.
    case rasters(TilingPlan)
    /// A level-by-level run's: the tiles at most at each level, over the data's bounds.
    case levels(LevelTilingPlan)
}

/// What a ``TilingJob`` did.
public enum TilingJobOutcome: Sendable {
    /// A raster run (or shard, or joining) made these tiles, and wrote this KML super-overlay
    /// over them when asked (nil: none written; a shard writes none).
    case rasters(TilingSummary, kml: KMLSuperOverlay.Written?)
    /// A level-by-level run (or shard, or joining) of vector data made these tiles.
    case levels(LevelTilingSummary, LevelTilingDetails)
    /// The shard had already completed: nothing was done.
    case shardAlreadyComplete(TileShard)
    /// The run's shards (this many) had been joined already: nothing was done.
    case alreadyJoined(count: Int)
    /// The joining found its run finished as it began: nothing was done, and nothing is to be said.
    case unchanged
}

/// What a level-by-level run of vector data made, beyond its counts of tiles.
public struct LevelTilingDetails: Sendable {
    /// Vector tiles or drawn image tiles.
    public var kind: TilingJobKind
    /// The tiles' format.
    public var format: TileFormat
    /// The inputs read.
    public var inputCount: Int
    /// The layers of the vector tiles (an input's features may add layers of their own).
    public var layerCount = 0
    /// What cutting the vector tiles did (limits, repairs), summed over the levels made.
    public var cut = VectorTilingSummary()
    /// Whether a vector tile viewer (`index.html`) was written.
    public var wroteViewer = false
    /// The KML super-overlay written over drawn image tiles, when asked (nil: none written).
    public var kml: KMLSuperOverlay.Written?
}
