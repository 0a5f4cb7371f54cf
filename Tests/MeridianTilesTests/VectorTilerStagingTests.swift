import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
import MeridianTestSupport
import Synchronization
import Testing
@testable import MeridianTiles

/// A level's tiles set aside until the level is known not to be made again
/// (`VectorTiler.LevelTileStaging`), and a level recorded complete by its count of tiles
/// (`TileSink.markCompleted(levelOf:tiles:)`): a million points at zoom 14 stage and record
/// more than a million tiles, which their compact index, reads in runs and a count keep small.
@Suite struct VectorTilerStagingTests {
    /// Tiles staged as a level's workers hand them in, columns interleaved (consecutive tiles
    /// in different columns), more than a chunk of the index (65,536) of them: 300 columns of
    /// zoom 9, tile `i` at column `i · 7919 mod 300` (a bijection over each 300) and row `i / 300`.
    static let tileCount = 70_000
    static func tile(_ i: Int) -> MapTile { MapTile(zoom: 9, x: i * 7919 % 300, y: i / 300) }

    /// Tile `i`'s bytes: its number, then a filler of a length that varies (so that runs of
    /// reads end at different places), and one tile larger than a read (2 MiB).
    static func bytes(_ i: Int) -> [UInt8] {
        let length = i == 500 ? 2 << 20 : 4 + i % 37
        return withUnsafeBytes(of: UInt32(i).littleEndian) { Array($0) } + [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: length - 4)
    }

    static func staged() throws -> VectorTiler.LevelTileStaging {
        let staging = try VectorTiler.LevelTileStaging(zoom: 9)
        for i in 0..<tileCount { try staging.append(tile(i), bytes(i)) }
        return staging
    }

    /// In order, each tile once with its bytes, when handed on from the calling thread.
    @Test func theSequentialForEachHandsOnEveryTileInOrder() throws {
        let staging = try Self.staged()
        #expect(VectorTiler.LevelTileStaging.entriesPerChunk == 65_536 && staging.count > VectorTiler.LevelTileStaging.entriesPerChunk)
        var next = 0, mismatches = 0
        try staging.forEach { tile, bytes in
            if tile != Self.tile(next) || bytes != Self.bytes(next) { mismatches += 1 }
            next += 1
        }
        #expect(next == Self.tileCount && mismatches == 0)
    }

    /// From several threads: each tile once with its bytes, and every tile of a column by one
    /// thread (two threads creating files in one folder contend for its lock).
    @Test(arguments: [1, 2, 3]) func theThreadsStoreEveryTileOnceAndAColumnOnOneThread(threads: Int) throws {
        let staging = try Self.staged()
        let stored = Mutex<[(tile: MapTile, bytes: [UInt8], thread: ObjectIdentifier)]>([])
        try staging.forEach(threads: threads) { tile, bytes in
            let thread = ObjectIdentifier(Thread.current)
            stored.withLock { $0.append((tile, bytes, thread)) }
        }
        let all = stored.withLock { $0 }
        #expect(all.count == Self.tileCount)
        var number: [MapTile: Int] = [:]
        for i in 0..<Self.tileCount { number[Self.tile(i)] = i }
        var seen = Set<MapTile>(), threadsOfColumn: [Int: Set<ObjectIdentifier>] = [:], wrong = 0
        for (tile, bytes, thread) in all {
            guard let i = number[tile], seen.insert(tile).inserted, bytes == Self.bytes(i) else {
                wrong += 1
                continue
            }
            threadsOfColumn[tile.x, default: []].insert(thread)
        }
        #expect(wrong == 0 && seen.count == Self.tileCount)
        #expect(threadsOfColumn.count == 300 && threadsOfColumn.values.allSatisfy { $0.count == 1 })
    }

