import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
import MeridianTiles
import Synchronization

/// Features drawn into Web Mercator image tiles (for `meridian tile --tile-format png` of vector
/// data, and MKTileOverlay), each tile exactly as `meridian render` draws that tile's square:
/// the same `FeatureDrawing` on a canvas whose viewport is the tile. A feature crossing a
/// tile's edge is drawn into both tiles at the pixels a picture of the whole would give it, so
/// the tiles join without seams. Pins go without labels (a label placed in one tile could not
/// go on in the next). Tiles are transparent where nothing is drawn.
///
/// Each tile takes from its parent the parts of features (each polygon of a multipolygon, each
/// line, each point) whose bounds, widened by their stroke or pin, reach it, clipped to it plus
/// `FeatureDrawing`'s margin: a tile clips what its parent kept, not the whole of a country,
/// and tiles no part reaches are never drawn. Clipping to a square and then to a square inside
/// it keeps what the inner one alone keeps, so the pixels are the same (and `FeatureDrawing`
/// need not clip again).
///
/// Memory holds a block of tiles, never the data: for a zoom level the features stream by
/// once, each cut down to the level's blocks (`TileBlockSpill`) and its pieces set aside on
/// disk as GeoJSON text (numbers come back bit for bit); then each block, on its own thread, is
/// read back and cut down to its tiles, which are drawn (``drawTiles(zoom:jobs:shard:store:)``).
public final class FeatureTiles: Sendable {
    /// Tile width and height in pixels.
    public let tileSize: Int
    /// The features from the first, afresh for each pass over them.
    private let features: @Sendable () throws -> any FeatureReader

    /// A feature cut down to what may show in one tile: its properties (for its style), how far
    /// in pixels its drawing reaches past its parts' bounds, and its parts that reach the tile,
    /// clipped, each with its bounds in map points.
    struct Piece: Sendable {
        var properties: JSONObject?
        var reach: Double
        var parts: [(geometry: Geometry, bounds: MapRect)]

        /// The piece as a feature: its one part, or its parts as a collection (which
        /// ``FeatureTiles/piece(_:)`` takes apart into the same parts again).
        var feature: Feature {
            let geometries = parts.map(\.geometry)
            return Feature(geometry: geometries.count == 1 ? geometries[0] : .geometryCollection(GeometryCollection(geometries)), properties: properties)
        }
    }

    /// Tiles of `tileSize` pixels (256 or 512, say) of the features `features` reads, drawn in
    /// the order read.
    /// - Parameters:
    ///   - tileSize: Tile width and height in pixels.
    ///   - features: Opens the features from the first; called once per zoom level drawn.
    public init(tileSize: Int, features: @escaping @Sendable () throws -> any FeatureReader) {
        self.tileSize = tileSize
        self.features = features
    }

    /// Tiles of `tileSize` pixels (256 or 512, say) of `features`, drawn in the order given.
    public convenience init(features: [Feature], tileSize: Int) {
        self.init(tileSize: tileSize) { FeatureList(features) }
    }

    /// A whole feature as a piece: every part, and the reach of its style (a pin's where it
    /// has points: a block's piece whose points were cut away reaches as far as its stroke).
    static func piece(_ feature: Feature) -> Piece {
        let style = OverlayStyle(feature.properties ?? [:])
        // Half a stroke each side, or a pin's box (its head 3 radii above the tip, with the
        // rim), plus a pixel of anti-aliasing.
        let pin = feature.geometry.map(Self.hasPins) == true ? PinSymbol.reach(style) : 0
        return Piece(properties: feature.properties, reach: max(style.strokeWidth / 2, pin) + 1,
                     parts: feature.geometry.map(Self.parts) ?? [])
    }

    /// Whether the geometry is drawn with pins (it is or holds points).
    private static func hasPins(_ geometry: Geometry) -> Bool {
        switch geometry {
        case .point, .multiPoint: true
        case .geometryCollection(let c): c.geometries.contains(where: hasPins)
        default: false
        }
    }

