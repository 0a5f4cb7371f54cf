import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
import Synchronization

/// How vector data is cut into Mapbox Vector Tiles, and which features go into each tile.
public struct VectorTilingOptions: Sendable {
    /// The zoom levels to tile.
    public var zooms: ClosedRange<Int>
    /// Units across a tile (the specification's default, 4096: tippecanoe's detail 12).
    public var extent: Int
    /// How far past its edges each tile holds geometry, in tile units: tippecanoe's default
    /// buffer of 5/256 of the tile (80 units of 4096), so lines and outlines drawn wide do not
    /// stop short at tile edges.
    public var buffer: Int
    /// The most a tile may hold; a tile over it is brought under by ``overLimit``.
    public var limits: TileLimits
    /// The largest tile in bytes (tippecanoe's default limit, 500 KB).
    public var maximumTileBytes: Int {
        get { limits.maximumBytes }
        set { limits.maximumBytes = newValue }
    }
    /// What is done to a tile over ``limits``: by default its smallest features are dropped.
    public var overLimit: OverLimitStrategy
    /// Whether, when tiles of the deepest level still had to lose (or merge) features to fit,
    /// deeper levels are added, one at a time up to ``deepestExtension``, until one needs none.
    public var extendZoomsIfStillDropping: Bool
    /// How points are thinned below the base zoom; nil shows every point at every level.
    public var pointThinning: PointThinning?
    /// The line simplification, at one tile unit of the zoom level.
    public var method: SimplifyMethod
    /// Whether polygons too small to draw at a level add up into squares of two tile units
    /// (tippecanoe's tiny polygon reduction, on by default), rather than all being left out.
    public var reducesTinyPolygons: Bool
    /// How close points are clustered in the tiles below the deepest zoom; nil clusters none.
    public var clustering: PointClustering?

    /// The deepest level ``extendZoomsIfStillDropping`` adds.
    public static let deepestExtension = VectorTileChoices.deepestZoom

    /// The defaults: zoom `zooms`, 4096 units, 80 units of buffer, 500 KB and 200,000 features a
    /// tile (the smallest features dropped from a tile over them), points thinned by 2.5 at each
    /// level below the deepest (as tippecanoe does), Douglas-Peucker.
    public init(zooms: ClosedRange<Int>, extent: Int = 4096, buffer: Int = 80, maximumTileBytes: Int = 500_000,
                method: SimplifyMethod = .douglasPeucker) {
        self.zooms = zooms
        self.extent = extent
        self.buffer = buffer
        self.limits = TileLimits(maximumBytes: maximumTileBytes)
        self.overLimit = .dropSmallest
        self.extendZoomsIfStillDropping = false
        self.pointThinning = PointThinning(dropRate: 2.5, baseZoom: zooms.upperBound)
        self.method = method
        self.reducesTinyPolygons = true
        self.clustering = nil
    }
}

/// What a vector tiling run did, for the summary and the tile set's metadata.
public struct VectorTilingSummary: Sendable {
    /// Tiles written per zoom level.
    public var tilesPerZoom: [Int: Int] = [:]
    /// Tiles that lost features to the limits (over them, or thinned with their zoom level
    /// under its threshold), and the features dropped from them.
    public var tilesOverLimit = 0, featuresDroppedForSize = 0
    /// Features merged into others to fit tiles under the limits (`OverLimitStrategy/coalesceSmallest`, `OverLimitStrategy/coalesceDensest`).
    public var featuresCoalesced = 0
    /// The levels tiled: ``VectorTilingOptions/zooms``, deeper when ``VectorTilingOptions/extendZoomsIfStillDropping`` added levels.
    public var zooms: ClosedRange<Int> = 0...0
    /// Tile polygons that snapping to the grid made invalid, repaired with GEOS (MakeValid, then
    /// back on the grid).
    public var polygonsRepaired = 0
    /// Features that simplified to nothing at some zoom level (smaller than a tile unit), summed
    /// over the levels, less the polygons drawn as squares by ``VectorTilingOptions/reducesTinyPolygons``.
    public var featuresTooSmall = 0
    /// Feature ids that a vector tile cannot hold (strings, negative or fractional numbers), left out.
    public var idsLeftOut = 0
    /// Per layer: its fields with their kinds (`String`, `Number`, `Boolean`), as TileJSON's `vector_layers` lists them.
    public var fields: [String: [String: String]] = [:]
    /// Tiles of other shards a shard made only to know its level's threshold (tiles that might
    /// go over the limits), left unwritten.
    public var tilesMadeForOtherShards = 0
    /// The tile count.
    public var tiles: Int { tilesPerZoom.values.reduce(0, +) }

    /// Nothing done yet: the start of a summary that a run driven level by level adds its levels' up in.
    public init() {}
}

/// Cuts vector layers into Mapbox Vector Tiles, zoom level by zoom level: each feature
/// simplified at one tile unit of the level with Meridian's simplifier (valid polygons, the
/// input's own positions), clipped to each tile it touches plus a buffer, snapped to the tile's
/// integer grid, outer rings wound as the specification requires. Properties keep their types
/// and non-negative integer ids are kept.
///
/// The features come from a ``VectorFeatureSpill`` and go through each level in two passes over
/// disk, so memory holds a few blocks of tiles, never the data: the spill is streamed, each
/// feature simplified and cut into the level's blocks, which are set aside; then each block is
/// read back and cut into its tiles.
public struct VectorTiler {
    /// The layers' features, in the order they go into each tile.
    public let features: VectorFeatureSpill
    /// How the tiles are cut.
    public let options: VectorTilingOptions

    /// A tiler of the layers in `features` with `options`.
    /// - Parameters:
    ///   - features: The layers to tile.
    ///   - options: The zooms, extent, buffer, size limit and simplification.
    public init(features: VectorFeatureSpill, options: VectorTilingOptions) {
        self.features = features
        self.options = options
    }

    /// Every tile of the run, zoom level by zoom level, handed to `write` encoded (tiles that
    /// hold nothing are not made), from `jobs` threads at once but one call at a time. Returns
    /// what was done.
    ///
    /// Each zoom level is cut from the top down, as a quadtree: the level's simplified features
    /// (in map points) are clipped to each quarter of the world, those pieces to each quarter of
    /// that, and so on to the level's tiles, each clip with the level's buffer. A feature wholly
    /// inside a quarter passes down as it is, so a vertex is clipped about once per level of the
    /// tree rather than once for every tile its feature's bounds touch (which, for a country at
    /// zoom 8, was thousands of times). The tree is cut in two passes: features, as they stream
    /// from the spill, down to the level's blocks (`TileBlockSpill.blockZoom(for:)`), spilled; then each block,
    /// on its own thread, down to its tiles, each encoded as its leaf is reached.
    ///
    /// With `level`, only that level of the run is made (a run driven level by level, resumed or
    /// split into shards, makes each on its own): thinning, clustering and the base zoom still
    /// follow the whole run's ``VectorTilingOptions/zooms``, and no level is added.
    ///
    /// With `shard`, only that shard's tiles are made, each the same bytes as in a run of every
    /// tile (what goes into a tile depends on the tile and the features alone, save the tiny
    /// polygons' squares, which depend on the features before them: see `cutIntoBlocks`), and the
    /// summary counts the shard's. Quadtree nodes none of whose tiles is the shard's are not cut,
    /// and features that reach none of its tiles are not simplified.
    /// - Parameters:
    ///   - jobs: The number of threads that simplify and cut.
    ///   - level: The one zoom level to make, or nil for every level of the run.
    ///   - shard: The shard whose tiles to make; nil for every tile.
    ///   - write: Takes each tile's address and encoded bytes, on the calling thread.
    /// - Returns: What was done: tiles per zoom, tiles over the size limit, repairs.
    /// - Throws: What `write` throws, or `MeridianError` (`io`) when a scratch file fails.
    public func run(jobs: Int = 1, level: Int? = nil, shard: TileShardOwnership? = nil,
                    _ write: (MapTile, [UInt8]) throws -> Void) throws -> VectorTilingSummary {
        try run(jobs: jobs, level: level, shard: shard, write: write, storingOnWorkers: nil)
    }