    /// The columns' tiles cut into about equal ranges, each of whole columns, together every tile once.
    @Test func theRangesHoldWholeColumns() {
        let columns: [UInt64] = [0, 0, 1, 1, 1, 2, 5, 5, 5, 5, 9]
        let order = columns.enumerated().map { $0.element << 32 | UInt64($0.offset) }
        for parts in 1...12 {
            let ranges = VectorTiler.LevelTileStaging.columnRanges(order, parts: parts)
            #expect(ranges.first?.lowerBound == 0 && ranges.last?.upperBound == order.count)
            #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound && !$0.isEmpty })
            // A range ends where a column does.
            #expect(ranges.dropLast().allSatisfy { columns[$0.upperBound - 1] != columns[$0.upperBound] }, "\(parts): \(ranges)")
        }
        #expect(VectorTiler.LevelTileStaging.columnRanges([], parts: 4).isEmpty)
    }

    /// A tile of another level is refused (a typed error), not staged under the wrong name.
    @Test func aTileOfAnotherLevelIsRefused() throws {
        let staging = try VectorTiler.LevelTileStaging(zoom: 3)
        #expect(throws: MeridianError.self) { try staging.append(MapTile(zoom: 4, x: 0, y: 0), [1]) }
        #expect(staging.count == 0)
    }

    static let identity = TilingRunIdentity(fields: [TilingRunIdentity.Field(name: "kind", value: "staging test")])

    /// A level recorded by its count of tiles: the folder's state line and an MBTiles file's
    /// record say it, and a resumed run reads it back, with the tiles there to prove it.
    @Test(arguments: ["tiles", "tiles.mbtiles"]) func aLevelRecordedByItsCountIsResumed(name: String) throws {
        try withTemporaryFolderPath { folder in
            let output = folder + "/" + name
            let mark = MapTile(zoom: 2, x: 0, y: 0)
            let tiles = [MapTile(zoom: 2, x: 0, y: 1), MapTile(zoom: 2, x: 3, y: 2), MapTile(zoom: 2, x: 3, y: 3)]
            do {
                let sink = try TileSinks.open(output, format: .png, for: .run(resume: false, checkpointBytes: nil) { Self.identity })
                for tile in tiles { try sink.write(tile, data: [0x89, 0x50, UInt8(tile.y)]) }
                try sink.markCompleted(levelOf: mark, tiles: tiles.count)
            }
            if name == "tiles" {
                let state = try String(contentsOfFile: output + "/" + FolderTileSink.stateFile, encoding: .utf8)
                #expect(state.hasSuffix("block 2/0/0 3\n"), "\(state)")
            }
            let resumed = try TileSinks.open(output, format: .png, for: .run(resume: true, checkpointBytes: nil) { Self.identity })
            #expect(resumed.completedBlocks == [mark: 3])
            #expect(try resumed.storedTileCount(zoom: 2) { _ in true } == 3)
        }
    }

    /// Where syncfs(2) is not there, a level is made durable by an fsync of every tile in its
    /// folder and of its folders; temporary files (hidden names) are passed over, and a level
    /// without a folder (no tile) has nothing to sync.
    @Test func aLevelIsMadeDurableFileByFileWithoutSyncfs() throws {
        try withTemporaryFolderPath { folder in
            let output = folder + "/tiles"
            let sink = try FolderTileSink(path: output, scheme: .xyz, format: .png, resume: false, identity: Self.identity)
            for y in 0..<4 { try sink.write(MapTile(zoom: 2, x: 1, y: y), data: [0x89, 0x50]) }
            // A temporary file another shard's tile might be, about to be renamed away.
            FileManager.default.createFile(atPath: output + "/2/1/.3.png.meridian-ABCDEF", contents: Data([1]))
            try sink.makeLevelDurable(zoom: 2)
            try sink.makeLevelDurable(zoom: 5)
            try sink.markCompleted(levelOf: MapTile(zoom: 2, x: 0, y: 0), tiles: 4)
            #expect(sink.completedBlocks.isEmpty)  // what this run records is read back only by a resumed run
        }
    }
}
