import Foundation
import MeridianTiles
import Testing

import MeridianCore

/// Hostile and stale state of `meridian tile` (--resume, --shard, --finish), end to end: each
/// crafted file is refused with its exit code, naming the file (and line), never a crash; a
/// mark whose work was removed makes the run again.
@Suite struct TileStateCommandTests {
    let chart = fixture("raster/19347_2.KAP")
    let inputs = [fixture("raster/19347_2.KAP"), fixture("raster/19351_2.KAP")]
    let options = ["--zoom", "12-15", "--jobs", "1", "-q"]

    /// The identity lines a run writes at the top of its folder's state (read from a run
    /// stopped as soon as it has written them).
    func identityLines(_ arguments: [String], output: URL) throws -> [String] {
        let state = output.appendingPathComponent(".meridian-tiling").path
        _ = try TileCommandTests.tileStoppedPartWay(arguments) {
            !((try? String(contentsOfFile: state, encoding: .utf8)) ?? "").isEmpty
        }
        let text = try String(contentsOfFile: state, encoding: .utf8)
        return text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("block ") }
    }

    /// Block lines a stranger wrote into the state: 65 naming the state file and line, nothing
    /// more written; two lines of a count near Int.max crashed --resume (SIGILL).
    @Test func hostileStateLinesAreRefusedNamingTheLine() throws {
        try withTemporaryFolder { folder in
            let output = folder.appendingPathComponent("out")
            let identity = try identityLines([chart, output.path] + options, output: output)
            #expect(identity.count > 10)
            // 12/263/1806 is the block of the chart's tiles at --zoom 12-15.
            let hostile: [(lines: [String], line: Int)] = [
                (["block 12/263/1806 9223372036854775807", "block 12/263/1806 9223372036854775807"], 2),
                (["block 12/263/1806 -5"], 1),
                (["block 99/1/1 1"], 1),
                (["block 12/263/1806 many"], 1),
                (["block 0/0/0 1"], 1),
            ]
            let state = output.appendingPathComponent(".meridian-tiling").path
            for (lines, line) in hostile {
                try (identity + lines).map { $0 + "\n" }.joined().write(toFile: state, atomically: true, encoding: .utf8)
                let result = try meridian(["tile", chart, output.path, "--resume"] + options)
                #expect(result.status == ExitStatus.badInput, "\(lines): \(result.stderr)")
                #expect(result.stderr.hasPrefix("meridian: error: \(state):\(identity.count + line):"), "\(lines): \(result.stderr)")
            }
        }
    }

    /// A symbolic link at the state's place is not followed: --resume is refused and the
    /// link's target keeps its bytes.
    @Test func symlinkedStateIsNotFollowed() throws {
        try withTemporaryFolder { folder in
            let output = folder.appendingPathComponent("out")
            let identity = try identityLines([chart, output.path] + options, output: output)
            let target = folder.appendingPathComponent("precious").path
            let text = identity.map { $0 + "\n" }.joined()
            try text.write(toFile: target, atomically: true, encoding: .utf8)
            let state = output.appendingPathComponent(".meridian-tiling").path
            unlink(state)
            #expect(symlink(target, state) == 0)
            let result = try meridian(["tile", chart, output.path, "--resume"] + options)
            #expect(result.status == ExitStatus.badInput, "\(result.stderr)")
            #expect(result.stderr.contains("symbolic link"), "\(result.stderr)")
            #expect(try String(contentsOfFile: target, encoding: .utf8) == text)
        }
    }

    /// A resume whose state records every block, in a folder where a power loss took a block's
    /// top tile and emptied another: the block is made again, and the tiles above it, so the
    /// folder is a clean run's file for file (it kept the gap and built three parents without it).
    @Test func resumeRemakesWhatTheStateRecordsButIsGone() throws {
        try withTemporaryFolder { folder in
            let arguments = ["--zoom", "10-15", "--jobs", "1", "-q"]   // blocks at zoom 12
            let clean = folder.appendingPathComponent("clean"), resumed = folder.appendingPathComponent("resumed")
            #expect(try meridian(["tile", chart, clean.path] + arguments).status == 0)
            let identity = try identityLines([chart, resumed.path] + arguments, output: resumed)
            try FileManager.default.removeItem(at: resumed)
            try FileManager.default.copyItem(at: clean, to: resumed)
            try FileManager.default.removeItem(at: resumed.appendingPathComponent("metadata.json"))
            // Every block, with the tiles it holds, as the interrupted run recorded them.
            var blocks: [String: Int] = [:]
            for name in folderContents(clean).keys where name.hasSuffix(".png") {
                let parts = name.dropLast(4).split(separator: "/").map { Int($0)! }
                guard parts[0] >= 12 else { continue }
                let shift = parts[0] - 12
                blocks["12/\(parts[1] >> shift)/\(parts[2] >> shift)", default: 0] += 1
            }
            let top = try #require(blocks.keys.sorted().first { FileManager.default.fileExists(atPath: clean.path + "/\($0).png") })
            let state = (identity + blocks.map { "block \($0.key) \($0.value)" }).map { $0 + "\n" }.joined()
            try state.write(to: resumed.appendingPathComponent(".meridian-tiling"), atomically: true, encoding: .utf8)
            unlink(resumed.path + "/\(top).png")
            let deeper = try #require(folderContents(clean).keys.sorted().first { $0.hasPrefix("13/") && $0.hasSuffix(".png") })
            #expect(truncate(resumed.path + "/" + deeper, 0) == 0)
            let result = try meridian(["tile", chart, resumed.path, "--resume"] + arguments)
            #expect(result.status == 0, "\(result.stderr)")
            let a = folderContents(clean), b = folderContents(resumed)
            #expect(a.keys.sorted() == b.keys.sorted())
            #expect(a == b)
        }
    }

    /// Runs both shards of a two-shard run into `output`.
    func runShards(into output: String) throws {
        for k in 0..<2 {
            let result = try meridian(["tile"] + inputs + [output, "--shard", "\(k)/2"] + options)
            #expect(result.status == 0, "shard \(k): \(result.stderr)")
        }
    }

    /// A shard's frontier of a chart count of -1 or extents of 0x7fffffff (which crashed
    /// --finish), and a run file saying -1 shards: 65 naming the file, and no output.
    @Test func hostileShardStateIsRefused() throws {
        try withTemporaryFolder { folder in
            func numbers(_ values: [Int32]) -> Data {
                var bytes = Array("MERIDIAN-FRONTIER 1\n".utf8)
                for value in values { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
                return Data(bytes)
            }
            let hostile = [numbers([11, 300, 800, -1]), numbers([11, 300, 800, 1, 0, 0x7fff_ffff, 0x7fff_ffff]),
                           numbers([0x7fff_ffff, 0x7fff_ffff, 0x7fff_ffff, 0])]
            for (n, bytes) in hostile.enumerated() {
                let output = folder.appendingPathComponent("out\(n)").path
                try runShards(into: output)
                let frontier = output + ".shards/frontier-0"
                try bytes.write(to: URL(fileURLWithPath: frontier))
                let result = try meridian(["tile"] + inputs + [output, "--finish"] + options)
                #expect(result.status == ExitStatus.badInput, "\(n): \(result.stderr)")
                #expect(result.stderr.hasPrefix("meridian: error: \(frontier)"), "\(n): \(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: output + "/metadata.json"))
            }
            let output = folder.appendingPathComponent("count").path
            try runShards(into: output)
            let run = output + ".shards/run"
            let text = try String(contentsOfFile: run, encoding: .utf8).replacingOccurrences(of: "\nshards 2\n", with: "\nshards -1\n")
            try text.write(toFile: run, atomically: true, encoding: .utf8)
            let result = try meridian(["tile"] + inputs + [output, "--finish"] + options)
            #expect(result.status == ExitStatus.badInput, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("meridian: error: \(run)"), "\(result.stderr)")
        }
    }

    /// After a finished sharded run, the output removed: the shards and --finish run again
    /// and make it again, the same files (a folder) or tiles (MBTiles), where they said
    /// "already completed" and "joined already" and it never came back.
    @Test func removedOutputIsMadeAgain() throws {
        try withTemporaryFolder { folder in
            let output = folder.appendingPathComponent("out")
            try runShards(into: output.path)
            #expect(try meridian(["tile"] + inputs + [output.path, "--finish"] + options).status == 0)
            let expected = folderContents(output)
            #expect(expected.keys.contains("metadata.json") && expected.count > 10)
            try FileManager.default.removeItem(at: output)
            try runShards(into: output.path)
            let finish = try meridian(["tile"] + inputs + [output.path, "--finish"] + options)
            #expect(finish.status == 0, "\(finish.stderr)")
            #expect(folderContents(output) == expected)

            let file = folder.appendingPathComponent("out.mbtiles").path
            try runShards(into: file)
            #expect(try meridian(["tile"] + inputs + [file, "--finish"] + options).status == 0)
            let tiles = try MBTilesFile(path: file).allTiles()
            #expect(tiles.count > 10)
            unlink(file)
            try runShards(into: file)
            #expect(try meridian(["tile"] + inputs + [file, "--finish"] + options).status == 0)
            #expect(try MBTilesFile(path: file).allTiles() == tiles)
        }
    }

    /// --finish takes in only the shards' own parts: an MBTiles file of another run, a vector
    /// MBTiles file, a part with a row at zoom -5 are refused, 65 naming the part, and the
    /// output is not made.
    @Test func foreignShardPartsAreRefused() throws {
        try withTemporaryFolder { folder in
            let foreign = folder.appendingPathComponent("foreign.mbtiles").path
            #expect(try meridian(["tile", chart, foreign] + options).status == 0)
            let vector = folder.appendingPathComponent("vector.mbtiles").path
            let points = folder.appendingPathComponent("p.geojson").path
            try #"{"type":"Point","coordinates":[-156.88,20.74]}"#.write(toFile: points, atomically: true, encoding: .utf8)
            #expect(try meridian(["tile", points, vector, "--zoom", "0-2", "-q"]).status == 0)
            for (n, replace) in ["foreign", "vector", "zoom"].enumerated() {
                let output = folder.appendingPathComponent("out\(n).mbtiles").path
                try runShards(into: output)
                let part = output + ".shards/shard-1.mbtiles"
                switch replace {
                case "foreign": try FileManager.default.removeItem(atPath: part); try FileManager.default.copyItem(atPath: foreign, toPath: part)
                case "vector": try FileManager.default.removeItem(atPath: part); try FileManager.default.copyItem(atPath: vector, toPath: part)
                default:
                    let sql = try run("sqlite3", [part, "INSERT INTO tiles VALUES (-5, 0, 0, x'89504e47')"])
                    #expect(sql.status == 0, "\(sql.stderr)")
                }
                let result = try meridian(["tile"] + inputs + [output, "--finish"] + options)
                #expect(result.status == ExitStatus.badInput, "\(replace): \(result.stderr)")
                #expect(result.stderr.hasPrefix("meridian: error: \(part)"), "\(replace): \(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: output))
            }
        }
    }

    /// --overzoom 0 keeps a chart far from the others: its tiles are those it gives alone (it
    /// gave none), and the plan's count is what the run handles.
    @Test func overzoomKeepsAChartWhereItIsTheOnlyOne() throws {
        try withTemporaryFolder { (folder: URL) throws -> Void in
            let rgb = fixture("raster/RGB.byte.half.tif")
            let alone = folder.appendingPathComponent("alone"), both = folder.appendingPathComponent("both")
            #expect(try meridian(["tile", rgb, alone.path, "-q"]).status == 0)
            #expect(try meridian(["tile", rgb, chart, both.path, "--overzoom", "0", "-q"]).status == 0)
            let aloneTiles = folderContents(alone).filter { $0.key.hasSuffix(".png") }
            #expect(aloneTiles.count == 3)
            let quilted = folderContents(both)
            for (name, data) in aloneTiles { #expect(quilted[name] == data, "\(name)") }
        }
    }
}
