import Foundation
import MeridianCore
import MeridianGeometry
import MeridianTestSupport
import Synchronization
import Testing
@testable import MeridianRaster
import MeridianTiles

/// When a level-by-level run says it has something to resume: the interruption note of a run
/// stopped between opening its output and its first level said "nothing was kept" while the
/// folder already held the run's resume state.
@Suite struct LevelTilingRunTests {
    static let identity = TilingRunIdentity(fields: [TilingRunIdentity.Field(name: "kind", value: "test tiles")])

    /// `opened` comes once, after the output exists and before the first level is asked for:
    /// for a run into a folder, and for one shard of a run.
    @Test(arguments: [nil, TileShard(index: 1, count: 2)!] as [TileShard?])
    func openedComesOnceTheOutputExistsAndBeforeTheFirstLevel(shard: TileShard?) throws {
        try withTemporaryFolderPath { folder in
            let output = folder + "/tiles"
            var events: [String] = []
            let run = LevelTilingRun(zooms: 0...1, identity: Self.identity)
            let mode: LevelTilingMode = shard.map { .shard($0, resume: false) } ?? .run(resume: false)
            _ = try run.run(into: output, format: .png, scheme: .xyz, mode: mode, metadata: { zooms in TileSetMetadata(format: .png, name: "test", description: "", bounds: BoundingBox(west: -1, south: -1, east: 1, north: 1), zooms: zooms ?? 0...1) },
                            opened: { events.append(FileManager.default.fileExists(atPath: output) ? "opened with output" : "opened without output") }) { zoom, _, _ in
                events.append("level \(zoom)")
                return 0
            }
            #expect(events == ["opened with output", "level 0", "level 1"])
        }
    }

    /// The test runs' metadata: PNG tiles over a small box, at the zooms a run reports or `fallback`.
    static func metadata(unlessZooms fallback: ClosedRange<Int>) -> (ClosedRange<Int>?) -> TileSetMetadata {
        { zooms in
            TileSetMetadata(format: .png, name: "test", description: "", bounds: BoundingBox(west: -1, south: -1, east: 1, north: 1), zooms: zooms ?? fallback)
        }
    }

    /// What a producer throws to stop a run part-way, as an interruption would.
    struct Stopped: Error {}

