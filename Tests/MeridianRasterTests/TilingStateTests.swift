import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
import Testing
@testable import MeridianRaster
import MeridianTestSupport
@testable import MeridianTiles

/// What a run keeps of an earlier one (its state, a shard's frontier), and --overzoom's quilt,
/// checked rather than trusted.
@Suite struct TilingStateTests {
    /// Every quilt rule and overzoom limit, on a chart far from two overlapping ones: a run
    /// handles every tile its plan counts (written, or skipped as transparent), never more per
    /// zoom level than the plan says; and a chart shown only above the block level still gives
    /// every tile it gives alone (--overzoom dropped it: nothing climbed to its tiles).
    @Test func planAndRunAgreeForEveryQuiltAndOverzoom() throws {
        try withTemporaryFolderPath { folder in
            let rgb = raster("RGB.byte.half.tif")
            let (_, alone) = try tile(rgb, folder + "/alone")
            let aloneTiles = tileSet(folder + "/alone")
            #expect(alone.tileCount == aloneTiles.count && !aloneTiles.isEmpty)
            let sources = try [rgb, raster("19347_2.KAP"), raster("19347_2-east.KAP")].map { try RasterSource(path: $0) }
            for quilt in QuiltRule.allCases {
                for overzoom in [nil, 0, 2] as [Int?] {
                    // To zoom 11 the blocks are at 8, above which RGB.byte.half (native zoom 7)
                    // shows alone with --overzoom 0; without a limit it shows at every level,
                    // and zoom 9 keeps the run short.
                    let tiler = try Tiler(catalog: TileCatalog(sources: sources, quilt: quilt, overzoom: overzoom),
                                          options: TilingOptions(zooms: overzoom == nil ? 6...9 : 6...11, jobs: 2))
                    let plan = try tiler.plan(samples: 1)
                    let output = folder + "/\(quilt.rawValue)-\(overzoom.map(String.init) ?? "all")"
                    let summary = try tiler.run(into: FolderTileSink(path: output, scheme: .xyz, format: .png, resume: false, identity: tiler.identity()))
                    let label = "--quilt \(quilt.rawValue) --overzoom \(overzoom.map(String.init) ?? "none")"
                    #expect(summary.handled == plan.tiles, "\(label)")
                    for (zoom, written) in summary.written {
                        #expect(written <= plan.tilesPerZoom["\(zoom)"] ?? 0, "\(label), zoom \(zoom)")
                    }
                    // RGB.byte.half is alone where it is: its tiles are the same files as alone.
                    expectSamePNGTiles(aloneTiles.filter { Int($0.prefix { $0 != "/" })! >= 6 }, in: output, as: folder + "/alone", label)
                }
            }
        }
    }

    /// A state file's block lines are checked: a line that is not a block address and a count,
    /// a count no block holds (which overflowed the kept count), a block not of this run: each
    /// is bad input naming the state file and the line.
    @Test func hostileBlockLinesAreBadInputNamingTheLine() throws {
        try withTemporaryFolderPath { folder in
            let tiler = try Tiler(source: RasterSource(path: raster("RGB.byte.half.tif")), options: TilingOptions(jobs: 1))
            let identity = try tiler.identity(output: [("scheme", "xyz")])
            let block = tiler.blocksInOrder[0]
            let address = "\(block.zoom)/\(block.x)/\(block.y)"
            let cases: [(lines: [String], line: Int)] = [
                (["block \(address) 9223372036854775807", "block \(address) 9223372036854775807"], 2),
                (["block \(address) -1"], 1),
                (["block \(address) 1e3"], 1),
                (["block 40/1/1 1"], 1),
                (["block \(address)"], 1),
                (["block 0/0/0 1"], 1),   // a tile, but not one of this run's blocks
                (["block \(address) \(tiler.tileCount(under: block) + 1)"], 1),
            ]
            for (n, hostile) in cases.enumerated() {
                let output = folder + "/out\(n)"
                try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
                let state = output + "/" + FolderTileSink.stateFile
                try (identity.lines + hostile.lines).map { $0 + "\n" }.joined().write(toFile: state, atomically: true, encoding: .utf8)
                let line = identity.lines.count + hostile.line
                do {
                    let sink = try FolderTileSink(path: output, scheme: .xyz, format: .png, resume: true, identity: identity)
                    _ = try tiler.run(into: sink)
                    Issue.record("\(hostile.lines) was resumed")
                } catch let error as MeridianError {
                    #expect(error.kind == .badInput, "\(hostile.lines)")
                    #expect(error.location == SourceLocation(file: state, line: line), "\(hostile.lines): \(error.location.map(String.init(describing:)) ?? "-")")
                }
            }
        }
    }

