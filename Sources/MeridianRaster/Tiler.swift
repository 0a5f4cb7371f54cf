import Foundation
import GDALSupport
import MeridianCore
import MeridianFormats
import MeridianGeometry
import Synchronization
import MeridianTiles

/// How to cut a raster into tiles.
public struct TilingOptions: Sendable {
    /// Zoom levels; nil chooses them from the raster's resolution, as gdal2tiles does.
    public var zooms: ClosedRange<Int>?
    /// Tile width and height in pixels: 256 or 512 (the command line allows only these).
    public var tileSize: Int
    /// The tiles' image format (PNG, JPEG or WebP).
    public var format: TileFormat
    /// For base tiles; lower zooms always average 2×2 blocks of the level below.
    public var resampling: Resampling
    /// Threads warping base tiles, each with its own dataset.
    public var jobs: Int
    /// A colour under the data, making tiles opaque; nil leaves them transparent outside the
    /// data, except JPEG tiles (no alpha), which are laid over white.
    public var background: RGB?
    /// Switches for measuring the tiler itself; the defaults tile as users get it.
    public var measurement: TilingMeasurement
    /// Colours left out of the averages (GDAL's excluded values); nil leaves none out.
    public var excludedValues: ExcludedValues?

    /// Options for a run; every default tiles as `meridian tile` does without options.
    /// - Parameters:
    ///   - zooms: Zoom levels to tile, from 0 to ``TilePyramid/maximumZoom``; nil chooses them from the raster's resolution.
    ///   - tileSize: Tile width and height in pixels (256 or 512).
    ///   - format: The tiles' image format.
    ///   - resampling: How base tiles are sampled from the raster.
    ///   - jobs: Worker threads (at least 1); by default one per active processor.
    ///   - background: A colour laid under the data, or nil for transparent tiles (white for JPEG).
    ///   - measurement: Switches for measuring the tiler; the default measures nothing.
    ///   - excludedValues: Colours left out of the averages, as GDAL's `--excluded-values`; nil for none.
    public init(zooms: ClosedRange<Int>? = nil, tileSize: Int = 256, format: TileFormat = .png,
                resampling: Resampling = .average, jobs: Int = ProcessInfo.processInfo.activeProcessorCount, background: RGB? = nil,
                measurement: TilingMeasurement = TilingMeasurement(), excludedValues: ExcludedValues? = nil) {
        self.excludedValues = excludedValues
        self.zooms = zooms
        self.tileSize = tileSize
        self.format = format
        self.resampling = resampling
        self.jobs = jobs
        self.background = background
        self.measurement = measurement
    }

    /// The background tiles are laid over: the one asked for, else white for JPEG (which
    /// cannot be transparent: without one, no data would be black).
    public var tileBackground: RGB? { background ?? (format == .jpeg ? .white : nil) }
}

/// The stages of a run whose time `TilingMeasurement.timesStages` sums.
public enum TilingStage: String, Sendable, CaseIterable {
    /// A base tile, whole (one of the three below).
    case render
    /// A base tile by the `average` or `near` kernel (SampledWarp.swift).
    case sampled
    /// A base tile by gdal2tiles' sampling (Gdal2TilesSampling.swift).
    case gdal2tiles
    /// A base tile by GDAL's warper.
    case warp
    /// A tile encoded (PNG, JPEG, WebP).
    case encode
    /// A tile stored by the sink.
    case write
}

/// The wall time each stage took, summed over the worker threads, when the run measures it.
final class StageTimes: Sendable {
    private let totals = Mutex<[TilingStage: Double]>([:])
    let enabled: Bool

    init(enabled: Bool) { self.enabled = enabled }

    /// `body`'s result, its time added to `stage`'s when measuring.
    func measure<T>(_ stage: TilingStage, _ body: () throws -> T) rethrows -> T {
        guard enabled else { return try body() }
        let start = ContinuousClock.now
        defer {
            let elapsed = (ContinuousClock.now - start) / .seconds(1)
            totals.withLock { $0[stage, default: 0] += elapsed }
        }
        return try body()
    }

