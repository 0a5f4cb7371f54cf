import Foundation
import GDALSupport
import MeridianFormats
import MeridianGeometry
import Synchronization

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

    /// Options for a run; every default tiles as `meridian tile` does without options.
    /// - Parameters:
    ///   - zooms: Zoom levels to tile, from 0 to ``TilePyramid/maximumZoom``; nil chooses them from the raster's resolution.
    ///   - tileSize: Tile width and height in pixels (256 or 512).
    ///   - format: The tiles' image format.
    ///   - resampling: How base tiles are sampled from the raster.
    ///   - jobs: Worker threads (at least 1); by default one per active processor.
    ///   - background: A colour laid under the data, or nil for transparent tiles (white for JPEG).
    ///   - measurement: Switches for measuring the tiler; the default measures nothing.
    public init(zooms: ClosedRange<Int>? = nil, tileSize: Int = 256, format: TileFormat = .png,
                resampling: Resampling = .average, jobs: Int = ProcessInfo.processInfo.activeProcessorCount, background: RGB? = nil,
                measurement: TilingMeasurement = TilingMeasurement()) {
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

/// Switches for measuring the tiler (`meridian tile`'s hidden options), none of which changes
/// a tile.
public struct TilingMeasurement: Sendable {
    /// Warps every base tile with GDAL's warper, never Meridian's own kernels, to compare them.
    public var gdalWarperOnly = false
    /// Sums the wall time of each stage over the threads (`TilingSummary.stageSeconds`).
    public var timesStages = false
    /// The size of GDAL's block cache, set when the run starts (it is the whole process's);
    /// nil leaves it as it is (`GDAL.defaultBlockCacheMegabytes` unless set otherwise).
    public var gdalCacheMegabytes: Int?

    /// No measurement: tiles as users get them.
    public init() {}
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
    /// Wall-clock seconds the whole run took.
    public var seconds: Double
    /// Wall time per stage, summed over threads, when `TilingMeasurement.timesStages` asked for it.
    public var stageSeconds: [TilingStage: Double]
    /// Tiles written by this run.
    public var tileCount: Int { written.values.reduce(0, +) }
    /// Tiles in the tile set: written now and kept; what a clean run writes.
    public var totalTiles: Int { tileCount + kept }
}

/// Cuts a raster into a Web Mercator tile pyramid.
///
/// The work is split into blocks: every tile under one tile of zoom `max − 3` (64 base tiles
/// at most; coarser blocks for very large rasters, so that at most 1,024 wait in memory). Threads take blocks one at a time; a block's base tiles are warped straight from
/// the source, and its lower zooms are built in memory from the four children (2×2 averages
/// with alpha weights), so nothing is read back from disk. What is left above the block level
/// is built at the end from the blocks' top tiles. Fully transparent tiles are not written.
public final class Tiler: @unchecked Sendable {
    /// The raster being tiled.
    public let source: RasterSource
    /// The options the tiler was made with.
    public let options: TilingOptions
    /// The tile grid (tile size and Web Mercator tile math) the run uses.
    public let pyramid: TilePyramid
    /// The zoom levels to tile: the ones asked for, or those chosen from the raster's resolution.
    public let zooms: ClosedRange<Int>
    /// The tile range of each zoom level (gdal2tiles' ranges for the raster's extent).
    public let ranges: [Int: TileRange]
    /// The zoom level of blocks.
    public let blockZoom: Int

    /// Plans a run: chooses the zoom levels and the tile range of each; nothing is read or written yet.
    /// - Parameters:
    ///   - source: The raster to tile, already checked by ``RasterSource/init(path:options:)``.
    ///   - options: How to tile it.
    /// - Throws: A usage `MeridianError` when the zoom levels are outside 0 to ``TilePyramid/maximumZoom``.
    public init(source: RasterSource, options: TilingOptions) throws {
        self.source = source
        self.options = options
        pyramid = TilePyramid(tileSize: options.tileSize)
        zooms = options.zooms ?? pyramid.defaultZooms(pixelSize: source.pixelSize, width: source.warpedWidth, height: source.warpedHeight)
        guard zooms.lowerBound >= 0, zooms.upperBound <= TilePyramid.maximumZoom else {
            throw MeridianError(.usage, "zoom levels must lie between 0 and \(TilePyramid.maximumZoom)")
        }
        var ranges: [Int: TileRange] = [:]
        for z in zooms { ranges[z] = pyramid.range(zoom: z, extent: source.extent) }
        self.ranges = ranges
        // Blocks of up to 8 × 8 base tiles; coarser when there would be more than 1,024 blocks,
        // since each block's top tile waits in memory (256 KB) for the levels above.
        var blockZoom = max(zooms.lowerBound, zooms.upperBound - 3)
        while blockZoom > zooms.lowerBound && ranges[blockZoom]!.count > 1024 { blockZoom -= 1 }
        self.blockZoom = blockZoom
    }

    /// Every tile a run may write (the ranges' total; empty tiles are skipped).
    public var tileBound: Int { ranges.values.reduce(0) { $0 + $1.count } }

    /// The tile set's metadata, for tiles at `zooms` (the levels that hold tiles).
    public func metadata(zooms: ClosedRange<Int>) -> TileSetMetadata {
        TileSetMetadata(name: ((source.path as NSString).lastPathComponent as NSString).deletingPathExtension,
                        format: options.format, bounds: source.bounds, minZoom: zooms.lowerBound,
                        maxZoom: zooms.upperBound, tileSize: options.tileSize,
                        description: "\((source.path as NSString).lastPathComponent), tiled by Meridian")
    }

    /// What must match for a resumed run to continue this run into a sink whose own settings are
    /// `output` (a folder's row scheme).
    public func identity(output: [(String, String)] = []) throws -> TilingRunIdentity {
        try TilingRunIdentity(source: source, options: options, zooms: zooms, output: output)
    }

    /// Runs the whole pyramid into `sink`. `progress` is called from worker threads.
    public func run(into sink: TileSink, progress: @escaping @Sendable (TilingProgress) -> Void = { _ in }) throws -> TilingSummary {
        let start = Date()
        let state = RunState(total: tileBound, timesStages: options.measurement.timesStages)
        // Before any worker starts: the cache is the whole process's.
        if let megabytes = options.measurement.gdalCacheMegabytes { GDAL.setBlockCacheSize(megabytes: megabytes) }
        let blocks = Array(ranges[blockZoom]!)
        let completed = sink.completedBlocks
        let jobs = max(1, min(options.jobs, blocks.count))
        let group = DispatchGroup()
        for _ in 0..<jobs {
            group.enter()
            let thread = Thread { [self] in
                defer { group.leave() }
                do {
                    let renderer = try TileRenderer(source: source, pyramid: pyramid, resampling: options.resampling,
                                                    gdalWarperOnly: options.measurement.gdalWarperOnly, stageTimes: state.stageTimes)
                    let codec = TileCodec(format: options.format, size: options.tileSize, background: options.tileBackground)
                    while let index = state.nextBlock(of: blocks.count) {
                        let block = blocks[index]
                        let image = try buildBlock(block, recorded: completed[block], renderer: renderer, codec: codec,
                                                   sink: sink, state: state, start: start, progress: progress)
                        state.setTop(block, image)
                    }
                } catch {
                    state.fail(error)
                }
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
        group.wait()
        if let error = state.error { throw error }

        // Above the blocks: from their top tiles, in memory.
        let codec = TileCodec(format: options.format, size: options.tileSize, background: options.tileBackground)
        var level = state.tops
        var z = blockZoom - 1
        while z >= zooms.lowerBound {
            var next: [MapTile: TileImage] = [:]
            for tile in ranges[z]! {
                let children = tile.children.map { level[$0] }
                if children.contains(where: { $0 != nil }) {
                    let image = TileImage.downsample(children, size: options.tileSize, colorChannels: source.colorBands.count)
                    if !image.isEmpty {
                        try sink.write(tile, data: codec.encode(image))
                        state.wrote(tile)
                        next[tile] = image
                    }
                }
                state.advance(1)
                progress(state.snapshot(since: start))
            }
            level = next
            z -= 1
        }
        // A raster much smaller than a pixel at the lowest zooms fades out as it is averaged
        // down (four children make one pixel): where it covers less than 1/255 of a pixel, the
        // tile is fully transparent and not written. The metadata names the levels that hold
        // tiles, so no reader asks for levels that are not there. (Asked from the sink, which
        // also holds the tiles an interrupted run kept.)
        let zoomsWithTiles = try sink.zoomsWithTiles()
        let metadata = metadata(zooms: zoomsWithTiles ?? zooms)
        try sink.finish(metadata: metadata)
        return TilingSummary(zooms: zooms, zoomsWithTiles: zoomsWithTiles, metadata: metadata, written: state.writtenPerZoom,
                             kept: state.kept, seconds: Date().timeIntervalSince(start), stageSeconds: state.stageTimes.seconds)
    }

    /// A block's tiles, written, and its top tile's image (nil when transparent). A block an
    /// interrupted run completed (`recorded`: the tiles it stored) is read back from the sink
    /// (lossless formats) or recomputed without writing (lossy ones, and tiles laid over a
    /// background: neither reads back to the pixels the levels above are made from).
    private func buildBlock(_ block: MapTile, recorded: Int?, renderer: TileRenderer, codec: TileCodec, sink: TileSink,
                            state: RunState, start: Date, progress: @Sendable (TilingProgress) -> Void) throws -> TileImage? {
        let count = zooms.filter { $0 >= blockZoom }.reduce(0) { $0 + ranges[$1]!.under(block).count }
        if let recorded, options.format.isLossless && options.tileBackground == nil {
            state.keep(recorded, advancing: count)
            progress(state.snapshot(since: start))
            return try sink.existingTile(block).map { try codec.decode($0, colorChannels: source.colorBands.count) }
        }
        let done = recorded != nil
        var written = 0
        func build(_ tile: MapTile) throws -> TileImage? {
            guard ranges[tile.zoom]!.contains(tile) else { return nil }
            let image: TileImage?
            if tile.zoom == zooms.upperBound {
                image = try state.stageTimes.measure(.render) { try renderer.render(tile) }
            } else {
                let children = try tile.children.map { try build($0) }
                image = children.contains(where: { $0 != nil })
                    ? TileImage.downsample(children, size: options.tileSize, colorChannels: source.colorBands.count) : nil
            }
            if let image, !image.isEmpty {
                if !done {
                    let data = try state.stageTimes.measure(.encode) { try codec.encode(image) }
                    try state.stageTimes.measure(.write) { try sink.write(tile, data: data) }
                    state.wrote(tile)
                    written += 1
                }
                state.advance(1)
                progress(state.snapshot(since: start))
                return image
            }
            state.advance(1)
            progress(state.snapshot(since: start))
            return nil
        }
        let top = try build(block)
        if let recorded { state.keep(recorded, advancing: 0) } else { try sink.markCompleted(block: block, tiles: written) }
        return top
    }
}

/// What the worker threads share, behind one mutex.
final class RunState: Sendable {
    private struct Shared {
        var next = 0
        var error: Error?
        var tops: [MapTile: TileImage] = [:]
        var done = 0
        var written = 0
        var writtenPerZoom: [Int: Int] = [:]
        var kept = 0
    }

    private let shared = Mutex(Shared())
    let total: Int
    let stageTimes: StageTimes

    init(total: Int, timesStages: Bool) {
        self.total = total
        stageTimes = StageTimes(enabled: timesStages)
    }

    var error: Error? { shared.withLock { $0.error } }
    var tops: [MapTile: TileImage] { shared.withLock { $0.tops } }
    var writtenPerZoom: [Int: Int] { shared.withLock { $0.writtenPerZoom } }
    var kept: Int { shared.withLock { $0.kept } }

    func nextBlock(of count: Int) -> Int? {
        shared.withLock { state in
            guard state.error == nil, state.next < count else { return nil }
            state.next += 1
            return state.next - 1
        }
    }
    func fail(_ error: Error) { shared.withLock { if $0.error == nil { $0.error = error } } }
    func setTop(_ tile: MapTile, _ image: TileImage?) { shared.withLock { if let image { $0.tops[tile] = image } } }
    func advance(_ n: Int) { shared.withLock { $0.done += n } }
    func wrote(_ tile: MapTile) { shared.withLock { $0.written += 1; $0.writtenPerZoom[tile.zoom, default: 0] += 1 } }
    /// `tiles` stored by an interrupted run are kept; `advancing` of the run's tiles are done.
    func keep(_ tiles: Int, advancing: Int) { shared.withLock { $0.done += advancing; $0.kept += tiles } }
    func snapshot(since start: Date) -> TilingProgress {
        shared.withLock { TilingProgress(done: $0.done, total: total, written: $0.written, seconds: Date().timeIntervalSince(start)) }
    }
}