    /// A frontier file's numbers are checked before they are used: a chart count of -1, tile
    /// extents of 0x7fffffff, a chart of another run, pixels cut short; each is bad input.
    @Test func hostileFrontierFilesAreBadInput() throws {
        func frontier(_ numbers: [Int32], pixels: Int = 0) -> [UInt8] {
            var bytes = FrontierFile.magic
            for number in numbers { withUnsafeBytes(of: number.littleEndian) { bytes += $0 } }
            return bytes + [UInt8](repeating: 7, count: pixels)
        }
        let whole = frontier([3, 1, 2, 1, 0, 3, 4], pixels: 64)
        #expect(try FrontierFile.tileCount(whole, path: "f", charts: 1, tileSize: 4, colorChannels: 3) == 1)
        let hostile: [[UInt8]] = [
            frontier([3, 1, 2, -1]),
            frontier([3, 1, 2, 1, 0, 0x7fff_ffff, 0x7fff_ffff]),
            frontier([3, 1, 2, 1, 0, 3, 0x7fff_ffff]),
            frontier([0x7fff_ffff, 0x7fff_ffff, 0x7fff_ffff, 0]),
            frontier([3, 9, 2, 0]),
            frontier([3, 1, 2, 0x7fff_ffff]),
            frontier([3, 1, 2, 1, 5, 3, 4], pixels: 64),
            frontier([3, 1, 2, 1, 0, 3, 4], pixels: 63),
            frontier([3, 1, 2]),
        ]
        for bytes in hostile {
            #expect(throws: MeridianError.self) { try FrontierFile.tileCount(bytes, path: "f", charts: 1, tileSize: 4, colorChannels: 3) }
        }
    }

    /// What a power loss can leave in a recorded block (a tile gone, a tile emptied, a tile
    /// cut short) is not kept: the block is built again, and so the tiles above it, and the
    /// resumed run's folder is a clean run's, file for file. For one raster (tiles read back)
    /// and for a catalog (tiles recomputed).
    @Test func resumeRebuildsWhatTheStateRecordsButIsGone() throws {
        try withTemporaryFolderPath { folder in
            for inputs in [[raster("RGB.byte.half.tif")], [raster("19347_2.KAP"), raster("19347_2-east.KAP")]] {
                let sources = try inputs.map { try RasterSource(path: $0) }
                let tiler = try Tiler(catalog: TileCatalog(sources: sources), options: TilingOptions(zooms: inputs.count == 1 ? 5...9 : 12...16, jobs: 2))
                let clean = folder + "/clean", resumed = folder + "/resumed"
                try? FileManager.default.removeItem(atPath: clean)
                try? FileManager.default.removeItem(atPath: resumed)
                _ = try tiler.run(into: FolderTileSink(path: clean, scheme: .xyz, format: .png, resume: false, identity: tiler.identity()))
                // Every block built and recorded, the run not finished: the state stays.
                do {  // the unfinished run ends here, and its claim on the folder with it
                    let partial = try FolderTileSink(path: resumed, scheme: .xyz, format: .png, resume: false, identity: tiler.identity())
                    _ = try tiler.build(tiler.blocksInOrder, total: tiler.tileBound, into: partial, start: Date(), progress: { _ in })
                }
                // The worker threads let go of the sink as they exit, just after the build returns:
                // the claim (its lock beside the folder) goes with the last of them.
                let lock = folder + "/.resumed.meridian-lock"
                for _ in 0..<200 where FileManager.default.fileExists(atPath: lock) { usleep(10_000) }
                let blockTiles = tileSet(resumed).filter { Int($0.prefix { $0 != "/" })! > tiler.blockZoom }.sorted()
                #expect(blockTiles.count >= 3)
                unlink(resumed + "/" + blockTiles[0] + ".png")
                #expect(truncate(resumed + "/" + blockTiles[blockTiles.count / 2] + ".png", 0) == 0)
                #expect(truncate(resumed + "/" + blockTiles.last! + ".png", 40) == 0)
                let summary = try tiler.run(into: FolderTileSink(path: resumed, scheme: .xyz, format: .png, resume: true, identity: tiler.identity()))
                #expect(summary.totalTiles == tileSet(clean).count, "\(inputs)")
                #expect(tileSet(resumed) == tileSet(clean), "\(inputs)")
                expectSamePNGTiles(tileSet(clean), in: resumed, as: clean, "\(inputs)")
            }
        }
    }

    /// A state file that is a symbolic link is neither read nor appended to: the resume is
    /// refused and the link's target is left as it was.
    @Test func symlinkedStateIsRefused() throws {
        try withTemporaryFolderPath { folder in
            let tiler = try Tiler(source: RasterSource(path: raster("RGB.byte.half.tif")), options: TilingOptions(jobs: 1))
            let identity = try tiler.identity(output: [("scheme", "xyz")])
            let target = folder + "/target", output = folder + "/out"
            let text = identity.lines.map { $0 + "\n" }.joined()
            try text.write(toFile: target, atomically: true, encoding: .utf8)
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            #expect(symlink(target, output + "/" + FolderTileSink.stateFile) == 0)
            #expect(throws: MeridianError.self) {
                _ = try FolderTileSink(path: output, scheme: .xyz, format: .png, resume: true, identity: identity)
            }
            #expect(try String(contentsOfFile: target, encoding: .utf8) == text)
        }
    }
}
