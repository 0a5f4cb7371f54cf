import Foundation
import MeridianFormats
import MeridianGeometry
import Synchronization

/// Features drawn into Web Mercator image tiles (for `meridian tile --tile-format png` of vector
/// data, and MKTileOverlay), each tile exactly as `meridian render` draws that tile's square:
/// the same `FeatureDrawing` on a canvas whose viewport is the tile. A feature crossing a
/// tile's edge is drawn into both tiles at the pixels a picture of the whole would give it, so
/// the tiles join without seams. Pins go without labels (a label placed in one tile could not
/// go on in the next). Tiles are transparent where nothing is drawn.
///
/// Zoom level by level, each tile takes from its parent the parts of features (each polygon of
/// a multipolygon, each line, each point) whose bounds, widened by their stroke or pin, reach
/// it, clipped to it plus `FeatureDrawing`'s margin: a tile clips what its parent kept, not the
/// whole of a country, and tiles no part reaches are never drawn. Clipping to a square and
/// then to a square inside it keeps what the inner one alone keeps, so the pixels are the same
/// (and `FeatureDrawing` need not clip again).
public final class FeatureTiles: Sendable {
    /// Tile width and height in pixels.
    public let tileSize: Int
    private let features: [Feature]
    /// How far, in pixels, each feature's drawing may reach past its parts' bounds.
    private let reach: [Double]

    /// A feature cut down to what may show in one tile: its parts that reach the tile, clipped,
    /// each with its bounds in map points.
    struct Piece: Sendable {
        var feature: Int
        var parts: [(geometry: Geometry, bounds: MapRect)]
    }

    /// Tiles of `tileSize` pixels (256 or 512, say) of `features`, drawn in the order given.
    public init(features: [Feature], tileSize: Int) {
        self.tileSize = tileSize
        self.features = features
        reach = features.map { feature in
            let style = OverlayStyle(feature.properties ?? [:])
            // Half a stroke each side, or a pin's box (its head 3 radii above the tip, with the
            // rim), plus a pixel of anti-aliasing.
            let pin = feature.geometry.map(Self.hasPins) == true ? CairoCanvas.pinReach(style) : 0
            return max(style.strokeWidth / 2, pin) + 1
        }
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

    /// Every feature whole, as the world's tile above zoom 0 would hand them down.
    private var wholeFeatures: [Piece] {
        features.indices.map { Piece(feature: $0, parts: features[$0].geometry.map(Self.parts) ?? []) }
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
            let pad = reach[piece.feature] * mapPointsPerPixel
            let kept = piece.parts.flatMap { part -> [(geometry: Geometry, bounds: MapRect)] in
                let b = part.bounds
                guard b.maxX + pad >= square.minX, b.minX - pad <= square.maxX, b.maxY + pad >= square.minY, b.minY - pad <= square.maxY else { return [] }
                if case .point = part.geometry { return [part] }
                // Wholly inside the clip: nothing to cut.
                if b.minX >= clipper.rect.minX && b.maxX <= clipper.rect.maxX && b.minY >= clipper.rect.minY && b.maxY <= clipper.rect.maxY { return [part] }
                return clipper.clip(part.geometry).map(Self.parts) ?? []
            }
            return kept.isEmpty ? nil : Piece(feature: piece.feature, parts: kept)
        }
    }

    /// One tile's pixels: rows of red, green, blue and alpha (not premultiplied), `tileSize`
    /// square; nil when nothing shows in it.
    public func draw(_ tile: MapTile) throws -> [UInt8]? {
        try draw(tile, pieces(wholeFeatures, in: tile))
    }

    private func draw(_ tile: MapTile, _ pieces: [Piece]) throws -> [UInt8]? {
        let canvas = CairoCanvas()
        let viewport = Viewport(showing: tile.mapRect, width: tileSize, height: tileSize)
        try canvas.begin(viewport, options: PictureOptions(width: tileSize, height: tileSize))
        let drawing = FeatureDrawing(canvas: canvas, viewport: viewport)
        for piece in pieces {
            let parts = piece.parts.map(\.geometry)
            let geometry: Geometry = parts.count == 1 ? parts[0] : .geometryCollection(GeometryCollection(parts))
            drawing.draw(Feature(geometry: geometry, properties: features[piece.feature].properties), clipped: true)
        }
        try canvas.finish()
        return canvas.rgba
    }

    /// Draws every tile of `zooms` that something shows in, on `jobs` threads, and hands each to
    /// `store` (one call at a time, in no set order) with its pixels as ``draw(_:)`` gives them.
    /// - Returns: How many tiles were drawn (empty ones are not).
    /// - Throws: The first error of `store` or of drawing; the other threads stop at their next tile.
    @discardableResult
    public func drawTiles(zooms: ClosedRange<Int>, jobs: Int, store: @escaping @Sendable (MapTile, [UInt8]) throws -> Void) throws -> Int {
        let world = MapTile(zoom: 0, x: 0, y: 0)
        var level = [(tile: world, pieces: pieces(wholeFeatures, in: world))].filter { !$0.pieces.isEmpty }
        let drawn = Mutex(0), storing = Mutex(())
        for zoom in 0...zooms.upperBound {
            let current = level
            if zoom >= zooms.lowerBound {
                try Self.inParallel(current.count, jobs: jobs) { [self] index in
                    guard let pixels = try draw(current[index].tile, current[index].pieces) else { return }
                    try storing.withLock { _ in try store(current[index].tile, pixels) }
                    drawn.withLock { $0 += 1 }
                }
            }
            guard zoom < zooms.upperBound else { break }
            let children = Mutex([[(tile: MapTile, pieces: [Piece])]](repeating: [], count: current.count))
            try Self.inParallel(current.count, jobs: jobs) { [self] index in
                let (parent, kept) = current[index]
                var found: [(tile: MapTile, pieces: [Piece])] = []
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let child = MapTile(zoom: zoom + 1, x: 2 * parent.x + dx, y: 2 * parent.y + dy)
                    let inChild = pieces(kept, in: child)
                    if !inChild.isEmpty { found.append((child, inChild)) }
                }
                children.withLock { $0[index] = found }
            }
            level = children.withLock { $0.flatMap { $0 } }
        }
        return drawn.withLock { $0 }
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
