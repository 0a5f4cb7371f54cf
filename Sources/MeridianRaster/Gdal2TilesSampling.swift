import CGDAL
import Foundation
import MeridianFormats
import MeridianGeometry

/// `Resampling.gdal2tiles`: base tiles sampled the way gdal2tiles (GDAL 3.6, `-r average`)
/// samples them, so that tiles match an existing gdal2tiles cache pixel for pixel, or nearly.
/// Its tiles are registered less exactly than the default kernel's (shifted by up to half a
/// pixel of the intermediate grid, and sampled twice); use it for compatibility only.
///
/// gdal2tiles first warps the source to EPSG:3857 by nearest neighbour into a VRT on GDAL's
/// suggested grid (AutoCreateWarpedVRT: GDALSuggestedWarpOutput2's geotransform and size, an
/// exact transformer). For each base tile it snaps the tile's bounds to that grid (`geo_query`,
/// below), reads that window into a buffer 4 × the tile size by nearest neighbour (RasterIO),
/// zero where the window was clipped at the grid's edges, and shrinks it by 4 × 4 plain averages
/// of every band, alpha included (RegenerateOverview 'average', rounding halves up).
///
/// Here the same arithmetic runs straight from the source window: the intermediate VRT pixels
/// a tile reads are the only ones computed, their source positions come from the renderer's
/// transformer on a grid (exact every 16th VRT pixel, interpolated between, checked to 1e-4
/// pixel, else every 4th, else every pixel; positions within 4e-4 pixel of a pixel edge are
/// transformed exactly), and the nearest source pixel is taken as GDAL's nearest-neighbour warp
/// kernel takes it (floor of the position). Nodata, alpha and the
/// chart's cutline act as in the default mode: a source pixel with alpha 0 is a VRT pixel with
/// alpha 0, like one outside the source.
struct Gdal2TilesQuery: Equatable {
    /// The window of the intermediate grid read (gdal2tiles' rx, ry, rxsize, rysize).
    var rx, ry, rxsize, rysize: Int
    /// Where it lands in the query buffer (wx, wy, wxsize, wysize).
    var wx, wy, wxsize, wysize: Int
    /// The query buffer's width and height: 4 × the tile size.
    var querysize: Int

    /// Whether gdal2tiles reads anything for the tile.
    var readsAnything: Bool { rxsize > 0 && rysize > 0 && wxsize > 0 && wysize > 0 }

    /// A tile's bounds in EPSG:3857 metres computed as gdal2tiles' GlobalMercator computes them
    /// (the floating-point operations in its order), so that the window snaps the same way.
    static func tileBounds(_ tile: MapTile, tileSize: Int) -> (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        let initialResolution = 2 * Double.pi * 6_378_137 / Double(tileSize)
        let originShift = 2 * Double.pi * 6_378_137 / 2.0
        let resolution = initialResolution / Double(1 << tile.zoom)
        let tmsRow = (1 << tile.zoom) - 1 - tile.y
        func metres(_ pixel: Int) -> Double { Double(pixel) * resolution - originShift }
        return (metres(tile.x * tileSize), metres(tmsRow * tileSize), metres((tile.x + 1) * tileSize), metres((tmsRow + 1) * tileSize))
    }

    /// The window of a grid (geotransform, width × height) that gdal2tiles reads for a tile:
    /// the upper left corner truncated to a pixel (with a 0.001 pixel margin), the size rounded,
    /// then clipped to the grid, the buffer part cut in proportion, truncating.
    init(tile: MapTile, tileSize: Int, geoTransform g: [Double], width: Int, height: Int) {
        let b = Self.tileBounds(tile, tileSize: tileSize)
        let (ulx, uly, lrx, lry) = (b.minX, b.maxY, b.maxX, b.minY)
        querysize = 4 * tileSize
        rx = Int((ulx - g[0]) / g[1] + 0.001)
        ry = Int((uly - g[3]) / g[5] + 0.001)
        rxsize = max(1, Int((lrx - ulx) / g[1] + 0.5))
        rysize = max(1, Int((lry - uly) / g[5] + 0.5))
        wxsize = querysize
        wysize = querysize
        (rx, rxsize, wx, wxsize) = Self.clip(rx, rxsize, wxsize, limit: width)
        (ry, rysize, wy, wysize) = Self.clip(ry, rysize, wysize, limit: height)
    }