    /// Every tile of the run, as ``run(jobs:level:shard:_:)`` makes them, each handed to `store`
    /// by the thread that made it, several at once (a tile store shared by threads: a folder's
    /// files, a PMTiles archive's spill, whose gzip then runs on every thread), so that no
    /// thread waits for one that writes every tile. The tiles of a level made again (thinned
    /// as a whole and over the limits) wait in a scratch file until its last pass, as there,
    /// and are then handed to `store` on the calling thread.
    /// - Parameters:
    ///   - jobs: The number of threads that simplify, cut and store.
    ///   - level: The one zoom level to make, or nil for every level of the run.
    ///   - shard: The shard whose tiles to make; nil for every tile.
    ///   - store: Takes each tile's address and encoded bytes, from any of the threads.
    /// - Returns: What was done: tiles per zoom, tiles over the size limit, repairs.
    /// - Throws: What `store` throws, or `MeridianError` (`io`) when a scratch file fails.
    public func runStoringOnWorkers(jobs: Int = 1, level: Int? = nil, shard: TileShardOwnership? = nil,
                                    _ store: @escaping @Sendable (MapTile, [UInt8]) throws -> Void) throws -> VectorTilingSummary {
        try run(jobs: jobs, level: level, shard: shard, write: store, storingOnWorkers: store)
    }

    /// The run, with each tile handed to `write` on the calling thread, or, with `store`, to
    /// `store` on the thread that made it (`write` then takes only a level's staged tiles).
    private func run(jobs: Int, level: Int?, shard: TileShardOwnership?, write: (MapTile, [UInt8]) throws -> Void,
                     storingOnWorkers store: (@Sendable (MapTile, [UInt8]) throws -> Void)?) throws -> VectorTilingSummary {
        var summary = VectorTilingSummary()
        summary.idsLeftOut = features.idsLeftOut
        for (name, fields) in zip(features.layerNames, features.fields) { summary.fields[name] = fields }
        let jobs = max(1, jobs)
        let budget = TileFeatureBudget(limits: options.limits, strategy: options.overLimit)
        let onlyLevel = level
        var nextZoom = level ?? options.zooms.lowerBound
        summary.zooms = level.map { $0...$0 } ?? options.zooms
        while nextZoom <= summary.zooms.upperBound {
            let zoom = nextZoom
            nextZoom += 1
            // A level whose tiles may go over the limits is thinned as a whole, by the threshold
            // its densest tile needs: a shard cuts the whole level and makes, beside its own
            // tiles, every other tile that may go over (a shard's own tiles alone would give
            // another threshold), keeping only its own. A level that cannot go over is made
            // once, each shard only its own tiles.
            let thinnedWhole = try levelMayExceedLimits(zoom: zoom)
            let level = ZoomLevel(zoom: zoom, options: options, layerNames: features.layerNames, shard: thinnedWhole ? nil : shard)
            let blocks = try TileBlockSpill()
            let cut = try cutIntoBlocks(level, blocks, jobs: jobs)
            summary.featuresTooSmall += cut
            let nodes = try blocks.finishWriting()
            // The level is made again, from its blocks, while a tile needed a higher threshold
            // than the level's: tippecanoe's retried zoom level. Until the last pass allowed, its
            // tiles wait in a scratch file, for a level made again must not have written any.
            var threshold: DropThreshold?
            var pass = 0, lostFeatures = false
            while true {
                let staging = thinnedWhole && pass + 1 < Self.levelPasses ? try LevelTileStaging(zoom: zoom) : nil
                var made = VectorTilingSummary(), madeForOthers = 0
                var raised: DropThreshold?, levelLostFeatures = false
                try makeTiles(level, from: blocks, nodes, jobs: jobs, budget: budget, threshold: threshold,
                              ownedBy: thinnedWhole ? shard : nil, storing: staging == nil ? store : nil) { built in
                    if let needed = built.threshold, needed < .everything, raised.map({ needed > $0 }) ?? true { raised = needed }
                    if built.fitted != nil { levelLostFeatures = true }
                    // Another shard's tile, made only to know the level's threshold.
                    if let shard, !shard.owns(built.tile) {
                        madeForOthers += 1
                        return
                    }
                    // A tile that lost every feature to the limits is not written.
                    if built.stored {
                        made.tilesPerZoom[zoom, default: 0] += 1
                    } else if !built.bytes.isEmpty {
                        if let staging { try staging.append(built.tile, built.bytes) } else { try write(built.tile, built.bytes) }
                        made.tilesPerZoom[zoom, default: 0] += 1
                    }
                    made.polygonsRepaired += built.repaired
                    if let (dropped, coalesced) = built.fitted {
                        made.tilesOverLimit += 1
                        made.featuresDroppedForSize += dropped
                        made.featuresCoalesced += coalesced
                    }
                }
                if let raised, staging != nil, threshold.map({ raised > $0 }) ?? true {
                    threshold = raised
                    pass += 1
                    continue
                }
                if let staging {
                    // A worker's share each, when tiles are stored from any thread: the last
                    // pass of a level thinned as a whole is its slowest part on one thread.
                    if let store { try staging.forEach(threads: jobs, store) } else { try staging.forEach(write) }
                }
                summary.tilesPerZoom[zoom] = made.tilesPerZoom[zoom]
                summary.tilesMadeForOtherShards += madeForOthers
                summary.polygonsRepaired += made.polygonsRepaired
                summary.tilesOverLimit += made.tilesOverLimit
                summary.featuresDroppedForSize += made.featuresDroppedForSize
                summary.featuresCoalesced += made.featuresCoalesced
                // Whether the level still dropped is the whole level's (a shard's own when the
                // level could not go over the limits, and then none did). A shard leaves out
                // other shards' tiles that cannot go over the limits: if one of them lost features
                // to the level's threshold, a tile over them set it.
                lostFeatures = levelLostFeatures || shard != nil && threshold != nil
                break
            }
            if onlyLevel == nil && zoom == summary.zooms.upperBound && lostFeatures && options.extendZoomsIfStillDropping
                && zoom < VectorTilingOptions.deepestExtension {
                summary.zooms = summary.zooms.lowerBound...(zoom + 1)
            }
        }
        return summary
    }

    /// Whether a tile of level `zoom` may go over ``VectorTilingOptions/limits``, so that the
    /// level is thinned as a whole (and a shard must make all its tiles to know by how much).
    ///
    /// No tile holds more features than the level (clusters and tiny polygons' squares stand
    /// for one feature or more), nor more bytes than every feature of the level would take
    /// encoded in one tile: per feature an allowance for its header, id and geometry commands;
    /// per position `bytesPerPosition` (two 5-byte varints, four times over for the points
    /// clipping adds); per property its key and value bytes and the most their tags and table
    /// entries take. A level under both bounds is made in one pass, each tile on its own.
    /// - Parameter zoom: The zoom level.
    /// - Returns: False when no tile of the level can be over the limits.
    /// - Throws: `MeridianError` (`io`) when the features' scratch file cannot be read.
    public func levelMayExceedLimits(zoom: Int) throws -> Bool {
        let limits = options.limits
        var count = 0, bytes = features.layerNames.reduce(0) { $0 + Self.bytesPerLayer + $1.utf8.count }
        var batches = try features.batches()
        // Read only until the bound is past the limits: a million points pass the feature limit
        // a fifth of the way in, and every level reads them again while the workers wait.
        while count <= limits.maximumFeatures, bytes <= limits.maximumBytes, let batch = try batches.next() {
            RecordBatches.forEach(in: batch) { record in
                guard count <= limits.maximumFeatures, bytes <= limits.maximumBytes else { return }
                let feature = SpilledFeature(&record)
                guard let geometry = feature.geometry, feature.minimumZoom <= zoom, zoom <= feature.maximumZoom else { return }
                // A tile feature per kind of part (a collection's points, lines and polygons).
                let kinds = PlaneShape.kindsOfParts(geometry)
                count += kinds
                var positions = 0
                geometry.forEachPosition { _ in positions += 1 }
                // The attributes: their length, an id flag (and id), a property count, the properties.
                var attributes = RecordReader(record.bytes, at: feature.attributes.lowerBound)
                _ = attributes.count()
                if attributes.byte() == 1 { _ = attributes.uint64() }
                let properties = attributes.count()
                bytes += kinds * (Self.bytesPerFeature + feature.attributes.count + properties * Self.bytesPerPropertyBeyondItsText)
                    + positions * Self.bytesPerPosition
            }
        }
        return count > limits.maximumFeatures || bytes > limits.maximumBytes
    }