    /// The geometry's parts drawn apart, each point, line and polygon of a multi-geometry or
    /// collection, with their bounds.
    private static func parts(_ geometry: Geometry) -> [(geometry: Geometry, bounds: MapRect)] {
        switch geometry {
        case .multiPoint(let m): return m.coordinates.flatMap { parts(.point(Point($0))) }
        case .multiLineString(let m): return m.lines.flatMap { parts(.lineString(LineString($0))) }
        case .multiPolygon(let m): return m.polygons.flatMap { parts(.polygon($0)) }
        case .geometryCollection(let c): return c.geometries.flatMap(parts)
        default:
            var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
            geometry.forEachPosition {
                let m = MapPoint($0)
                minX = min(minX, m.x); maxX = max(maxX, m.x); minY = min(minY, m.y); maxY = max(maxY, m.y)
            }
            return minX.isFinite ? [(geometry, MapRect(x: minX, y: minY, width: maxX - minX, height: maxY - minY))] : []
        }
    }

    /// Every feature whole, in order, as the world's tile above zoom 0 would hand them down:
    /// laid out as a picture of the world lays it out (continuous lines and rings, each part on
    /// the usual turn by its middle), so what reaches over ±180° is drawn as one piece, and each
    /// part that runs on past ±180° also a turn back, so it shows at the world's other edge too.
    private func forEachFeature(_ body: (Piece) throws -> Void) throws {
        let reader = try features()
        _ = try reader.readMetadata()
        while var feature = try reader.next() {
            feature.geometry = feature.geometry.map { ContinuousLongitudes.placed($0, shift: LongitudeCut.usual.shift) }
            var piece = Self.piece(feature)
            piece.parts += piece.parts.compactMap(Self.turnedIntoTheWorld)
            try body(piece)
        }
    }

    /// A part that runs on past ±180° moved a turn east or west, over the world's other edge;
    /// nil for a part within the world.
    static func turnedIntoTheWorld(_ part: (geometry: Geometry, bounds: MapRect)) -> (geometry: Geometry, bounds: MapRect)? {
        let turn: Double
        if part.bounds.maxX > MapWorld.size { turn = -1 } else if part.bounds.minX < 0 { turn = 1 } else { return nil }
        let b = part.bounds
        return (ContinuousLongitudes.placed(part.geometry) { _ in 360 * turn },
                MapRect(x: b.minX + turn * MapWorld.size, y: b.minY, width: b.size.width, height: b.size.height))
    }

    /// What of `pieces` may show in `tile`: the parts whose bounds, widened by their feature's
    /// reach, touch it, clipped to it plus `FeatureDrawing`'s margin (points are kept whole, as
    /// `FeatureDrawing` keeps a pin).
    func pieces(_ pieces: [Piece], in tile: MapTile) -> [Piece] {
        let square = tile.mapRect
        let mapPointsPerPixel = square.size.width / Double(tileSize)
        let margin = FeatureDrawing.clipMargin * mapPointsPerPixel
        let clipper = GeometryClipper(rect: RectClip(minX: square.minX - margin, minY: square.minY - margin,
                                                     maxX: square.maxX + margin, maxY: square.maxY + margin), plane: .mapPoints)
        return pieces.compactMap { piece in
            let pad = piece.reach * mapPointsPerPixel
            let kept = piece.parts.flatMap { part -> [(geometry: Geometry, bounds: MapRect)] in
                let b = part.bounds
                guard b.maxX + pad >= square.minX, b.minX - pad <= square.maxX, b.maxY + pad >= square.minY, b.minY - pad <= square.maxY else { return [] }
                if case .point = part.geometry { return [part] }
                // Wholly inside the clip: nothing to cut.
                if b.minX >= clipper.rect.minX && b.maxX <= clipper.rect.maxX && b.minY >= clipper.rect.minY && b.maxY <= clipper.rect.maxY { return [part] }
                return clipper.clip(part.geometry).map(Self.parts) ?? []
            }
            return kept.isEmpty ? nil : Piece(properties: piece.properties, reach: piece.reach, parts: kept)
        }
    }

