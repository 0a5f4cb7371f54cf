import Foundation
import MeridianTestSupport
import Testing
@testable import MeridianRaster

/// The pieces of base tiles made fast (PNGEncoder.swift, SampledWarp.swift) against what they
/// must equal: PNG files decoded by GDAL (libpng), integer division, and the sampler's plain
/// per-sample definition.
@Suite struct TileKernelTests {
    /// A tile of `colorChannels` + alpha: flat areas with a few colours (as a chart's), noise
    /// (as a photograph's), and transparent or half-transparent pixels unless `opaque`.
    static func tileImage(size: Int, colorChannels: Int, opaque: Bool, seed: UInt64) -> TileImage {
        var random = SplitMix64(seed: seed)
        let channels = colorChannels + 1
        var pixels = [UInt8](repeating: 0, count: size * size * channels)
        for y in 0..<size {
            for x in 0..<size {
                let o = (y * size + x) * channels
                let flat = x < size / 2
                for c in 0..<colorChannels { pixels[o + c] = flat ? UInt8((x / 8 + y / 8 + c) % 3 * 100) : UInt8(random.below(256)) }
                pixels[o + colorChannels] = opaque ? 255 : [0, 255, 255, UInt8(random.below(256))][random.below(4)]
            }
        }
        return TileImage(size: size, colorChannels: colorChannels, pixels: pixels)
    }

    /// A stored tile read back (to resume a run) is read as the run's format only: one holding
    /// a VRT's text that names memory at an address (which crashed GDAL) or `/etc/passwd` is
    /// an error, not an image of what it names.
    @Test func storedTileIsReadAsItsFormatOnly() throws {
        let codec = TileCodec(format: .png, size: 25)
        for source in ["MEM:::DATAPOINTER=0x10,PIXELS=25,LINES=25,BANDS=1,DATATYPE=Byte", "/etc/passwd"] {
            let vrt = try String(contentsOfFile: fixture("hostile-vrt/absolute.vrt"), encoding: .utf8)
                .replacingOccurrences(of: ">/etc/passwd<", with: ">\(source)<")
            #expect(throws: (any Error).self, "\(source)") { try codec.decode(Array(vrt.utf8), colorChannels: 1) }
        }
    }

    @Test(arguments: [PNGEncoder.Filtering.none, .adaptive])
    func pngTilesDecodeToTheirPixels(filtering: PNGEncoder.Filtering) throws {
        let size = 64
        let codec = TileCodec(format: .png, size: size, pngFiltering: filtering)
        for colorChannels in [1, 3] {
            for opaque in [false, true] {
                let image = Self.tileImage(size: size, colorChannels: colorChannels, opaque: opaque, seed: UInt64(colorChannels))
                let decoded = try codec.decode(try codec.encode(image), colorChannels: colorChannels)
                // Opaque tiles are written without alpha and read back opaque: the same pixels.
                #expect(decoded == image, "\(colorChannels) colour channels, opaque: \(opaque)")
            }
        }
    }

    /// The adaptive filters on rows whose bytes wrap around (differences past 255 and below 0)
    /// and on a first row (no row above), through every channel count PNG has.
    @Test func pngFiltersWrapAroundExactly() throws {
        let encoder = try PNGEncoder(filtering: .adaptive)
        var random = SplitMix64(seed: 7)
        for channels in 1...4 {
            let width = 13, height = 5
            let pixels = (0..<(width * height * channels)).map { _ in UInt8([0, 1, 254, 255, random.below(256)][random.below(5)]) }
            let png = try pixels.withUnsafeBufferPointer { try encoder.encode($0, width: width, height: height, channels: channels, stride: channels) }
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-png-\(channels).png").path
            #expect(FileManager.default.createFile(atPath: path, contents: Data(png)))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let decoded = try DecodedImage(path: path)
            #expect(decoded.width == width && decoded.height == height && decoded.bandCount == channels)
            for i in 0..<(width * height) {
                let rgba = Array(decoded.rgba[(4 * i)..<(4 * i + 4)])
                let source = Array(pixels[(channels * i)..<(channels * i + channels)])
                let expected: [UInt8] = switch channels {
                case 1: [source[0], source[0], source[0], 255]
                case 2: [source[0], source[0], source[0], source[1]]
                case 3: source + [255]
                default: source
                }
                #expect(rgba == expected, "pixel \(i) of \(channels) channels")
            }
        }
    }