    /// Whether the tile holding `items` (a leaf's, each item's `feature` indexing `attributes`,
    /// in layers `layerNames`) may go over `limits`: the bound ``levelMayExceedLimits(zoom:)``
    /// puts on a level, over this tile's pieces alone (already clipped to it).
    static func mayExceed(_ limits: TileLimits, _ items: [TileItem], attributes: [TileAttributes], layerNames: [String]) -> Bool {
        var count = 0, bytes = layerNames.reduce(0) { $0 + Self.bytesPerLayer + $1.utf8.count }
        for item in items {
            let kinds = item.shape.kindsOfParts
            count += kinds
            bytes += kinds * (Self.bytesPerFeature + attributes[item.feature].mostBytes) + item.shape.positionCount * Self.bytesPerPosition
            if count > limits.maximumFeatures || bytes > limits.maximumBytes { return true }
        }
        return false
    }

    /// The most a feature takes in a tile beyond its positions and properties: its header, id,
    /// type, geometry commands and parts (a clipped line's pieces among them), or a cluster's
    /// added counts.
    static let bytesPerFeature = 256
    /// The most a position takes in a tile: two varints of at most 5 bytes, and as many again
    /// three times over for the points clipping to the tile and its buffer adds.
    static let bytesPerPosition = 40
    /// The most a property takes in a tile beyond its key's and value's bytes: its two tag
    /// varints and its key's and value's table entries' field tags and lengths.
    static let bytesPerPropertyBeyondItsText = 28
    /// The most a layer takes in a tile beyond its name: its version, extent and field tags.
    static let bytesPerLayer = 32

    /// How many times a level may be made, the threshold raised each time a tile needed more:
    /// in the last pass a tile still over the limits is brought under them on its own.
    static let levelPasses = 4

    /// Makes the tiles of `level` from its blocks on `jobs` threads, each with the features
    /// under `threshold` taken out (or merged) and, when still over the limits, brought under
    /// them with the threshold that needed; hands each to `consume` on the calling thread.
    /// With `store`, the thread that made a tile of the shard's (not empty) hands its bytes to
    /// `store` itself, and `consume` gets it marked ``BuiltTile/stored``, without its bytes.
    ///
    /// A thread hands its tiles over in batches (``handOffTiles`` tiles or ``handOffBytes``
    /// bytes), each walked by `consume` in the order the thread made them: a hand-off per tile
    /// (a semaphore post and a wake of the calling thread) cost a million points at zoom 14
    /// over two million context switches. With one thread, `consume` sees the tiles in the
    /// order they were made, as before; with several, each thread's in its order, as before.
    ///
    /// With `shard`, the level is made whole to know its threshold, but a tile of another shard
    /// that cannot go over the limits (``mayExceed(_:_:attributes:layerNames:)``) needs no threshold
    /// and is not made: a shard makes its own tiles and the dense ones, not the whole level.
    func makeTiles(_ level: ZoomLevel, from blocks: TileBlockSpill, _ nodes: [MapTile], jobs: Int, budget: TileFeatureBudget,
                   threshold: DropThreshold?, ownedBy shard: TileShardOwnership? = nil,
                   storing store: (@Sendable (MapTile, [UInt8]) throws -> Void)? = nil, consume: (BuiltTile) throws -> Void) throws {
        let next = Atomic<Int>(0), zoom = level.zoom
        try WorkerThreads.run(threads: min(jobs, nodes.count)) { [options] (emit: ([BuiltTile]) throws -> Void) in
            let repair = PolygonRepair()
            var batch: [BuiltTile] = [], batchBytes = 0
            batch.reserveCapacity(Self.handOffTiles)
            while case let index = next.add(1, ordering: .relaxed).oldValue, index < nodes.count {
                let (items, attributes) = try TileItem.read(block: nodes[index], of: blocks, thinnedKeptBy: level)
                try level.descend(nodes[index], items, to: zoom) { node, items in
                    let items = TileItem.kept(items)
                    if let shard, !shard.owns(node), !Self.mayExceed(budget.limits, items, attributes: attributes, layerNames: level.layerNames) { return }
                    let repairedBefore = repair.repaired
                    guard var (content, rankings) = level.tile(node, items, attributes: attributes, repair: repair) else { return }
                    if let clustering = options.clustering, zoom < options.zooms.upperBound {
                        // Clusters are new features: ranked by themselves.
                        content = clustering.clustered(content)
                        rankings = TileFeatureBudget.rankings(of: content)
                    }
                    var built = BuiltTile(tile: node, bytes: [], repaired: repair.repaired - repairedBefore)
                    let whole = content
                    var keys: [[DropThreshold]]?
                    if let threshold {
                        let ranked = budget.keys(whole, rankings: rankings)
                        let thinned = budget.thinned(whole, keys: ranked, below: threshold, keepingOne: true)
                        if thinned.dropped + thinned.coalesced > 0 {
                            built.fitted = (thinned.dropped, thinned.coalesced)
                            content = thinned.tile
                        }
                        keys = ranked
                    }
                    built.bytes = content.encoded()
                    if !budget.limits.admit(built.bytes, features: content.featureCount) {
                        // From the whole tile again, past the level's threshold: keys (a gap is to
                        // the neighbour before) are the whole tile's, as in every other tile.
                        let fitted = budget.fit(whole, keys: keys ?? budget.keys(whole, rankings: rankings), from: threshold)
                        built.bytes = fitted.bytes
                        built.fitted = (fitted.dropped, fitted.coalesced)
                        built.threshold = fitted.threshold
                    }
                    if let store, !built.bytes.isEmpty, shard?.owns(node) ?? true {
                        try store(node, built.bytes)
                        (built.bytes, built.stored) = ([], true)
                    }
                    batchBytes += built.bytes.count
                    batch.append(built)
                    if batch.count >= Self.handOffTiles || batchBytes >= Self.handOffBytes {
                        try emit(batch)
                        batch.removeAll(keepingCapacity: true)
                        batchBytes = 0
                    }
                }
            }
            if !batch.isEmpty { try emit(batch) }
        } consume: { batch in
            for built in batch { try consume(built) }
        }
    }

    /// The most tiles a thread of ``makeTiles(_:from:_:jobs:budget:threshold:ownedBy:storing:consume:)``
    /// hands over at once: enough that the hand-offs cost little beside the tiles.
    static let handOffTiles = 256
    /// The most bytes of tiles (beyond the one that passes it) a thread hands over at once, so
    /// that the batches waiting for the calling thread (a few per thread) stay a few megabytes.
    static let handOffBytes = 512 << 10

