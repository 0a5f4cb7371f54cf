import Foundation
import MeridianFormats
import MeridianGeometry
import Synchronization

/// Features drawn into Web Mercator image tiles (for `meridian tile --tile-format png` of vector
/// data, and MKTileOverlay), each tile exactly as `meridian render` draws that tile's square:
/// the same `FeatureDrawing` on a canvas whose viewport is the tile. A feature crossing a
/// tile's edge is drawn into both tiles at the pixels a picture of the whole would give it, so
/// the tiles join without seams. A tile draws the features whose bounds, widened by their
/// stroke or pin, reach it; pins go without labels (a label placed in one tile could not go on
/// in the next). Tiles are transparent where nothing is drawn.
public final class FeatureTiles: Sendable {
    /// Tile width and height in pixels.
    public let tileSize: Int
    private let features: [Feature]
    /// The bounds in map points of each part of each feature (each polygon of a multipolygon, say:
    /// Fiji's islands either side of the antimeridian are two narrow parts, not the world's width).
    private let parts: [(bounds: MapRect, feature: Int)]
    /// How far, in pixels, each feature's drawing may reach past its parts' bounds.
    private let reach: [Double]

    /// Tiles of `tileSize` pixels (256 or 512, say) of `features`, drawn in the order given.
    public init(features: [Feature], tileSize: Int) {
        self.tileSize = tileSize
        self.features = features
        var parts: [(bounds: MapRect, feature: Int)] = [], reach: [Double] = []
        for (index, feature) in features.enumerated() {
            for part in feature.geometry.map(Self.parts) ?? [] {
                var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
                part.forEachPosition {
                    let m = MapPoint($0)
                    minX = min(minX, m.x); maxX = max(maxX, m.x); minY = min(minY, m.y); maxY = max(maxY, m.y)
                }
                if minX.isFinite { parts.append((MapRect(x: minX, y: minY, width: maxX - minX, height: maxY - minY), index)) }
            }
            let style = OverlayStyle(feature.properties ?? [:])
            // Half a stroke each side, or a pin's box (its head 3 radii above the tip, with the
            // rim), plus a pixel of anti-aliasing.
            let pin = feature.geometry.map(Self.hasPins) == true ? CairoCanvas.pinReach(style) : 0
            reach.append(max(style.strokeWidth / 2, pin) + 1)
        }
        self.parts = parts
        self.reach = reach
    }

    /// The geometry's parts drawn apart: each point, line and polygon of a multi-geometry or collection.
    private static func parts(_ geometry: Geometry) -> [Geometry] {
        switch geometry {
        case .multiPoint(let m): m.coordinates.map { .point(Point($0)) }
        case .multiLineString(let m): m.lines.map { .lineString(LineString($0)) }
        case .multiPolygon(let m): m.polygons.map { .polygon($0) }
        case .geometryCollection(let c): c.geometries.flatMap(parts)
        default: [geometry]
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

    /// The tiles at `zoom` that some feature may show in, each with those features' indexes (in order).
    func candidates(zoom: Int) -> [MapTile: [Int]] {
        let last = (1 << zoom) - 1
        let tileSpan = MapWorld.size / Double(1 << zoom)
        let mapPointsPerPixel = tileSpan / Double(tileSize)
        var found: [MapTile: [Int]] = [:]
        for (rect, index) in parts {
            let pad = reach[index] * mapPointsPerPixel
            func column(_ value: Double) -> Int { min(max(Int((value / tileSpan).rounded(.down)), 0), last) }
            // A feature wholly outside the world (past the poles Web Mercator shows) draws nothing.
            guard rect.maxX + pad >= 0, rect.minX - pad <= MapWorld.size, rect.maxY + pad >= 0, rect.minY - pad <= MapWorld.size else { continue }
            for y in column(rect.minY - pad)...column(rect.maxY + pad) {
                for x in column(rect.minX - pad)...column(rect.maxX + pad) {
                    let tile = MapTile(zoom: zoom, x: x, y: y)
                    // A feature's parts come together: once is enough for each tile.
                    if found[tile]?.last != index { found[tile, default: []].append(index) }
                }
            }
        }
        return found
    }

    /// One tile's pixels: rows of red, green, blue and alpha (not premultiplied), `tileSize`
    /// square; nil when nothing shows in it.
    public func draw(_ tile: MapTile) throws -> [UInt8]? {
        try draw(tile, features: candidates(zoom: tile.zoom)[tile] ?? [])
    }

    private func draw(_ tile: MapTile, features indexes: [Int]) throws -> [UInt8]? {
        let canvas = CairoCanvas()
        let viewport = Viewport(showing: tile.mapRect, width: tileSize, height: tileSize)
        try canvas.begin(viewport, options: PictureOptions(width: tileSize, height: tileSize))
        let drawing = FeatureDrawing(canvas: canvas, viewport: viewport)
        for index in indexes { drawing.draw(features[index]) }
        try canvas.finish()
        return canvas.rgba
    }

    /// Draws every tile of `zoom` that something shows in, on `jobs` threads, and hands each to
    /// `store` (one call at a time, in no set order) with its pixels as ``draw(_:)`` gives them.
    /// - Returns: How many tiles were drawn (empty ones are not).
    /// - Throws: The first error of `store` or of drawing; the other threads stop at their next tile.
    @discardableResult
    public func drawTiles(zoom: Int, jobs: Int, store: @escaping @Sendable (MapTile, [UInt8]) throws -> Void) throws -> Int {
        let work = candidates(zoom: zoom).sorted { ($0.key.y, $0.key.x) < ($1.key.y, $1.key.x) }
        struct Progress { var next = 0, drawn = 0, failure: (any Error)? }
        let progress = Mutex(Progress())
        let storing = Mutex(())
        let worker: @Sendable () -> Void = { [self] in
            while true {
                let taken: Int? = progress.withLock { p in
                    guard p.failure == nil, p.next < work.count else { return nil }
                    p.next += 1
                    return p.next - 1
                }
                guard let index = taken else { return }
                do {
                    guard let pixels = try draw(work[index].key, features: work[index].value) else { continue }
                    try storing.withLock { _ in try store(work[index].key, pixels) }
                    progress.withLock { $0.drawn += 1 }
                } catch {
                    progress.withLock { if $0.failure == nil { $0.failure = error } }
                }
            }
        }
        let threads = try (1..<max(1, min(jobs, work.count))).map { _ in try WorkerThread(worker) }
        worker()
        for thread in threads { thread.join() }
        return try progress.withLock { p in
            if let failure = p.failure { throw failure }
            return p.drawn
        }
    }
}
