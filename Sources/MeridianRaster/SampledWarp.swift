import CGDAL
import Foundation
import GDALSupport
import MeridianFormats
import MeridianGeometry

/// The base-tile kernel for `average` and `near`: each tile pixel averages k × k point samples
/// of the source (k = the source pixels per tile pixel, 1 to 4), weighted by their alpha, so a
/// pixel half over the data is half transparent. This is the area average gdal2tiles
/// approximates (a 4× nearest-neighbour read shrunk by 'average'), done in one pass straight
/// from the source window: the exact source position of every 16th tile pixel comes from GDAL's
/// transformer and is interpolated between (GDAL's approximate transformer does the same).
///
/// Measured on NOAA chart 19350 at zoom 17 (release, one thread): GDAL's warper took 26 ms a
/// tile with 'average' (10 ms with 'near'); this kernel takes a few.
extension TileRenderer {
    static let gridStep = 16

    /// nil: nothing of the source in the tile. Throws `SampledWarp.Unsupported` when the
    /// transformer fails somewhere in the tile (the caller then uses GDAL's warper).
    func sampledRender(_ tile: MapTile, samples fixedSamples: Int?) throws -> TileImage? {
        let size = pyramid.tileSize
        // Exact positions every 16 pixels, interpolated between; where that is off by more than
        // a quarter of a source pixel at the cells' centres (low zooms, thin-plate splines), every
        // 4 pixels, else every pixel.
        let grid = try positionGrid(x0: 0, y0: 0, columns: { size / $0 + 1 }, rows: { size / $0 + 1 }, tolerance: 0.25)
        guard let window = try readMaskedWindow(around: grid) else { return nil }
        let averager = SampleAverager(grid: grid, window: window, size: size,
                                      samples: fixedSamples ?? grid.samplesPerPixel, colorChannels: source.colorBands.count)
        // (One sample a pixel, as `near` takes, is its own excluded colour or not: nothing to leave out.)
        let pixels = excludedValues.map { averager.samples > 1 ? ExcludingSampleAverager(averager: averager, excluded: $0).pixels() : nil }
        let image = TileImage(size: size, colorChannels: source.colorBands.count, pixels: (pixels ?? nil) ?? averager.pixels())
        return image.isEmpty ? nil : image
    }

    /// Source positions of destination pixels (x0 + i · step, y0 + j · step) on the coarsest
    /// grid, of steps 16, 4 and 1, between whose points bilinear interpolation is within
    /// `tolerance` source pixels of the exact positions at the cells' centres (step 1 is
    /// exact); `columns` and `rows` give the grid's size for a step. Throws
    /// `SampledWarp.Unsupported` when the transformer fails at any point.
    func positionGrid(x0: Double, y0: Double, columns: (Int) -> Int, rows: (Int) -> Int, tolerance: Double) throws -> PositionGrid {
        func positions(every step: Int, from x0: Double, _ y0: Double, columns: Int, rows: Int) throws -> PositionGrid {
            guard let (xs, ys) = sourcePositions(columns: columns, rows: rows, step: Double(step), x0: x0, y0: y0) else {
                throw SampledWarp.Unsupported()
            }
            return PositionGrid(step: step, columns: columns, rows: rows, xs: xs, ys: ys)
        }
        for step in [Self.gridStep, 4] {
            let nx = columns(step), ny = rows(step), half = Double(step) / 2
            let grid = try positions(every: step, from: x0, y0, columns: nx, rows: ny)
            let centres = try positions(every: step, from: x0 + half, y0 + half, columns: nx - 1, rows: ny - 1)
            if grid.interpolationError(atCentres: centres) <= tolerance { return grid }
        }
        return try positions(every: 1, from: x0, y0, columns: columns(1), rows: rows(1))
    }

