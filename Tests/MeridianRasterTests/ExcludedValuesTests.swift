import Foundation
import MeridianCore
import MeridianGeometry
import Testing
@testable import MeridianRaster
import MeridianTestSupport

/// `ExcludedValues`: GDAL's `--excluded-values` rule, in the 2 × 2 averaging of lower zooms and
/// in the `average` kernel of base tiles.
@Suite struct ExcludedValuesTests {
    @Test func parsesGDALsSyntaxAndRefusesTheRest() {
        let white = RGB(255, 255, 255)
        #expect(ExcludedValues.colours(parsing: "255,255,255") == [white])
        #expect(ExcludedValues.colours(parsing: "(255,255,255),(1,2,3)") == [white, RGB(1, 2, 3)])
        #expect(ExcludedValues.colours(parsing: "255,255,255; 1,2,3") == [white, RGB(1, 2, 3)])
        #expect(ExcludedValues.colours(parsing: "7") == [RGB(7, 7, 7)])
        for bad in ["", "256,0,0", "1,2", "1,2,3,4", "(1,2,3", "-1,0,0", "a,b,c", "1,2,3;", "1.5,2,3"] {
            #expect(ExcludedValues.colours(parsing: bad) == nil, "\(bad)")
        }
        #expect(ExcludedValues(colours: [white], thresholdPercent: 100.5) == nil)
        #expect(ExcludedValues(colours: [white], thresholdPercent: -1) == nil)
        #expect(ExcludedValues(colours: []) == nil)
        #expect(ExcludedValues(colours: [white])?.thresholdPercent == 50)
    }

    /// GDAL's own cases (autotest's test_warp_average_excluded_values): four pixels, one of
    /// them excluded (25%).
    @Test func followsGDALsCases() throws {
        let child = TileImage(size: 2, colorChannels: 3, pixels: [10, 11, 12, 255, 20, 21, 22, 255, 30, 31, 32, 255, 40, 41, 42, 255])
        func parent(_ colours: [RGB], _ threshold: Double) throws -> [UInt8] {
            let excluded = try #require(ExcludedValues(colours: colours, thresholdPercent: threshold))
            return Array(TileImage.downsample([child, nil, nil, nil], size: 2, colorChannels: 3, excluding: excluded).pixels[0..<4])
        }
        let mean: [UInt8] = [70 / 3, 73 / 3, 76 / 3, 255]   // GDAL's (10 + 20 + 40) // 3, …
        #expect(try parent([RGB(30, 31, 32)], 50) == mean)
        #expect(try parent([RGB(30, 31, 32)], 0) == [30, 31, 32, 255])
        #expect(try parent([RGB(30, 31, 32)], 24) == [30, 31, 32, 255])
        #expect(try parent([RGB(30, 31, 32)], 26) == mean)
        #expect(try parent([RGB(30, 31, 0)], 50) == [25, 26, 27, 255])
        // The excluded colour most pixels have; a transparent pixel thins the alpha only.
        let mixed = TileImage(size: 2, colorChannels: 3, pixels: [9, 9, 9, 255, 9, 9, 9, 255, 1, 1, 1, 255, 0, 0, 0, 0])
        let excluded = try #require(ExcludedValues(colours: [RGB(1, 1, 1), RGB(9, 9, 9)], thresholdPercent: 50))
        #expect(Array(TileImage.downsample([mixed, nil, nil, nil], size: 2, colorChannels: 3, excluding: excluded).pixels[0..<4]) == [9, 9, 9, 191])
    }

    /// Excluding a colour the source does not have, the excluding kernel gives the `average`
    /// kernel's very pixels: it takes the same samples, at the same positions, partly outside
    /// the window, and rounds as it does.
    @Test(arguments: [1, 2, 4])
    func excludingNothingPresentIsTheAverageKernel(samples: Int) throws {
        let size = 32, step = 16, columns = size / step + 1
        // Colours whose red is at least 10 (never the excluded 1,2,3), some pixels transparent or half.
        let window = SourceWindow(x: 2, y: 3, width: 90, height: 80, rgba: (0..<(90 * 80 * 4)).map { i in
            let pixel = i / 4
            return i % 4 == 3 ? [255, 0, 128, 255, 255][pixel % 5] : UInt8(10 + (pixel * 7 + i % 4 * 29) % 240)
        })
        var xs: [Double] = [], ys: [Double] = []
        for j in 0..<columns {
            for i in 0..<columns {
                let u = Double(i * step), v = Double(j * step)
                xs.append(-3.2 + 1.3 * u + 0.1 * v)
                ys.append(-1.7 + 0.05 * u + 1.2 * v)
            }
        }
        let grid = PositionGrid(step: step, columns: columns, rows: columns, xs: xs, ys: ys)
        let excluded = try #require(ExcludedValues(colours: [RGB(1, 2, 3)]))
        for colorChannels in [1, 3] {
            let averager = SampleAverager(grid: grid, window: window, size: size, samples: samples, colorChannels: colorChannels)
            let excluding = ExcludingSampleAverager(averager: averager, excluded: excluded)
            let ours = excluding.pixels(), theirs = averager.pixels()
            let differing = ours.indices.filter { ours[$0] != theirs[$0] }
            #expect(differing.isEmpty, "\(colorChannels) colour channels: \(differing.count) bytes differ, first \(differing.prefix(4).map { "\($0): \(ours[$0]) not \(theirs[$0])" })")
        }
    }