    /// One axis of the clipping: (r, rsize, w, wsize).
    private static func clip(_ r: Int, _ rsize: Int, _ wsize: Int, limit: Int) -> (Int, Int, Int, Int) {
        var r = r, rsize = rsize, w = 0, wsize = wsize
        if r < 0 {
            let shift = Double(-r)
            w = Int(Double(wsize) * (shift / Double(rsize)))
            wsize -= w
            rsize -= Int(Double(rsize) * (shift / Double(rsize)))
            r = 0
        }
        if r + rsize > limit {
            wsize = Int(Double(wsize) * (Double(limit - r) / Double(rsize)))
            rsize = limit - r
        }
        return (r, rsize, w, wsize)
    }

    /// The grid pixel that each of `count` buffer pixels reads from a window (start, size) by
    /// nearest neighbour, as GDAL's RasterIO chooses it: the buffer pixel's centre scaled into
    /// the window, plus 1e-10, truncated (clamped to the grid).
    static func nearestPixels(start: Int, size: Int, count: Int, limit: Int) -> [Int] {
        let increment = Double(size) / Double(count)
        return (0..<count).map { b in
            let position = (Double(b) + 0.5) * increment + Double(start) + 1e-10
            return Int(min(max(0, position), Double(limit - 1)))
        }
    }
}

/// Which pixels of the intermediate grid a query buffer holds: the distinct grid columns and
/// rows the buffer reads (nearest neighbour), and per buffer column and row the index of the
/// one it holds among them (-1: outside the clipped window, zero in gdal2tiles' buffer).
struct Gdal2TilesBufferMap {
    /// The grid's columns and rows read, sorted.
    let usedColumns: [Int]
    let usedRows: [Int]
    /// Per buffer column (row): its index in `usedColumns` (`usedRows`), or -1.
    let bufferColumn: [Int]
    let bufferRow: [Int]

    init(_ query: Gdal2TilesQuery, gridWidth: Int, gridHeight: Int) {
        let columns = Gdal2TilesQuery.nearestPixels(start: query.rx, size: query.rxsize, count: query.wxsize, limit: gridWidth)
        let rows = Gdal2TilesQuery.nearestPixels(start: query.ry, size: query.rysize, count: query.wysize, limit: gridHeight)
        usedColumns = Array(Set(columns)).sorted()
        usedRows = Array(Set(rows)).sorted()
        bufferColumn = Self.indexes(of: columns, among: usedColumns, from: query.wx, size: query.querysize)
        bufferRow = Self.indexes(of: rows, among: usedRows, from: query.wy, size: query.querysize)
    }

    /// A buffer axis of `size`: -1, then from `start` the index of each of `read` in `used`.
    private static func indexes(of read: [Int], among used: [Int], from start: Int, size: Int) -> [Int] {
        let index = Dictionary(uniqueKeysWithValues: used.enumerated().map { ($1, $0) })
        var result = [Int](repeating: -1, count: size)
        for (b, pixel) in read.enumerated() { result[start + b] = index[pixel]! }
        return result
    }
}

/// The source pixel each intermediate grid pixel takes (every used column × every used row,
/// row by row), -1 in both where it takes none (outside the source).
struct Gdal2TilesSourcePixels {
    var x: [Int32]
    var y: [Int32]

    /// The source window that holds every pixel taken; nil when none is.
    var window: (x: Int, y: Int, width: Int, height: Int)? {
        var minX = Int.max, minY = Int.max, maxX = Int.min, maxY = Int.min
        for i in 0..<x.count where x[i] >= 0 {
            let ix = Int(x[i]), iy = Int(y[i])
            minX = min(minX, ix); maxX = max(maxX, ix); minY = min(minY, iy); maxY = max(maxY, iy)
        }
        guard minX <= maxX else { return nil }
        return (minX, minY, maxX - minX + 1, maxY - minY + 1)
    }

    /// The intermediate grid's pixels as RGBA: the source pixel taken where it has alpha,
    /// else 0 (like one outside the source).
    func gridPixels(from window: SourceWindow) -> [UInt8] {
        var grid = [UInt8](repeating: 0, count: x.count * 4)
        window.rgba.withUnsafeBufferPointer { src in
            grid.withUnsafeMutableBufferPointer { dst in
                for i in 0..<x.count where x[i] >= 0 {
                    let p = ((Int(y[i]) - window.y) * window.width + Int(x[i]) - window.x) * 4
                    if src[p + 3] > 0 { for c in 0..<4 { dst[i * 4 + c] = src[p + c] } }
                }
            }
        }
        return grid
    }
}

extension TileRenderer {
    /// Largest interpolation error allowed in a VRT pixel's source position (source pixels):
    /// GDAL's transformer here is exact, and a nearest-neighbour choice flips only within this
    /// distance of a pixel edge.
    static let gdal2tilesTolerance = 1e-4