    /// The adaptive filters as PNG defines them, written out plainly: per row (bottom up), every
    /// filter's output, the one whose bytes as signed values have the least sum of magnitudes
    /// kept (ties to the lower type). The encoder's one-pass choice must give the same bytes.
    static func plainlyFiltered(_ pixels: [UInt8], width: Int, height: Int, bpp: Int) -> [UInt8] {
        let rowBytes = width * bpp
        var out = [UInt8](repeating: 0, count: (rowBytes + 1) * height)
        for y in 0..<height {
            var best: [UInt8] = [], bestType = 0, bestSum = Int.max
            for type in 0..<5 {
                var row = [UInt8](repeating: 0, count: rowBytes), sum = 0
                for i in 0..<rowBytes {
                    let x = Int(pixels[y * rowBytes + i])
                    let a = i >= bpp ? Int(pixels[y * rowBytes + i - bpp]) : 0
                    let b = y > 0 ? Int(pixels[(y - 1) * rowBytes + i]) : 0
                    let c = y > 0 && i >= bpp ? Int(pixels[(y - 1) * rowBytes + i - bpp]) : 0
                    let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    let predicted = [0, a, b, (a + b) / 2, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][type]
                    row[i] = UInt8(truncatingIfNeeded: x - predicted)
                    sum += abs(Int(Int8(bitPattern: row[i])))
                }
                if sum < bestSum { best = row; bestType = type; bestSum = sum }
            }
            out[y * (rowBytes + 1)] = UInt8(bestType)
            out.replaceSubrange((y * (rowBytes + 1) + 1)...(y * (rowBytes + 1) + rowBytes), with: best)
        }
        return out
    }

    /// The encoder's adaptive filtering, byte for byte as the plain definition, on tiles of
    /// flat areas and noise and on rows of extreme bytes, for every channel count; rows shorter
    /// than one block of 16 bytes, with a partial block at their end, and longer than 511 blocks
    /// (the 16-bit lanes' sums carried over).
    @Test func adaptiveFilteringIsThePlainDefinition() throws {
        let encoder = try PNGEncoder(filtering: .adaptive)
        var random = SplitMix64(seed: 11)
        for channels in 1...4 {
            for (width, height) in [(1, 1), (2, 3), (5, 2), (37, 9), (64, 64), (2_100, 2)] {
                let tile = Self.tileImage(size: 64, colorChannels: channels >= 3 ? 3 : 1, opaque: false, seed: UInt64(channels)).pixels
                let pixels = (0..<(width * height * channels)).map { i in
                    random.below(3) == 0 ? UInt8([0, 1, 127, 128, 254, 255][random.below(6)]) : tile[i % tile.count]
                }
                _ = try pixels.withUnsafeBufferPointer { try encoder.encode($0, width: width, height: height, channels: channels, stride: channels) }
                let expected = Self.plainlyFiltered(pixels, width: width, height: height, bpp: channels)
                #expect(Array(encoder.filtered.prefix(expected.count)) == expected, "\(channels) channels, \(width) × \(height)")
            }
        }
    }