    /// Seconds per stage measured (empty when not measuring).
    var seconds: [TilingStage: Double] { totals.withLock { $0 } }
}

/// Progress of a run: tiles done (written, skipped as empty, or kept from before) of at most `total`.
public struct TilingProgress: Sendable {
    /// Tiles handled so far: written, skipped as fully transparent, or kept from an interrupted run.
    public var done: Int
    /// The most tiles the run can handle (``Tiler/tileBound``); `done` reaches it at the end.
    public var total: Int
    /// Tiles this run has written so far (transparent and kept tiles are not counted).
    public var written: Int
    /// Wall-clock seconds since the run started.
    public var seconds: Double
}

/// What a run did.
public struct TilingSummary: Sendable {
    /// The zoom levels asked for.
    public var zooms: ClosedRange<Int>
    /// The zoom levels that hold tiles (nil when none does): fewer than asked for when the
    /// raster shows at none of the lowest (or at none at all). The metadata says these.
    public var zoomsWithTiles: ClosedRange<Int>?
    /// What the tile set's metadata says (the viewer shows the same).
    public var metadata: TileSetMetadata
    /// Tiles written by this run, per zoom level.
    public var written: [Int: Int]
    /// Tiles kept from an interrupted run (resumed).
    public var kept: Int
    /// Tiles handled: written, kept, or skipped as fully transparent; a whole run handles every
    /// tile its plan counts (``TilingPlan/tiles``).
    public var handled: Int
    /// Wall-clock seconds the whole run took.
    public var seconds: Double
    /// Wall time per stage, summed over threads, when `TilingMeasurement.timesStages` asked for it.
    public var stageSeconds: [TilingStage: Double]
    /// Tiles written by this run.
    public var tileCount: Int { written.values.reduce(0, +) }
    /// Tiles in the tile set: written now and kept; what a clean run writes.
    public var totalTiles: Int { tileCount + kept }
}

/// Cuts a raster, or a catalog of rasters quilted together, into a Web Mercator tile pyramid.
///
/// The work is split into blocks: every tile under one tile of zoom `max − 3` (64 base tiles
/// at most; coarser blocks for very large rasters, so that there are at most 1,024). Threads
/// take blocks one at a time, in Morton order. Within a block each chart's own pyramid is built as a
/// single raster's is: its tiles at its base zoom warped straight from the source, its lower
/// zooms averaged in memory from the four children (2×2, with alpha weights), so nothing is
/// read back from disk. Each tile written is those charts' tiles laid one over another in the
/// catalog's order of preference at its zoom (`QuiltRule`), the best on top; deeper than a
/// chart's base zoom, the chart is warped straight into the tile only where the charts above
/// leave it showing. Above the block level, a tile is built from its children (the charts' own
/// tiles) as soon as the last of them is done, by the thread that finished it, so only tiles
/// waiting for a sibling are held in memory, however many blocks and charts there are. Fully
/// transparent tiles are not written.
///
/// A chart's base zoom is its native zoom, except for the most detailed charts, whose base is the
/// deepest level asked for (so one raster tiles exactly as it always has, base tiles at the
/// deepest level and everything above averaged from them).
public final class Tiler: @unchecked Sendable {
    /// The rasters tiled and how they are quilted.
    public let catalog: TileCatalog
    /// How the tiles are cut and written.
    public let options: TilingOptions
    /// The tile grid (tile size, resolutions, ranges).
    public let pyramid: TilePyramid
    /// The zoom levels of the run: those asked for, or the catalog's default.
    public let zooms: ClosedRange<Int>
    /// The zoom level of blocks.
    public let blockZoom: Int
    /// Per chart, the zoom level at which its tiles are warped from the source: above it (lower
    /// zooms) they are averaged from the level below, deeper they are warped where they show.
    public let baseZooms: [Int]
    let coverage: TileCoverage
    let colorChannels: Int
    /// The catalog's order of preference at each zoom level of the run.
    let preferences: [Int: [Int]]