    /// One tile's pixels: rows of red, green, blue and alpha (not premultiplied), `tileSize`
    /// square; nil when nothing shows in it.
    public func draw(_ tile: MapTile) throws -> [UInt8]? {
        let open = try OpenTile(tile, size: tileSize)
        try forEachFeature { open.draw(pieces([$0], in: tile)) }
        return try open.finish()
    }

    /// A tile being drawn: its canvas, open, and whether anything has reached it.
    private final class OpenTile {
        let canvas = CairoCanvas()
        let drawing: FeatureDrawing
        var reached = false

        init(_ tile: MapTile, size: Int) throws {
            let viewport = Viewport(showing: tile.mapRect, width: size, height: size)
            try canvas.begin(viewport, options: PictureOptions(width: size, height: size))
            drawing = FeatureDrawing(canvas: canvas, viewport: viewport)
        }

        /// Draws `pieces`, in order, cut to the tile already.
        func draw(_ pieces: [Piece]) {
            reached = reached || !pieces.isEmpty
            for piece in pieces { drawing.draw(piece.feature, clipped: true) }
        }

        /// The pixels; nil when nothing reached the tile or nothing shows.
        func finish() throws -> [UInt8]? {
            try canvas.finish()
            return reached ? canvas.rgba : nil
        }
    }

    private func draw(_ tile: MapTile, _ pieces: [Piece]) throws -> [UInt8]? {
        let open = try OpenTile(tile, size: tileSize)
        open.draw(pieces)
        return try open.finish()
    }

    /// Draws every tile of level `zoom` (one of the lowest few: they see the whole world) with
    /// every canvas open at once while the features stream by once, each cut down the quadtree
    /// to the tiles it reaches and drawn into them, so nothing of the data is held; hands each
    /// tile that something shows in to `body`.
    private func drawStreaming(_ zoom: Int, shard: TileShardOwnership?, _ body: (MapTile, [UInt8]) throws -> Void) throws {
        let tiles = (0..<(1 << zoom)).flatMap { y in (0..<(1 << zoom)).map { MapTile(zoom: zoom, x: $0, y: y) } }.filter { shard?.owns($0) ?? true }
        let open = try Dictionary(uniqueKeysWithValues: tiles.map { ($0, try OpenTile($0, size: tileSize)) })
        try forEachFeature { piece in
            try descend([piece], from: nil, to: zoom, wanted: zoom...zoom, shard: shard) { tile, pieces in open[tile]?.draw(pieces) }
        }
        for tile in tiles {
            if let pixels = try open[tile]!.finish() { try body(tile, pixels) }
        }
    }

