import Foundation
import MeridianCore
import MeridianTestSupport
import Testing
@testable import MeridianTiles

/// `TileFolderWriter` checks a tile's place for links and inputs only in folders it did not
/// create itself (a resumed or shared folder): in a folder it made, nothing stood before.
@Suite struct TileFolderWriterTests {
    /// Tiles in folders the writer makes are written whole, with no temporary file left.
    @Test func writesTilesInFoldersItMakes() throws {
        try withTemporaryFolderPath { folder in
            let writer = TileFolderWriter(root: folder + "/out")
            try writer.write([1, 2, 3], to: folder + "/out/3/2/1.pbf")
            try writer.write([4, 5], to: folder + "/out/3/2/2.pbf")
            #expect(FileManager.default.contents(atPath: folder + "/out/3/2/1.pbf") == Data([1, 2, 3]))
            #expect(FileManager.default.contents(atPath: folder + "/out/3/2/2.pbf") == Data([4, 5]))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/out/3/2").sorted() == ["1.pbf", "2.pbf"])
        }
    }

    /// In a folder that was there before the writer (a resumed run's), a link at a tile's place
    /// is refused (73), and neither it nor its target is changed.
    @Test func refusesALinkInAFolderItFound() throws {
        try withTemporaryFolderPath { folder in
            try FileManager.default.createDirectory(atPath: folder + "/out/3/2", withIntermediateDirectories: true)
            let target = folder + "/target"
            #expect(FileManager.default.createFile(atPath: target, contents: Data([9])))
            #expect(symlink(target, folder + "/out/3/2/1.pbf") == 0)
            let writer = TileFolderWriter(root: folder + "/out")
            var refused: MeridianError?
            do {
                try writer.write([1, 2, 3], to: folder + "/out/3/2/1.pbf")
            } catch let error as MeridianError {
                refused = error
            }
            #expect(refused?.exitCode == 73)
            #expect(TileFolderWriter.isLink(folder + "/out/3/2/1.pbf"))
            #expect(FileManager.default.contents(atPath: target) == Data([9]))
            // A tile beside it, in the same found folder, is written.
            try writer.write([7], to: folder + "/out/3/2/2.pbf")
            #expect(FileManager.default.contents(atPath: folder + "/out/3/2/2.pbf") == Data([7]))
        }
    }

    /// A tile written a second time into a folder the writer made (its first copy went in under
    /// its own name) is replaced whole, through a temporary name: nothing else is left.
    @Test func replacesATileWrittenAgainInAFolderItMade() throws {
        try withTemporaryFolderPath { folder in
            let writer = TileFolderWriter(root: folder + "/out")
            try writer.write([1, 2, 3, 4], to: folder + "/out/3/2/1.pbf")
            try writer.write([5], to: folder + "/out/3/2/1.pbf")
            #expect(FileManager.default.contents(atPath: folder + "/out/3/2/1.pbf") == Data([5]))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/out/3/2") == ["1.pbf"])
        }
    }

    /// A link where a tile's folder goes, in a level the writer found, is refused (73) and not
    /// followed: nothing is written into its target.
    @Test func refusesALinkWhereAFolderGoes() throws {
        try withTemporaryFolderPath { folder in
            try FileManager.default.createDirectory(atPath: folder + "/out/3", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: folder + "/elsewhere", withIntermediateDirectories: true)
            #expect(symlink(folder + "/elsewhere", folder + "/out/3/2") == 0)
            let writer = TileFolderWriter(root: folder + "/out")
            var refused: MeridianError?
            do {
                try writer.write([1], to: folder + "/out/3/2/1.pbf")
            } catch let error as MeridianError {
                refused = error
            }
            #expect(refused?.exitCode == 73)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/elsewhere").isEmpty)
        }
    }
}