    /// A run tiling one raster.
    public convenience init(source: RasterSource, options: TilingOptions) throws {
        try self.init(catalog: TileCatalog(sources: [source], tileSize: options.tileSize), options: options)
    }

    /// A run tiling `catalog` with `options`.
    /// - Throws: `MeridianError` (usage) when the zoom levels asked for lie outside 0…`TilePyramid.maximumZoom`;
    ///   (bad input) naming the chart when, none asked for, a chart's pixels put its native zoom beyond it.
    public init(catalog: TileCatalog, options: TilingOptions) throws {
        self.catalog = catalog
        self.options = options
        let pyramid = TilePyramid(tileSize: options.tileSize)
        self.pyramid = pyramid
        let zooms = options.zooms ?? catalog.defaultZooms
        self.zooms = zooms
        guard zooms.lowerBound >= 0, zooms.upperBound <= TilePyramid.maximumZoom else {
            // Levels the run chose itself from a chart's pixels: the chart is at fault (a world
            // file's pixel size of 1e-12 degrees), not the command line.
            if options.zooms == nil, let chart = catalog.charts.first(where: { $0.nativeZoom > TilePyramid.maximumZoom }) {
                throw MeridianError(.badInput, "the raster's pixels are \(chart.source.pixelSize) m wide, finer than zoom \(TilePyramid.maximumZoom) shows (its native zoom would be \(chart.nativeZoom))",
                                    at: SourceLocation(file: chart.source.path),
                                    hint: "check its georeferencing (a world file's pixel size, its control points), or give the zoom levels to tile")
            }
            throw MeridianError(.usage, "zoom levels must lie between 0 and \(TilePyramid.maximumZoom)")
        }
        let coverage = TileCoverage(catalog: catalog, pyramid: pyramid, zooms: zooms)
        self.coverage = coverage
        baseZooms = catalog.charts.map { $0.nativeZoom == catalog.deepestNativeZoom ? zooms.upperBound : min(zooms.upperBound, $0.nativeZoom) }
        colorChannels = catalog.colorChannels
        preferences = Dictionary(uniqueKeysWithValues: zooms.map { ($0, catalog.preference(atZoom: $0)) })
        // Blocks of up to 8 × 8 base tiles; coarser when there would be more than 1,024 blocks,
        // which keeps the resume state (one line or row a block) small for very large rasters.
        var blockZoom = max(zooms.lowerBound, zooms.upperBound - 3)
        while blockZoom > zooms.lowerBound && coverage.count(atZoom: blockZoom) > 1024 { blockZoom -= 1 }
        self.blockZoom = blockZoom
        // A chart shown only to levels above the block level (`--overzoom`) has tiles there with
        // no tile under them at the next level, away from the deeper charts: nothing climbs to
        // those, so each is a block of its own.
        let topBlocks = (zooms.lowerBound..<blockZoom).flatMap { zoom in
            coverage.tiles(atZoom: zoom).filter { !$0.children.contains(where: coverage.contains) }
        }
        blocksInOrder = (coverage.tiles(atZoom: blockZoom) + topBlocks).sorted {
            Self.blockOrder($0, blockZoom: blockZoom) < Self.blockOrder($1, blockZoom: blockZoom)
        }
    }

    /// A block's place in Morton order at the block level (a block above it stands where its
    /// first tile at the block level would), so that blocks of several levels sort together.
    static func blockOrder(_ block: MapTile, blockZoom: Int) -> UInt64 {
        block.mortonCode << UInt64(2 * (blockZoom - block.zoom))
    }

    /// The rasters, in the order given.
    public var sources: [RasterSource] { catalog.charts.map(\.source) }

    /// The window readers the threads' renderers hold, by chart. Held weakly: a reader stays
    /// open while some renderer uses it, so a catalog keeps no more datasets open than the
    /// threads keep renderers. Every thread asks at a run's start: behind a `Mutex`,
    /// ThreadSanitizer (which does not see its ordering) reported the map as raced.
    private let windowReaders = Locked<[Int: WeakWindowReader]>([:])