    /// The source window under `grid` (with a pixel's margin, clipped to the source), read
    /// with the cutline applied; nil when the grid lies outside the source.
    private func readMaskedWindow(around grid: PositionGrid) throws -> SourceWindow? {
        let width = source.sourceWidth, height = source.sourceHeight
        let minX = max(0, Int(grid.xs.min()!.rounded(.down)) - 1), maxX = min(width, Int(grid.xs.max()!.rounded(.up)) + 1)
        let minY = max(0, Int(grid.ys.min()!.rounded(.down)) - 1), maxY = min(height, Int(grid.ys.max()!.rounded(.up)) + 1)
        guard minX < maxX, minY < maxY else { return nil }
        return try readMaskedWindow(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }

    /// A window of the source as RGBA (gray in the first channel), alpha 0 outside the cutline.
    func readMaskedWindow(x: Int, y: Int, width w: Int, height h: Int) throws -> SourceWindow {
        var window = try windowReader.rgba(x: x, y: y, width: w, height: h, from: windowReader.threadsReadOwnDatasets ? ownDatasets().prepared : nil)
        if let ring = source.cutlineRing { Self.applyCutline(ring, to: &window, x: x, y: y, width: w, height: h) }
        return SourceWindow(x: x, y: y, width: w, height: h, rgba: window)
    }

    /// Source positions of a columns × rows grid of destination pixel coordinates
    /// (x0 + i · step, y0 + j · step), row by row, in the destination grid the transformer has now;
    /// nil when the transformer fails at any of them.
    func sourcePositions(columns: Int, rows: Int, step: Double, x0: Double, y0: Double) -> ([Double], [Double])? {
        let count = columns * rows
        var xs = [Double](repeating: 0, count: count), ys = xs, zs = xs
        var ok = [Int32](repeating: 0, count: count)
        for j in 0..<rows { for i in 0..<columns { xs[j * columns + i] = x0 + Double(i) * step; ys[j * columns + i] = y0 + Double(j) * step } }
        GDALGenImgProjTransform(transformer, 1, Int32(count), &xs, &ys, &zs, &ok)
        guard !ok.contains(0), xs.allSatisfy(\.isFinite), ys.allSatisfy(\.isFinite) else { return nil }
        return (xs, ys)
    }

    /// Clears alpha outside `ring` (pixel, line) in a window, testing each pixel's centre.
    static func applyCutline(_ ring: [SIMD2<Double>], to rgba: inout [UInt8], x: Int, y: Int, width w: Int, height h: Int) {
        var crossings: [Double] = []
        for row in 0..<h {
            let cy = Double(y + row) + 0.5
            crossings.removeAll(keepingCapacity: true)
            for i in 0..<ring.count {
                let a = ring[i], b = ring[(i + 1) % ring.count]
                if (a.y <= cy) != (b.y <= cy) {
                    crossings.append(a.x + (cy - a.y) / (b.y - a.y) * (b.x - a.x))
                }
            }
            crossings.sort()
            // Pixel centres x + 0.5 between two crossings (the first and second, the third and
            // fourth, …) are inside; alpha is cleared from the end of one such span to the start
            // of the next.
            var outsideFrom = 0
            func clear(upTo end: Int) {
                if outsideFrom < end { for c in outsideFrom..<end { rgba[(row * w + c) * 4 + 3] = 0 } }
            }
            var i = 0
            while i + 1 < crossings.count {
                let from = max(0, Int((crossings[i] - 0.5 - Double(x)).rounded(.up)))
                let to = min(w - 1, Int((crossings[i + 1] - 0.5 - Double(x)).rounded(.down)))
                if from <= to {
                    clear(upTo: from)
                    outsideFrom = max(outsideFrom, to + 1)
                }
                i += 2
            }
            clear(upTo: w)
        }
    }
}

enum SampledWarp {
    /// The transformer fails somewhere in the tile (beyond the poles, say): GDAL's warper copes.
    struct Unsupported: Error {}
}

/// Source positions (pixel, line) of a grid of destination pixels every `step`, row by row.
struct PositionGrid {
    var step: Int
    var columns: Int
    var rows: Int
    var xs: [Double]
    var ys: [Double]

