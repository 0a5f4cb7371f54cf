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

    /// A level-by-level run's state (vector tiles of the microstates, a level a block), changed
    /// at random and fed to `--resume` over a copy of a clean run's folder: cut anywhere, a
    /// number changed, levels recorded whose tiles were removed since, a tile the run did not
    /// store put in a recorded level, lines repeated or dropped, another run's identity. Every
    /// resume either ends with the clean run's files, byte for byte, or is refused: 65 naming
    /// the state file, or (the identity lines changed: another run's state) 64 saying so. A
    /// level recorded whose tiles were removed was kept, and the folder finished without them.
    @Test(.timeLimit(.minutes(10))) func mutatedLevelStateResumesCleanOrIsRefused() throws {
        try withTemporaryFolder { folder in
            let input = VectorTileInterruptionTests.microstates
            let arguments = ["--zoom", "0-7", "--jobs", "1", "-q"]
            let clean = folder.appendingPathComponent("clean")
            #expect(try meridian(["tile", input, clean.path] + arguments).status == 0)
            let cleanFiles = folderContents(clean)
            // The run's identity as it writes it, and its levels as it records them once complete.
            let identity = try identityLines([input, folder.appendingPathComponent("identity").path] + arguments,
                                             output: folder.appendingPathComponent("identity"))
            var perLevel: [Int: Int] = [:]
            for name in cleanFiles.keys where name.hasSuffix(".pbf") || name.hasSuffix(".mvt") {
                perLevel[Int(name.split(separator: "/")[0])!, default: 0] += 1
            }
            try #require(perLevel.count == 8, "\(cleanFiles.keys.sorted())")
            let original = (identity + (0...7).map { "block \($0)/0/0 \(perLevel[$0]!)" }).map { $0 + "\n" }.joined()
            var random = SplitMix64(seed: 8)
            var outcomes: [String: Int] = [:]
            for round in 0..<36 {
                let output = folder.appendingPathComponent("round-\(round)")
                try FileManager.default.copyItem(at: clean, to: output)
                try FileManager.default.removeItem(at: output.appendingPathComponent("metadata.json"))
                var text = original
                let tiles = folderContents(output).keys.filter { !$0.hasSuffix(".json") }.sorted()
                switch round % 6 {
                case 0:  // cut anywhere (every other time among the block lines)
                    let blocksStart = identity.map { $0.utf8.count + 1 }.reduce(0, +)
                    let cut = round % 12 == 0 ? random.below(text.utf8.count + 1) : blocksStart + random.below(text.utf8.count - blocksStart + 1)
                    text = String(decoding: Array(text.utf8.prefix(cut)), as: UTF8.self)
                case 1:  // a number changed
                    var lines = text.split(separator: "\n").map(String.init)
                    let at = random.below(lines.count)
                    let numbers = ["0", "1", "2", "-1", "9223372036854775807", "\(perLevel[random.below(8)]! + 1)"]
                    let words = lines[at].split(separator: " ", omittingEmptySubsequences: false).map(String.init)
                    lines[at] = (words.dropLast() + [numbers[random.below(numbers.count)]]).joined(separator: " ")
                    text = lines.map { $0 + "\n" }.joined()
                case 2:  // recorded levels whose tiles were removed since
                    for _ in 0...random.below(3) { unlink(output.path + "/" + tiles[random.below(tiles.count)]) }
                case 3:  // a tile the run did not store, in a recorded level
                    var stranger: String
                    repeat {
                        let level = 1 + random.below(7)
                        stranger = "\(level)/\(random.below(1 << level))/\(random.below(1 << level)).pbf"
                    } while cleanFiles[stranger] != nil
                    try FileManager.default.createDirectory(at: output.appendingPathComponent(stranger).deletingLastPathComponent(),
                                                            withIntermediateDirectories: true)
                    _ = FileManager.default.createFile(atPath: output.path + "/" + stranger, contents: Data([1, 2, 3]))
                case 4:  // block lines dropped or repeated
                    var lines = text.split(separator: "\n").map(String.init)
                    let at = identity.count + random.below(8)
                    if random.below(2) == 0 { lines.remove(at: at) } else { lines.insert(lines[at], at: random.below(lines.count + 1)) }
                    text = lines.map { $0 + "\n" }.joined()
                default:  // another run's identity
                    text = text.replacingOccurrences(of: "zoom 0-7", with: "zoom 0-\(6 + random.below(3) * 2)")
                }
                let state = output.appendingPathComponent(".meridian-tiling").path
                try text.write(toFile: state, atomically: true, encoding: .utf8)
                let identityChanged = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                    .filter { !$0.isEmpty && !$0.hasPrefix("block ") }.map(String.init) != identity
                let result = try meridian(["tile", input, output.path, "--resume"] + arguments)
                outcomes["\(round % 6) -> \(result.status)", default: 0] += 1
                switch result.status {
                case 0:
                    let files = folderContents(output)
                    #expect(files.keys.sorted() == cleanFiles.keys.sorted(), "round \(round): \(text)")
                    #expect(files == cleanFiles, "round \(round): not the clean run's tiles")
                case ExitStatus.badInput:
                    #expect(result.stderr.hasPrefix("meridian: error: \(state)"), "round \(round): \(result.stderr)")
                case ExitStatus.usage where identityChanged:
                    #expect(result.stderr.contains("--resume") && result.stderr.contains(output.path), "round \(round): \(result.stderr)")
                default:
                    Issue.record("round \(round): exit \(result.status): \(result.stderr)\n\(text)")
                }
            }
            // Levels whose tiles were removed are made again; a level holding a stranger's tile is refused.
            #expect(outcomes["2 -> 0"] == 6 && outcomes["3 -> 65"] == 6 && outcomes["5 -> 64"] == 6, "\(outcomes)")
            #expect(outcomes["0 -> 0"] != nil && outcomes["4 -> 0"] != nil, "\(outcomes)")
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
