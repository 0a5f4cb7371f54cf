import Foundation
import MeridianCore
import MeridianFormats
import MeridianTiles
import MeridianGeometry

/// How a run's blocks are split into shards: the blocks in Morton order (a compact area of each
/// chart in each shard), cut into `count` runs of about equal estimated work — the source
/// pixels read plus the tile pixels warped, not tile counts, as a harbour plan's block costs far
/// more than a coast chart's. Every worker computes the same split from the inputs and options.
struct ShardSplit: Sendable {
    let count: Int
    /// The blocks in Morton order, and the shard of each (never decreasing along the order).
    let blocks: [MapTile]
    let shardOfBlock: [Int]
    private let codes: [UInt64]
    let blockZoom: Int

    init(tiler: Tiler, count: Int) {
        self.count = count
        blockZoom = tiler.blockZoom
        blocks = tiler.blocksInOrder
        codes = blocks.map { Tiler.blockOrder($0, blockZoom: tiler.blockZoom) }
        let work = blocks.map { tiler.estimatedWork(of: $0) }
        let total = max(work.reduce(0, +), .leastNonzeroMagnitude)
        var before = 0.0
        shardOfBlock = work.map { w in
            // The shard whose share holds the middle of this block's work.
            defer { before += w }
            return min(count - 1, Int(Double(count) * (before + w / 2) / total))
        }
    }

    /// The blocks of `shard`, in order.
    func blocks(of shard: Int) -> [MapTile] {
        zip(blocks, shardOfBlock).filter { $0.1 == shard }.map(\.0)
    }

    /// The shard that holds every block under `tile` (a tile at or above the block level), so
    /// builds it; nil when its blocks lie in several shards (`--finish` builds it) or it has none.
    func owner(of tile: MapTile) -> Int? {
        let shift = UInt64(2 * (blockZoom - tile.zoom))
        let first = tile.mortonCode << shift, end = (tile.mortonCode + 1) << shift
        let low = lowerBound(first), high = lowerBound(end)
        guard low < high, shardOfBlock[low] == shardOfBlock[high - 1] else { return nil }
        return shardOfBlock[low]
    }

    /// The shard that writes `tile` (of any level of the run), or nil when `--finish` does.
    func shard(writing tile: MapTile) -> Int? {
        guard tile.zoom > blockZoom else { return owner(of: tile) }
        let shift = tile.zoom - blockZoom
        return owner(of: MapTile(zoom: blockZoom, x: tile.x >> shift, y: tile.y >> shift))
    }

