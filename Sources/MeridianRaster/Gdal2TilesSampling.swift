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
        let grid = source.warpedGeoTransform
        let query = Gdal2TilesQuery(tile: tile, tileSize: size, geoTransform: grid, width: source.warpedWidth, height: source.warpedHeight)
        guard query.readsAnything else { return nil }

        // The grid's columns and rows the buffer reads, and the distinct ones among them.
        let columns = Gdal2TilesQuery.nearestPixels(start: query.rx, size: query.rxsize, count: query.wxsize, limit: source.warpedWidth)
        let rows = Gdal2TilesQuery.nearestPixels(start: query.ry, size: query.rysize, count: query.wysize, limit: source.warpedHeight)
        let usedColumns = Array(Set(columns)).sorted(), usedRows = Array(Set(rows)).sorted()
        let columnIndex = Dictionary(uniqueKeysWithValues: usedColumns.enumerated().map { ($1, $0) })
        let rowIndex = Dictionary(uniqueKeysWithValues: usedRows.enumerated().map { ($1, $0) })

        // Source positions of those VRT pixels' centres.
        var geoTransform = grid
        GDALSetGenImgProjTransformerDstGeoTransform(transformer, &geoTransform)
        let width = source.sourceWidth, height = source.sourceHeight
        let (pixelX, pixelY) = try vrtSourcePixels(columns: usedColumns, rows: usedRows, width: width, height: height)
        var minX = Int.max, minY = Int.max, maxX = Int.min, maxY = Int.min
        for i in 0..<pixelX.count where pixelX[i] >= 0 {
            let ix = Int(pixelX[i]), iy = Int(pixelY[i])
            minX = min(minX, ix); maxX = max(maxX, ix); minY = min(minY, iy); maxY = max(maxY, iy)
        }
        guard minX <= maxX else { return nil }
        let w = maxX - minX + 1, h = maxY - minY + 1
        var window = try readWindow(x: minX, y: minY, width: w, height: h)
        if let ring = source.cutlineRing { Self.applyCutline(ring, to: &window, x: minX, y: minY, width: w, height: h) }

        // The intermediate VRT's pixels (RGBA; 0 where there is no valid source pixel).
        var vrt = [UInt8](repeating: 0, count: pixelX.count * 4)
        window.withUnsafeBufferPointer { src in
            vrt.withUnsafeMutableBufferPointer { dst in
                for i in 0..<pixelX.count where pixelX[i] >= 0 {
                    let p = ((Int(pixelY[i]) - minY) * w + Int(pixelX[i]) - minX) * 4
                    if src[p + 3] > 0 { for c in 0..<4 { dst[i * 4 + c] = src[p + c] } }
                }
            }
        }

        // The query buffer's pixel → the VRT pixel it holds (-1: outside the clipped window),
        // then 4 × 4 plain averages of every channel, alpha included, halves rounded up.
        var bufferColumn = [Int](repeating: -1, count: query.querysize), bufferRow = bufferColumn
        for (b, column) in columns.enumerated() { bufferColumn[query.wx + b] = columnIndex[column]! }
        for (b, row) in rows.enumerated() { bufferRow[query.wy + b] = rowIndex[row]! }
        let colorChannels = source.colorBands.count, channels = colorChannels + 1
        let stride = usedColumns.count
        // Per VRT row: the sums of each tile column's 4 buffer columns (the rows come next).
        var rowSums = [Int32](repeating: 0, count: usedRows.count * size * 4)
        vrt.withUnsafeBufferPointer { v in
            bufferColumn.withUnsafeBufferPointer { bc in
                rowSums.withUnsafeMutableBufferPointer { sums in
                    for row in 0..<usedRows.count {
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
        var out = [UInt8](repeating: 0, count: size * size * channels)
        rowSums.withUnsafeBufferPointer { sums in
            out.withUnsafeMutableBufferPointer { dst in
                for py in 0..<size {
                    let rowsHere = (0..<4).map { bufferRow[4 * py + $0] }.filter { $0 >= 0 }
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
        let image = TileImage(size: size, colorChannels: colorChannels, pixels: out)
        return image.isEmpty ? nil : image
    }

    /// The source pixel nearest each VRT pixel centre (every column × every row given, both
    /// sorted), row by row, -1 outside the source; as GDAL's nearest-neighbour warp kernel takes
    /// it: the floor of the position (plus 1e-10). The positions are exact on a grid every
    /// `step` VRT pixels over their span, bilinear between, the step refined (16, 4, 1) until the
    /// error at the cells' centres is within `gdal2tilesTolerance`; a position that close to a
    /// pixel edge (4 × the tolerance) is computed exactly, so the choice is the exact one.
    private func vrtSourcePixels(columns: [Int], rows: [Int], width: Int, height: Int) throws -> ([Int32], [Int32]) {
        let x0 = Double(columns.first!) + 0.5, y0 = Double(rows.first!) + 0.5
        let spanX = columns.last! - columns.first!, spanY = rows.last! - rows.first!
        for step in [16, 4, 1] {
            let nx = spanX / step + 2, ny = spanY / step + 2
            guard let (gx, gy) = sourcePositions(columns: nx, rows: ny, step: Double(step), x0: x0, y0: y0) else {
                throw SampledWarp.Unsupported()
            }
            if step > 1 {
                // Interpolation against the exact positions at the cells' centres.
                guard let (cx, cy) = sourcePositions(columns: nx - 1, rows: ny - 1, step: Double(step), x0: x0 + Double(step) / 2, y0: y0 + Double(step) / 2) else {
                    throw SampledWarp.Unsupported()
                }
                var worst = 0.0
                for j in 0..<(ny - 1) {
                    for i in 0..<(nx - 1) {
                        let a = j * nx + i
                        let ix = (gx[a] + gx[a + 1] + gx[a + nx] + gx[a + nx + 1]) / 4, iy = (gy[a] + gy[a + 1] + gy[a + nx] + gy[a + nx + 1]) / 4
                        worst = max(worst, abs(ix - cx[j * (nx - 1) + i]), abs(iy - cy[j * (nx - 1) + i]))
                    }
                }
                if worst > Self.gdal2tilesTolerance { continue }
            }
            // Per column: its grid cell and the fraction across it.
            let cells = columns.map { min(nx - 2, ($0 - columns.first!) / step) }
            let fractions = columns.enumerated().map { Double($1 - columns.first!) / Double(step) - Double(cells[$0]) }
            var pixelX = [Int32](repeating: -1, count: columns.count * rows.count), pixelY = pixelX
            var rowX = [Double](repeating: 0, count: nx), rowY = rowX
            let limitX = Double(width), limitY = Double(height)
            let margin = step > 1 ? 4 * Self.gdal2tilesTolerance : 0
            var nearEdge: [Int] = []
            for (r, row) in rows.enumerated() {
                // The grid interpolated down to this row, then along it.
                let v = Double(row - rows.first!) / Double(step)
                let gj = min(ny - 2, Int(v)), fv = v - Double(gj)
                for i in 0..<nx {
                    let a = gj * nx + i
                    rowX[i] = gx[a] + (gx[a + nx] - gx[a]) * fv
                    rowY[i] = gy[a] + (gy[a + nx] - gy[a]) * fv
                }
                rowX.withUnsafeBufferPointer { rx in
                    rowY.withUnsafeBufferPointer { ry in
                        pixelX.withUnsafeMutableBufferPointer { px in
                            pixelY.withUnsafeMutableBufferPointer { py in
                                for c in 0..<columns.count {
                                    let gi = cells[c], fu = fractions[c]
                                    let sx = rx[gi] + (rx[gi + 1] - rx[gi]) * fu + 1e-10, sy = ry[gi] + (ry[gi + 1] - ry[gi]) * fu + 1e-10
                                    let x = sx.rounded(.down), y = sy.rounded(.down)
                                    // Too close to a pixel edge for an interpolated position to choose: exactly, below.
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
            if !nearEdge.isEmpty {
                var xs = nearEdge.map { Double(columns[$0 % columns.count]) + 0.5 }, ys = nearEdge.map { Double(rows[$0 / columns.count]) + 0.5 }
                var zs = [Double](repeating: 0, count: nearEdge.count), ok = [Int32](repeating: 0, count: nearEdge.count)
                GDALGenImgProjTransform(transformer, 1, Int32(nearEdge.count), &xs, &ys, &zs, &ok)
                guard !ok.contains(0) else { throw SampledWarp.Unsupported() }
                for (k, index) in nearEdge.enumerated() {
                    let x = (xs[k] + 1e-10).rounded(.down), y = (ys[k] + 1e-10).rounded(.down)
                    if x >= 0, y >= 0, x < limitX, y < limitY {
                        pixelX[index] = Int32(x)
                        pixelY[index] = Int32(y)
                    }
                }
            }
            return (pixelX, pixelY)
        }
        throw SampledWarp.Unsupported()  // not reached: step 1 always returns
    }
}
