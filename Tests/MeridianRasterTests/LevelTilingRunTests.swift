import Foundation
import MeridianCore
import MeridianGeometry
import MeridianTestSupport
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

    /// A resumed run's state file is text anyone may change: a level recorded complete with more
    /// tiles than it has (2^63 - 1 twice made the sum of kept tiles trap), or a level the run
    /// does not have, is bad data naming the state file and its line (65), not a summary of
    /// tiles that are not there; the state as the run left it resumes.
    @Test func aTamperedStateFileIsRefused() throws {
        try withTemporaryFolderPath { folder in
            let output = folder + "/tiles"
            let run = LevelTilingRun(zooms: 0...2, identity: Self.identity)
            let metadata: (ClosedRange<Int>?) -> TileSetMetadata = { zooms in
                TileSetMetadata(format: .png, name: "test", description: "", bounds: BoundingBox(west: -1, south: -1, east: 1, north: 1), zooms: zooms ?? 0...2)
            }
            struct Stopped: Error {}
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
}