    /// Draws every tile of level `zoom` that something shows in, on `jobs` threads, and hands
    /// each to `store` (one call at a time, in no set order) with its pixels as ``draw(_:)``
    /// gives them. With `shard`, only that shard's tiles are drawn: a quadtree node none of whose
    /// tiles is the shard's is not cut, nor its blocks set aside (a tile's pixels depend on it alone).
    ///
    /// Zooms 0-2 (at most 16 tiles) are drawn with their canvases open together while the
    /// features stream by. Deeper, the features stream by once and are cut to the level's
    /// blocks (tiles of a level above it, `blockZoom(for:)`), whose pieces are set aside on
    /// disk; then each block, on a thread, is read back and cut down to its tiles, depth first,
    /// each drawn as it is reached.
    /// - Parameters:
    ///   - zoom: The zoom level to draw.
    ///   - jobs: The drawing threads.
    ///   - shard: The shard whose tiles to draw; nil for every tile.
    ///   - store: Takes each tile with its pixels (RGBA rows, not premultiplied).
    /// - Returns: How many tiles were drawn (empty ones are not).
    /// - Throws: The first error of `store` or of drawing; the other threads stop at their next block.
    @discardableResult
    public func drawTiles(zoom: Int, jobs: Int, shard: TileShardOwnership? = nil,
                          store: @escaping @Sendable (MapTile, [UInt8]) throws -> Void) throws -> Int {
        let drawn = Mutex(0), storing = Mutex(())
        let keep: @Sendable (MapTile, [UInt8]) throws -> Void = { tile, pixels in
            try storing.withLock { _ in try store(tile, pixels) }
            drawn.withLock { $0 += 1 }
        }
        guard let blockZoom = Self.blockZoom(for: zoom) else {
            try drawStreaming(zoom, shard: shard, keep)
            return drawn.withLock { $0 }
        }
        let blocks = try TileBlockSpill()
        let text = OutputSink(collectingAs: "tile-blocks")
        let writer = GeoJSONWriter(sink: text, sequence: true)
        try forEachFeature { piece in
            try descend([piece], from: nil, to: blockZoom, wanted: zoom...zoom, shard: shard) { block, pieces in
                guard block.zoom == blockZoom else { return }
                try writer.write(pieces[0].feature)
                try text.takeCollectedBytes().withUnsafeBytes { try blocks.append(block, $0) }
            }
        }
        let held = try blocks.finishWriting()
        try Self.inParallel(held.count, jobs: jobs) { [self] index in
            let reader = GeoJSONReader(input: BufferedInput(bytes: try blocks.records(of: held[index])), layout: .sequence)
            _ = try reader.readMetadata()
            var pieces: [Piece] = []
            while let feature = try reader.next() { pieces.append(Self.piece(feature)) }
            try descend(pieces, from: held[index], to: zoom, wanted: zoom...zoom, shard: shard) { tile, pieces in
                guard tile.zoom == zoom, shard?.owns(tile) ?? true, let pixels = try draw(tile, pieces) else { return }
                try keep(tile, pixels)
            }
        }
        return drawn.withLock { $0 }
    }

    /// The level of the blocks level `zoom` is drawn from: nil for zooms 0-2 (streamed, no
    /// blocks), else zoom 3, 9, 15, … (the deepest of those at most `zoom`), so a block spans
    /// at most 32 by 32 tiles of its level (as a vector tile block does).
    static func blockZoom(for zoom: Int) -> Int? {
        zoom <= 2 ? nil : 3 + (zoom - 3) / 6 * 6
    }

    /// Cuts `pieces`, already cut to `node` (nil: not yet cut, above the world's tile), down
    /// the quadtree to zoom `depth`, depth first, handing each tile on the way that something
    /// reaches to `body` with what reaches it (a tile before its children). With `shard`, a
    /// tile none of whose tiles of the levels `wanted` (at or under it) is the shard's is passed
    /// over, and all under it.
    private func descend(_ pieces: [Piece], from node: MapTile?, to depth: Int, wanted: ClosedRange<Int>, shard: TileShardOwnership?,
                         _ body: (MapTile, [Piece]) throws -> Void) throws {
        if let node {
            try body(node, pieces)
            if node.zoom == depth { return }
        }
        for child in node?.children ?? [MapTile(zoom: 0, x: 0, y: 0)] where shard?.ownsAny(atZooms: wanted, under: child) ?? true {
            let inChild = self.pieces(pieces, in: child)
            if !inChild.isEmpty { try descend(inChild, from: child, to: depth, wanted: wanted, shard: shard, body) }
        }
    }

    /// Runs `body` for 0 ..< `count` on `jobs` threads (this one among them).
    /// - Throws: The first error of `body`; the other threads stop at their next index.
    private static func inParallel(_ count: Int, jobs: Int, _ body: @escaping @Sendable (Int) throws -> Void) throws {
        struct Progress { var next = 0, failure: (any Error)? }
        let progress = Mutex(Progress())
        let worker: @Sendable () -> Void = {
            while true {
                let taken: Int? = progress.withLock { p in
                    guard p.failure == nil, p.next < count else { return nil }
                    p.next += 1
                    return p.next - 1
                }
                guard let index = taken else { return }
                do {
                    try body(index)
                } catch {
                    progress.withLock { if $0.failure == nil { $0.failure = error } }
                }
            }
        }
        let threads = try (1..<max(1, min(jobs, count))).map { _ in try WorkerThread(worker) }
        worker()
        for thread in threads { thread.join() }
        if let failure = progress.withLock({ $0.failure }) { throw failure }
    }
}