    private func lowerBound(_ code: UInt64) -> Int {
        var low = 0, high = codes.count
        while low < high {
            let middle = (low + high) / 2
            if codes[middle] < code { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

extension ShardWorkspace {
    /// Records shard `index` of `run` complete: its frontier first, then the mark, with the
    /// files that prove its tiles are there (both renamed into place).
    func complete(_ index: Int, of run: TilingRunIdentity, frontier: [MapTile: [Int: TileImage]], evidence: [String]) throws {
        try OutputTarget.write(FrontierFile.encode(frontier), to: self.frontier(index), durable: true)
        try OutputTarget.write(WorkMark.text(identity: run.shard(index), evidence: evidence), to: doneMark(index), durable: true)
    }

    /// Every shard's frontier, joined, each checked to hold `charts` charts' tiles of `tileSize`
    /// pixels with `colorChannels` colour channels.
    func frontiers(count: Int, charts: Int, tileSize: Int, colorChannels: Int) throws -> [MapTile: [Int: TileImage]] {
        var joined: [MapTile: [Int: TileImage]] = [:]
        for index in 0..<count {
            guard let data = try TilingStateFile.read(frontier(index)) else {
                throw MeridianError(.inputUnavailable, "cannot read shard \(index)'s frontier", at: SourceLocation(file: frontier(index)))
            }
            joined.merge(try FrontierFile.decode(data, path: frontier(index), charts: charts, tileSize: tileSize, colorChannels: colorChannels)) { a, _ in a }
        }
        return joined
    }
}

/// The frontier tiles' per-chart pixels, in a file of their own: `MERIDIAN-FRONTIER 1\n`, then per
/// tile its zoom, x, y and chart count, and per chart its index, colour channels, size and raw
/// pixels (little-endian 32-bit integers). Raw, so that `--finish` builds from the very pixels a
/// single run would have held in memory.
public enum FrontierFile {
    static let magic = Array("MERIDIAN-FRONTIER 1\n".utf8)

    static func encode(_ frontier: [MapTile: [Int: TileImage]]) -> [UInt8] {
        var bytes = magic
        func put(_ value: Int) { withUnsafeBytes(of: Int32(value).littleEndian) { bytes += $0 } }
        for (tile, charts) in frontier.sorted(by: { $0.key.mortonCode < $1.key.mortonCode }) {
            put(tile.zoom); put(tile.x); put(tile.y); put(charts.count)
            for (chart, image) in charts.sorted(by: { $0.key < $1.key }) {
                put(chart); put(image.colorChannels); put(image.size)
                bytes += image.pixels
            }
        }
        return bytes
    }

    /// How many tiles the frontier file `bytes` holds, read as `decode` reads it (for the fuzzer).
    public static func tileCount(_ bytes: [UInt8], path: String, charts: Int, tileSize: Int, colorChannels: Int) throws -> Int {
        try decode(bytes, path: path, charts: charts, tileSize: tileSize, colorChannels: colorChannels).count
    }

    /// The frontier a file holds, of a run of `charts` charts, tiles of `tileSize` pixels and
    /// `colorChannels` colour channels.
    /// - Throws: `MeridianError` (bad input) naming the file and the byte where it stops making
    ///   sense: every number is checked before it is used.
    static func decode(_ bytes: [UInt8], path: String, charts chartCount: Int, tileSize: Int,
                       colorChannels: Int) throws -> [MapTile: [Int: TileImage]] {
        guard bytes.starts(with: magic) else {
            throw MeridianError(.badInput, "not a shard's frontier file", at: SourceLocation(file: path))
        }
        var offset = magic.count
        func damaged(_ what: String) -> MeridianError {
            MeridianError(.badInput, "the frontier file is damaged at byte \(offset): \(what)", at: SourceLocation(file: path),
                          hint: "run the shard again (remove its .done mark), then join the shards again")
        }
        func take() throws -> Int {
            guard offset + 4 <= bytes.count else { throw damaged("cut short") }
            defer { offset += 4 }
            return Int(Int32(littleEndian: bytes[offset..<offset + 4].withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }))
        }
        let length = tileSize * tileSize * (colorChannels + 1)
        var frontier: [MapTile: [Int: TileImage]] = [:]
        while offset < bytes.count {
            let tile = MapTile(zoom: try take(), x: try take(), y: try take())
            guard tile.isValid else { throw damaged("tile \(tile.zoom)/\(tile.x)/\(tile.y) does not exist") }
            let count = try take()
            guard (0...chartCount).contains(count) else { throw damaged("\(count) charts, of a run of \(chartCount)") }
            var charts: [Int: TileImage] = [:]
            for _ in 0..<count {
                let chart = try take(), channels = try take(), size = try take()
                guard (0..<chartCount).contains(chart), channels == colorChannels, size == tileSize else {
                    throw damaged("chart \(chart), \(channels) colour channels, \(size) pixels: not this run's tiles")
                }
                guard length <= bytes.count - offset else { throw damaged("cut short") }
                charts[chart] = TileImage(size: size, colorChannels: channels, pixels: Array(bytes[offset..<offset + length]))
                offset += length
            }
            frontier[tile] = charts
        }
        return frontier
    }
}

extension Tiler {
    /// The work of a block, as the split weighs it: the source pixels its charts have in it
    /// (each chart's pixel count times the share of its extent the block covers) plus the
    /// pixels of its tiles at and below the block level.
    func estimatedWork(of block: MapTile) -> Double {
        let b = pyramid.bounds(block)
        var pixels = 0.0
        for c in coverage.charts(touching: block, among: Array(catalog.charts.indices)) {
            let e = catalog.charts[c].source.extent
            let width = min(b.maxX, e.maxX) - max(b.minX, e.minX), height = min(b.maxY, e.maxY) - max(b.minY, e.minY)
            guard width > 0, height > 0 else { continue }
            let share = width * height / max((e.maxX - e.minX) * (e.maxY - e.minY), .leastNonzeroMagnitude)
            pixels += share * Double(catalog.charts[c].source.sourceWidth * catalog.charts[c].source.sourceHeight)
        }
        return pixels + Double(tileCount(under: block) * options.tileSize * options.tileSize)
    }

    /// Runs shard `shard` of the pyramid: its blocks, written into `sink` (the shared folder,
    /// or the shard's own MBTiles file in `workspace`), and every tile above them whose blocks
    /// all lie in it; then records the shard complete in `workspace`, with its frontier.
    /// A shard that is already complete (of the run `run`) does nothing and returns nil.
    public func runShard(_ shard: TileShard, of run: TilingRunIdentity, into sink: TileSink, workspace: ShardWorkspace,
                         progress: @escaping @Sendable (TilingProgress) -> Void = { _ in }) throws -> TilingSummary? {
        guard !workspace.isComplete(shard.index, of: run) else { return nil }
        let start = Date()
        let split = ShardSplit(tiler: self, count: shard.count)
        let blocks = split.blocks(of: shard.index)
        var total = blocks.reduce(0) { $0 + tileCount(under: $1) }
        let ownBlocks = Set(blocks)
        for zoom in zooms where zoom < blockZoom {
            total += coverage.tiles(atZoom: zoom).filter { split.owner(of: $0) == shard.index && !ownBlocks.contains($0) }.count
        }
        let state = try build(blocks, total: total, split: split, shard: shard.index, into: sink, start: start, progress: progress)
        let summary = try finish(sink, state: state, start: start)
        try workspace.complete(shard.index, of: run, frontier: state.frontier, evidence: sink.evidence(sample: state.sample))
        return summary
    }

    /// Checks that every shard of a run of `count` has completed, so `finishShards` can run.
    /// - Throws: `MeridianError` (input unavailable: their tiles are the joining's input)
    ///   listing the shards that have not.
    public func checkShardsComplete(count: Int, of run: TilingRunIdentity, workspace: ShardWorkspace) throws {
        try workspace.checkComplete(count: count, of: run)
    }

    /// Joins the `count` completed shards in `workspace` into `sink`: takes in each shard's
    /// tiles (`TileSink.adoptShard`), builds the tiles whose blocks lie in several shards from
    /// the shards' frontiers, and writes the metadata. Idempotent: a run already finished
    /// returns nil and changes nothing. `completing` writes what else belongs to the joined
    /// tile set (a KML super-overlay) before the joining is recorded done, as in ``run(into:progress:completing:)``.
    /// - Throws: as `checkShardsComplete` when a shard has not completed.
    public func finishShards(count: Int, of run: TilingRunIdentity, into sink: TileSink, workspace: ShardWorkspace,
                             completing: (TileSetMetadata) throws -> Void = { _ in }) throws -> TilingSummary? {
        guard !workspace.isFinished(run) else { return nil }
        try checkShardsComplete(count: count, of: run, workspace: workspace)
        let start = Date()
        let split = ShardSplit(tiler: self, count: count)
        var adopted = 0
        for index in 0..<count {
            adopted += try sink.adoptShard(index, of: workspace, identity: run.shard(index)) { tile in
                zooms.contains(tile.zoom) && coverage.contains(tile) && split.shard(writing: tile) == index
            }
        }
        var built = try workspace.frontiers(count: count, charts: catalog.charts.count, tileSize: options.tileSize, colorChannels: colorChannels)
        let mixed = stride(from: blockZoom - 1, through: zooms.lowerBound, by: -1).map { zoom in
            coverage.tiles(atZoom: zoom).filter { split.owner(of: $0) == nil }
        }
        let state = RunState(total: mixed.reduce(0) { $0 + $1.count }, timesStages: false)
        let tools = ThreadTools(tiler: self, stageTimes: state.stageTimes)
        for tile in mixed.joined() {
            let children = try tile.children.map { child -> [Int: TileImage] in
                guard coverage.contains(child) else { return [:] }
                guard let charts = built.removeValue(forKey: child) else {
                    throw MeridianError(.badInput, "no shard holds tile \(child.zoom)/\(child.x)/\(child.y)'s pixels", at: SourceLocation(file: workspace.path),
                                        hint: "the shards' folder is damaged: run the shards again into a new output")
                }
                return charts
            }
            let (charts, quilt) = try assemble(tile, children: children, among: Array(catalog.charts.indices), tools: tools)
            try store(quilt, at: tile, tools: tools, sink: sink, state: state)
            built[tile] = charts
        }
        var summary = try finish(sink, state: state, start: start, completing: completing)
        summary.kept = adopted
        try workspace.markFinished(count: count, run: run, evidence: sink.evidence(sample: nil))
        return summary
    }
}
