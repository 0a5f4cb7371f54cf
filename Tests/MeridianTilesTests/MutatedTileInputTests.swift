import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
@testable import MeridianTiles
import MeridianTestSupport
import Testing

/// Randomized, reproducible mutations of valid tile archives, KMZ files and state files (the fuzz seeds
/// in Tests/Fixtures/fuzz-seeds), each read as `meridian tile info`, `tile copy` and
/// `tile-join` read one: whatever the bytes, reading ends in bounded time with the file's
/// contents or a bad-input `MeridianError` naming the file: never a trap, never another kind of
/// error. (`Scripts/fuzz` runs the same readers under libFuzzer for longer; these run in every
/// suite, from a fixed seed, so a finding stays found.)
@Suite(.timeLimit(.minutes(5))) struct MutatedTileInputTests {
    /// Mutations per seed file.
    static let rounds = 100
    /// The slowest one reading may take, in seconds (a debug build on a busy machine).
    static let slowest = 20.0

    /// PMTiles archives with bytes of the header (offsets, lengths, counts, zooms), of the
    /// directories (varints of ids, run lengths, lengths, offsets; leaf pointers, which can make
    /// cycles) and of the tiles changed, cut or grown.
    @Test(arguments: ["microstates.pmtiles", "one-leaf.pmtiles", "one-tile.pmtiles"])
    func mutatedPMTiles(_ seed: String) throws {
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture("fuzz-seeds/pmtiles/" + seed))))
        var random = SplitMix(seed: UInt64(seed.utf8.count) &* 7919)
        try withTemporaryFolderPath { folder in
            for round in 0..<Self.rounds {
                let path = folder + "/\(round).pmtiles"
                try Data(Self.mutated(original, &random, header: 127)).write(to: URL(fileURLWithPath: path))
                try Self.readAsTheCommandsDo(path, in: folder, round: round)
                try? FileManager.default.removeItem(atPath: path)
            }
        }
    }

    /// MBTiles files whose rows say what a stranger's could: zoom levels, columns and rows out
    /// of range (negative, past 2^zoom, past 2^62), tiles of random bytes or larger than a tile
    /// may be, metadata with huge, negative, non-finite or unparsable numbers and deep JSON.
    @Test(arguments: ["vector.mbtiles", "map-images.mbtiles"])
    func mutatedMBTiles(_ seed: String) throws {
        var random = SplitMix(seed: UInt64(seed.utf8.count) &* 104_729)
        let numbers = ["-1", "0", "1", "30", "31", "62", "63", "64", "2147483648", "4611686018427387904", "9223372036854775807",
                       "-9223372036854775808", "1e308", "-1e308", "nan", "inf", "0.5", "", "x"]
        func number() -> String { numbers[random.below(numbers.count)] }
        try withTemporaryFolderPath { folder in
            for round in 0..<Self.rounds {
                let path = folder + "/\(round).mbtiles"
                try FileManager.default.copyItem(atPath: fixture("fuzz-seeds/mbtiles/" + seed), toPath: path)
                let database = try SQLiteDatabase(path: path, mode: .readWriteSerialized)
                let table = seed.hasPrefix("map") ? "map" : "tiles"
                for _ in 0...random.below(3) {
                    switch random.below(6) {
                    case 0: try database.execute("UPDATE \(table) SET zoom_level = \(Self.sqlNumber(number())) WHERE rowid = (SELECT rowid FROM \(table) LIMIT 1 OFFSET \(random.below(3)))")
                    case 1: try database.execute("UPDATE \(table) SET tile_column = \(Self.sqlNumber(number())), tile_row = \(Self.sqlNumber(number()))")
                    case 2:
                        let bytes = (0..<random.below(64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                        let data = table == "map" ? "images" : "tiles"
                        try database.execute("UPDATE \(data) SET tile_data = X'\(bytes.map { String(format: "%02X", $0) }.joined())'")
                    case 3:
                        // A tile one byte over what a stored tile may take (made by SQLite, not held here).
                        let data = table == "map" ? "images" : "tiles"
                        try database.execute("UPDATE \(data) SET tile_data = zeroblob(\(TileInputLimits.storedTileBytes + 1)) WHERE rowid = (SELECT MIN(rowid) FROM \(data))")
                    case 4:
                        let name = ["minzoom", "maxzoom", "bounds", "center", "format"][random.below(5)]
                        let value = name == "bounds" ? (0..<4).map { _ in number() }.joined(separator: ",")
                            : name == "center" ? (0..<3).map { _ in number() }.joined(separator: ",") : name == "format" ? ["pbf", "png", "", "gif"][random.below(4)] : number()
                        try database.execute("INSERT OR REPLACE INTO metadata (name, value) VALUES (?, ?)", binding: [.text(name), .text(value)])
                    default:
                        let depth = random.below(20_000)
                        let json = String(repeating: "{\"vector_layers\":[", count: depth / 20) + String(repeating: "]}", count: depth / 20)
                        try database.execute("INSERT OR REPLACE INTO metadata (name, value) VALUES ('json', ?)", binding: [.text(json)])
                    }
                }
                try database.close()
                try Self.readAsTheCommandsDo(path, in: folder, round: round)
                try? FileManager.default.removeItem(atPath: path)
            }
        }
    }

    /// KMZ archives (zip) with bytes of their entries' headers (sizes, offsets, name lengths,
    /// compression), names (`../`) and data changed, cut or repeated: read whole, or refused as
    /// bad input naming the file, in bounded time. Tests/Fixtures/kmz-crafted holds the crafted
    /// zip bombs, links and paths, run end to end by the CLI tests.
    @Test func mutatedKMZ() throws {
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture("fuzz-seeds/kmz/multigeometry.kmz"))))
        var random = SplitMix(seed: 0x6B6D7A)
        for round in 0..<(Self.rounds * 2) {
            var bytes = Self.mutated(original, &random, header: 30)
            if random.below(3) == 0, let at = Self.find(Array("doc.kml".utf8), in: bytes) {
                bytes.replaceSubrange(at..<at + 7, with: Array(["../a.kml", "/etc/pw", "d\\..\\k", "doc.kmz"][random.below(4)].utf8))
            }
            let start = Date()
            do {
                let reader = try FeatureFormat.kmz.reader(for: BufferedInput(bytes: bytes, name: "crafted.kmz"))
                _ = try reader.readMetadata()
                while try reader.next() != nil {}
            } catch let error as any MeridianFailure {
                #expect(error.kind == .badInput && error.location?.file.hasPrefix("crafted.kmz") == true,
                        "round \(round): \(error.kind) \(error.message) at \(String(describing: error.location))")
            } catch {
                Issue.record("round \(round): \(type(of: error)) \(error)")
            }
            #expect(Date().timeIntervalSince(start) < Self.slowest, "round \(round) took \(Date().timeIntervalSince(start)) s")
        }
    }

    /// Where `needle` first starts in `bytes`.
    static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (0...(bytes.count - needle.count)).first { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    /// A tiling run's state file with its lines changed, cut, repeated or grown: the blocks it
    /// records are read, or it is refused naming the file, never trapped on.
    @Test(arguments: ["state", "state-cut"])
    func mutatedTilingState(_ seed: String) throws {
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture("fuzz-seeds/tiling-state/" + seed))))
        let run = TilingRunIdentity(lines: ["input /fuzz/chart.tif", "zoom 0-5", "tile-format png"])
        var random = SplitMix(seed: 31 &* UInt64(seed.utf8.count))
        let words = ["block ", "0/0/0", "30/1073741823/1073741823", "31/0/0", "-1", "9223372036854775807", "99999999999999999999", " ", "\n", "/", "1/2/0"]
        for _ in 0..<(Self.rounds * 4) {
            var bytes = Self.mutated(original, &random, header: 0)
            if random.below(2) == 0 { bytes.insert(contentsOf: Array(words[random.below(words.count)].utf8), at: random.below(bytes.count + 1)) }
            do {
                let blocks = try TilingStateFile.completedBlocks(String(decoding: bytes, as: UTF8.self), identity: run, output: "out", file: "state")
                #expect(blocks.allSatisfy { $0.key.isValid && $0.value.tiles >= 0 })
            } catch let error as MeridianError {
                #expect(error.kind == .badInput && error.location?.file == "state", "\(error)")
            } catch is TileOutputError {
                // Another run's state: refused as such.
            } catch {
                Issue.record("\(type(of: error)) \(error)")
            }
        }
    }

    /// Everything `tile info`, `tile copy` and `tile-join` read of the archive at `path`, each
    /// step timed; an error must be bad input naming the archive.
    static func readAsTheCommandsDo(_ path: String, in folder: String, round: Int) throws {
        let start = Date()
        do {
            _ = try TilePyramids.summary(path)
            let pyramid = try TilePyramids.open(path)
            let metadata = try pyramid.pyramidMetadata()
            #expect(MapTile.zoomLevels.contains(metadata.zooms.lowerBound) && MapTile.zoomLevels.contains(metadata.zooms.upperBound))
            #expect(metadata.bounds.south <= metadata.bounds.north && metadata.bounds.west.isFinite && metadata.bounds.east.isFinite)
            _ = try pyramid.statedCenter()
            for tile in try pyramid.tileAddresses(zooms: nil).prefix(64) {
                #expect(tile.isValid)
                if metadata.format == .mvt { _ = try pyramid.vectorTile(tile) } else { _ = try pyramid.uncompressedTile(tile) }
            }
            if round % 5 == 0 {
                let copy = folder + "/copy-\(round).pmtiles"
                defer { try? FileManager.default.removeItem(atPath: copy) }
                _ = try TileSinks.copy(pyramid, to: copy)
            }
            if round % 5 == 1 && metadata.format == .mvt {
                let joined = folder + "/joined-\(round).mbtiles"
                defer { try? FileManager.default.removeItem(atPath: joined) }
                _ = try TileJoin.join([pyramid], into: joined)
            }
        } catch let error as any MeridianFailure {
            #expect(error.kind == .badInput && error.location?.file == path, "round \(round): \(error.kind) \(error.message) at \(String(describing: error.location))")
        } catch {
            Issue.record("round \(round) of \(path): \(type(of: error)) \(error)")
        }
        #expect(Date().timeIntervalSince(start) < slowest, "round \(round) of \(path) took \(Date().timeIntervalSince(start)) s")
    }

    /// `bytes` with a few random changes: bytes set to extremes or random values, a range
    /// repeated, cut or removed, a little-endian 64-bit or 32-bit field of the first `header`
    /// bytes set to a random or extreme value.
    static func mutated(_ bytes: [UInt8], _ random: inout SplitMix, header: Int) -> [UInt8] {
        var out = bytes
        for _ in 0...random.below(4) where !out.isEmpty {
            let at = random.below(out.count)
            switch random.below(7) {
            case 0: out[at] = [0x00, 0xFF, 0x7F, 0x80, 0x01][random.below(5)]
            case 1: out[at] = UInt8(truncatingIfNeeded: random.next())
            case 2: out.removeSubrange(at..<min(out.count, at + 1 + random.below(16)))
            case 3: out.insert(contentsOf: out[at..<min(out.count, at + 1 + random.below(32))], at: random.below(out.count))
            case 4: out.removeSubrange(min(out.count, at + 1)...)
            default:
                guard header >= 16 else { out[at] ^= 1 << UInt8(random.below(8)); continue }
                let field = 8 + 8 * random.below((min(header, out.count) - 8) / 8)
                let extremes: [UInt64] = [0, 1, 127, UInt64(bytes.count), UInt64(Int64.max), UInt64.max, 1 << 32, UInt64(bytes.count) - 1]
                let value = random.below(2) == 0 ? extremes[random.below(extremes.count)] : random.next() >> UInt64(random.below(64))
                let width = random.below(2) == 0 ? 8 : 4
                for byte in 0..<width where field + byte < out.count { out[field + byte] = UInt8(truncatingIfNeeded: value >> UInt64(8 * byte)) }
            }
        }
        return out
    }

    /// A number for SQL: as is when SQLite reads it as one, else as text.
    static func sqlNumber(_ text: String) -> String {
        Double(text) != nil && !["nan", "inf"].contains(text) ? text : "'\(text)'"
    }
}

/// A small, seeded pseudo-random generator (SplitMix64), so every run mutates alike.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A number from 0 to `bound` - 1 (`bound` > 0).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }
}