    /// Streams the features from the spill (in batches, on `jobs` threads), simplifies each at
    /// one tile unit of `level`, cuts it down to the level's blocks and appends the pieces to
    /// `blocks`, in feature order whatever thread cut them. Features whose `tippecanoe` member
    /// keeps them out of the level are passed over; points ``PointThinning`` leaves out of it
    /// are marked, for their tiles to keep one where they would hold none. Returns how many
    /// features simplified to nothing.
    func cutIntoBlocks(_ level: ZoomLevel, _ blocks: TileBlockSpill, jobs: Int) throws -> Int {
        let depth = TileBlockSpill.blockZoom(for: level.zoom)
        let batches = BatchQueue(try features.batches())
        var tooSmall = 0, nextToAppend = 0
        var waiting: [Int: CutBatch] = [:]
        try WorkerThreads.run(threads: jobs, backlog: 2) { [options] (emit: (CutBatch) throws -> Void) in
            var simplifier = GeometrySimplifier(tolerance: level.unit, method: options.method)
            // A long ring's repair can take seconds: a signal stops it, and the run then stops at its next check.
            simplifier.stopRequested = { TemporaryFiles.stopRequested != nil }
            while let (sequence, batch) = try batches.next() {
                try TemporaryFiles.checkForStop()
                var cut = CutBatch(sequence: sequence)
                // Summed per batch, so the squares do not depend on which thread cut which batch.
                var tiny = TinyPolygonReduction(unit: level.unit)
                RecordBatches.forEach(in: batch) { record in
                    let feature = SpilledFeature(&record)
                    guard let geometry = feature.geometry,
                          feature.minimumZoom <= level.zoom, level.zoom <= feature.maximumZoom else { return }
                    // A feature no tile of the shard's reaches is passed over unsimplified, unless
                    // it might simplify to nothing: its area then adds to the tiny polygons' squares.
                    if !level.mayReachShard(geometry) && (!options.reducesTinyPolygons || simplifier.certainlyKeepsSomething(of: geometry)) { return }
                    let attributes = UnsafeRawBufferPointer(rebasing: record.bytes[feature.attributes])
                    var thinning: TileItem.Thinning?
                    let rank = PointThinning.rank(attributes, geometry.pointPositions ?? Self.firstPositions(of: geometry))
                    if let rule = options.pointThinning, geometry.pointPositions != nil, !rule.shows(rank: rank, at: level.zoom) {
                        thinning = TileItem.Thinning(rank: rank)
                    }
                    let shape: PlaneShape
                    if let simplified = simplifier.simplify(geometry) {
                        shape = PlaneShape(simplified)
                    } else if options.reducesTinyPolygons, let square = tiny.square(for: geometry) {
                        shape = square
                    } else {
                        cut.tooSmall += 1
                        return
                    }
                    guard !shape.isEmpty else { return }
                    let ranking = FeatureRanking(size: shape.size, rank: rank)
                    // The piece's record, written after the batch's others: its bytes in them.
                    func written(_ piece: PlaneShape) -> Range<Int> {
                        let start = cut.records.bytes.count
                        TileItem.write(layer: feature.layer, attributes: attributes, shape: piece, thinning: thinning, ranking: ranking, to: &cut.records)
                        return start..<cut.records.bytes.count
                    }
                    if let point = shape.lonePoint, level.findsNodesDirectly(holdingLonePoint: point) {
                        // A lone point lies whole in every block whose rect holds it (as the walk
                        // hands it down, unclipped): its record is written once, when a block
                        // holds it, and shared by them.
                        var shared: Range<Int>?
                        level.forEachNode(holdingLonePoint: point, at: depth) { block in
                            let record = shared ?? written(shape)
                            shared = record
                            cut.pieces.append((block, record))
                        }
                        return
                    }
                    level.descend([TileItem(layer: feature.layer, feature: 0, shape: shape, thinning: thinning, ranking: ranking)], to: depth) { node, items in
                        cut.pieces.append((node, written(items[0].shape)))
                    }
                }
                try emit(cut)
            }
        } consume: { cut in
            waiting[cut.sequence] = cut
            while let cut = waiting.removeValue(forKey: nextToAppend) {
                try cut.records.bytes.withUnsafeBytes { records in
                    for (block, range) in cut.pieces {
                        try blocks.append(block, UnsafeRawBufferPointer(rebasing: records[range]))
                    }
                }
                tooSmall += cut.tooSmall
                nextToAppend += 1
            }
        }
        return tooSmall
    }

    /// A geometry's first four positions (what ``PointThinning/rank(_:_:)`` hashes), without walking the rest.
    static func firstPositions(of geometry: Geometry) -> [Position] {
        struct Enough: Error {}
        var positions: [Position] = []
        try? geometry.forEachPosition { position in
            positions.append(position)
            if positions.count == 4 { throw Enough() }
        }
        return positions
    }

    /// A batch of spilled features cut into a level's blocks by a worker: the pieces' records as
    /// the blocks hold them, one after the other in one buffer (encoded on the worker: the
    /// calling thread only appends), each piece's block and its record's bytes in it (a lone
    /// point's one record shared by its blocks), and how many features simplified to nothing.
    /// One buffer, not an array per piece: an array per piece was an allocation (and a free on
    /// the calling thread) per point and level.
    struct CutBatch: Sendable {
        let sequence: Int
        var records = RecordWriter()
        var pieces: [(block: MapTile, record: Range<Int>)] = []
        var tooSmall = 0
    }

    /// The spill's batches handed to the threads one at a time, numbered in order.
    final class BatchQueue: @unchecked Sendable {
        // `batches` is touched only under `lock`.
        private var batches: RecordBatches
        private var sequence = 0
        private let lock = NSLock()

        init(_ batches: RecordBatches) { self.batches = batches }

        func next() throws -> (Int, [UInt8])? {
            lock.lock()
            defer { lock.unlock() }
            guard let batch = try batches.next() else { return nil }
            sequence += 1
            return (sequence - 1, batch)
        }
    }

    /// A tile encoded by a worker, and, when it was over the limits, how many features were
    /// dropped and merged to fit it under them.
    struct BuiltTile: Sendable {
        let tile: MapTile
        var bytes: [UInt8]
        var repaired: Int
        /// Whether the worker that made it stored it (its bytes then left out).
        var stored = false
        var fitted: (dropped: Int, coalesced: Int)?
        /// The threshold that brought it under the limits, past the level's: the level's next, when higher than any other tile's.
        var threshold: DropThreshold?
    }

    /// A level's tiles set aside in a scratch file, in the order made, until the level is known
    /// not to be made again; then handed on in that order, or by several threads at once.
    ///
    /// A million points at zoom 14 stage more than a million tiles at once, so the index is
    /// compact (16 bytes a tile, in chunks of 1 MiB that never copy as they grow) and the tiles
    /// are read back in runs of about 1 MiB, one pread(2) for many tiles.
    // Appended to by the calling thread only; read from several threads only in
    // `forEach(threads:_:)`, once nothing is appended.
    final class LevelTileStaging: @unchecked Sendable {
        /// A staged tile: its column and row, and where its bytes start in the scratch file.
        /// They end where the next tile's start (tiles are written one after another), so the
        /// length need not be kept.
        struct Entry {
            let x: UInt32, y: UInt32
            let offset: UInt64
        }

        /// The entries a chunk holds: 1 MiB of them.
        static let entriesPerChunk = (1 << 20) / MemoryLayout<Entry>.stride
        /// How much one read takes in at most, unless one tile is larger.
        static let readSize = 1 << 20
        /// The most bytes of other tiles a read takes in between two of the tiles it is for:
        /// a thread's columns are interleaved in the file with others' (the workers that made
        /// them took turns), and reading past a little is cheaper than another pread.
        static let largestGapRead = 64 << 10

        /// The level all the staged tiles are of.
        let zoom: Int
        private let file: ScratchFile
        private var chunks: [[Entry]] = []
        /// How many tiles are staged.
        private(set) var count = 0
        private var written = 0

        /// An empty staging for tiles of level `zoom`.
        /// - Throws: `MeridianError` (`io`) when no scratch file can be made.
        init(zoom: Int) throws {
            self.zoom = zoom
            file = try ScratchFile(unlinked: "tile-level")
        }

        /// Sets `bytes` aside as `tile`'s.
        /// - Throws: `MeridianError` (`io`) when the scratch file cannot be written, (unavailable)
        ///   when `tile` is not of the level or the level holds more tiles than an index counts.
        func append(_ tile: MapTile, _ bytes: [UInt8]) throws {
            guard tile.zoom == zoom, let x = UInt32(exactly: tile.x), let y = UInt32(exactly: tile.y) else {
                throw MeridianError(.unavailable, "tile \(tile) cannot be staged with the tiles of level \(zoom)")
            }
            // Tiles are told apart by a 32-bit index in `forEach(threads:_:)`.
            guard count < Int(UInt32.max) else {
                throw MeridianError(.unavailable, "level \(zoom) holds more than \(UInt32.max) tiles, more than can be staged")
            }
            if count % Self.entriesPerChunk == 0 {
                chunks.append([])
                chunks[chunks.count - 1].reserveCapacity(Self.entriesPerChunk)
            }
            chunks[chunks.count - 1].append(Entry(x: x, y: y, offset: UInt64(written)))
            bytes.withUnsafeBytes { file.sink.write($0) }
            count += 1
            written += bytes.count
            try file.sink.checkForErrors()
        }

