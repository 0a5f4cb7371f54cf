import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
@testable import MeridianTiles
import MeridianTestSupport
import Testing

@Suite struct MBTilesTests {
    static let run: [MBTilesWriter.RunField] = [("input", "/data/chart.kap"), ("zoom", "3-4"), ("note", "it's, with a quote")]
    static let metadata = MBTilesMetadata(name: "chart", description: "a test", format: "png",
                                          bounds: BoundingBox(west: -10, south: 40, east: 5, north: 50), center: (-2.5, 45, 4), minZoom: 3, maxZoom: 4)

    /// Written in TMS rows, read back by XYZ address; the partial file becomes the output only at `finish`.
    /// What an MBTiles file's tiles say wins over what its metadata states: the zoom levels are
    /// those holding tiles (minzoom 0 and maxzoom 14 stated over tiles at 0 and 1), the bounds
    /// those stated within the tiles' extent (or the extent, when none are stated), and a center
    /// outside the tiles' bounds or zooms is not the file's; a stated number that is no number
    /// is refused (65, naming the file).
    @Test func theTilesWinOverTheMetadata() throws {
        try withTemporaryFolderPath { folder in
            let path = folder + "/stated.mbtiles"
            try FileManager.default.copyItem(atPath: fixture("fuzz-seeds/mbtiles/vector.mbtiles"), toPath: path)
            func state(_ name: String, _ value: String?) throws {
                let database = try SQLiteDatabase(path: path, mode: .readWriteSerialized)
                try database.execute("DELETE FROM metadata WHERE name = ?", binding: [.text(name)])
                if let value { try database.execute("INSERT INTO metadata (name, value) VALUES (?, ?)", binding: [.text(name), .text(value)]) }
                try database.close()
            }
            // Tiles: 0/0/0 and 1/1/1 (XYZ; TMS row 0), the south-east quarter of the world.
            try state("maxzoom", "14")
            try state("center", "100,10,12")
            var metadata = try MBTilesFile(path: path).pyramidMetadata()
            #expect(metadata.zooms == 0...1)
            #expect(metadata.bounds == BoundingBox(west: 0, south: -10, east: 10, north: 0))
            #expect(try MBTilesFile(path: path).statedCenter() == nil)
            try state("center", "5,-5,1")
            #expect(try MBTilesFile(path: path).statedCenter() == TileSetCenter(longitude: 5, latitude: -5, zoom: 1))
            try state("bounds", nil)
            metadata = try MBTilesFile(path: path).pyramidMetadata()
            #expect(metadata.bounds.west == 0 && metadata.bounds.east == 180 && metadata.bounds.north == 0)
            #expect(abs(metadata.bounds.south + MapWorld.maximumLatitude) < 1e-9)
            // Bounds the tiles are not in give way to the tiles' extent.
            try state("bounds", "-20,10,-10,20")
            #expect(try MBTilesFile(path: path).pyramidMetadata().bounds.east == 180)
            for (name, value) in [("bounds", "1,2,x,4"), ("maxzoom", "1e300"), ("minzoom", "-1"), ("center", "0,0,2.5")] {
                try state(name, value)
                #expect {
                    let file = try MBTilesFile(path: path)
                    if name == "center" { _ = try file.statedCenter() } else { _ = try file.pyramidMetadata() }
                } throws: {
                    ($0 as? MeridianError)?.kind == .badInput && ($0 as? MeridianError)?.location?.file == path
                }
                try state(name, nil)
            }
            // Without tiles, what is stated stands.
            let database = try SQLiteDatabase(path: path, mode: .readWriteSerialized)
            try database.execute("DELETE FROM tiles")
            try database.close()
            try state("minzoom", "2")
            try state("maxzoom", "3")
            #expect(try MBTilesFile(path: path).pyramidMetadata().zooms == 2...3)
        }
    }

    @Test func writtenTilesReadBack() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.path
            let path = folder + "/out.mbtiles"
            let writer = try MBTilesWriter(path: path, resume: false, run: Self.run) { _ in Issue.record("a new file resumes nothing") }
            let a = MapTile(zoom: 3, x: 1, y: 2), b = MapTile(zoom: 4, x: 3, y: 5)
            try writer.write(a, data: [1, 2, 3])
            try writer.write(b, data: [])
            try writer.markCompleted(block: a, tiles: 2)
            #expect(try writer.existingTile(a) == [1, 2, 3] && writer.existingTile(MapTile(zoom: 3, x: 0, y: 0)) == nil)
            #expect(try writer.zoomsWithTiles() == 3...4)
            #expect(!FileManager.default.fileExists(atPath: path) && FileManager.default.fileExists(atPath: folder + "/.out.mbtiles.meridian-partial"))
            try writer.finish(metadata: Self.metadata)
            #expect(!FileManager.default.fileExists(atPath: folder + "/.out.mbtiles.meridian-partial"))

            let file = try MBTilesFile(path: path)
            #expect(file.metadata["format"] == "png" && file.metadata["version"] == "1.3" && file.metadata["bounds"] == "-10.0,40.0,5.0,50.0")
            #expect(file.metadata["center"] == "-2.5,45.0,4" && file.metadata["minzoom"] == "3" && file.metadata["maxzoom"] == "4")
            #expect(try file.zoomLevels() == [3, 4])
            #expect(try file.tile(a) == [1, 2, 3] && file.tile(b) == [] && file.tile(MapTile(zoom: 3, x: 1, y: 1)) == nil)
            #expect(try file.allTiles() == [a: [1, 2, 3], b: []])
        }
    }

    /// An interrupted run is resumed with the blocks it completed; its identity is handed to the
    /// check, which may refuse it before anything is written.
    @Test func resumingFindsTheRunAndItsBlocks() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.path
            let path = folder + "/out.mbtiles"
            do {  // a run that stops part-way: its writer goes away with a block under way
                let first = try MBTilesWriter(path: path, resume: false, run: Self.run) { _ in }
                try first.write(MapTile(zoom: 3, x: 1, y: 2), data: [9])
                try first.markCompleted(block: MapTile(zoom: 3, x: 1, y: 2), tiles: 1)
                try first.write(MapTile(zoom: 3, x: 2, y: 2), data: [8])  // its block never completes
            }

            var recorded: [MBTilesWriter.RunField]?
            let resumed = try MBTilesWriter(path: path, resume: true, run: Self.run) { recorded = $0 }
            #expect(recorded?.map(\.name) == Self.run.map(\.name) && recorded?.map(\.value) == Self.run.map(\.value))
            #expect(resumed.completedBlocks == [MapTile(zoom: 3, x: 1, y: 2): 1])
            #expect(try resumed.existingTile(MapTile(zoom: 3, x: 2, y: 2)) == nil)
            #expect(try resumed.existingTile(MapTile(zoom: 3, x: 1, y: 2)) == [9])
            // Looking a tile up (the last one found) leaves nothing that keeps the run's tables from being dropped.
            try resumed.finish(metadata: Self.metadata)
            #expect(try MBTilesFile(path: path).tile(MapTile(zoom: 3, x: 1, y: 2)) == [9])

            struct OtherRun: Error {}
            #expect(throws: OtherRun.self) { try MBTilesWriter(path: path, resume: true, run: []) { _ in throw OtherRun() } }
        }
    }

    /// Resuming over a finished file asks the check about "no run" (nil).
    @Test func aFinishedFileHoldsNoRun() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.path
            let path = folder + "/out.mbtiles"
            try MBTilesWriter(path: path, resume: false, run: Self.run) { _ in }.finish(metadata: Self.metadata)
            var asked = false
            struct NothingToResume: Error {}
            #expect(throws: NothingToResume.self) {
                try MBTilesWriter(path: path, resume: true, run: Self.run) { recorded in
                    asked = recorded == nil
                    throw NothingToResume()
                }
            }
            #expect(asked)
        }
    }

    /// Metadata and a run's record are bound as parameters, never spelled into SQL: a name, a
    /// description or a run's value holding quotes, a semicolon and SQL, or a NUL, is stored
    /// byte for byte, and nothing it says runs (spelled into the SQL, the NUL cut the statement
    /// short and the run failed).
    @Test func valuesWithQuotesAndNULsAreStoredAsTheyAre() throws {
        try withTemporaryFolder { temporary in
            let path = temporary.path + "/out.mbtiles"
            let hostile = "x'); DROP TABLE tiles; --\u{0}after the NUL \"quoted\""
            let run: [MBTilesWriter.RunField] = [("input", hostile), ("note\u{0}name", "v")]
            do {  // a run that stops after its first block
                let writer = try MBTilesWriter(path: path, resume: false, run: run) { _ in }
                try writer.write(MapTile(zoom: 3, x: 1, y: 2), data: [1])
                try writer.markCompleted(block: MapTile(zoom: 3, x: 1, y: 2), tiles: 1)
            }
            var resumedRun: [MBTilesWriter.RunField]?
            let resumed = try MBTilesWriter(path: path, resume: true, run: run) { resumedRun = $0 }
            #expect(resumedRun?.map(\.value).first == hostile, "\(String(describing: resumedRun))")
            #expect(resumedRun?.map(\.name).last == "note\u{0}name", "\(String(describing: resumedRun))")
            var metadata = Self.metadata
            metadata.name = hostile
            metadata.description = "it's \u{0}; DELETE FROM metadata"
            try resumed.finish(metadata: metadata)
            let file = try MBTilesFile(path: path)
            #expect(try file.tile(MapTile(zoom: 3, x: 1, y: 2)) == [1])
            #expect(file.metadata["name"] == hostile && file.metadata["description"] == "it's \u{0}; DELETE FROM metadata" && file.metadata["format"] == "png")
        }
    }

    /// The file gets the mode the umask allows (SQLite alone would make it 0644).
    @Test func theFileFollowsTheUmask() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.path
            let path = folder + "/out.mbtiles"
            try MBTilesWriter(path: path, resume: false, run: []) { _ in }.finish(metadata: Self.metadata)
            // The umask as the kernel reports it: setting it to read it back would race the other tests' files.
            let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
            let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
            let mask = try #require(Int(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
            let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
            #expect(mode == 0o666 & ~mask)
        }
    }

    @Test func unreadableFilesAreTypedErrors() throws {
        try withTemporaryFolder { temporary in
            let folder = temporary.path
            #expect(throws: MeridianError(.inputUnavailable, "cannot open the MBTiles file", at: SourceLocation(file: folder + "/none.mbtiles"))) {
                try MBTilesFile(path: folder + "/none.mbtiles")
            }
            try Data("not a database, just text long enough to be a header...........................".utf8).write(to: URL(fileURLWithPath: folder + "/text.mbtiles"))
            #expect(throws: MeridianError(.badInput, "not an MBTiles file: it has no metadata table", at: SourceLocation(file: folder + "/text.mbtiles"))) {
                try MBTilesFile(path: folder + "/text.mbtiles")
            }
            #expect(throws: SQLiteError.self) { try SQLiteDatabase(path: folder + "/text.mbtiles", mode: .readOnly).execute("SELECT 1 FROM metadata") }
        }
    }
}