    /// A resumed run's state file is text anyone may change: a level recorded complete with more
    /// tiles than it has (2^63 - 1 twice made the sum of kept tiles trap), or a level the run
    /// does not have, is bad data naming the state file and its line (65), not a summary of
    /// tiles that are not there; the state as the run left it resumes.
    @Test func aTamperedStateFileIsRefused() throws {
        try withTemporaryFolderPath { folder in
            let output = folder + "/tiles"
            let run = LevelTilingRun(zooms: 0...2, identity: Self.identity)
            let metadata = Self.metadata(unlessZooms: 0...2)
            #expect(throws: Stopped.self) {
                _ = try run.run(into: output, format: .png, scheme: .xyz, mode: .run(resume: false), metadata: metadata) { zoom, _, store in
                    if zoom == 1 { throw Stopped() }
                    try store(MapTile(zoom: 0, x: 0, y: 0), [0x89, 0x50])
                    return 0
                }
            }
            let statePath = output + "/.meridian-tiling"
            let state = try String(contentsOfFile: statePath, encoding: .utf8)
            try #require(state.contains("block 0/0/0 1\n"), "\(state)")
            let huge = "block 0/0/0 9223372036854775807\nblock 1/0/0 9223372036854775807\n"
            for tampered in [state.replacingOccurrences(of: "block 0/0/0 1\n", with: "block 0/0/0 5\n"),
                             state.replacingOccurrences(of: "block 0/0/0 1\n", with: huge),
                             state + "block 7/0/0 1\n"] {
                try tampered.write(toFile: statePath, atomically: true, encoding: .utf8)
                let error = try #require(throws: MeridianError.self) {
                    _ = try run.run(into: output, format: .png, scheme: .xyz, mode: .run(resume: true), metadata: metadata) { _, _, _ in 0 }
                }
                #expect(error.exitCode == 65 && error.location?.file == statePath && error.location?.line != nil, "\(error)")
            }
            try state.write(toFile: statePath, atomically: true, encoding: .utf8)
            var levels: [Int] = []
            let summary = try run.run(into: output, format: .png, scheme: .xyz, mode: .run(resume: true), metadata: metadata) { zoom, _, _ in
                levels.append(zoom)
                return 0
            }
            #expect(levels == [1, 2], "\(summary)")
        }
    }

    /// A level is recorded by its count of tiles, not a list of them: a resumed run keeps the
    /// levels whose tiles are all still there and makes again, whole, a level that lost a tile
    /// since (what the state says was done must still be there).
    @Test func aResumedRunKeepsTheLevelsItsCountsProveAndRemakesTheOthers() throws {
        try withTemporaryFolderPath { folder in
            let output = folder + "/tiles"
            let run = LevelTilingRun(zooms: 0...2, identity: Self.identity)
            let metadata = Self.metadata(unlessZooms: 0...2)
            var levels: [Int] = []
            func produce(stoppingAt stop: Int?) -> LevelTilingRun.Producer {
                { zoom, _, store in
                    if zoom == stop { throw Stopped() }
                    levels.append(zoom)
                    for x in 0..<(1 << zoom) { try store(MapTile(zoom: zoom, x: x, y: 0), [0x89, 0x50, UInt8(x)]) }
                    return 0
                }
            }
            #expect(throws: Stopped.self) {
                _ = try run.run(into: output, format: .png, scheme: .xyz, mode: .run(resume: false), metadata: metadata, produce: produce(stoppingAt: 2))
            }
            let state = try String(contentsOfFile: output + "/.meridian-tiling", encoding: .utf8)
            #expect(state.hasSuffix("block 0/0/0 1\nblock 1/0/0 2\n"), "\(state)")
            try FileManager.default.removeItem(atPath: output + "/1/1/0.png")
            levels = []
            let outcome = try run.run(into: output, format: .png, scheme: .xyz, mode: .run(resume: true), metadata: metadata, produce: produce(stoppingAt: nil))
            guard case .done(let summary) = outcome else {
                Issue.record("\(outcome)")
                return
            }
            #expect(levels == [1, 2] && summary.kept == 1 && summary.written == 6, "\(levels) \(summary)")
            #expect(FileManager.default.fileExists(atPath: output + "/1/1/0.png"))
        }
    }

    /// A sink that logs, in order, each tile written and each level's record begun and ended
    /// (its record takes a while, as a folder's syncfs does).
    final class LoggingSink: TileSink, Sendable {
        let log = Mutex<[String]>([])
        let failingLevel: Int?

        init(failingLevel: Int? = nil) { self.failingLevel = failingLevel }

        var completedBlocks: [MapTile: Int] { [:] }
        func location(ofCompleted block: MapTile) -> MeridianCore.SourceLocation { MeridianCore.SourceLocation(file: "sink") }
        func existingTile(_ tile: MapTile) throws -> [UInt8]? { nil }
        func write(_ tile: MapTile, data: [UInt8]) throws { log.withLock { $0.append("tile \(tile.zoom)") } }
        func markCompleted(block: MapTile, tiles: [MapTile]) throws {
            log.withLock { $0.append("record \(block.zoom) begun") }
            usleep(200_000)
            struct Failed: Error {}
            if block.zoom == failingLevel { throw Failed() }
            log.withLock { $0.append("record \(block.zoom) of \(tiles.count)") }
        }
        func markCompleted(levelOf mark: MapTile, tiles: Int) throws {
            log.withLock { $0.append("record \(mark.zoom) begun") }
            usleep(200_000)
            struct Failed: Error {}
            if mark.zoom == failingLevel { throw Failed() }
            log.withLock { $0.append("record \(mark.zoom) of \(tiles)") }
        }
        func zoomsWithTiles() throws -> ClosedRange<Int>? { nil }
        func storedTileCount(zoom: Int, where counted: @Sendable (MapTile) -> Bool) throws -> Int { 0 }
        func finish(metadata: TileSetMetadata) throws {}
        func adoptShard(_ index: Int, of workspace: ShardWorkspace, identity: TilingRunIdentity, belongs: @Sendable (MapTile) -> Bool) throws -> Int { 0 }
        func evidence(sample: MapTile?) -> [String] { [] }
        func discard() {}
    }

    /// A level's record (a folder's syncfs, then its state line) is written while the next level
    /// is made, but only after every tile of its level, and the next level's only after it has
    /// ended: a record never claims a tile not yet stored, and the records come in order, the
    /// last of them before the run returns.
    @Test func aLevelIsRecordedWhileTheNextIsMadeAndOnlyAfterItsTiles() throws {
        let sink = LoggingSink()
        let run = LevelTilingRun(zooms: 0...2, identity: Self.identity)
        let summary = try run.build(into: sink) { zoom, _, store in
            for x in 0..<(1 << zoom) {
                try store(MapTile(zoom: zoom, x: x, y: 0), [1])
                usleep(100_000)
            }
            return 0
        }
        #expect(summary.written == 7)
        let log = sink.log.withLock { $0 }
        #expect(log.last == "record 2 of 4", "\(log)")
        for zoom in 0...2 {
            let begun = try #require(log.firstIndex(of: "record \(zoom) begun"), "\(log)")
            let ended = try #require(log.firstIndex(of: "record \(zoom) of \(1 << zoom)"), "\(log)")
            // Every tile of the level stored before its record begins.
            #expect(log[..<begun].filter { $0 == "tile \(zoom)" }.count == 1 << zoom, "\(log)")
            // The next level's record begins after this one has ended.
            if zoom < 2 { #expect(ended < (log.firstIndex(of: "record \(zoom + 1) begun") ?? 0), "\(log)") }
        }
        // The next level's tiles were made while a record was being written.
        let begun = try #require(log.firstIndex(of: "record 1 begun")), ended = try #require(log.firstIndex(of: "record 1 of 2"))
        #expect(log[begun..<ended].contains("tile 2"), "\(log)")
    }

    /// A record that fails fails the run, once the level being made has ended, and nothing is
    /// recorded after it.
    @Test func aFailedRecordFailsTheRun() throws {
        let sink = LoggingSink(failingLevel: 1)
        let run = LevelTilingRun(zooms: 0...3, identity: Self.identity)
        #expect(throws: (any Error).self) {
            _ = try run.build(into: sink) { zoom, _, store in
                try store(MapTile(zoom: zoom, x: 0, y: 0), [1])
                return 0
            }
        }
        let log = sink.log.withLock { $0 }
        #expect(log.contains("record 0 of 1") && !log.contains { $0.hasPrefix("record 2") || $0.hasPrefix("record 3") }, "\(log)")
    }
}