        /// The staged tile `index` (in the order appended), and where its bytes are.
        private func tile(_ index: Int) -> (tile: MapTile, bytes: Range<Int>) {
            let entry = chunks[index / Self.entriesPerChunk][index % Self.entriesPerChunk]
            let end = index + 1 < count ? Int(chunks[(index + 1) / Self.entriesPerChunk][(index + 1) % Self.entriesPerChunk].offset) : written
            return (MapTile(zoom: zoom, x: Int(entry.x), y: Int(entry.y)), Int(entry.offset)..<end)
        }

        /// Each tile set aside, to `body`, in order.
        func forEach(_ body: (MapTile, [UInt8]) throws -> Void) throws {
            try file.sink.flush()
            var reader = RunReader(file: file)
            try reader.forEach(0..<count, tile) { try body($0, $1) }
        }

        /// Each tile set aside, to `store`, from `threads` threads at once, in no order. The
        /// tiles are cut into ranges of whole columns (`z/x`), about eight a thread, and each
        /// thread takes the next range not taken yet and stores its tiles in the order they
        /// were written (reading them in runs). Whole columns to one thread: two threads
        /// creating files in one folder at once contend for its lock in the kernel (handed out
        /// tile by tile, the level's tiles took several times the CPU of one thread storing
        /// them all).
        func forEach(threads: Int, _ store: @escaping @Sendable (MapTile, [UInt8]) throws -> Void) throws {
            try file.sink.flush()
            guard count > 0 else { return }
            // The tiles by column, then in the order written: the makers' threads took turns,
            // so a column's tiles are spread over the file among other columns'.
            var order = [UInt64](unsafeUninitializedCapacity: count) { buffer, initialized in
                var index = 0
                for chunk in chunks {
                    for entry in chunk {
                        buffer[index] = UInt64(entry.x) << 32 | UInt64(index)
                        index += 1
                    }
                }
                initialized = index
            }
            order.sort()
            let ranges = Self.columnRanges(order, parts: max(1, threads) * 8)
            let next = Atomic<Int>(0), taken = order
            try WorkerThreads.run(threads: min(threads, ranges.count)) { (_: (Int) throws -> Void) in
                var reader = RunReader(file: self.file)
                while case let range = next.add(1, ordering: .relaxed).oldValue, range < ranges.count {
                    // In the order written, to read them in runs.
                    let tiles = taken[ranges[range]].map { Int(truncatingIfNeeded: $0 & 0xFFFF_FFFF) }.sorted()
                    try reader.forEach(tiles, self.tile) { try store($0, $1) }
                }
            } consume: { _ in }
        }

        /// `order` (a column in its high 32 bits, sorted) cut into about `parts` ranges of
        /// about equal numbers of tiles, each of whole columns.
        static func columnRanges(_ order: [UInt64], parts: Int) -> [Range<Int>] {
            let size = max(1, order.count / parts)
            var ranges: [Range<Int>] = [], start = 0
            while start < order.count {
                var end = min(start + size, order.count)
                // The range goes on to the end of its last column.
                while end < order.count, order[end] >> 32 == order[end - 1] >> 32 { end += 1 }
                ranges.append(start..<end)
                start = end
            }
            return ranges
        }

        /// Reads staged tiles back in runs: each pread takes in, into one buffer used again,
        /// the tile asked for and those after it asked for next, up to ``readSize`` (and gaps
        /// of other tiles up to ``largestGapRead``).
        struct RunReader {
            let file: ScratchFile
            private var buffer: [UInt8] = []
            /// Where in the file `buffer`'s bytes are.
            private var held = 0..<0

            init(file: ScratchFile) { self.file = file }

            /// Each of `tiles` (indices in the order written, ascending) with its bytes, to
            /// `body`; `locate` gives a tile's address and bytes' place in the file.
            mutating func forEach<Tiles: Collection<Int>>(_ tiles: Tiles, _ locate: (Int) -> (tile: MapTile, bytes: Range<Int>),
                                                           _ body: (MapTile, [UInt8]) throws -> Void) throws {
                var position = tiles.startIndex
                while position != tiles.endIndex {
                    let (tile, bytes) = locate(tiles[position])
                    if !(held.lowerBound <= bytes.lowerBound && bytes.upperBound <= held.upperBound) {
                        // The run: this tile, and the next while they fit and lie close after it.
                        var end = bytes.upperBound, ahead = tiles.index(after: position)
                        while ahead != tiles.endIndex {
                            let after = locate(tiles[ahead]).bytes
                            guard after.lowerBound >= end, after.lowerBound - end <= LevelTileStaging.largestGapRead,
                                  after.upperBound - bytes.lowerBound <= LevelTileStaging.readSize else { break }
                            end = after.upperBound
                            ahead = tiles.index(after: ahead)
                        }
                        let length = end - bytes.lowerBound, file = file
                        if buffer.count < length { buffer = [UInt8](repeating: 0, count: max(length, LevelTileStaging.readSize)) }
                        try buffer.withUnsafeMutableBytes { try file.read(at: bytes.lowerBound, into: UnsafeMutableRawBufferPointer(rebasing: $0[..<length])) }
                        held = bytes.lowerBound..<end
                    }
                    let start = bytes.lowerBound - held.lowerBound
                    try body(tile, Array(buffer[start..<(start + bytes.count)]))
                    position = tiles.index(after: position)
                }
            }
        }
    }
}

/// One feature (or what of it lies in a quadtree node) on its way to the tiles: its layer, an
/// index for its id and properties (into what the block it was read from holds) and its
/// simplified geometry in map points.
struct TileItem: Sendable {
    let layer: Int, feature: Int
    var shape: PlaneShape
    /// Set for a point that ``PointThinning`` leaves out of the level, unless it is the one
    /// its tile keeps (``kept(_:)``).
    var thinning: Thinning?
    /// How the whole feature ranks among the level's when tiles must lose features.
    var ranking = FeatureRanking(size: .infinity, rank: 0)

    /// A point thinned out of the level: its rank, by which a tile that would otherwise lose
    /// all its points chooses the one it keeps.
    struct Thinning: Sendable {
        let rank: Double
    }

    /// What of `items` a leaf tile holds: all but the thinned points; when they would leave
    /// the tile without a point (lines and polygons do not count), the thinned point of the
    /// lowest rank too, in its place (as tippecanoe keeps a point in every tile that has any, so
    /// sparse areas do not go blank at low zooms). The lowest rank is the point the tile's
    /// parent keeps too, so a point kept at a level stays at deeper ones.
    static func kept(_ items: [TileItem]) -> [TileItem] {
        let thinned = items.indices.filter { items[$0].thinning != nil }
        if thinned.isEmpty { return items }
        let showsAPoint = items.contains { $0.thinning == nil && !$0.shape.points.isEmpty }
        let chosen = showsAPoint ? nil : thinned.min { items[$0].thinning!.rank < items[$1].thinning!.rank }
        return items.indices.compactMap { items[$0].thinning == nil || $0 == chosen ? items[$0] : nil }
    }

    /// What of it lies in `rect`: itself when wholly inside (no copy), nil when nothing is.
    func clipped(to rect: RectClip) -> TileItem? {
        let b = shape.bounds
        if b.maxX < rect.minX || b.minX > rect.maxX || b.maxY < rect.minY || b.minY > rect.maxY { return nil }
        if rect.minX <= b.minX && b.maxX <= rect.maxX && rect.minY <= b.minY && b.maxY <= rect.maxY { return self }
        let shape = shape.clipped(to: rect)
        return shape.isEmpty ? nil : TileItem(layer: layer, feature: feature, shape: shape, thinning: thinning, ranking: ranking)
    }

    /// Writes a feature's piece as a block holds it: its layer, whether it is thinned out, the
    /// whole feature's ranking, its attributes' bytes as the feature spill holds them, and its shape.
    static func write(layer: Int, attributes: UnsafeRawBufferPointer, shape: PlaneShape, thinning: Thinning?,
                      ranking: FeatureRanking = FeatureRanking(size: .infinity, rank: 0), to record: inout RecordWriter) {
        record.putRecord { record in
            record.put(UInt32(layer))
            record.put(UInt8(thinning == nil ? 0 : 1))
            // A thinned point's rank is its ranking's (both hash its position and attributes): written once.
            record.put(ranking.size)
            record.put(thinning?.rank ?? ranking.rank)
            record.put(attributes)
            record.put(shape.points)
            record.put(count: shape.lines.count)
            shape.lines.forEach { record.put($0) }
            record.put(count: shape.polygons.count)
            for polygon in shape.polygons {
                record.put(count: polygon.count)
                polygon.forEach { record.put($0) }
            }
        }
    }