    /// The largest distance, along x or y, between the positions bilinear interpolation gives at
    /// the cells' centres and `centres`, the exact ones there ((columns - 1) × (rows - 1)).
    func interpolationError(atCentres centres: PositionGrid) -> Double {
        var worst = 0.0
        for j in 0..<(rows - 1) {
            for i in 0..<(columns - 1) {
                let a = j * columns + i, b = a + columns
                let ix = (xs[a] + xs[a + 1] + xs[b] + xs[b + 1]) / 4, iy = (ys[a] + ys[a + 1] + ys[b] + ys[b + 1]) / 4
                worst = max(worst, abs(ix - centres.xs[j * (columns - 1) + i]), abs(iy - centres.ys[j * (columns - 1) + i]))
            }
        }
        return worst
    }

    /// Samples per axis for a tile pixel: 4 (gdal2tiles reads 4× and averages), more when one
    /// tile pixel covers more source pixels (at most 8).
    var samplesPerPixel: Int {
        let spread = max(hypot(xs[1] - xs[0], ys[1] - ys[0]), hypot(xs[columns] - xs[0], ys[columns] - ys[0])) / Double(step)
        return min(8, max(4, Int(spread.rounded(.up))))
    }
}

/// Source pixels as RGBA (gray in the first channel), row by row: a window at (x, y).
struct SourceWindow {
    var x: Int
    var y: Int
    var width: Int
    var height: Int
    var rgba: [UInt8]
}

/// A square tile's pixels, each the mean of `samples` × `samples` point samples of a source
/// window, weighted by their alpha, so a pixel half over the data is half transparent. The
/// samples' positions are interpolated on a `PositionGrid` whose origin is the tile's corner.
struct SampleAverager {
    let grid: PositionGrid
    let window: SourceWindow
    let size: Int
    let samples: Int
    let colorChannels: Int

