import MeridianCore
import MeridianFormats

/// A square tile's pixels: gray or RGB plus alpha, interleaved (G,A or R,G,B,A), 8 bits each.
struct TileImage: Sendable, Equatable {
    let size: Int
    /// 1 (gray) or 3 (RGB) colour channels; each pixel has these plus alpha.
    let colorChannels: Int
    var pixels: [UInt8]

    var channels: Int { colorChannels + 1 }

    init(size: Int, colorChannels: Int, pixels: [UInt8]) {
        precondition(pixels.count == size * size * (colorChannels + 1))
        self.size = size
        self.colorChannels = colorChannels
        self.pixels = pixels
    }

    /// Whether every pixel is fully transparent (such tiles are not written).
    var isEmpty: Bool { everyAlpha(is: 0) }

    /// Whether every pixel is fully opaque (such tiles are written without alpha).
    var isOpaque: Bool { everyAlpha(is: 255) }

    private func everyAlpha(is value: UInt8) -> Bool {
        pixels.withUnsafeBufferPointer { p in
            var i = colorChannels
            while i < p.count {
                if p[i] != value { return false }
                i += channels
            }
            return true
        }
    }

    /// The tile laid over a solid background: opaque, each pixel its colour weighted by its
    /// alpha plus the background's by the rest. A gray tile over a colour becomes RGB.
    func flattened(onto background: RGB) -> TileImage {
        let colours = colorChannels == 1 && background.isGray ? 1 : 3
        let under = colours == 1 ? [background.red] : [background.red, background.green, background.blue]
        var out = [UInt8](repeating: 255, count: size * size * (colours + 1))
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                var i = 0, o = 0
                while i < src.count {
                    let alpha = Int(src[i + colorChannels])
                    for c in 0..<colours {
                        // A gray pixel gives all three colours its one value.
                        let value = Int(src[i + min(c, colorChannels - 1)])
                        dst[o + c] = UInt8((value * alpha + Int(under[c]) * (255 - alpha) + 127) / 255)
                    }
                    i += channels
                    o += colours + 1
                }
            }
        }
        return TileImage(size: size, colorChannels: colours, pixels: out)
    }

    /// The same pixels with `colorChannels` colour channels: a gray tile becomes RGB with three
    /// equal values (a catalog mixing gray and colour charts tiles in colour).
    public func withColorChannels(_ colorChannels: Int) -> TileImage {
        guard colorChannels != self.colorChannels else { return self }
        precondition(self.colorChannels == 1 && colorChannels == 3, "only gray becomes RGB")
        var out = [UInt8](repeating: 0, count: size * size * 4)
        for pixel in 0..<(size * size) {
            let gray = pixels[2 * pixel], alpha = pixels[2 * pixel + 1]
            out[4 * pixel] = gray; out[4 * pixel + 1] = gray; out[4 * pixel + 2] = gray; out[4 * pixel + 3] = alpha
        }
        return TileImage(size: size, colorChannels: 3, pixels: out)
    }

    /// This tile laid over `below` (same size and channels), as one chart over another: where
    /// this one is opaque it is kept exactly, where it is transparent `below` shows exactly, and
    /// between, the two blend by this one's alpha ("over" compositing).
    public func over(_ below: TileImage) -> TileImage {
        precondition(below.size == size && below.colorChannels == colorChannels)
        var out = pixels
        below.pixels.withUnsafeBufferPointer { under in
            out.withUnsafeMutableBufferPointer { dst in
                var i = 0
                while i < dst.count {
                    let top = Int(dst[i + colorChannels])
                    if top == 0 {
                        for c in 0...colorChannels { dst[i + c] = under[i + c] }
                    } else if top < 255 {
                        let bottom = Int(under[i + colorChannels])
                        // Alpha and premultiplied colours, in 255ths: a = at + ab(1 − at).
                        let weight = bottom * (255 - top)   // in 255²
                        let alpha = top * 255 + weight       // in 255²
                        for c in 0..<colorChannels {
                            let sum = Int(dst[i + c]) * top * 255 + Int(under[i + c]) * weight
                            dst[i + c] = UInt8((sum + alpha / 2) / alpha)
                        }
                        dst[i + colorChannels] = UInt8((alpha + 127) / 255)
                    }
                    i += channels
                }
            }
        }
        return TileImage(size: size, colorChannels: colorChannels, pixels: out)
    }

    /// The parent tile made of four children (top left, top right, bottom left, bottom right;
    /// nil for a missing, transparent child), each 2×2 block averaged with alpha weights, so
    /// transparent pixels do not darken the edges.
    static func downsample(_ children: [TileImage?], size: Int, colorChannels: Int) -> TileImage {
        let channels = colorChannels + 1, half = size / 2
        return fromQuadrants(children, size: size, colorChannels: colorChannels) { src, dst, ox, oy in
            let rowStride = size * channels
            // Most blocks have the alpha sum of the one before (all opaque, inside the data).
            var byAlphaSum = ExactDivision(by: 1)
            let byFour = ExactDivision(by: 4)
            let pixelsIn = UnsafeRawBufferPointer(src), pixelsOut = UnsafeMutableRawBufferPointer(dst)
            for y in 0..<half {
                let r0 = 2 * y * rowStride, r1 = r0 + rowStride
                var o = ((oy + y) * size + ox) * channels
                for x in 0..<half {
                    let p00 = r0 + 2 * x * channels, p01 = p00 + channels
                    let p10 = r1 + 2 * x * channels, p11 = p10 + channels
                    // Four equal RGBA pixels (a chart's flat areas) average to themselves.
                    if channels == 4 {
                        let first = pixelsIn.loadUnaligned(fromByteOffset: p00, as: UInt32.self)
                        if first >> 24 != 0 && pixelsIn.loadUnaligned(fromByteOffset: p01, as: UInt32.self) == first
                            && pixelsIn.loadUnaligned(fromByteOffset: p10, as: UInt32.self) == first
                            && pixelsIn.loadUnaligned(fromByteOffset: p11, as: UInt32.self) == first {
                            pixelsOut.storeBytes(of: first, toByteOffset: o, as: UInt32.self)
                            o += channels
                            continue
                        }
                    }
                    let a0 = Int(src[p00 + colorChannels]), a1 = Int(src[p01 + colorChannels])
                    let a2 = Int(src[p10 + colorChannels]), a3 = Int(src[p11 + colorChannels])
                    let alphaSum = a0 + a1 + a2 + a3
                    if alphaSum > 0 {
                        if alphaSum != byAlphaSum.divisor { byAlphaSum = ExactDivision(by: alphaSum) }
                        for c in 0..<colorChannels {
                            let sum = Int(src[p00 + c]) * a0 + Int(src[p01 + c]) * a1 + Int(src[p10 + c]) * a2 + Int(src[p11 + c]) * a3
                            dst[o + c] = byAlphaSum.rounded(sum)
                        }
                        dst[o + colorChannels] = byFour.rounded(alphaSum)
                    }
                    o += channels
                }
            }
        }
    }

    /// The parent tile of `size` pixels made of four children (top left, top right, bottom
    /// left, bottom right; nil for a missing, transparent child, which leaves its quarter
    /// transparent): `shrink` writes each child's pixels, halved, into the parent's quarter
    /// whose top-left pixel is (`ox`, `oy`). One walk for every way of averaging the blocks.
    @inline(__always)
    static func fromQuadrants(_ children: [TileImage?], size: Int, colorChannels: Int,
                              _ shrink: (_ child: UnsafeBufferPointer<UInt8>, _ parent: UnsafeMutableBufferPointer<UInt8>, _ ox: Int, _ oy: Int) -> Void) -> TileImage {
        var out = [UInt8](repeating: 0, count: size * size * (colorChannels + 1))
        let half = size / 2
        for (quadrant, child) in children.enumerated() {
            guard let child else { continue }
            child.pixels.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in shrink(src, dst, (quadrant % 2) * half, (quadrant / 2) * half) }
            }
        }
        return TileImage(size: size, colorChannels: colorChannels, pixels: out)
    }
}