    /// The reader of `chart`'s windows that every thread shares, opened by the first to ask.
    func windowReader(for chart: Int) throws -> SourceWindowReader {
        try windowReaders.withLock { readers in
            if let reader = readers[chart]?.reader { return reader }
            let reader = try SourceWindowReader(source: catalog.charts[chart].source)
            readers[chart] = WeakWindowReader(reader: reader)
            return reader
        }
    }

    /// Every tile a run may write (the tiles the rasters touch; empty tiles are skipped).
    public var tileBound: Int { zooms.reduce(0) { $0 + coverage.count(atZoom: $1) } }

    /// The tile set's metadata, for tiles at `zooms` (the levels that hold tiles).
    public func metadata(zooms: ClosedRange<Int>) -> TileSetMetadata {
        let files = catalog.charts.map { ($0.source.path as NSString).lastPathComponent }
        let quilted = files.count > 1 ? " (quilted by \(catalog.quilt.rawValue))" : ""
        return TileSetMetadata(name: catalog.name, format: options.format, bounds: catalog.bounds,
                               minZoom: zooms.lowerBound, maxZoom: zooms.upperBound, tileSize: options.tileSize,
                               description: "\(files.joined(separator: ", ")), tiled by Meridian\(quilted)")
    }

    /// What must match for a resumed run to continue this run into a sink whose own settings are
    /// `output` (a folder's row scheme).
    public func identity(output: [(String, String)] = []) throws -> TilingRunIdentity {
        try TilingRunIdentity(catalog: catalog, options: options, zooms: zooms, output: output)
    }

    /// How many tiles some chart touches under `block`, at its level and deeper.
    func tileCount(under block: MapTile) -> Int {
        zooms.filter { $0 >= block.zoom }.reduce(0) { $0 + coverage.count(atZoom: $1, under: block) }
    }

    /// Writes a built tile's quilt, when it has one (fully transparent tiles are not written).
    func store(_ quilt: TileImage?, at tile: MapTile, tools: ThreadTools, sink: TileSink, state: RunState) throws {
        guard let quilt else { return }
        try sink.write(tile, data: tools.codec.encode(quilt))
        state.wrote(tile)
    }

    /// The blocks in Morton order, so that the four under one tile of the level above finish
    /// close together, and that tile is built as soon as they have (`climb`): every tile of the
    /// block level some chart touches, and every tile above it some chart touches with none
    /// under it at the next level.
    let blocksInOrder: [MapTile]

    /// Runs the whole pyramid into `sink`. `progress` is called from worker threads.
    /// `completing` writes what else belongs to the finished tile set (a KML super-overlay) once
    /// every tile is stored and before the sink is finished, so that a run stopped while it
    /// writes keeps its resume state and is resumed to write it again.
    public func run(into sink: TileSink, progress: @escaping @Sendable (TilingProgress) -> Void = { _ in },
                    completing: (TileSetMetadata) throws -> Void = { _ in }) throws -> TilingSummary {
        let start = Date()
        let state = try build(blocksInOrder, total: tileBound, into: sink, start: start, progress: progress)
        return try finish(sink, state: state, start: start, completing: completing)
    }