    /// A block's pieces as ``write(layer:attributes:shape:to:)`` wrote them, in order, each
    /// item's `feature` indexing the attributes returned with them.
    ///
    /// With `level`, thinned points that ``kept(_:)`` keeps in none of the level's tiles are
    /// left out unread: a leaf keeps at most the thinned point of the lowest rank (the first of
    /// them on a tie) among those in its square and buffer, so only each leaf's such point is
    /// read. Below the base zoom nearly every point of a dense block is thinned: decoding them
    /// all made a block of the whole world (zoom 0-3) hold a million items, the peak of a run's memory.
    static func read(_ records: [UInt8], thinnedKeptBy level: ZoomLevel? = nil) -> (items: [TileItem], attributes: [TileAttributes]) {
        let wanted = level.map { thinnedPointsKept(records, by: $0) }
        var items: [TileItem] = [], attributes: [TileAttributes] = []
        var index = -1
        read(records, wanted: wanted, index: &index, into: &items, &attributes)
        return (items, attributes)
    }

    /// The pieces of `block` in `blocks`, as ``read(_:thinnedKeptBy:)`` reads a block's records,
    /// read a chunk at a time (twice with `level`: the thinned points kept, then the pieces),
    /// so that a block holding most of the points (the whole world's, at zoom 0-3) is never
    /// in memory as records beside its items.
    static func read(block: MapTile, of blocks: TileBlockSpill, thinnedKeptBy level: ZoomLevel?) throws -> (items: [TileItem], attributes: [TileAttributes]) {
        var wanted: Set<Int>?
        if let level {
            var lowest: [MapTile: (rank: Double, index: Int)] = [:], recordIndex = -1
            try blocks.forEachChunk(of: block) { findThinnedPointsKept($0, by: level, index: &recordIndex, lowest: &lowest) }
            wanted = Set(lowest.values.map(\.index))
        }
        var items: [TileItem] = [], attributes: [TileAttributes] = []
        var index = -1
        try blocks.forEachChunk(of: block) { read($0, wanted: wanted, index: &index, into: &items, &attributes) }
        return (items, attributes)
    }

    /// Appends the pieces in `records` (numbered on from `index`) to `items` and their
    /// attributes to `attributes`, leaving out thinned points not in `wanted` (with it).
    private static func read(_ records: [UInt8], wanted: Set<Int>?, index: inout Int, into items: inout [TileItem], _ attributes: inout [TileAttributes]) {
        RecordBatches.forEach(in: records) { record in
            index += 1
            let layer = record.count()
            let thinned = record.byte() == 1
            if thinned, let wanted, !wanted.contains(index) { return }
            let ranking = FeatureRanking(size: record.double(), rank: record.double())
            attributes.append(TileAttributes(&record))
            let points = record.planePoints()
            let lines = (0..<record.count()).map { _ in record.planePoints() }
            let polygons = (0..<record.count()).map { _ in (0..<record.count()).map { _ in record.planePoints() } }
            items.append(TileItem(layer: layer, feature: items.count, shape: PlaneShape(points: points, lines: lines, polygons: polygons),
                                  thinning: thinned ? Thinning(rank: ranking.rank) : nil, ranking: ranking))
        }
    }

    /// The indices of the thinned points in `records` that some leaf tile of `level` may keep:
    /// per leaf whose square and buffer (``ZoomLevel/rect(_:)``, compared as
    /// ``clipped(to:)`` compares) hold one of its points, the one of the lowest rank, the first
    /// on a tie. A tile of the level reached through the quadtree holds exactly the thinned points
    /// its rect holds (the rects of a node's children lie inside its own), so the point
    /// ``kept(_:)`` chooses for it is among these.
    static func thinnedPointsKept(_ records: [UInt8], by level: ZoomLevel) -> Set<Int> {
        var lowest: [MapTile: (rank: Double, index: Int)] = [:], recordIndex = -1
        findThinnedPointsKept(records, by: level, index: &recordIndex, lowest: &lowest)
        return Set(lowest.values.map(\.index))
    }

    /// ``thinnedPointsKept(_:by:)`` over records read in parts: the records in `records`
    /// (numbered on from `recordIndex`) taken into `lowest`, each leaf's lowest-ranked thinned
    /// point so far (the first on a tie).
    private static func findThinnedPointsKept(_ records: [UInt8], by level: ZoomLevel, index recordIndex: inout Int,
                                              lowest: inout [MapTile: (rank: Double, index: Int)]) {
        let tiles = 1 << level.zoom, width = MapWorld.size / Double(tiles)
        // Clamped before converting: positions may lie off the world.
        func index(_ value: Double) -> Int { Int(max(-2, min(Double(tiles + 1), (value / width).rounded(.down)))) }
        // How many tiles away a tile's rect may hold a point: a point on an edge is in both
        // tiles' rects, and the buffer reaches into neighbours (one, while narrower than a tile).
        let reach = Int(min(Double(tiles), (level.buffer / width).rounded(.down))) + 1
        RecordBatches.forEach(in: records) { record in
            recordIndex += 1
            _ = record.count()
            guard record.byte() == 1 else { return }
            _ = record.double()
            let rank = record.double()
            _ = TileAttributes.skip(&record)
            for _ in 0..<record.count() {
                let x = record.double(), point = PlanePoint(x, record.double())
                guard point.x.isFinite, point.y.isFinite else { continue }
                let column = index(point.x), row = index(point.y)
                for y in stride(from: max(0, row - reach), through: min(tiles - 1, row + reach), by: 1) {
                    for x in stride(from: max(0, column - reach), through: min(tiles - 1, column + reach), by: 1) {
                        let tile = MapTile(zoom: level.zoom, x: x, y: y)
                        guard level.rect(tile).contains(point) else { continue }
                        if let best = lowest[tile], best.rank <= rank { continue }
                        lowest[tile] = (rank, recordIndex)
                    }
                }
            }
        }
    }
}

/// A geometry in map points, by kind of part (a geometry collection's members together):
/// points, lines, and polygons as rings (exterior first, each closed), with its bounds.
struct PlaneShape: Sendable {
    var points: [PlanePoint] = [], lines: [[PlanePoint]] = [], polygons: [[[PlanePoint]]] = []
    private(set) var bounds = RectClip(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)

    /// `geometry`'s parts projected to map points.
    init(_ geometry: Geometry) {
        func project(_ positions: [Position]) -> [PlanePoint] {
            positions.map { let m = MapPoint($0); return PlanePoint(m.x, m.y) }
        }
        func add(_ g: Geometry) {
            switch g {
            case .point(let p): points += project([p.coordinates])
            case .multiPoint(let m): points += project(m.coordinates)
            case .lineString(let l): lines.append(project(l.coordinates))
            case .multiLineString(let m): lines += m.lines.map(project)
            case .polygon(let p): polygons.append(p.rings.map(project))
            case .multiPolygon(let m): polygons += m.polygons.map { $0.rings.map(project) }
            case .geometryCollection(let c): c.geometries.forEach(add)
            }
        }
        add(geometry)
        measure()
    }

    init(points: [PlanePoint], lines: [[PlanePoint]], polygons: [[[PlanePoint]]]) {
        (self.points, self.lines, self.polygons) = (points, lines, polygons)
        measure()
    }

    var isEmpty: Bool { points.isEmpty && lines.isEmpty && polygons.isEmpty }

    /// The point, when the shape is one point and nothing else.
    var lonePoint: PlanePoint? { points.count == 1 && lines.isEmpty && polygons.isEmpty ? points[0] : nil }

    /// How many kinds of part (points, lines, polygons) it has: the tile features it makes at most.
    var kindsOfParts: Int { (points.isEmpty ? 0 : 1) + (lines.isEmpty ? 0 : 1) + (polygons.isEmpty ? 0 : 1) }

