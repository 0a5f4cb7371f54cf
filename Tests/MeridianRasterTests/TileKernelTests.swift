import Foundation
import Testing
@testable import MeridianRaster

/// A small deterministic generator, so that failures reproduce.
private struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D1_049B_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// The pieces of base tiles made fast (PNGEncoder.swift) against what they must equal: PNG
/// files decoded by GDAL (libpng).
@Suite struct TileKernelTests {
    /// A tile of `colorChannels` + alpha: flat areas with a few colours (as a chart's), noise
    /// (as a photograph's), and transparent or half-transparent pixels unless `opaque`.
    static func tileImage(size: Int, colorChannels: Int, opaque: Bool, seed: UInt64) -> TileImage {
        var random = SplitMix(state: seed)
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
        var random = SplitMix(state: 7)
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
}