    /// Builds `blocks` and every tile above them that `split` (if given) puts in shard `shard`,
    /// on `options.jobs` threads.
    func build(_ blocks: [MapTile], total: Int, split: ShardSplit? = nil, shard: Int = 0, into sink: TileSink, start: Date,
               progress: @escaping @Sendable (TilingProgress) -> Void) throws -> RunState {
        let state = RunState(total: total, timesStages: options.measurement.timesStages)
        // Before any worker starts: the cache is the whole process's.
        if let megabytes = options.measurement.gdalCacheMegabytes { GDAL.setBlockCacheSize(megabytes: megabytes) }
        let completed = try checkedCompletedBlocks(of: sink, among: blocks)
        let jobs = max(1, min(options.jobs, blocks.count))
        let group = DispatchGroup()
        for _ in 0..<jobs {
            group.enter()
            // The sink is held weakly: a Foundation thread keeps its closure until the thread
            // object goes, which may be after `group.wait()` returns, and a sink holds the
            // output's lock until it goes. Held strongly, a failed run's error could end the
            // process before then, leaving the lock file beside the output.
            let thread = Thread { [self, weak sink] in
                if let sink { work(blocks, completed: completed, split: split, shard: shard, sink: sink, state: state, start: start, progress: progress) }
                group.leave()
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
        group.wait()
        if let error = state.error { throw error }
        return state
    }

    /// One worker thread's part of ``build(_:total:split:shard:into:start:progress:)``: the
    /// blocks it takes in turn, each built and climbed from; the first error stops the run.
    private func work(_ blocks: [MapTile], completed: [MapTile: Int], split: ShardSplit?, shard: Int, sink: TileSink, state: RunState,
                      start: Date, progress: @escaping @Sendable (TilingProgress) -> Void) {
        do {
            let tools = ThreadTools(tiler: self, stageTimes: state.stageTimes)
            while let index = state.nextBlock(of: blocks.count) {
                let block = blocks[index]
                let top = try buildBlock(block, recorded: completed[block], tools: tools, sink: sink,
                                         state: state, start: start, progress: progress)
                try climb(from: block, charts: top, split: split, shard: shard, tools: tools, sink: sink, state: state,
                          start: start, progress: progress)
            }
        } catch {
            state.fail(error)
        }
    }

    /// The blocks `sink` records completed, each checked to be one of `blocks` with no more
    /// tiles than it can hold.
    /// - Throws: `MeridianError` (bad input) naming the state's file (and line) when not.
    func checkedCompletedBlocks(of sink: TileSink, among blocks: [MapTile]) throws -> [MapTile: Int] {
        let completed = sink.completedBlocks
        guard !completed.isEmpty else { return [:] }
        let ours = Set(blocks)
        for (block, tiles) in completed {
            let why = !ours.contains(block) ? "which is not one of this run's blocks"
                : !(0...tileCount(under: block)).contains(tiles) ? "which holds 0 to \(tileCount(under: block))" : nil
            if let why {
                throw MeridianError(.badInput, "the run's state is damaged: it records \(tiles) tiles stored in block \(block.zoom)/\(block.x)/\(block.y), \(why)",
                                    at: sink.location(ofCompleted: block), hint: "remove the output and tile again")
            }
        }
        return completed
    }

    /// Writes the metadata into `sink`, finishing it (after `completing`, which writes what else
    /// belongs to the tile set while the run can still be resumed), and sums up the run.
    func finish(_ sink: TileSink, state: RunState, start: Date, completing: (TileSetMetadata) throws -> Void = { _ in }) throws -> TilingSummary {
        // A raster much smaller than a pixel at the lowest zooms fades out as it is averaged
        // down (four children make one pixel): where it covers less than 1/255 of a pixel, the
        // tile is fully transparent and not written. The metadata names the levels that hold
        // tiles, so no reader asks for levels that are not there. (Asked from the sink, which
        // also holds the tiles an interrupted run kept.)
        // (Within the run's levels: an MBTiles file resumed may hold rows a stranger put in.)
        let zoomsWithTiles = try sink.zoomsWithTiles().map { $0.clamped(to: zooms) }
        let metadata = metadata(zooms: zoomsWithTiles ?? zooms)
        try completing(metadata)
        try sink.finish(metadata: metadata)
        return TilingSummary(zooms: zooms, zoomsWithTiles: zoomsWithTiles, metadata: metadata, written: state.writtenPerZoom,
                             kept: state.kept, handled: state.done, seconds: Date().timeIntervalSince(start), stageSeconds: state.stageTimes.seconds)
    }

    /// Above the blocks: `tile` (a block, or a tile built from blocks) is done, with its charts'
    /// own tiles; when it is the last of its parent's children to be done, the parent is built
    /// from them and written, and so on up. Only tiles waiting for a sibling are held, so memory
    /// does not grow with the number of blocks or charts.
    ///
    /// In a shard, a parent whose blocks lie in several shards is left to `--finish`, and the
    /// tile's charts are kept for it (the shard's frontier).
    private func climb(from tile: MapTile, charts: [Int: TileImage], split: ShardSplit?, shard: Int, tools: ThreadTools,
                       sink: TileSink, state: RunState, start: Date, progress: @Sendable (TilingProgress) -> Void) throws {
        var tile = tile, charts = charts
        while tile.zoom > zooms.lowerBound {
            let parent = MapTile(zoom: tile.zoom - 1, x: tile.x / 2, y: tile.y / 2)
            if let split, split.owner(of: parent) != shard {
                state.leave(tile, charts: charts)
                return
            }
            let expected = parent.children.filter(coverage.contains).count
            guard let siblings = state.deposit(tile, charts: charts, parent: parent, expected: expected) else { return }
            let children = parent.children.map { siblings[$0] ?? [:] }
            let (built, quilt) = try assemble(parent, children: children, among: Array(catalog.charts.indices), tools: tools)
            try store(quilt, at: parent, tools: tools, sink: sink, state: state)
            state.advance(1)
            progress(state.snapshot(since: start))
            tile = parent
            charts = built
        }
    }

    /// One tile: each chart's own tile at this level where the tile is at or above the chart's
    /// base zoom (warped at the base zoom, else averaged from `children`, the charts' own tiles one
    /// level down), and the quilt of the charts in order of preference, deeper charts warped
    /// straight into it where those above leave it showing. The quilt is nil when transparent.
    func assemble(_ tile: MapTile, children: [[Int: TileImage]]?, among candidates: [Int],
                  tools: ThreadTools) throws -> (charts: [Int: TileImage], quilt: TileImage?) {
        let touching = coverage.charts(touching: tile, among: candidates)
        var charts: [Int: TileImage] = [:]
        for c in touching where tile.zoom <= baseZooms[c] {
            let image: TileImage?
            if tile.zoom == baseZooms[c] {
                image = try tools.render(chart: c, tile)
            } else if let children, children.contains(where: { $0[c] != nil }) {
                let quarters = children.map { $0[c] }
                image = options.excludedValues.map { TileImage.downsample(quarters, size: options.tileSize, colorChannels: colorChannels, excluding: $0) }
                    ?? TileImage.downsample(quarters, size: options.tileSize, colorChannels: colorChannels)
            } else {
                image = nil
            }
            if let image, !image.isEmpty { charts[c] = image }
        }
        var quilt: TileImage?
        for c in preferences[tile.zoom]! where touching.contains(c) {
            let image = tile.zoom <= baseZooms[c] ? charts[c] : try tools.render(chart: c, tile).flatMap { $0.isEmpty ? nil : $0 }
            guard let image else { continue }
            quilt = quilt.map { $0.over(image) } ?? image
            if quilt!.isOpaque { break }
        }
        return (charts, quilt)
    }

    /// A block's tiles, written, and its charts' top tiles (empty when transparent). A block an
    /// interrupted run completed (`recorded`: the tiles it stored) is read back from the sink
    /// (one raster, lossless formats) or recomputed without writing (lossy ones, tiles laid over
    /// a background, and catalogs: none of them reads back to the charts' own pixels the levels
    /// above are made from). What the state says is not trusted: read back, the block is kept only
    /// when each of its tiles the sink holds decodes and there are as many as recorded, else it
    /// is built again; recomputed, a tile missing or damaged in the sink is written again.
    private func buildBlock(_ block: MapTile, recorded: Int?, tools: ThreadTools, sink: TileSink,
                            state: RunState, start: Date, progress: @Sendable (TilingProgress) -> Void) throws -> [Int: TileImage] {
        let count = tileCount(under: block)
        let readsBack = catalog.charts.count == 1 && options.format.isLossless && options.tileBackground == nil
        if let recorded, readsBack, let top = try keptTop(of: block, recorded: recorded, tools: tools, sink: sink) {
            state.keep(recorded, advancing: count)
            progress(state.snapshot(since: start))
            return top.map { [0: $0] } ?? [:]
        }
        let recomputing = recorded != nil && !readsBack
        let candidates = coverage.charts(touching: block, among: Array(catalog.charts.indices))
        var stored: [MapTile] = [], kept = 0
        func build(_ tile: MapTile) throws -> [Int: TileImage] {
            guard coverage.contains(tile) else { return [:] }
            let children = tile.zoom < zooms.upperBound ? try tile.children.map { try build($0) } : nil
            let (charts, quilt) = try assemble(tile, children: children, among: candidates, tools: tools)
            if let quilt {
                if recomputing, try intactTile(tile, tools: tools, sink: sink) != nil {
                    kept += 1
                } else {
                    let data = try state.stageTimes.measure(.encode) { try tools.codec.encode(quilt) }
                    try state.stageTimes.measure(.write) { try sink.write(tile, data: data) }
                    state.wrote(tile)
                }
                stored.append(tile)
            }
            state.advance(1)
            progress(state.snapshot(since: start))
            return charts
        }
        let top = try build(block)
        if recomputing { state.keep(kept, advancing: 0) }
        // A recomputed block is recorded again only when some of its tiles were written again.
        if !recomputing || kept < stored.count { try sink.markCompleted(block: block, tiles: stored) }
        return top
    }

    /// A stored tile's image, when the sink holds it whole: not empty, and decoding as the run's
    /// format at its size; nil when it holds none or a damaged one.
    func intactTile(_ tile: MapTile, tools: ThreadTools, sink: TileSink) throws -> TileImage? {
        guard let data = try sink.existingTile(tile), !data.isEmpty else { return nil }
        return try? tools.codec.decode(data, colorChannels: colorChannels)
    }

    /// The top tile of a block an interrupted run recorded with `recorded` tiles, read back
    /// (`.some(nil)` when the block is transparent at its top), when every tile of it the sink
    /// holds is intact and they are as many as recorded; nil when the block must be built again.
    private func keptTop(of block: MapTile, recorded: Int, tools: ThreadTools, sink: TileSink) throws -> TileImage?? {
        var intact = 0, top: TileImage?
        for zoom in zooms where zoom >= block.zoom {
            guard let range = coverage.ranges[zoom]?[0].under(block) else { continue }
            for tile in range where !range.isEmpty {
                guard let data = try sink.existingTile(tile) else { continue }
                guard !data.isEmpty, let image = try? tools.codec.decode(data, colorChannels: colorChannels) else { return nil }
                intact += 1
                if tile == block { top = image }
            }
        }
        return intact == recorded ? .some(top) : nil
    }
}

/// One thread's tools: a tile encoder, and a renderer (an open dataset and a warp set-up) for
/// each chart it drew lately — at most `capacity`, so a catalog of hundreds of charts keeps a
/// bounded number of datasets open.
final class ThreadTools {
    let codec: TileCodec
    private let tiler: Tiler
    private let stageTimes: StageTimes
    private var renderers: [(chart: Int, renderer: TileRenderer)] = []
    private let capacity = 8

    init(tiler: Tiler, stageTimes: StageTimes) {
        self.tiler = tiler
        self.stageTimes = stageTimes
        codec = TileCodec(format: tiler.options.format, size: tiler.options.tileSize, background: tiler.options.tileBackground,
                          pngFiltering: tiler.catalog.pngFiltering)
    }

    /// `chart`'s pixels in `tile`, with the catalog's colour channels; nil when it has none there.
    func render(chart: Int, _ tile: MapTile) throws -> TileImage? {
        let renderer: TileRenderer
        if let index = renderers.firstIndex(where: { $0.chart == chart }) {
            renderer = renderers.remove(at: index).renderer
        } else {
            let options = tiler.options
            renderer = try TileRenderer(source: tiler.catalog.charts[chart].source, windowReader: tiler.windowReader(for: chart),
                                        pyramid: tiler.pyramid, resampling: options.resampling,
                                        gdalWarperOnly: options.measurement.gdalWarperOnly, excludedValues: options.excludedValues,
                                        stageTimes: stageTimes)
            if renderers.count == capacity { renderers.removeLast() }
        }
        renderers.insert((chart, renderer), at: 0)
        return try stageTimes.measure(.render) { try renderer.render(tile) }.map { $0.withColorChannels(tiler.catalog.colorChannels) }
    }
}

/// A window reader, not kept alive by the `Tiler`'s table of them.
struct WeakWindowReader {
    weak var reader: SourceWindowReader?
}

/// What the worker threads share, behind one lock (a pthread one, which ThreadSanitizer sees).
final class RunState: Sendable {
    private struct Shared {
        var next = 0
        var error: Error?
        /// Done tiles whose parent waits for the rest of its children, by parent.
        var waiting: [MapTile: [MapTile: [Int: TileImage]]] = [:]
        /// A shard's tiles whose parents lie in several shards, with their charts.
        var frontier: [MapTile: [Int: TileImage]] = [:]
        var done = 0
        var written = 0
        var writtenPerZoom: [Int: Int] = [:]
        var kept = 0
        /// A tile this run wrote (the first), which proves a shard's tiles are still there.
        var sample: MapTile?
    }

    private let shared = Locked(Shared())
    let total: Int
    let stageTimes: StageTimes

    init(total: Int, timesStages: Bool) {
        self.total = total
        stageTimes = StageTimes(enabled: timesStages)
    }

    var error: Error? { shared.withLock { $0.error } }
    var writtenPerZoom: [Int: Int] { shared.withLock { $0.writtenPerZoom } }
    var kept: Int { shared.withLock { $0.kept } }
    var done: Int { shared.withLock { $0.done } }

    func nextBlock(of count: Int) -> Int? {
        shared.withLock { state in
            guard state.error == nil, state.next < count else { return nil }
            state.next += 1
            return state.next - 1
        }
    }
    func fail(_ error: Error) { shared.withLock { if $0.error == nil { $0.error = error } } }
    /// Records `tile` as done; when it is the last of the `expected` children of `parent` to be,
    /// returns them all (and forgets them), else nil.
    func deposit(_ tile: MapTile, charts: [Int: TileImage], parent: MapTile, expected: Int) -> [MapTile: [Int: TileImage]]? {
        shared.withLock { state in
            var siblings = state.waiting[parent, default: [:]]
            siblings[tile] = charts
            guard siblings.count == expected else {
                state.waiting[parent] = siblings
                return nil
            }
            state.waiting[parent] = nil
            return siblings
        }
    }
    /// Keeps `tile`'s charts for `--finish` (a shard's frontier).
    func leave(_ tile: MapTile, charts: [Int: TileImage]) { shared.withLock { $0.frontier[tile] = charts } }
    var frontier: [MapTile: [Int: TileImage]] { shared.withLock { $0.frontier } }
    func advance(_ n: Int) { shared.withLock { $0.done += n } }
    func wrote(_ tile: MapTile) {
        shared.withLock {
            $0.written += 1
            $0.writtenPerZoom[tile.zoom, default: 0] += 1
            if $0.sample == nil { $0.sample = tile }
        }
    }
    var sample: MapTile? { shared.withLock { $0.sample } }
    /// `tiles` stored by an interrupted run are kept; `advancing` of the run's tiles are done.
    func keep(_ tiles: Int, advancing: Int) { shared.withLock { $0.done += advancing; $0.kept += tiles } }
    func snapshot(since start: Date) -> TilingProgress {
        shared.withLock { TilingProgress(done: $0.done, total: total, written: $0.written, seconds: Date().timeIntervalSince(start)) }
    }
}
