import Foundation
import MeridianCore
import MeridianFormats
import Testing
@testable import MeridianRaster
import MeridianTestSupport
@testable import MeridianTiles

@Suite struct TileShardTests {
    @Test func shardNumbersAsTyped() {
        #expect(TileShard("0/4") == TileShard(index: 0, count: 4) && TileShard("3/4")?.index == 3)
        #expect(TileShard("4/4") == nil && TileShard("-1/4") == nil && TileShard("1/0") == nil && TileShard("1") == nil && TileShard("a/b") == nil)
    }

    /// Each engine's variables, and what is refused: nothing set, N nowhere, disagreement, out of range.
    @Test func shardsFromTheEnginesEnvironments() throws {
        #expect(try TileShard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"], count: nil) == TileShard(index: 2, count: 4))
        // --array=10-16:2 gives tasks 10, 12, 14, 16.
        let stepped = ["SLURM_ARRAY_TASK_ID": "14", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_MAX": "16", "SLURM_ARRAY_TASK_STEP": "2"]
        #expect(try TileShard.fromEnvironment(stepped, count: nil) == TileShard(index: 2, count: 4))
        #expect(try TileShard.fromEnvironment(stepped, count: 4) == TileShard(index: 2, count: 4))
        #expect(try TileShard.fromEnvironment(["JOB_COMPLETION_INDEX": "5"], count: 8) == TileShard(index: 5, count: 8))
        #expect(try TileShard.fromEnvironment(["AWS_BATCH_JOB_ARRAY_INDEX": "0"], count: 3) == TileShard(index: 0, count: 3))

        func refusal(_ environment: [String: String], count: Int? = nil) -> TileShardError? {
            do { _ = try TileShard.fromEnvironment(environment, count: count); return nil } catch { return error as? TileShardError }
        }
        let none = try #require(refusal(["HOME": "/root"]))
        #expect(none.kind == .usage && ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"].allSatisfy(none.message.contains))
        #expect(try #require(refusal(["JOB_COMPLETION_INDEX": "1"])).message.contains("JOB_COMPLETION_INDEX"))
        #expect(refusal(stepped, count: 3)?.kind == .usage)
        #expect(refusal(["JOB_COMPLETION_INDEX": "4"], count: 4)?.kind == .usage)
        #expect(refusal(["SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "4"])?.kind == .usage)
    }

    /// The split: every block in exactly one shard, each shard's blocks consecutive in Morton
    /// order, every tile above the blocks owned by the shard holding all its blocks or by none,
    /// and the same split however often it is made.
    @Test func splitIsContiguousAndDeterministic() throws {
        let catalog = TileCatalog(sources: [try RasterSource(path: raster("19347_2.KAP")), try RasterSource(path: raster("19351_2.KAP"))])
        let tiler = try Tiler(catalog: catalog, options: TilingOptions(zooms: 10...18))
        for count in 1...4 {
            let split = ShardSplit(tiler: tiler, count: count)
            #expect(split.shardOfBlock == ShardSplit(tiler: tiler, count: count).shardOfBlock)
            #expect(split.shardOfBlock == split.shardOfBlock.sorted() && Set(split.shardOfBlock).isSubset(of: Set(0..<count)))
            #expect((0..<count).reduce(0) { $0 + split.blocks(of: $1).count } == split.blocks.count)
            for zoom in 10..<tiler.blockZoom {
                for tile in tiler.coverage.tiles(atZoom: zoom) {
                    let shards = Set(zip(split.blocks, split.shardOfBlock).filter { block, _ in
                        block.x >> (tiler.blockZoom - zoom) == tile.x && block.y >> (tiler.blockZoom - zoom) == tile.y
                    }.map(\.1))
                    #expect(split.owner(of: tile) == (shards.count == 1 ? shards.first : nil), "\(tile)")
                }
            }
        }
        // Two shards share the work: neither has under a quarter of the estimated pixels.
        let split = ShardSplit(tiler: tiler, count: 2)
        let work = (0..<2).map { shard in split.blocks(of: shard).reduce(0.0) { $0 + tiler.estimatedWork(of: $1) } }
        #expect(work.min()! > work.reduce(0, +) / 4, "\(work)")
    }
}
