import Foundation
import MeridianFormats
import MeridianGeometry

/// One chart of a catalog: its raster and the zoom levels gdal2tiles would tile it to alone.
public struct CatalogChart: Sendable {
    /// The opened raster.
    public let source: RasterSource
    /// The zoom levels gdal2tiles would choose for this chart alone: from where the whole chart
    /// fits one tile to its native zoom (the upper bound).
    public let zooms: ClosedRange<Int>

    /// A chart from `source`, its zoom levels worked out with `pyramid`'s tile size.
    public init(source: RasterSource, pyramid: TilePyramid) {
        self.source = source
        zooms = pyramid.defaultZooms(pixelSize: source.pixelSize, width: source.warpedWidth, height: source.warpedHeight)
    }

    /// The deepest zoom level the chart has detail for.
    public var nativeZoom: Int { zooms.upperBound }

    /// The chart's file name without its folder and extension, as catalogs list it.
    public var name: String { ((source.path as NSString).lastPathComponent as NSString).deletingPathExtension }
}

/// Rasters tiled together into one pyramid, quilted by a `QuiltRule`: one raster is a catalog of one.
public struct TileCatalog: Sendable {
    /// The charts in the order they were given.
    public let charts: [CatalogChart]
    /// Which chart shows where charts overlap.
    public let quilt: QuiltRule
    /// How many levels deeper than its native zoom a chart may show (nil: at every level);
    /// the most detailed charts show at every level asked for. A chart plotter shows a coarse
    /// chart magnified where nothing better covers it; a limit keeps a world raster among
    /// harbour charts from being tiled at harbour zooms over the whole world.
    public let overzoom: Int?
    /// The most detailed charts' native zoom: the deepest level any chart has detail for.
    public let deepestNativeZoom: Int

    /// A catalog of `sources` (at least one), quilted by `quilt`, each chart shown at most
    /// `overzoom` levels deeper than its native zoom, for tiles of `tileSize` pixels.
    public init(sources: [RasterSource], quilt: QuiltRule = .scale, overzoom: Int? = nil, tileSize: Int = 256) {
        precondition(!sources.isEmpty, "a catalog holds at least one raster")
        let pyramid = TilePyramid(tileSize: tileSize)
        charts = sources.map { CatalogChart(source: $0, pyramid: pyramid) }
        self.quilt = quilt
        self.overzoom = overzoom
        deepestNativeZoom = charts.map(\.nativeZoom).max()!
    }

    /// Whether chart `index` shows at `zoom` (within `overzoom` of its native zoom, or among the most detailed).
    public func shows(_ index: Int, atZoom zoom: Int) -> Bool {
        guard let overzoom, zoom > charts[index].nativeZoom + overzoom else { return true }
        return charts[index].nativeZoom == deepestNativeZoom
    }

    /// How PNG tiles' rows are filtered: not at all when every chart is paletted (few flat
    /// colours, see `PNGEncoder.Filtering`), else adaptively.
    var pngFiltering: PNGEncoder.Filtering { charts.allSatisfy { $0.source.palette != nil } ? .none : .adaptive }

    /// The zoom levels a run tiles by default: from the coarsest chart's minimum to the most
    /// detailed chart's native zoom.
    public var defaultZooms: ClosedRange<Int> {
        charts.map(\.zooms.lowerBound).min()!...deepestNativeZoom
    }

    /// The indices of the charts that show at `zoom`, in order of preference: the first one with
    /// data at a pixel gives it.
    public func preference(atZoom zoom: Int) -> [Int] {
        let indices = charts.indices.filter { shows($0, atZoom: zoom) }
        func native(_ i: Int) -> Int { charts[i].nativeZoom }
        switch quilt {
        case .order:
            return indices
        case .detail:
            return indices.sorted { (native($0), $1) > (native($1), $0) }
        case .scale:
            // Detailed enough for the level, coarsest first; then too coarse, most detailed first.
            let enough = indices.filter { native($0) >= zoom }.sorted { (native($0), $0) < (native($1), $1) }
            let coarse = indices.filter { native($0) < zoom }.sorted { (native($0), $1) > (native($1), $0) }
            return enough + coarse
        }
    }

    /// The union of the charts' bounds in degrees (a BSB chart's cut collar's, else its extent's):
    /// the tile set's bounds.
    public var bounds: BoundingBox {
        charts.dropFirst().reduce(charts[0].source.bounds) { $0.union($1.source.bounds) }
    }

    /// Colour channels of the pyramid's tiles: RGB if any chart is in colour, else gray.
    public var colorChannels: Int { charts.map(\.source.colorBands.count).max()! }

    /// The tile set's name: the one chart's file name, or the charts' names.
    public var name: String {
        let names = charts.map(\.name)
        return names.count <= 3 ? names.joined(separator: ", ") : "\(names[0]), \(names[1]) and \(names.count - 2) more charts"
    }
}

/// The tiles a catalog's charts touch, zoom level by zoom level: each chart's tile range
/// (gdal2tiles' range for its extent), and their union, which need not be a rectangle.
struct TileCoverage: Sendable {
    /// Per zoom level, each chart's range, by chart index.
    let ranges: [Int: [TileRange]]

    init(ranges: [Int: [TileRange]]) {
        self.ranges = ranges
    }

    init(catalog: TileCatalog, pyramid: TilePyramid, zooms: ClosedRange<Int>) {
        var ranges: [Int: [TileRange]] = [:]
        for z in zooms {
            ranges[z] = catalog.charts.indices.map { c in
                catalog.shows(c, atZoom: z) ? pyramid.range(zoom: z, extent: catalog.charts[c].source.extent)
                    : .empty(zoom: z)
            }
        }
        self.ranges = ranges
    }

    /// The charts (indices, ascending) whose range holds `tile`, among `candidates`.
    func charts(touching tile: MapTile, among candidates: [Int]) -> [Int] {
        guard let level = ranges[tile.zoom] else { return [] }
        return candidates.filter { level[$0].contains(tile) }
    }

    /// Whether any chart's range holds `tile`.
    func contains(_ tile: MapTile) -> Bool {
        ranges[tile.zoom]?.contains { $0.contains(tile) } ?? false
    }

    /// The tiles at `zoom` that some chart touches, row by row, west to east.
    func tiles(atZoom zoom: Int) -> [MapTile] {
        let level = ranges[zoom] ?? []
        if level.count == 1 { return Array(level[0]) }
        return Set(level.flatMap { Array($0) }).sorted { ($0.y, $0.x) < ($1.y, $1.x) }
    }

    /// How many tiles at `zoom` some chart touches, under `block` if given (a tile at a coarser
    /// or equal zoom): the area of the ranges' union, swept column span by column span.
    func count(atZoom zoom: Int, under block: MapTile? = nil) -> Int {
        let level = (ranges[zoom] ?? []).map { block.map($0.under) ?? $0 }.filter { !$0.isEmpty }
        if level.count <= 1 { return level.first?.count ?? 0 }
        let edges = Set(level.flatMap { [$0.minX, $0.maxX + 1] }).sorted()
        var total = 0
        for (left, right) in zip(edges, edges.dropFirst()) {
            let rows = level.filter { $0.minX <= left && $0.maxX >= left }.map { ($0.minY, $0.maxY) }.sorted { $0 < $1 }
            var covered = 0, end = Int.min
            for (top, bottom) in rows {
                if top > end { covered += bottom - top + 1; end = bottom }
                else if bottom > end { covered += bottom - end; end = bottom }
            }
            total += covered * (right - left)
        }
        return total
    }
}