    /// The tile's pixels: colour channels and alpha, interleaved.
    func pixels() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: size * size * (colorChannels + 1))
        // Per tile pixel of a row: its samples' sums, packed as `PremultipliedSample`s are.
        var sums = [PremultipliedSample](repeating: PremultipliedSample(), count: size)
        var rowX = [Double](repeating: 0, count: grid.columns), rowY = rowX
        // Per cell, the last span tested for one colour and what it held: a cell's next row of
        // samples mostly lies on the same source pixels (4 sample rows over under 2 source rows
        // at a chart's native zoom), and is not tested again.
        var lastTests = [SpanColour](repeating: SpanColour(), count: grid.columns - 1)
        window.rgba.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                sums.withUnsafeMutableBufferPointer { acc in lastTests.withUnsafeMutableBufferPointer { tests in
                    for py in 0..<size {
                        for i in 0..<acc.count { acc[i] = PremultipliedSample() }
                        for sy in 0..<samples {
                            interpolateRow(at: Double(py) + (Double(sy) + 0.5) / Double(samples), x: &rowX, y: &rowY)
                            addSamples(alongRowX: rowX, rowY: rowY, from: src, to: acc, lastTests: tests)
                        }
                        storeAverages(row: py, from: UnsafeBufferPointer(acc), to: dst)
                    }
                } }
            }
        }
        return out
    }

    /// The grid's positions interpolated down to tile row `v` (a fraction of a pixel), at each
    /// grid column.
    @inline(__always)
    func interpolateRow(at v: Double, x rowX: inout [Double], y rowY: inout [Double]) {
        let n = grid.columns, step = grid.step
        let gj = min(grid.rows - 2, Int(v) / step)
        let fv = (v - Double(gj * step)) / Double(step)
        for i in 0..<n {
            let a = gj * n + i, b = a + n
            rowX[i] = grid.xs[a] + (grid.xs[b] - grid.xs[a]) * fv
            rowY[i] = grid.ys[a] + (grid.ys[b] - grid.ys[a]) * fv
        }
    }

    /// One row of samples added to each tile pixel's sums: along the row, cell by cell, the
    /// positions advance by a constant step; samples outside the window count as transparent.
    @inline(__always)
    private func addSamples(alongRowX rowX: [Double], rowY: [Double], from src: UnsafeBufferPointer<UInt8>,
                            to acc: UnsafeMutableBufferPointer<PremultipliedSample>, lastTests: UnsafeMutableBufferPointer<SpanColour>) {
        let step = grid.step, k = samples
        let originX = Double(window.x), originY = Double(window.y)
        let perCell = Double(step * k)
        // Samples per cell of 16 × 4 or 16 × 8 (and 4 × 4, …): a power of two, by whose
        // reciprocal (exact) a multiplication gives the quotient's very bits, without a division.
        let byPowerOfTwo = (step * k) & (step * k - 1) == 0, reciprocal = 1 / perCell
        for cell in 0..<(grid.columns - 1) {
            let dx = byPowerOfTwo ? (rowX[cell + 1] - rowX[cell]) * reciprocal : (rowX[cell + 1] - rowX[cell]) / perCell
            let dy = byPowerOfTwo ? (rowY[cell + 1] - rowY[cell]) * reciprocal : (rowY[cell + 1] - rowY[cell]) / perCell
            let x = rowX[cell] + dx * 0.5 - originX, y = rowY[cell] + dy * 0.5 - originY
            let pixels = UnsafeMutableBufferPointer(rebasing: acc[(cell * step)..<((cell + 1) * step)])
            let span = window.spanHolding(y, dy, x, dx, samples: step * k)
            var colour: PremultipliedSample?
            if let span {
                if lastTests[cell].span == span {
                    colour = lastTests[cell].colour
                } else {
                    colour = Self.sameColour(in: span, of: window, src)
                    lastTests[cell] = SpanColour(span: span, colour: colour)
                }
            }
            if let colour {
                // Every sample of the cell falls on this one colour, wherever exactly.
                let value = colour.times(k)
                for pixel in pixels.indices { pixels[pixel].add(value) }
            } else if let span, span.top == span.bottom {
                if !addSamplesBySegments(inRow: span.top, from: span.left, to: span.right, x: x, dx: dx, from: src, to: pixels) {
                    addSamples(inRow: span.top, x: x, dx: dx, from: src, to: pixels)
                }
            } else if window.holdsNone(y, dy, x, dx, samples: step * k) {
                // Every sample of the cell is off the window (a tile over the raster's edge):
                // transparent, nothing to add.
            } else {
                addSamples(x: x, dx: dx, y: y, dy: dy, from: src, to: pixels)
            }
        }
    }

    /// The colour of a window span whose pixels all have the same RGBA values (as charts have
    /// over open water and land tints: most cells of a chart tile), premultiplied; else nil.
    @inline(__always)
    private static func sameColour(in span: WindowSpan, of window: SourceWindow, _ src: UnsafeBufferPointer<UInt8>) -> PremultipliedSample? {
        let bytes = UnsafeRawBufferPointer(src)
        let first = bytes.loadUnaligned(fromByteOffset: (span.top &* window.width &+ span.left) &* 4, as: UInt32.self)
        for row in span.top...span.bottom {
            var p = (row &* window.width &+ span.left) &* 4
            let end = (row &* window.width &+ span.right) &* 4
            while p <= end {
                if bytes.loadUnaligned(fromByteOffset: p, as: UInt32.self) != first { return nil }
                p &+= 4
            }
        }
        return PremultipliedSample(rgba: src, pixel: span.top &* window.width &+ span.left)
    }

    /// A cell's samples, `samples` to each of `pixels`, at positions x, x + dx, x + 2 dx, … (each
    /// the sum of the one before and dx, as the checked loop below computes them), all in
    /// window row `row` and inside the window: nothing to check, and y is not needed. This is
    /// where the time of a tile goes (a million samples for a tile of 4 × 4 samples a pixel).
    /// Four samples a pixel (the least, and the most common) are a constant of their own loop.
    @inline(__always)
    private func addSamples(inRow row: Int, x start: Double, dx: Double, from src: UnsafeBufferPointer<UInt8>,
                            to pixels: UnsafeMutableBufferPointer<PremultipliedSample>) {
        if samples == 4 {
            addSamples(inRow: row, x: start, dx: dx, perPixel: 4, from: src, to: pixels)
        } else {
            addSamples(inRow: row, x: start, dx: dx, perPixel: samples, from: src, to: pixels)
        }
    }

    /// A cell's samples as `addSamples(inRow:x:dx:from:to:)` adds them, when the tile magnifies
    /// the source (a few window pixels, `left` to `right`, under the cell's many samples, as at
    /// the levels below a raster's native zoom): not sample by sample, whose positions are a
    /// chain of additions each waiting for the one before, but by the samples' segments on each
    /// window pixel, each segment's samples added as one multiple of the pixel's colour. Returns
    /// false, having added nothing, when it cannot tell a segment's ends exactly (the caller
    /// then adds the samples one by one).
    ///
    /// The samples on window pixel n are those whose position lies in [n, n + 1). The first
    /// sample at or past boundary b is found from the estimate x + i dx, within a millionth of a
    /// pixel of the running sum (as `SourceWindow.spanHolding` bounds it: at most 127 additions on
    /// positions below 2^24); the estimate must put sample i at least two millionths past b and
    /// sample i − 1 as far before it, else the sums could fall either side and the cell is left
    /// to the sample-by-sample loop.
    @inline(__always)
    private func addSamplesBySegments(inRow row: Int, from left: Int, to right: Int, x start: Double, dx: Double,
                                      from src: UnsafeBufferPointer<UInt8>, to pixels: UnsafeMutableBufferPointer<PremultipliedSample>) -> Bool {
        let perPixel = samples, count = pixels.count &* samples
        let boundaries = right &- left
        // Worth it with at least 4 samples a window pixel (a magnified tile); spanHolding has
        // checked the positions lie in the window, below 2^24, with at most 128 samples.
        guard dx > 0, boundaries &* 4 <= count, count <= 128 else { return false }
        let margin = 2e-6, perStep = 1 / dx, last = count &- 1
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: 33) { firsts -> Bool in
            // firsts[j]: the first sample on window pixel left + j + 1 or further; count when none is.
            for j in 0..<boundaries {
                let b = Double(left &+ j &+ 1)
                let estimate = (b - start) * perStep
                // (b - start) lies within the cell's reach (span checked): estimate is small and
                // finite. Its ceiling by truncation and a comparison (rounded(.up) is a call).
                guard estimate.isFinite, estimate > -2, estimate < Double(count) + 2 else { return false }
                var ceiling = Int(estimate)
                if Double(ceiling) < estimate { ceiling &+= 1 }
                let i = min(max(ceiling, 0), count)
                if i <= last && start + Double(i) * dx < b + margin { return false }
                if i > 0 && start + Double(i &- 1) * dx > b - margin { return false }
                firsts[j] = i
            }
            firsts[boundaries] = count
            let rowStart = row &* window.width
            var segment = 0, segmentEnd = firsts[0]
            var colour = PremultipliedSample(rgba: src, pixel: rowStart &+ left)
            var sample = 0
            for pixel in pixels.indices {
                let pixelEnd = sample &+ perPixel
                if segmentEnd >= pixelEnd {
                    pixels[pixel].add(colour.times(perPixel))
                } else {
                    var sum = PremultipliedSample(), from = sample
                    while segmentEnd < pixelEnd {
                        sum.add(colour.times(segmentEnd &- from))
                        from = segmentEnd
                        segment &+= 1
                        segmentEnd = firsts[segment]
                        colour = PremultipliedSample(rgba: src, pixel: rowStart &+ left &+ segment)
                    }
                    sum.add(colour.times(pixelEnd &- from))
                    pixels[pixel].add(sum)
                }
                sample = pixelEnd
            }
            return true
        }
    }

    /// `addSamples(inRow:x:dx:from:to:)` with `perPixel` samples a pixel.
    ///
    /// Neighbouring samples mostly fall on one source pixel (4 samples a tile pixel, and at a
    /// chart's native zoom under 2 source pixels a tile pixel): the last pixel's weighted colour
    /// is kept and used again, not loaded and multiplied again. A sample is on that pixel, n,
    /// while its position lies in [n, n + 1), where `Int(x)` (truncation) gives n: two
    /// comparisons of the position, not its conversion, which is made only when it leaves.
    @inline(__always)
    private func addSamples(inRow row: Int, x start: Double, dx: Double, perPixel: Int, from src: UnsafeBufferPointer<UInt8>,
                            to pixels: UnsafeMutableBufferPointer<PremultipliedSample>) {
        let rowStart = row &* window.width
        var x = start
        var lastIndex = Int(x), last = PremultipliedSample(rgba: src, pixel: rowStart &+ lastIndex)
        // (Whole numbers below 2^24: exact as doubles.)
        var low = Double(lastIndex), high = low + 1
        for pixel in pixels.indices {
            var sum = PremultipliedSample()
            for _ in 0..<perPixel {
                if !(x >= low && x < high) {
                    let index = Int(x)
                    if index != lastIndex {
                        lastIndex = index
                        last = PremultipliedSample(rgba: src, pixel: rowStart &+ index)
                        low = Double(index)
                        high = low + 1
                    }
                }
                sum.add(last)
                x += dx
            }
            pixels[pixel].add(sum)
        }
    }

    /// A cell's samples, `samples` to each of `pixels`, each checked against the window (at
    /// its edges, or where a cell's samples span two rows).
    @inline(__always)
    private func addSamples(x start: Double, dx: Double, y startY: Double, dy: Double, from src: UnsafeBufferPointer<UInt8>,
                            to pixels: UnsafeMutableBufferPointer<PremultipliedSample>) {
        let w = window.width, h = window.height
        var x = start, y = startY
        for pixel in pixels.indices {
            var sum = PremultipliedSample()
            for _ in 0..<samples {
                if x >= 0 && y >= 0 {
                    let ix = Int(x), iy = Int(y)
                    if ix < w && iy < h { sum.add(PremultipliedSample(rgba: src, pixel: iy &* w &+ ix)) }
                }
                x += dx
                y += dy
            }
            pixels[pixel].add(sum)
        }
    }

    /// Tile row `py` from its sums: colour as the alpha-weighted mean, alpha as the mean of
    /// the samples' alphas (both rounded).
    @inline(__always)
    private func storeAverages(row py: Int, from acc: UnsafeBufferPointer<PremultipliedSample>, to dst: UnsafeMutableBufferPointer<UInt8>) {
        let channels = colorChannels + 1
        let bySamples = ExactDivision(by: samples * samples)
        // Most pixels have the alpha sum of the one before (all opaque, inside the data).
        var byAlphaSum = ExactDivision(by: 1)
        var o = py * size * channels
        for px in 0..<size {
            let sum = acc[px]
            let alphaSum = sum.alpha
            if alphaSum > 0 {
                if alphaSum != byAlphaSum.divisor { byAlphaSum = ExactDivision(by: alphaSum) }
                dst[o] = byAlphaSum.rounded(sum.red)
                if colorChannels == 3 {
                    dst[o + 1] = byAlphaSum.rounded(sum.green)
                    dst[o + 2] = byAlphaSum.rounded(sum.blue)
                }
                dst[o + colorChannels] = bySamples.rounded(alphaSum)
            }
            o += channels
        }
    }
}