    /// A base tile sampled as gdal2tiles samples it; nil when nothing of the source is in it.
    /// Leaves the transformer's destination on the intermediate grid (the caller resets it).
    /// Throws `SampledWarp.Unsupported` when the transformer fails in the window.
    func gdal2tilesRender(_ tile: MapTile) throws -> TileImage? {
        let size = pyramid.tileSize
        let query = Gdal2TilesQuery(tile: tile, tileSize: size, geoTransform: source.warpedGeoTransform,
                                    width: source.warpedWidth, height: source.warpedHeight)
        guard query.readsAnything else { return nil }
        let map = Gdal2TilesBufferMap(query, gridWidth: source.warpedWidth, gridHeight: source.warpedHeight)

        // The source pixels of those grid pixels' centres, and the source window they lie in.
        var geoTransform = source.warpedGeoTransform
        GDALSetGenImgProjTransformerDstGeoTransform(transformer, &geoTransform)
        let taken = try vrtSourcePixels(columns: map.usedColumns, rows: map.usedRows)
        guard let bounds = taken.window else { return nil }
        let window = try readMaskedWindow(x: bounds.x, y: bounds.y, width: bounds.width, height: bounds.height)

        // The buffer's 4 × 4 plain averages of every channel, alpha included, halves rounded up.
        let rowSums = Self.gdal2tilesColumnSums(of: taken.gridPixels(from: window), map: map, size: size)
        let colorChannels = source.colorBands.count
        let image = TileImage(size: size, colorChannels: colorChannels,
                              pixels: Self.gdal2tilesAverages(of: rowSums, map: map, size: size, colorChannels: colorChannels))
        return image.isEmpty ? nil : image
    }

    /// Per grid row read: for each tile column, the sums of its 4 buffer columns' channels.
    private static func gdal2tilesColumnSums(of grid: [UInt8], map: Gdal2TilesBufferMap, size: Int) -> [Int32] {
        let stride = map.usedColumns.count
        var rowSums = [Int32](repeating: 0, count: map.usedRows.count * size * 4)
        grid.withUnsafeBufferPointer { v in
            map.bufferColumn.withUnsafeBufferPointer { bc in
                rowSums.withUnsafeMutableBufferPointer { sums in
                    for row in 0..<map.usedRows.count {
                        let line = row * stride
                        for px in 0..<size {
                            var r: Int32 = 0, g: Int32 = 0, b: Int32 = 0, a: Int32 = 0
                            for i in 0..<4 {
                                let column = bc[4 * px + i]
                                if column < 0 { continue }
                                let p = (line + column) * 4
                                r += Int32(v[p]); g += Int32(v[p + 1]); b += Int32(v[p + 2]); a += Int32(v[p + 3])
                            }
                            let o = (row * size + px) * 4
                            sums[o] = r; sums[o + 1] = g; sums[o + 2] = b; sums[o + 3] = a
                        }
                    }
                }
            }
        }
        return rowSums
    }

    /// The tile: each pixel the sum of its 4 buffer rows' column sums, divided by 16 (rounding
    /// halves up; buffer pixels outside the window count as zero, as in gdal2tiles' buffer).
    private static func gdal2tilesAverages(of rowSums: [Int32], map: Gdal2TilesBufferMap, size: Int, colorChannels: Int) -> [UInt8] {
        let channels = colorChannels + 1
        var out = [UInt8](repeating: 0, count: size * size * channels)
        rowSums.withUnsafeBufferPointer { sums in
            out.withUnsafeMutableBufferPointer { dst in
                for py in 0..<size {
                    let rowsHere = (0..<4).map { map.bufferRow[4 * py + $0] }.filter { $0 >= 0 }
                    if rowsHere.isEmpty { continue }
                    for px in 0..<size {
                        var r: Int32 = 0, g: Int32 = 0, b: Int32 = 0, a: Int32 = 0
                        for row in rowsHere {
                            let p = (row * size + px) * 4
                            r += sums[p]; g += sums[p + 1]; b += sums[p + 2]; a += sums[p + 3]
                        }
                        let o = (py * size + px) * channels
                        dst[o] = UInt8((r + 8) / 16)
                        if colorChannels == 3 {
                            dst[o + 1] = UInt8((g + 8) / 16)
                            dst[o + 2] = UInt8((b + 8) / 16)
                        }
                        dst[o + colorChannels] = UInt8((a + 8) / 16)
                    }
                }
            }
        }
        return out
    }

