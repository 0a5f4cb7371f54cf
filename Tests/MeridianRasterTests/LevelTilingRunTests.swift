import Foundation
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
}
