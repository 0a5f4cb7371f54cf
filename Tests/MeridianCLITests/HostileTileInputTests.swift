import Foundation
import MeridianTiles
import Testing

/// Tile archives, tile folders and basemaps made to crash, hang or exhaust Meridian
/// (Tests/Fixtures/malformed-tiles, with the large ones made at run time by its make.py), run
/// end to end under an address-space limit and a time limit: each is refused with its status
/// (65) and an error naming the file, and leaves no output.
@Suite struct HostileTileInputTests {
    static let corpus = fixtures.appendingPathComponent("malformed-tiles")

    /// Runs `meridian` within 2 GiB of address space and 30 seconds (timeout's 124 past them).
    static func bounded(_ arguments: [String]) throws -> (result: RunResult, seconds: Double) {
        let start = Date()
        let result = try run("timeout", ["30", "prlimit", "--as=\(2 << 30)", meridianBinary] + arguments)
        return (result, Date().timeIntervalSince(start))
    }

    /// The command a row of expected.tsv names, on `input`, writing into `folder`.
    static func arguments(_ command: String, _ input: String, in folder: URL) -> [String] {
        switch command {
        case "tile-copy": ["tile-copy", input, folder.appendingPathComponent("out.pmtiles").path]
        case "tile-join": ["tile-join", input, "-o", folder.appendingPathComponent("out.mbtiles").path]
        case "convert": ["convert", input, "-o", folder.appendingPathComponent("out.geojson").path]
        case "info": ["info", input]
        default: ["render", packageRoot.appendingPathComponent("examples/data/lanai-harbours.geojson").path,
                  "--basemap", input, "-o", folder.appendingPathComponent("out.png").path]
        }
    }

    @Test func craftedTileArchivesAreRefusedInBoundedTimeAndMemory() throws {
        let rows = try fixtureTable("malformed-tiles/expected.tsv")
        try withTemporaryFolder { large in
            let made = try run("/usr/bin/python3", [Self.corpus.appendingPathComponent("make.py").path, "--large", large.path], in: Self.corpus)
            try #require(made.status == 0, "make.py --large: \(made.stderr)")
            for row in rows {
                let (name, command, expected) = (row[0], row[1], Int32(row[2]))
                let input = name.hasPrefix("large:") ? large.appendingPathComponent(String(name.dropFirst(6))).path
                    : Self.corpus.appendingPathComponent(name).path
                try withTemporaryFolder { output in
                    let (result, seconds) = try Self.bounded(Self.arguments(command, input, in: output))
                    #expect(result.status == expected, "\(name) \(command): \(result.status) after \(seconds) s: \(result.stderr.prefix(400))")
                    #expect(result.stderr.hasPrefix("meridian: error: \(input)"), "\(name) \(command): \(result.stderr.prefix(400))")
                    #expect(contents(of: output).isEmpty, "\(name) \(command)")
                }
            }
        }
    }

    /// A tile folder whose tile, or zoom folder, is a symbolic link (to /etc/passwd, to a folder
    /// elsewhere): `tile-copy` and `convert` refuse it naming the link, and nothing of what it
    /// points to reaches an output; a basemap folder's linked tile is refused the same way.
    @Test func linksInsideTileFoldersAreNotFollowed() throws {
        try withTemporaryFolder { folder in
            let tiles = folder.appendingPathComponent("tiles")
            let tile = VectorTile(layers: [.init(name: "p", features: [.init(type: .point, parts: [[SIMD2(10, 10)]])])]).encoded()
            try FileManager.default.createDirectory(at: tiles.appendingPathComponent("0/0"), withIntermediateDirectories: true)
            try Data("{\"format\":\"pbf\",\"minzoom\":0,\"maxzoom\":1}".utf8).write(to: tiles.appendingPathComponent("metadata.json"))
            try Data(tile).write(to: tiles.appendingPathComponent("0/0/0.pbf"))
            #expect(try meridian(["tile-copy", tiles.path, folder.appendingPathComponent("plain.mbtiles").path]).status == 0)

            // A zoom folder that is a link to a folder outside.
            let outside = folder.appendingPathComponent("outside/0")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            try Data(tile).write(to: outside.appendingPathComponent("0.pbf"))
            try FileManager.default.createSymbolicLink(atPath: tiles.appendingPathComponent("1").path, withDestinationPath: outside.deletingLastPathComponent().path)
            for (command, link) in [("tile-copy", "1"), ("convert", "1")] {
                try withTemporaryFolder { output in
                    let result = try meridian(Self.arguments(command, tiles.path, in: output))
                    #expect(result.status == ExitStatus.badInput, "\(command): \(result.stderr)")
                    #expect(result.stderr.hasPrefix("meridian: error: \(tiles.path)/\(link)"), "\(result.stderr)")
                    #expect(contents(of: output).isEmpty)
                }
            }
            try FileManager.default.removeItem(at: tiles.appendingPathComponent("1"))

            // A tile that is a link to /etc/passwd.
            try FileManager.default.removeItem(at: tiles.appendingPathComponent("0/0/0.pbf"))
            try FileManager.default.createSymbolicLink(atPath: tiles.appendingPathComponent("0/0/0.pbf").path, withDestinationPath: "/etc/passwd")
            for command in ["tile-copy", "convert"] {
                try withTemporaryFolder { output in
                    let result = try meridian(Self.arguments(command, tiles.path, in: output))
                    #expect(result.status == ExitStatus.badInput, "\(command): \(result.stderr)")
                    #expect(result.stderr.hasPrefix("meridian: error: \(tiles.path)/0/0/0.pbf"), "\(result.stderr)")
                    #expect(contents(of: output).isEmpty)
                }
            }

            // A basemap tile that is a link (to a good PNG); the folder's format is found from a
            // regular file in another column.
            let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP4z8DwHwAFAAIBpdXTqAAAAABJRU5ErkJggg==")!
            let basemap = folder.appendingPathComponent("basemap")
            for column in ["0/0", "0/1"] { try FileManager.default.createDirectory(at: basemap.appendingPathComponent(column), withIntermediateDirectories: true) }
            try png.write(to: basemap.appendingPathComponent("0/1/0.png"))
            try png.write(to: folder.appendingPathComponent("elsewhere.png"))
            try FileManager.default.createSymbolicLink(atPath: basemap.appendingPathComponent("0/0/0.png").path,
                                                       withDestinationPath: folder.appendingPathComponent("elsewhere.png").path)
            try withTemporaryFolder { output in
                let result = try meridian(Self.arguments("render", basemap.path, in: output))
                #expect(result.status == ExitStatus.badInput, "\(result.stderr)")
                #expect(result.stderr.hasPrefix("meridian: error: \(basemap.path)/0/0/0.png"), "\(result.stderr)")
                #expect(contents(of: output).isEmpty)
            }
        }
    }
}