/// A span of a window and its one colour (premultiplied), or nil when it holds several.
struct SpanColour {
    /// The span tested; at first none (a span of no window pixel).
    var span = WindowSpan(top: -1, bottom: -1, left: -1, right: -1)
    var colour: PremultipliedSample?
}

/// The window pixels, rows `top` to `bottom` and columns `left` to `right`, that hold every
/// sample of a cell.
struct WindowSpan: Equatable {
    let top: Int
    let bottom: Int
    let left: Int
    let right: Int
}

extension SourceWindow {
    /// The window pixels that hold all `samples` positions (x + n dx, y + n dy), each the sum of
    /// the one before and the step, when they all lie inside the window; else nil.
    ///
    /// Sums of the same step only ever move one way, so the first and the last positions bound
    /// them all; the last is estimated as first + (samples − 1) × step, within a millionth of a
    /// pixel of the sum (the rounding of at most 127 additions on coordinates below 2^24).
    @inline(__always)
    func spanHolding(_ y: Double, _ dy: Double, _ x: Double, _ dx: Double, samples: Int) -> WindowSpan? {
        let margin = 1e-6, last = Double(samples - 1)
        let yEnd = y + dy * last, xEnd = x + dx * last
        let top = min(y, yEnd) - margin, bottom = max(y, yEnd) + margin
        let left = min(x, xEnd) - margin, right = max(x, xEnd) + margin
        guard samples <= 128, width < 1 << 24, height < 1 << 24,
              top >= 0, left >= 0, bottom < Double(height), right < Double(width) else { return nil }
        return WindowSpan(top: Int(top), bottom: Int(bottom), left: Int(left), right: Int(right))
    }
}