    /// How many kinds of part `geometry` has (a collection's members together).
    static func kindsOfParts(_ geometry: Geometry) -> Int {
        var points = false, lines = false, polygons = false
        func add(_ g: Geometry) {
            switch g {
            case .point, .multiPoint: points = true
            case .lineString, .multiLineString: lines = true
            case .polygon, .multiPolygon: polygons = true
            case .geometryCollection(let c): c.geometries.forEach(add)
            }
        }
        add(geometry)
        return (points ? 1 : 0) + (lines ? 1 : 0) + (polygons ? 1 : 0)
    }

    /// Its positions, every part's.
    var positionCount: Int {
        points.count + lines.reduce(0) { $0 + $1.count } + polygons.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }
    }

    /// How big it is, to rank which features a full tile loses first: its polygons' area (holes
    /// taken out), else its lines' length, in map points; points are above every other (infinity).
    var size: Double {
        if !polygons.isEmpty {
            return polygons.reduce(0) { total, rings in
                rings.enumerated().reduce(total) { sum, ring in
                    var twice = 0.0
                    for (a, b) in zip(ring.element, ring.element.dropFirst()) { twice += a.x * b.y - b.x * a.y }
                    return sum + (ring.offset == 0 ? 1 : -1) * abs(twice) / 2
                }
            }
        }
        if !lines.isEmpty {
            return lines.reduce(0) { total, line in total + zip(line, line.dropFirst()).reduce(0) { $0 + hypot($1.1.x - $1.0.x, $1.1.y - $1.0.y) } }
        }
        return .infinity
    }

    private mutating func measure() {
        func add(_ p: PlanePoint) {
            bounds.minX = min(bounds.minX, p.x)
            bounds.minY = min(bounds.minY, p.y)
            bounds.maxX = max(bounds.maxX, p.x)
            bounds.maxY = max(bounds.maxY, p.y)
        }
        points.forEach(add)
        for line in lines { line.forEach(add) }
        for polygon in polygons { polygon.first?.forEach(add) }  // holes lie inside their exterior
    }

    /// What of it lies in `rect`: points on or in it, lines cut where they leave it, polygons
    /// cut along its edges (``RectClip``).
    func clipped(to rect: RectClip) -> PlaneShape {
        PlaneShape(points: points.filter(rect.contains), lines: lines.flatMap { rect.clip(line: $0) },
                   polygons: polygons.flatMap { rect.clip(polygon: $0) })
    }
}

/// One zoom level being cut: its sizes in map points, its tiles' layers, and the shard whose
/// tiles are made (nil: every tile).
struct ZoomLevel: Sendable {
    let zoom: Int, extent: Int
    /// A tile unit, and the buffer, in map points.
    let unit: Double, buffer: Double
    let layerNames: [String]
    let shard: TileShardOwnership?

    init(zoom: Int, options: VectorTilingOptions, layerNames: [String], shard: TileShardOwnership? = nil) {
        self.zoom = zoom
        extent = options.extent
        unit = MapWorld.size / Double(1 << zoom) / Double(options.extent)
        buffer = Double(options.buffer) * unit
        self.layerNames = layerNames
        self.shard = shard
    }

    /// Whether a node's tiles of the level may hold something made: always without a shard.
    func isWanted(_ node: MapTile) -> Bool {
        shard?.ownsAny(atZoom: zoom, under: node) ?? true
    }

    /// Whether `geometry` may reach a tile of the shard's (always without a shard): whether
    /// one of the tiles whose square and buffer its bounds touch, as ``rect(_:)`` draws them,
    /// is the shard's. The columns and rows are widened by one and then narrowed by the very
    /// comparisons `TileItem.clipped(to:)` makes, so no tile it reaches is missed.
    func mayReachShard(_ geometry: Geometry) -> Bool {
        guard let shard else { return true }
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        geometry.forEachPosition {
            let m = MapPoint($0)
            minX = min(minX, m.x); maxX = max(maxX, m.x); minY = min(minY, m.y); maxY = max(maxY, m.y)
        }
        guard minX.isFinite, minY.isFinite, maxX.isFinite, maxY.isFinite else { return true }
        let tiles = 1 << zoom, width = MapWorld.size / Double(tiles)
        func span(_ low: Double, _ high: Double) -> ClosedRange<Int>? {
            // Clamped before converting: positions may lie off the world.
            func index(_ value: Double) -> Int { Int(max(-2, min(Double(tiles + 1), (value / width).rounded(.down)))) }
            var first = max(0, index(low - buffer) - 1), last = min(tiles - 1, index(high + buffer) + 1)
            while first <= last && Double(first + 1) * width + buffer < low { first += 1 }
            while last >= first && Double(last) * width - buffer > high { last -= 1 }
            return first <= last ? first...last : nil
        }
        guard let columns = span(minX, maxX), let rows = span(minY, maxY) else { return false }
        return shard.ownsAny(atZoom: zoom, columns: columns, rows: rows)
    }

    /// What a node's features are clipped to: its square and the level's buffer around it.
    func rect(_ node: MapTile) -> RectClip {
        let width = MapWorld.size / Double(1 << node.zoom)
        return RectClip(minX: Double(node.x) * width - buffer, minY: Double(node.y) * width - buffer,
                        maxX: Double(node.x + 1) * width + buffer, maxY: Double(node.y + 1) * width + buffer)
    }

    /// Cuts `items` (already clipped to `node`) down the quadtree, depth first, handing each
    /// node of level `depth` that holds something to `body` with its pieces.
    func descend(_ node: MapTile, _ items: [TileItem], to depth: Int, _ body: (MapTile, [TileItem]) throws -> Void) rethrows {
        if node.zoom == depth { return try body(node, items) }
        if shard == nil, items.count > 1, items.allSatisfy({ $0.shape.lonePoint.map { $0.x.isFinite && $0.y.isFinite } ?? false }) {
            return try descend(points: items, under: node, to: depth, body)
        }
        for child in node.children where isWanted(child) {
            let rect = rect(child)
            let clipped = items.compactMap { $0.clipped(to: rect) }
            if !clipped.isEmpty { try descend(child, clipped, to: depth, body) }
        }
    }

    /// The world's features cut down to the nodes of level `depth`.
    func descend(_ items: [TileItem], to depth: Int, _ body: (MapTile, [TileItem]) throws -> Void) rethrows {
        if items.count == 1, let point = items[0].shape.lonePoint, findsNodesDirectly(holdingLonePoint: point) {
            return try descend(items[0], at: point, to: depth, body)
        }
        let root = MapTile(zoom: 0, x: 0, y: 0), rect = rect(root)
        guard isWanted(root) else { return }
        let clipped = items.compactMap { $0.clipped(to: rect) }
        if !clipped.isEmpty { try descend(root, clipped, to: depth, body) }
    }

    /// A lone point's cut down to the nodes of level `depth`, found without walking the tree
    /// (the cut of a million points walked nine levels of it, clipping at each, per point and
    /// level): the nodes whose ``rect(_:)`` holds it, each handed `item` itself as
    /// `TileItem.clipped(to:)` hands a point, in the order the walk reaches them. A node's rect
    /// lies within its parent's (a child's edges are its parent's or inside them, and widths
    /// halve exactly), so the nodes whose rect holds the point are those the walk reaches.
    private func descend(_ item: TileItem, at point: PlanePoint, to depth: Int, _ body: (MapTile, [TileItem]) throws -> Void) rethrows {
        var nodes: [MapTile] = []
        forEachNode(holding: point, under: MapTile(zoom: 0, x: 0, y: 0), at: depth) { nodes.append($0) }
        // The walk's order: children top left, top right, bottom left, bottom right, so the
        // nodes in the order of their quadtree paths, each level's row bit before its column bit.
        if nodes.count > 1 { nodes.sort { Self.quadtreeOrder($0, before: $1) } }
        let pieces = [item]
        for node in nodes { try body(node, pieces) }
    }

    /// Whether ``forEachNode(holdingLonePoint:at:_:)`` finds the nodes the walk takes a lone
    /// point to: when it is finite, and every tile of the level is made (a shard's walk leaves
    /// out the nodes none of whose tiles is the shard's).
    func findsNodesDirectly(holdingLonePoint point: PlanePoint) -> Bool {
        shard == nil && point.x.isFinite && point.y.isFinite
    }

