import MeridianCore

extension ExcludedValues {
    /// What a run's identity records: the colours and the share.
    var identityText: String {
        colours.map { "\($0.red),\($0.green),\($0.blue)" }.joined(separator: ";") + " at \(thresholdPercent)%"
    }

    /// Which excluded colour a pixel is, if any (gray pixels are their level in all three).
    @inline(__always)
    func index(red: UInt8, green: UInt8, blue: UInt8) -> Int? {
        colours.firstIndex { $0.red == red && $0.green == green && $0.blue == blue }
    }
}

/// One coarse pixel's mean under `ExcludedValues`' rule, its samples added one at a time: kept
/// samples' colours weighted by alpha, and each excluded colour's alpha.
struct ExcludingMean {
    let excluded: ExcludedValues
    private var samples = 0
    private var alphaSum = 0
    private var keptAlpha = 0
    private var kept: (Int, Int, Int) = (0, 0, 0)
    private var excludedAlpha: [Int]

    init(_ excluded: ExcludedValues) {
        self.excluded = excluded
        excludedAlpha = [Int](repeating: 0, count: excluded.colours.count)
    }

    /// Starts a new pixel.
    @inline(__always)
    mutating func reset() {
        samples = 0; alphaSum = 0; keptAlpha = 0; kept = (0, 0, 0)
        for i in excludedAlpha.indices { excludedAlpha[i] = 0 }
    }

    /// A sample outside the data (alpha 0): it thins the pixel's alpha only.
    @inline(__always)
    mutating func addTransparent() { samples += 1 }

    /// A sample: gray (`colorChannels` 1, `pixel[offset]`) or RGB, then alpha at `offset + alphaAt`.
    @inline(__always)
    mutating func add(_ pixel: UnsafeBufferPointer<UInt8>, at offset: Int, colorChannels: Int, alphaAt: Int) {
        samples += 1
        let alpha = Int(pixel[offset + alphaAt])
        guard alpha > 0 else { return }
        alphaSum += alpha
        let red = pixel[offset], green = colorChannels == 3 ? pixel[offset + 1] : red, blue = colorChannels == 3 ? pixel[offset + 2] : red
        if let i = excluded.index(red: red, green: green, blue: blue) {
            excludedAlpha[i] += alpha
        } else {
            keptAlpha += alpha
            kept.0 += Int(red) * alpha; kept.1 += Int(green) * alpha; kept.2 += Int(blue) * alpha
        }
    }

    /// Writes the pixel (colour channels, then alpha) at `o`: transparent when no sample has
    /// alpha; the excluded colour most samples have when they are at least the threshold's share
    /// of the samples' alpha; else the alpha-weighted mean of the other samples. Its alpha is
    /// the mean of every sample's, excluded or not.
    @inline(__always)
    func store(into dst: UnsafeMutableBufferPointer<UInt8>, at o: Int, colorChannels: Int) {
        guard alphaSum > 0 else {
            for c in 0...colorChannels { dst[o + c] = 0 }
            return
        }
        let excludedSum = alphaSum - keptAlpha
        let colour: (UInt8, UInt8, UInt8)
        if excludedSum > 0 && Double(excludedSum) * 100 >= excluded.thresholdPercent * Double(alphaSum) {
            var best = 0
            for i in excludedAlpha.indices where excludedAlpha[i] > excludedAlpha[best] { best = i }
            let chosen = excluded.colours[best]
            colour = (chosen.red, chosen.green, chosen.blue)
        } else {
            func mean(_ sum: Int) -> UInt8 { UInt8((sum + keptAlpha / 2) / keptAlpha) }
            colour = (mean(kept.0), mean(kept.1), mean(kept.2))
        }
        dst[o] = colour.0
        if colorChannels == 3 { dst[o + 1] = colour.1; dst[o + 2] = colour.2 }
        dst[o + colorChannels] = UInt8((alphaSum + samples / 2) / samples)
    }
}

extension TileImage {
    /// ``downsample(_:size:colorChannels:)`` under `excluded`'s rule: each 2 × 2 block's mean
    /// leaves out the excluded colours, or is one of them where they are the threshold's share.
    static func downsample(_ children: [TileImage?], size: Int, colorChannels: Int, excluding excluded: ExcludedValues) -> TileImage {
        let channels = colorChannels + 1, half = size / 2
        var mean = ExcludingMean(excluded)
        return fromQuadrants(children, size: size, colorChannels: colorChannels) { src, dst, ox, oy in
            let rowStride = size * channels
            for y in 0..<half {
                let r0 = 2 * y * rowStride, r1 = r0 + rowStride
                for x in 0..<half {
                    mean.reset()
                    let p00 = r0 + 2 * x * channels, p10 = r1 + 2 * x * channels
                    mean.add(src, at: p00, colorChannels: colorChannels, alphaAt: colorChannels)
                    mean.add(src, at: p00 + channels, colorChannels: colorChannels, alphaAt: colorChannels)
                    mean.add(src, at: p10, colorChannels: colorChannels, alphaAt: colorChannels)
                    mean.add(src, at: p10 + channels, colorChannels: colorChannels, alphaAt: colorChannels)
                    mean.store(into: dst, at: ((oy + y) * size + ox + x) * channels, colorChannels: colorChannels)
                }
            }
        }
    }
}

/// The `average` base-tile kernel under `ExcludedValues`' rule: each tile pixel's k × k point
/// samples at the positions `SampleAverager` takes, averaged by `ExcludingMean`. (A plain loop:
/// `SampleAverager`'s packed sums cannot leave samples out; a run excluding colours pays for it.)
struct ExcludingSampleAverager {
    let averager: SampleAverager
    let excluded: ExcludedValues

    /// The tile's pixels: colour channels and alpha, interleaved.
    func pixels() -> [UInt8] {
        let size = averager.size, k = averager.samples, grid = averager.grid, window = averager.window
        let colorChannels = averager.colorChannels, channels = colorChannels + 1
        var out = [UInt8](repeating: 0, count: size * size * channels)
        var rowX = [Double](repeating: 0, count: grid.columns), rowY = rowX
        // Per tile pixel of the row being made: its samples so far.
        var means = [ExcludingMean](repeating: ExcludingMean(excluded), count: size)
        let originX = Double(window.x), originY = Double(window.y)
        let perCell = Double(grid.step * k)
        window.rgba.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for py in 0..<size {
                    for i in means.indices { means[i].reset() }
                    for sy in 0..<k {
                        averager.interpolateRow(at: Double(py) + (Double(sy) + 0.5) / Double(k), x: &rowX, y: &rowY)
                        for cell in 0..<(grid.columns - 1) {
                            let dx = (rowX[cell + 1] - rowX[cell]) / perCell, dy = (rowY[cell + 1] - rowY[cell]) / perCell
                            // Each position the one before plus (dx, dy), as `SampleAverager` adds them,
                            // so that a sample falls on the very source pixel it takes.
                            var x = rowX[cell] + dx * 0.5 - originX, y = rowY[cell] + dy * 0.5 - originY
                            for j in 0..<(grid.step * k) {
                                let px = cell * grid.step + j / k
                                if x >= 0, y >= 0, Int(x) < window.width, Int(y) < window.height {
                                    means[px].add(src, at: (Int(y) * window.width + Int(x)) * 4, colorChannels: colorChannels, alphaAt: 3)
                                } else {
                                    means[px].addTransparent()
                                }
                                x += dx
                                y += dy
                            }
                        }
                    }
                    for px in 0..<size { means[px].store(into: dst, at: (py * size + px) * channels, colorChannels: colorChannels) }
                }
            }
        }
        return out
    }
}