extension SourceWindow {
    /// Whether all `samples` positions (x + n dx, y + n dy, each the sum of the one before and
    /// the step) lie off the window, on one side of it, so that the checked sampling would
    /// count none of them (as `spanHolding`, bounded by the first and the estimated last).
    @inline(__always)
    func holdsNone(_ y: Double, _ dy: Double, _ x: Double, _ dx: Double, samples: Int) -> Bool {
        let margin = 1e-6, last = Double(samples - 1)
        let yEnd = y + dy * last, xEnd = x + dx * last
        let limit = Double(1 << 24)
        guard samples <= 128, width < 1 << 24, height < 1 << 24,
              max(abs(x), abs(xEnd), abs(y), abs(yEnd)) < limit else { return false }
        return max(x, xEnd) + margin < 0 || max(y, yEnd) + margin < 0
            || min(x, xEnd) - margin >= Double(width) || min(y, yEnd) - margin >= Double(height)
    }
}

/// Rounded division by one divisor, exact, with a multiplication instead of a division:
/// ⌊n / d⌋ is the high word of n × ⌈2^64 / d⌉ for every n and d below 2^32 (Lemire, Kaser
/// and Kurz, "Faster remainder by direct computation", 2019). A tile row divides its sums
/// three or four times a pixel, and integer division is slow.
struct ExactDivision {
    let divisor: Int
    private let reciprocal: UInt64