    /// Each node of level `depth` to which the walk down from the world takes a lone point
    /// (one for which ``findsNodesDirectly(holdingLonePoint:)``), found without walking: the
    /// nodes whose ``rect(_:)`` holds it, in rows from the top, each row from the left (not
    /// the walk's order: what a node is handed does not depend on the other nodes).
    func forEachNode(holdingLonePoint point: PlanePoint, at depth: Int, _ body: (MapTile) -> Void) {
        forEachNode(holding: point, under: MapTile(zoom: 0, x: 0, y: 0), at: depth, body)
    }

    /// Lone points (finite, already within `node`'s rect) cut down to the nodes of level
    /// `depth` under `node` as the walk cuts them, without walking: each point goes to the
    /// nodes whose rect holds it, in the order of `items`, and the nodes are handed to `body`
    /// in the walk's order.
    private func descend(points items: [TileItem], under node: MapTile, to depth: Int, _ body: (MapTile, [TileItem]) throws -> Void) rethrows {
        var pieces: [MapTile: [TileItem]] = [:]
        for item in items {
            guard let point = item.shape.lonePoint else { continue }
            forEachNode(holding: point, under: node, at: depth) { pieces[$0, default: []].append(item) }
        }
        for leaf in pieces.keys.sorted(by: { Self.quadtreeOrder($0, before: $1) }) { try body(leaf, pieces[leaf]!) }
    }

    /// Each node of level `depth` under `node` (a node of a level above it, or it) whose
    /// ``rect(_:)`` holds `point` (finite).
    private func forEachNode(holding point: PlanePoint, under node: MapTile, at depth: Int, _ body: (MapTile) -> Void) {
        let tiles = 1 << depth, width = MapWorld.size / Double(tiles), span = 1 << (depth - node.zoom)
        // The columns (rows) the point and the buffer around it touch, widened by one (the
        // rect's own comparisons decide), within the node's; clamped before converting: a point
        // may lie off the world.
        func candidates(_ value: Double, within first: Int) -> ClosedRange<Int>? {
            func index(_ value: Double) -> Int { Int(max(-2, min(Double(tiles + 1), (value / width).rounded(.down)))) }
            let low = max(first, index(value - buffer) - 1), high = min(first + span - 1, index(value + buffer) + 1)
            return low <= high ? low...high : nil
        }
        guard let columns = candidates(point.x, within: node.x * span), let rows = candidates(point.y, within: node.y * span) else { return }
        for y in rows {
            for x in columns {
                let leaf = MapTile(zoom: depth, x: x, y: y)
                if rect(leaf).contains(point) { body(leaf) }
            }
        }
    }

    /// Whether the walk down the quadtree reaches `a` before `b` (two nodes of one level).
    static func quadtreeOrder(_ a: MapTile, before b: MapTile) -> Bool {
        for shift in stride(from: a.zoom - 1, through: 0, by: -1) {
            let childA = ((a.y >> shift) & 1) << 1 | ((a.x >> shift) & 1), childB = ((b.y >> shift) & 1) << 1 | ((b.x >> shift) & 1)
            if childA != childB { return childA < childB }
        }
        return false
    }

    /// The tile of leaf `node` holding `items` (each item's `feature` indexing `attributes`),
    /// snapped to its grid, its polygons made valid by `repair`; nil when nothing is left after
    /// snapping. Layers it holds nothing of are left out. With it, per layer, the ranking of the
    /// feature each of its features came from.
    func tile(_ node: MapTile, _ items: [TileItem], attributes: [TileAttributes], repair: PolygonRepair) -> (VectorTile, [[FeatureRanking]])? {
        let width = MapWorld.size / Double(1 << zoom)
        let grid = TileGrid(origin: PlanePoint(Double(node.x) * width, Double(node.y) * width), unit: unit)
        var layers = layerNames.map { VectorTile.Layer(name: $0, extent: extent) }
        var rankings = [[FeatureRanking]](repeating: [], count: layerNames.count)
        for item in items {
            for var feature in grid.features(item.shape, id: attributes[item.feature].id, encodedProperties: attributes[item.feature].properties) {
                if feature.type == .polygon {
                    feature.parts = repair.valid(feature.parts)
                    if feature.parts.isEmpty { continue }
                }
                layers[item.layer].features.append(feature)
                rankings[item.layer].append(item.ranking)
            }
        }
        let held = layers.indices.filter { !layers[$0].features.isEmpty }
        return held.isEmpty ? nil : (VectorTile(layers: held.map { layers[$0] }), held.map { rankings[$0] })
    }
}

/// A tile's integer grid: map points to tile units, and shapes to tile features.
struct TileGrid {
    let origin: PlanePoint
    let unit: Double

    func point(_ p: PlanePoint) -> SIMD2<Int32> {
        SIMD2(Int32(((p.x - origin.x) / unit).rounded()), Int32(((p.y - origin.y) / unit).rounded()))
    }

    /// `shape` (clipped to the tile) as tile features: one per kind of part it has, each with
    /// the feature's properties as they were encoded for all its tiles.
    func features(_ shape: PlaneShape, id: UInt64?, encodedProperties properties: EncodedProperties) -> [VectorTile.Feature] {
        var out: [VectorTile.Feature] = []
        if !shape.points.isEmpty {
            out.append(VectorTile.Feature(id: id, type: .point, parts: [shape.points.map(point)], encodedProperties: properties))
        }
        let lines = shape.lines.compactMap(line)
        if !lines.isEmpty { out.append(VectorTile.Feature(id: id, type: .lineString, parts: lines, encodedProperties: properties)) }
        let rings = shape.polygons.flatMap(polygon)
        if !rings.isEmpty { out.append(VectorTile.Feature(id: id, type: .polygon, parts: rings, encodedProperties: properties)) }
        return out
    }

    /// A line snapped to the grid, repeated points dropped; nil when it shrank to a point.
    func line(_ points: [PlanePoint]) -> [SIMD2<Int32>]? {
        let snapped = Self.deduplicated(points.map(point))
        return snapped.count >= 2 ? snapped : nil
    }

    /// A polygon's rings snapped to the grid (``wound(_:)``).
    func polygon(_ rings: [[PlanePoint]]) -> [[SIMD2<Int32>]] {
        Self.wound(rings.map { $0.map(point) })
    }

    /// A polygon's rings on the grid, repeated points dropped, unclosed, the outer ring with
    /// positive area (the specification's clockwise on screen) and holes negative; none when
    /// the outer ring collapses, and holes that collapse are dropped.
    static func wound(_ rings: [[SIMD2<Int32>]]) -> [[SIMD2<Int32>]] {
        var out: [[SIMD2<Int32>]] = []
        for (index, ring) in rings.enumerated() {
            var snapped = deduplicated(ring)
            if snapped.count > 1 && snapped.first == snapped.last { snapped.removeLast() }
            let area = doubleArea(snapped)
            guard snapped.count >= 3, area != 0 else {
                if index == 0 { return [] }
                continue
            }
            if (index == 0) != (area > 0) { snapped.reverse() }
            out.append(snapped)
        }
        return out
    }

    static func deduplicated(_ points: [SIMD2<Int32>]) -> [SIMD2<Int32>] {
        var out: [SIMD2<Int32>] = []
        out.reserveCapacity(points.count)
        for p in points where out.last != p { out.append(p) }
        return out
    }

    /// Twice the ring's area by the surveyor's formula in tile units (y down): positive clockwise on screen.
    static func doubleArea(_ ring: [SIMD2<Int32>]) -> Int64 {
        guard ring.count >= 3 else { return 0 }
        var sum: Int64 = 0
        for i in ring.indices {
            let a = ring[i], b = ring[(i + 1) % ring.count]
            sum += Int64(a.x) * Int64(b.y) - Int64(b.x) * Int64(a.y)
        }
        return sum
    }

    /// How big a feature is, to rank which to drop from a full tile: polygon area, line length,
    /// and points above every other.
    static func size(of feature: VectorTile.Feature) -> Double {
        switch feature.type {
        case .point: return .infinity
        case .lineString:
            return feature.parts.reduce(0) { total, line in
                total + zip(line, line.dropFirst()).reduce(0) { $0 + Double(hypot(Double($1.1.x - $1.0.x), Double($1.1.y - $1.0.y))) }
            }
        case .polygon:
            return feature.parts.reduce(0) { $0 + Double(doubleArea($1)) / 2 }
        }
    }
}
