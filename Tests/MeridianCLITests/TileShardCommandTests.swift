import Foundation
import MeridianTiles
import Testing

import MeridianCore

/// `meridian tile --shard K/N` and `--finish`: a run split as a batch engine splits it, each
/// shard a separate process, joined by one more.
@Suite struct TileShardCommandTests {
    let inputs = [fixture("raster/19347_2.KAP"), fixture("raster/19351_2.KAP")]
    let options = ["--zoom", "10-17", "--jobs", "1", "-q"]

    /// Starts `meridian tile` with `arguments`, with `environment` added to this process's.
    func start(_ arguments: [String], environment: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: meridianBinary)
        process.arguments = ["tile"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Runs the `count` shards at once into `output` (Slurm's job array environment for three
    /// of them, as `--shard auto` reads it), and returns their exit statuses.
    func runShards(_ count: Int, into output: String) throws -> [Int32] {
        let processes = try (0..<count).map { k in
            count == 3
                ? try start(inputs + [output, "--shard", "auto"] + options,
                            environment: ["SLURM_ARRAY_TASK_ID": "\(10 + k)", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_MAX": "12"])
                : try start(inputs + [output, "--shard", "\(k)/\(count)"] + options)
        }
        return processes.map { $0.waitUntilExit(); return $0.terminationStatus }
    }

    /// For 1 to 4 shards, into a folder: the shards and --finish give the very files of one
    /// run (tiles and metadata), and --finish again changes nothing.
    @Test func shardsOfAFolderJoinIntoTheOneMachinePyramid() throws {
        try withTemporaryFolder { folder in
            let one = folder.appendingPathComponent("one")
            #expect(try meridian(["tile"] + inputs + [one.path] + options).status == 0)
            let expected = folderContents(one)
            #expect(expected.keys.filter { $0.hasSuffix(".png") }.count > 40)
            for count in 1...4 {
                let output = folder.appendingPathComponent("split\(count)")
                #expect(try runShards(count, into: output.path) == Array(repeating: 0, count: count))
                let finish = try meridian(["tile"] + inputs + [output.path, "--finish"] + options)
                #expect(finish.status == 0, "\(finish.stderr)")
                #expect(folderContents(output) == expected, "\(count) shards")
                #expect(try meridian(["tile"] + inputs + [output.path, "--finish"] + options).status == 0)
                #expect(folderContents(output) == expected, "\(count) shards, finished twice")
                #expect(contents(of: URL(fileURLWithPath: output.path + ".shards")) == ["finished", "run"])
            }
        }
    }

    /// The same into MBTiles: each shard writes a file of its own, --finish joins them into one
    /// holding the very tiles and metadata of one run.
    @Test func shardsOfAnMBTilesFileJoinIntoOne() throws {
        try withTemporaryFolder { folder in
            let one = folder.appendingPathComponent("one.mbtiles").path
            #expect(try meridian(["tile"] + inputs + [one] + options).status == 0)
            let expected = try MBTilesFile(path: one)
            for count in 1...4 {
                let output = folder.appendingPathComponent("split\(count).mbtiles").path
                #expect(try runShards(count, into: output) == Array(repeating: 0, count: count))
                #expect(!FileManager.default.fileExists(atPath: output))   // only the shards' own files so far
                #expect(try meridian(["tile"] + inputs + [output, "--finish"] + options).status == 0)
                let joined = try MBTilesFile(path: output)
                #expect(try joined.allTiles() == expected.allTiles(), "\(count) shards")
                #expect(joined.metadata == expected.metadata)
            }
        }
    }

    /// A shard killed part-way: --finish refuses (naming it, changing nothing), the shard run
    /// again without --resume is refused, with --resume completes; the joined pyramid is the
    /// one-machine pyramid. A shard of another split of the same output is refused.
    @Test func aKilledShardResumes() throws {
        try withTemporaryFolder { folder in
            let deeper = ["--zoom", "10-18", "--jobs", "1", "-q"]
            let one = folder.appendingPathComponent("one"), output = folder.appendingPathComponent("split")
            #expect(try meridian(["tile"] + inputs + [one.path] + deeper).status == 0)
            let state = output.path + ".shards/shard-1.state"
            let killed = try TileCommandTests.tileStoppedPartWay(inputs + [output.path, "--shard", "1/2"] + deeper) {
                ((try? String(contentsOfFile: state, encoding: .utf8)) ?? "").contains("block ")
            }.stopped
            #expect(killed, "the shard ended before it could be killed")
            #expect(try meridian(["tile"] + inputs + [output.path, "--shard", "0/2"] + deeper).status == 0)

            let before = folderContents(output)
            let early = try meridian(["tile"] + inputs + [output.path, "--finish"] + deeper)
            #expect(early.status == ExitStatus.inputUnavailable && early.stderr.contains("1 of 2 shards have not completed: 1"), "\(early.stderr)")
            #expect(folderContents(output) == before && !before.keys.contains("metadata.json"))

            let again = try meridian(["tile"] + inputs + [output.path, "--shard", "1/2"] + deeper)
            #expect(again.status == ExitStatus.usage && again.stderr.contains("--resume"), "\(again.stderr)")
            let other = try meridian(["tile"] + inputs + [output.path, "--shard", "1/3", "--resume"] + deeper)
            #expect(other.status == ExitStatus.usage && other.stderr.contains("shards"), "\(other.stderr)")

            #expect(try meridian(["tile"] + inputs + [output.path, "--shard", "1/2", "--resume"] + deeper).status == 0)
            #expect(try meridian(["tile"] + inputs + [output.path, "--finish"] + deeper).status == 0)
            #expect(folderContents(output) == folderContents(one))
        }
    }

    /// Two attempts of one shard at once (an engine's speculative retry), each with --resume as
    /// batch scripts give it: both succeed and the joined pyramid is the one-machine pyramid.
    @Test func twoAttemptsOfAShardAtOnce() throws {
        try withTemporaryFolder { folder in
            let one = folder.appendingPathComponent("one"), output = folder.appendingPathComponent("split")
            #expect(try meridian(["tile"] + inputs + [one.path] + options).status == 0)
            let attempts = try [0, 0, 1].map { try start(inputs + [output.path, "--shard", "\($0)/2", "--resume"] + options) }
            let statuses: [Int32] = attempts.map { $0.waitUntilExit(); return $0.terminationStatus }
            #expect(statuses == [0, 0, 0])
            #expect(try meridian(["tile"] + inputs + [output.path, "--finish"] + options).status == 0)
            #expect(folderContents(output) == folderContents(one))
        }
    }

    /// `--shard auto` outside an array job, or with N nowhere, is a usage error naming what it looked for.
    @Test func autoNeedsAnArrayJob() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("out").path
            let process = try start(inputs + [out, "--shard", "auto"] + options)
            process.waitUntilExit()
            #expect(process.terminationStatus == ExitStatus.usage)
            let kubernetes = try start(inputs + [out, "--shard", "auto"] + options, environment: ["JOB_COMPLETION_INDEX": "1"])
            kubernetes.waitUntilExit()
            #expect(kubernetes.terminationStatus == ExitStatus.usage)
            let given = try start(inputs + [out, "--shard", "auto", "--shards", "2"] + options, environment: ["JOB_COMPLETION_INDEX": "1"])
            given.waitUntilExit()
            #expect(given.terminationStatus == 0)
            #expect(try meridian(["tile"] + inputs + [out, "--shard", "2/2"] + options).status == ExitStatus.usage)
            #expect(try meridian(["tile"] + inputs + [out, "--finish", "--shard", "0/2"] + options).status == ExitStatus.usage)
        }
    }
}