    /// The source pixel nearest each VRT pixel centre (every column × every row given, both
    /// sorted), as GDAL's nearest-neighbour warp kernel takes it: the floor of the position
    /// (plus 1e-10). The positions are exact on a grid every `step` VRT pixels over their span,
    /// bilinear between, the step refined (16, 4, 1) until the error at the cells' centres is
    /// within `gdal2tilesTolerance`; a position that close to a pixel edge (4 × the tolerance)
    /// is computed exactly, so the choice is the exact one.
    private func vrtSourcePixels(columns: [Int], rows: [Int]) throws -> Gdal2TilesSourcePixels {
        let spanX = columns.last! - columns.first!, spanY = rows.last! - rows.first!
        let grid = try positionGrid(x0: Double(columns.first!) + 0.5, y0: Double(rows.first!) + 0.5,
                                    columns: { spanX / $0 + 2 }, rows: { spanY / $0 + 2 }, tolerance: Self.gdal2tilesTolerance)
        var (taken, nearEdge) = interpolatedSourcePixels(grid, columns: columns, rows: rows)
        try takeExactly(nearEdge, columns: columns, rows: rows, into: &taken)
        return taken
    }

    /// The source pixels at positions interpolated on `grid`, and the indexes of those too
    /// close to a pixel edge for an interpolated position to choose (left at -1).
    private func interpolatedSourcePixels(_ grid: PositionGrid, columns: [Int], rows: [Int]) -> (Gdal2TilesSourcePixels, nearEdge: [Int]) {
        let step = grid.step, nx = grid.columns
        // Per column: its grid cell and the fraction across it.
        let cells = columns.map { min(nx - 2, ($0 - columns.first!) / step) }
        let fractions = columns.enumerated().map { Double($1 - columns.first!) / Double(step) - Double(cells[$0]) }
        var pixelX = [Int32](repeating: -1, count: columns.count * rows.count), pixelY = pixelX
        var rowX = [Double](repeating: 0, count: nx), rowY = rowX
        let limitX = Double(source.sourceWidth), limitY = Double(source.sourceHeight)
        let margin = step > 1 ? 4 * Self.gdal2tilesTolerance : 0
        var nearEdge: [Int] = []
        for (r, row) in rows.enumerated() {
            // The grid interpolated down to this row, then along it.
            let v = Double(row - rows.first!) / Double(step)
            let gj = min(grid.rows - 2, Int(v)), fv = v - Double(gj)
            for i in 0..<nx {
                let a = gj * nx + i
                rowX[i] = grid.xs[a] + (grid.xs[a + nx] - grid.xs[a]) * fv
                rowY[i] = grid.ys[a] + (grid.ys[a + nx] - grid.ys[a]) * fv
            }
            rowX.withUnsafeBufferPointer { rx in
                rowY.withUnsafeBufferPointer { ry in
                    pixelX.withUnsafeMutableBufferPointer { px in
                        pixelY.withUnsafeMutableBufferPointer { py in
                            for c in 0..<columns.count {
                                let gi = cells[c], fu = fractions[c]
                                let sx = rx[gi] + (rx[gi + 1] - rx[gi]) * fu + 1e-10, sy = ry[gi] + (ry[gi + 1] - ry[gi]) * fu + 1e-10
                                let x = sx.rounded(.down), y = sy.rounded(.down)
                                // Too close to a pixel edge for an interpolated position to choose: exactly, later.
                                if sx - x < margin || x + 1 - sx < margin || sy - y < margin || y + 1 - sy < margin {
                                    nearEdge.append(r * columns.count + c)
                                    continue
                                }
                                if x >= 0, y >= 0, x < limitX, y < limitY {
                                    px[r * columns.count + c] = Int32(x)
                                    py[r * columns.count + c] = Int32(y)
                                }
                            }
                        }
                    }
                }
            }
        }
        return (Gdal2TilesSourcePixels(x: pixelX, y: pixelY), nearEdge)
    }

    /// The source pixels at `indexes` (of `columns` × `rows`) from exactly transformed positions.
    private func takeExactly(_ indexes: [Int], columns: [Int], rows: [Int], into taken: inout Gdal2TilesSourcePixels) throws {
        guard !indexes.isEmpty else { return }
        var xs = indexes.map { Double(columns[$0 % columns.count]) + 0.5 }, ys = indexes.map { Double(rows[$0 / columns.count]) + 0.5 }
        var zs = [Double](repeating: 0, count: indexes.count), ok = [Int32](repeating: 0, count: indexes.count)
        GDALGenImgProjTransform(transformer, 1, Int32(indexes.count), &xs, &ys, &zs, &ok)
        guard !ok.contains(0) else { throw SampledWarp.Unsupported() }
        let limitX = Double(source.sourceWidth), limitY = Double(source.sourceHeight)
        for (k, index) in indexes.enumerated() {
            let x = (xs[k] + 1e-10).rounded(.down), y = (ys[k] + 1e-10).rounded(.down)
            if x >= 0, y >= 0, x < limitX, y < limitY {
                taken.x[index] = Int32(x)
                taken.y[index] = Int32(y)
            }
        }
    }
}