    /// - Parameter divisor: From 1 to 2^32 − 1.
    init(by divisor: Int) {
        precondition(divisor > 0 && divisor < 1 << 32)
        self.divisor = divisor
        // ⌈2^64 / d⌉; for d = 1 it does not fit (2^64), and the division is the number itself.
        reciprocal = divisor == 1 ? 0 : UInt64.max / UInt64(divisor) + 1
    }

    /// (n + d / 2) / d, rounded down (n + d / 2 below 2^32): n / d rounded half up, as a byte.
    @inline(__always)
    func rounded(_ n: Int) -> UInt8 {
        let halfUp = UInt64(n + divisor / 2)
        let quotient = divisor == 1 ? halfUp : reciprocal.multipliedFullWidth(by: halfUp).high
        return UInt8(truncatingIfNeeded: quotient)
    }
}

/// Alpha-weighted colour sums of samples, packed two to a 64-bit word so that a sample is two
/// additions: red × alpha and green × alpha, then blue × alpha and alpha, each in 32 bits. A
/// tile pixel sums at most 8 × 8 samples of at most 255 × 255, well within 32 bits.
struct PremultipliedSample {
    private var redGreen: UInt64 = 0
    private var blueAlpha: UInt64 = 0

    init() {}

    /// Pixel `pixel` of RGBA pixels `rgba`.
    @inline(__always)
    init(rgba: UnsafeBufferPointer<UInt8>, pixel: Int) {
        let p = pixel &* 4
        let a = UInt64(rgba[p + 3])
        redGreen = UInt64(rgba[p]) &* a | (UInt64(rgba[p + 1]) &* a) << 32
        blueAlpha = UInt64(rgba[p + 2]) &* a | a << 32
    }

    /// The sums of `count` samples of this one.
    @inline(__always)
    func times(_ count: Int) -> PremultipliedSample {
        var product = PremultipliedSample()
        product.redGreen = redGreen &* UInt64(count)
        product.blueAlpha = blueAlpha &* UInt64(count)
        return product
    }

    @inline(__always)
    mutating func add(_ other: PremultipliedSample) {
        redGreen &+= other.redGreen
        blueAlpha &+= other.blueAlpha
    }

    var red: Int { Int(redGreen & 0xFFFF_FFFF) }
    var green: Int { Int(redGreen >> 32) }
    var blue: Int { Int(blueAlpha & 0xFFFF_FFFF) }
    var alpha: Int { Int(blueAlpha >> 32) }
}