    @Test func exactDivisionIsIntegerDivision() {
        // Every alpha sum a tile pixel can have (up to 8 × 8 samples of 255), with numerators
        // at, around and between multiples of it, up to the largest sum of a colour channel.
        var random = SplitMix64(seed: 3)
        let largest = 64 * 255 * 255
        var wrong: [(n: Int, divisor: Int)] = []
        for divisor in 1...(64 * 255) {
            let division = ExactDivision(by: divisor)
            var numerators = [0, 1, divisor - 1, divisor, divisor + 1, largest - divisor / 2]
            for _ in 0..<8 {
                let multiple = random.below(largest / divisor + 1) * divisor
                numerators += [multiple, max(0, multiple - 1), multiple + 1, random.below(largest)]
            }
            for n in numerators where Int(division.rounded(n)) != ((n + divisor / 2) / divisor) & 0xFF { wrong.append((n, divisor)) }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }

    /// `SampleAverager` computed plainly: every sample's position the running sum of the cell's
    /// step, looked up in the window (transparent outside), summed with alpha weights.
    static func plainAverages(grid: PositionGrid, window: SourceWindow, size: Int, samples k: Int, colorChannels: Int) -> [UInt8] {
        let channels = colorChannels + 1
        var out = [UInt8](repeating: 0, count: size * size * channels)
        for py in 0..<size {
            var sums = [Int](repeating: 0, count: size * 4)
            for sy in 0..<k {
                let v = Double(py) + (Double(sy) + 0.5) / Double(k)
                let gj = min(grid.rows - 2, Int(v) / grid.step)
                let fv = (v - Double(gj * grid.step)) / Double(grid.step)
                let rowX = (0..<grid.columns).map { grid.xs[gj * grid.columns + $0] + (grid.xs[(gj + 1) * grid.columns + $0] - grid.xs[gj * grid.columns + $0]) * fv }
                let rowY = (0..<grid.columns).map { grid.ys[gj * grid.columns + $0] + (grid.ys[(gj + 1) * grid.columns + $0] - grid.ys[gj * grid.columns + $0]) * fv }
                let perCell = Double(grid.step * k)
                for cell in 0..<(grid.columns - 1) {
                    let dx = (rowX[cell + 1] - rowX[cell]) / perCell, dy = (rowY[cell + 1] - rowY[cell]) / perCell
                    var x = rowX[cell] + dx * 0.5 - Double(window.x), y = rowY[cell] + dy * 0.5 - Double(window.y)
                    for px in (cell * grid.step)..<((cell + 1) * grid.step) {
                        for _ in 0..<k {
                            if x >= 0 && y >= 0 && Int(x) < window.width && Int(y) < window.height {
                                let p = (Int(y) * window.width + Int(x)) * 4
                                let alpha = Int(window.rgba[p + 3])
                                for c in 0..<3 { sums[px * 4 + c] += Int(window.rgba[p + c]) * alpha }
                                sums[px * 4 + 3] += alpha
                            }
                            x += dx
                            y += dy
                        }
                    }
                }
            }
            for px in 0..<size where sums[px * 4 + 3] > 0 {
                let alphaSum = sums[px * 4 + 3], o = (py * size + px) * channels
                for c in 0..<colorChannels { out[o + c] = UInt8((sums[px * 4 + c] + alphaSum / 2) / alphaSum) }
                out[o + colorChannels] = UInt8((alphaSum + k * k / 2) / (k * k))
            }
        }
        return out
    }

    /// Tiles over a window at several scales and turns, partly off its edges, with grids of
    /// 16 and 4 pixels, 1 to 8 samples a pixel: the sampler's fast path (cells inside one
    /// window row), its segments (magnified tiles, scales below 1: a few window pixels under
    /// a cell) and its checked path must all give the plain definition's pixels. An origin of
    /// -1/32 at scale 1/4, without curvature, puts samples exactly on window pixels' edges
    /// (there the segments are left to the sample-by-sample loop).
    @Test(arguments: [(1, 16, 0.3, -4.3, 1e-4), (4, 16, 0.6, -4.3, 1e-4), (4, 4, 1.4, -4.3, 1e-4), (5, 16, 1.1, -4.3, 1e-4),
                      (8, 16, 2.7, -4.3, 1e-4), (4, 16, 0.125, -4.3, 1e-4), (4, 16, 0.25, -1.0 / 32, 0), (8, 16, 0.25, -4.3, 1e-4),
                      (1, 16, 0.1, -4.3, 1e-4), (4, 4, 0.2, -4.3, 1e-4), (5, 16, 0.7, -4.3, 1e-4)])
    func samplerMatchesItsPlainDefinition(samples: Int, step: Int, scale: Double, origin: Double, curvature: Double) {
        var random = SplitMix64(seed: UInt64(samples * 100 + step))
        let size = 64
        // Noise, and flat areas as a chart's (runs of one colour, some transparent) with noise
        // between them, so that cells fall on one colour, on several, and across the edges.
        let noise = SourceWindow(x: 3, y: 5, width: 150, height: 140, rgba: (0..<(150 * 140 * 4)).map { i in
            i % 4 == 3 ? [0, 255, 255, 255, UInt8(random.below(256))][random.below(5)] : UInt8(random.below(256))
        })
        let flat = SourceWindow(x: 3, y: 5, width: 150, height: 140, rgba: (0..<(150 * 140 * 4)).map { i in
            let column = i / 4 % 150, row = i / 4 / 150, area = column / 23 + row / 17 * 7
            if area % 5 == 4 { return UInt8(random.below(256)) }
            return i % 4 == 3 ? (area % 3 == 0 ? 0 : 255) : UInt8(truncatingIfNeeded: area * 37 + i % 4 * 11)
        })
        let columns = size / step + 1
        for window in [noise, flat] {
            for turn in [0.0, 0.01, -0.2] {
                // A slightly curved mapping from tile pixels to source pixels, starting left of and
                // above the window so that some cells fall partly outside it.
                var xs: [Double] = [], ys: [Double] = []
                for j in 0..<columns {
                    for i in 0..<columns {
                        let u = Double(i * step), v = Double(j * step)
                        xs.append(origin + scale * (u * cos(turn) - v * sin(turn)) + curvature * u * v)
                        ys.append(-2.1 + scale * (u * sin(turn) + v * cos(turn)) + 2 * curvature * u * u)
                    }
                }
                let grid = PositionGrid(step: step, columns: columns, rows: columns, xs: xs, ys: ys)
                for colorChannels in [1, 3] {
                    let averager = SampleAverager(grid: grid, window: window, size: size, samples: samples, colorChannels: colorChannels)
                    let expected = Self.plainAverages(grid: grid, window: window, size: size, samples: samples, colorChannels: colorChannels)
                    let differing = zip(averager.pixels(), expected).filter { $0 != $1 }.count
                    #expect(differing == 0, "turn \(turn), \(colorChannels) colour channels: \(differing) bytes differ")
                }
            }
        }
    }
}