    /// Tiles white-margin.tif (a navy square in a white margin 33 source pixels wide, tile
    /// 2/1/1 at one source pixel a pixel) at `zooms`, and returns its tile 1/0/0.
    func marginTile(zooms: ClosedRange<Int>, excluded: ExcludedValues?) throws -> DecodedImage {
        try withTemporaryFolderPath { folder in
            let source = try RasterSource(path: fixture("raster/white-margin.tif"), options: RasterSourceOptions())
            let tiler = try Tiler(source: source, options: TilingOptions(zooms: zooms, jobs: 1, excludedValues: excluded))
            let sink = try FolderTileSink(path: folder + "/out", scheme: .xyz, format: .png, resume: false, identity: tiler.identity())
            _ = try tiler.run(into: sink)
            return try DecodedImage(path: folder + "/out/1/0/0.png")
        }
    }

    /// At zoom 1 the margin's inner edge falls inside a pixel (half white, half navy): without
    /// exclusion it is washed out; excluding white at 50% it is white (half is enough), at 60%
    /// navy (the others' mean). The margin stays white and opaque (an excluded pixel is valid).
    /// Built from zoom 2 (the 2 × 2 averaging) or warped at zoom 1 (the kernel's 2 × 2 samples),
    /// the tile is the same.
    @Test func theThresholdDecidesTheMarginsEdge() throws {
        let white = RGB(255, 255, 255)
        let edge = (x: 144, y: 200), margin = (x: 140, y: 200), navy = (x: 150, y: 200)
        let plain = try marginTile(zooms: 0...2, excluded: nil)
        #expect(plain.pixel(x: edge.x, y: edge.y) == (143, 173, 208, 255))
        for zooms in [0...2, 0...1] {
            let half = try marginTile(zooms: zooms, excluded: ExcludedValues(colours: [white], thresholdPercent: 50))
            #expect(half.pixel(x: edge.x, y: edge.y) == (255, 255, 255, 255), "\(zooms)")
            #expect(half.pixel(x: margin.x, y: margin.y) == (255, 255, 255, 255), "\(zooms)")
            #expect(half.pixel(x: navy.x, y: navy.y) == (30, 90, 160, 255), "\(zooms)")
            let most = try marginTile(zooms: zooms, excluded: ExcludedValues(colours: [white], thresholdPercent: 60))
            #expect(most.pixel(x: edge.x, y: edge.y) == (30, 90, 160, 255), "\(zooms)")
            #expect(most.pixel(x: margin.x, y: margin.y) == (255, 255, 255, 255), "\(zooms)")
        }
        let fromBelow = try marginTile(zooms: 0...2, excluded: ExcludedValues(colours: [white], thresholdPercent: 60))
        let warped = try marginTile(zooms: 0...1, excluded: ExcludedValues(colours: [white], thresholdPercent: 60))
        #expect(fromBelow.rgba == warped.rgba)
    }

    /// A resumed run continues only a run that excluded the same colours at the same share;
    /// a run without it keeps the identity it always had.
    @Test func theRunsIdentityRecordsIt() throws {
        let source = try RasterSource(path: fixture("raster/white-margin.tif"), options: RasterSourceOptions())
        func identity(_ excluded: ExcludedValues?) throws -> TilingRunIdentity {
            try Tiler(source: source, options: TilingOptions(zooms: 0...2, jobs: 1, excludedValues: excluded)).identity()
        }
        let none = try identity(nil)
        #expect(!none.fields.contains { $0.name == "excluded-values" })
        let half = try identity(ExcludedValues(colours: [RGB(255, 255, 255)]))
        #expect(half != none)
        #expect(half != (try identity(ExcludedValues(colours: [RGB(255, 255, 255)], thresholdPercent: 60))))
    }
}
