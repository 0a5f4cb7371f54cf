import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
import MeridianTestSupport
import Synchronization
import Testing
@testable import MeridianTiles

/// Tile compression (`Gzip`, through libdeflate): what it writes is gzip as other readers read
/// it, the same bytes for the same tile whichever thread compresses it, and what it reads is
/// bounded however the data lies about its size.
@Suite struct GzipTests {
    /// Runs `executable` with `arguments`, `input` on its standard input; its standard output.
    static func run(_ executable: String, _ arguments: [String], input: [UInt8] = []) throws -> (status: Int32, output: [UInt8]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        // Written from another thread: a large input would fill the pipe while the output waits.
        let writer = Thread {
            stdin.fileHandleForWriting.write(Data(input))
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, Array(output))
    }

    /// Real vector tiles: Natural Earth's countries sample at zooms 0-2, as `tile` encodes them.
    static func realTiles() throws -> [[UInt8]] {
        let reader = GeoJSONReader(input: try BufferedInput.open(fixture("geojson/ne_10m_countries_sample.geojson")))
        var features: [Feature] = []
        while let feature = try reader.next() { features.append(feature) }
        var tiles: [[UInt8]] = []
        _ = try VectorTiler(features: try VectorFeatureSpill(layers: [("countries", features)]), options: VectorTilingOptions(zooms: 0...2)).run {
            tiles.append($1)
        }
        return tiles
    }

    /// Random bytes (stored blocks), a repetitive text (long matches) and real tiles, gzipped,
    /// inflate to themselves through an independent reader (GNU gzip, whose inflate is its own,
    /// not zlib's) and through `Gzip.decompress` with a limit of exactly their size.
    @Test func anIndependentReaderInflatesWhatIsWritten() throws {
        var random = SplitMix64(seed: 32)
        var inputs: [[UInt8]] = [[], [7]]
        for size in [100, 4_096, 70_000, 1 << 20] { inputs.append((0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) }) }
        inputs.append((0..<300_000).map { UInt8(($0 / 7) % 23 + 97) })
        let tiles = try Self.realTiles()
        #expect(tiles.count > 5)
        inputs += tiles
        for (index, input) in inputs.enumerated() {
            let gzipped = try Gzip.compress(input)
            #expect(gzipped.starts(with: [0x1f, 0x8b, 8]), "input \(index)")
            let gunzipped = try Self.run("gzip", ["-dc"], input: gzipped)
            #expect(gunzipped.status == 0 && gunzipped.output == input, "input \(index): \(input.count) bytes")
            #expect(try Gzip.decompress(gzipped, limit: input.count) == input, "input \(index)")
        }
        // Compressible input gets smaller: the real tiles by a third (zlib's level 6 too).
        let tileBytes = tiles.reduce(0) { $0 + $1.count }, gzippedBytes = try tiles.reduce(0) { $0 + (try Gzip.compress($1)).count }
        #expect(gzippedBytes * 4 < tileBytes * 3, "\(gzippedBytes) of \(tileBytes)")
    }

    /// What other writers make inflates as it was: GNU gzip's output with the file's name in
    /// its header, at its fastest and smallest, and Python's zlib stream (RFC 1950, as some
    /// PMTiles writers store directories); bytes after a gzip member are passed over, as zlib did.
    @Test func otherWritersDataInflates() throws {
        let tile = try Self.realTiles().max { $0.count < $1.count }!
        try withTemporaryFolderPath { folder in
            let path = folder + "/0.pbf"
            try Data(tile).write(to: URL(fileURLWithPath: path))
            for level in ["-1", "-9"] {
                let gzipped = try Self.run("gzip", [level, "-c", "--name", path])
                #expect(gzipped.status == 0 && gzipped.output[3] & 0x08 != 0, "a file name in the header")
                #expect(try Gzip.decompress(gzipped.output, limit: tile.count) == tile)
                #expect(try Gzip.decompress(gzipped.output + [0, 1, 2, 3, 4, 5, 6, 7], limit: tile.count) == tile)
            }
        }
        let zlib = try Self.run("python3", ["-c", "import sys, zlib; sys.stdout.buffer.write(zlib.compress(sys.stdin.buffer.read(), 6))"], input: tile)
        #expect(zlib.status == 0 && zlib.output.first == 0x78)
        #expect(try Gzip.decompress(zlib.output, limit: tile.count) == tile)
    }

    /// The limit holds whatever the trailer states: a bomb whose trailer says 10 bytes is
    /// refused past the limit (bad input: exit 65) and inflates in full under a limit its size;
    /// a limit of one byte less than the data refuses it; damaged data (a flipped bit, a cut
    /// end, not gzip) is bad input.
    @Test func inflatingIsBoundedWhateverTheTrailerStates() throws {
        func refused(_ bytes: [UInt8], limit: Int) -> Bool {
            do { _ = try Gzip.decompress(bytes, limit: limit); return false } catch { return (error as? MeridianError)?.kind == .badInput }
        }
        let zeros = [UInt8](repeating: 0, count: 3 << 20)
        let honest = try Gzip.compress(zeros)
        #expect(honest.count < 10_000)
        var lying = honest
        lying.replaceSubrange((lying.count - 4)..., with: [10, 0, 0, 0])  // ISIZE: 10 bytes
        #expect(refused(lying, limit: 1 << 20))
        // The trailer's size is checked too once inflated: a lie is damaged data.
        #expect(refused(lying, limit: 3 << 20))
        #expect(try Gzip.decompress(honest, limit: 3 << 20) == zeros)
        #expect(refused(honest, limit: (3 << 20) - 1))
        var statedHuge = honest
        statedHuge.replaceSubrange((statedHuge.count - 4)..., with: [0xff, 0xff, 0xff, 0xff])
        #expect(refused(statedHuge, limit: 1 << 20))

        let tile = try Self.realTiles().max { $0.count < $1.count }!
        let gzipped = try Gzip.compress(tile)
        var flipped = gzipped
        flipped[gzipped.count / 2] ^= 0x10
        #expect(refused(flipped, limit: 1 << 20))
        #expect(refused(Array(gzipped.dropLast(5)), limit: 1 << 20))
        #expect(refused([0x1f, 0x8b, 1, 2, 3], limit: 1 << 20))
        #expect(refused(Array(tile.prefix(100)), limit: 1 << 20))
        #expect(refused([], limit: 1 << 20))
    }

    /// Each thread compresses with its own compressor: tiles compressed on eight threads at
    /// once come out as they do one at a time.
    @Test func threadsCompressAlike() throws {
        let tiles = try Self.realTiles()
        let expected = try tiles.map(Gzip.compress)
        let results = Mutex<[[UInt8]?]>(Array(repeating: nil, count: 8 * tiles.count))
        DispatchQueue.concurrentPerform(iterations: 8 * tiles.count) { index in
            let bytes = try? Gzip.compress(tiles[index % tiles.count])
            results.withLock { $0[index] = bytes }
        }
        for (index, bytes) in results.withLock({ $0 }).enumerated() {
            #expect(bytes == expected[index % tiles.count], "tile \(index % tiles.count), round \(index / tiles.count)")
        }
    }
}
