import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
@testable import MeridianTiles
import MeridianTestSupport
import Testing

/// Reading tile pyramids back: PMTiles archives (root and leaf directories, runs), MBTiles
/// files and tile folders through one `TilePyramidReader`, and tiles written by one container
/// copied into another.
@Suite struct TilePyramidReaderTests {
    static let bounds = BoundingBox(west: -10, south: 40, east: 5, north: 50)

    /// A PMTiles header and a folder's metadata.json give way to the tiles, as an MBTiles
    /// metadata table does (one rule, `TileSetMetadata.agreeing(with:boundsStated:)`): over tiles
    /// 0/0/0 and 1/1/1 (the south-east quarter), zooms 0-14 stated are 0-1, world bounds stated
    /// are the quarter's, and a center at zoom 12 or outside the tiles is not the pyramid's (the
    /// header's 0-14 and a center at 100, 10, 12 came back as they were, and tile-copy wrote them on).
    @Test func headersAndMetadataJSONGiveWayToTheTiles() throws {
        try withTemporaryFolderPath { folder in
            let tiles = [MapTile(zoom: 0, x: 0, y: 0), MapTile(zoom: 1, x: 1, y: 1)]
            let world = BoundingBox(west: -180, south: -85, east: 180, north: 85)
            let quarter = BoundingBox(west: 0, south: -85, east: 180, north: 0)
            // PMTiles, its header's zooms 0-14 and its center (header bytes 118-126) set by hand.
            let archive = folder + "/lying.pmtiles"
            let writer = try PMTilesWriter(path: archive, format: .png, tilesGzipped: false)
            for tile in tiles { try writer.write(tile, [0x89, 0x50, UInt8(tile.zoom)]) }
            try writer.finish(metadataJSON: "{}", bounds: world, zooms: 0...14)
            func setCenter(_ longitude: Double, _ latitude: Double, _ zoom: UInt8) throws {
                var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: archive)))
                bytes[118] = zoom
                for (at, value) in [(119, longitude), (123, latitude)] {
                    withUnsafeBytes(of: Int32((value * 10_000_000).rounded()).littleEndian) { for (i, byte) in $0.enumerated() { bytes[at + i] = byte } }
                }
                try Data(bytes).write(to: URL(fileURLWithPath: archive))
            }
            try setCenter(100, 10, 12)
            #expect(try PMTilesFile(path: archive).zooms == 0...14, "the header states 0-14")
            // A folder whose metadata.json states the same.
            let tileFolder = folder + "/lying"
            for tile in tiles {
                try FileManager.default.createDirectory(atPath: tileFolder + "/\(tile.zoom)/\(tile.x)", withIntermediateDirectories: true)
                try Data([0x89, 0x50]).write(to: URL(fileURLWithPath: tileFolder + "/\(tile.zoom)/\(tile.x)/\(tile.y).png"))
            }
            func setMetadata(center: String) throws {
                try """
                    {"tilejson": "3.0.0", "tiles": ["{z}/{x}/{y}.png"], "format": "png", "minzoom": 0, "maxzoom": 14,
                     "bounds": [-180, -85, 180, 85], "center": [\(center)]}
                    """.write(toFile: tileFolder + "/metadata.json", atomically: true, encoding: .utf8)
            }
            try setMetadata(center: "100, 10, 12")
            for path in [archive, tileFolder] {
                let pyramid = try TilePyramids.open(path)
                let metadata = try pyramid.pyramidMetadata()
                #expect(metadata.zooms == 0...1, "\(path)")
                #expect(metadata.bounds == quarter, "\(path): \(metadata.bounds)")
                #expect(try pyramid.statedCenter() == nil, "\(path)")
                #expect(try pyramid.tileExtent()?.zooms == 0...1, "\(path)")
                #expect(try pyramid.zoomLevels() == [0, 1], "\(path)")
            }
            // Levels between the lowest and the deepest may be empty.
            let gap = folder + "/gap.pmtiles"
            let gapWriter = try PMTilesWriter(path: gap, format: .png, tilesGzipped: false)
            for tile in [MapTile(zoom: 2, x: 1, y: 1), MapTile(zoom: 4, x: 3, y: 3), MapTile(zoom: 4, x: 9, y: 2)] {
                try gapWriter.write(tile, [0x89, 0x50, UInt8(tile.x)])
            }
            try gapWriter.finish(metadataJSON: "{}", bounds: world, zooms: 0...14)
            #expect(try PMTilesFile(path: gap).zoomLevels() == [2, 4])
            try setCenter(5, -5, 1)
            try setMetadata(center: "5, -5, 1")
            for path in [archive, tileFolder] {
                #expect(try TilePyramids.open(path).statedCenter() == TileSetCenter(longitude: 5, latitude: -5, zoom: 1), "\(path)")
            }
            // What a copy states is what the tiles hold.
            let copy = folder + "/copy.mbtiles"
            _ = try TileSinks.copy(try TilePyramids.open(archive), to: copy)
            let copied = try MBTilesFile(path: copy)
            #expect(copied.metadata["maxzoom"] == "1" && copied.metadata["minzoom"] == "0", "\(copied.metadata)")
        }
    }

    /// Every tile of zooms 0-5 (some sharing content, in runs), in an archive small enough for
    /// one root directory and in one forced into leaf directories.
    @Test(arguments: [16_384, 300])
    func pmtilesArchivesReadBack(rootLimit: Int) throws {
        try withTemporaryFolderPath { folder in
            let path = folder + "/t.pmtiles"
            let writer = try PMTilesWriter(path: path, format: .png, tilesGzipped: false, rootLimit: rootLimit)
            var expected: [MapTile: [UInt8]] = [:]
            for zoom in 0...5 {
                for x in 0..<(1 << zoom) {
                    for y in 0..<(1 << zoom) where (x + y) % 3 != 0 || zoom < 2 {
                        let tile = MapTile(zoom: zoom, x: x, y: y)
                        // Every other tile the same bytes: runs and shared contents.
                        let bytes: [UInt8] = y % 2 == 0 ? [7, 7, 7] : [UInt8(zoom), UInt8(x), UInt8(y)]
                        try writer.write(tile, bytes)
                        expected[tile] = bytes
                    }
                }
            }
            try writer.finish(metadataJSON: "{\"name\":\"grid\",\"description\":\"a test\"}", bounds: Self.bounds, zooms: 0...5)

            let archive = try PMTilesFile(path: path)
            #expect(archive.tileType == .png && archive.tileCompression == .none && archive.zooms == 0...5)
            #expect(abs(archive.bounds.west + 10) < 1e-7 && abs(archive.bounds.north - 50) < 1e-7)
            let addresses = try archive.tileAddresses(zooms: nil)
            #expect(Set(addresses) == Set(expected.keys) && addresses.count == expected.count)
            #expect(try archive.tileAddresses(zooms: 2...2).count == expected.keys.filter { $0.zoom == 2 }.count)
            for (tile, bytes) in expected { #expect(try archive.tile(tile) == bytes, "\(tile)") }
            #expect(try archive.tile(MapTile(zoom: 3, x: 0, y: 0)) == nil && archive.tile(MapTile(zoom: 9, x: 1, y: 1)) == nil)
            let metadata = try archive.pyramidMetadata()
            #expect(metadata.name == "grid" && metadata.description == "a test" && metadata.format == .png && metadata.vectorLayersJSON == nil)
        }
    }

    static let python = packageRoot.appendingPathComponent(".build/python-checks/bin/python").path

    /// An archive written by PyPI's pmtiles (the format's reference implementation), every tile
    /// of zooms 0-7 different, so that its root points to leaf directories.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: python), "needs Scripts/bootstrap --test"))
    func pmtilesWrittenByThePMTilesPackage() throws {
        try withTemporaryFolderPath { folder in
            let path = folder + "/py.pmtiles"
            let script = """
                import sys
                from pmtiles.writer import Writer
                from pmtiles.tile import zxy_to_tileid, TileType, Compression
                with open(sys.argv[1], 'wb') as f:
                    w = Writer(f)
                    for z in range(8):
                        for x in range(2 ** z):
                            for y in range(2 ** z):
                                w.write_tile(zxy_to_tileid(z, x, y), f'{z}/{x}/{y}'.encode())
                    w.finalize({'tile_type': TileType.PNG, 'tile_compression': Compression.NONE, 'min_lon_e7': -1800000000,
                                'min_lat_e7': -850000000, 'max_lon_e7': 1800000000, 'max_lat_e7': 850000000,
                                'center_zoom': 0, 'center_lon_e7': 0, 'center_lat_e7': 0}, {'name': 'python', 'format': 'png'})
                """
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.python)
            process.arguments = ["-c", script, path]
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let archive = try PMTilesFile(path: path)
            let addresses = try archive.tileAddresses(zooms: nil)
            #expect(addresses.count == (0..<8).reduce(0) { $0 + (1 << (2 * $1)) })
            for tile in addresses { #expect(try archive.tile(tile) == Array("\(tile.zoom)/\(tile.x)/\(tile.y)".utf8)) }
            let metadata = try archive.pyramidMetadata()
            #expect(metadata.name == "python" && metadata.format == .png && metadata.zooms == 0...7 && metadata.bounds.west == -180)
        }
    }

    /// Tile ids back to tiles: the inverse of the writer's Hilbert numbering.
    @Test func tileIDsBackToTiles() {
        for zoom in [0, 1, 2, 5, 12, 30] {
            let n = 1 << zoom
            for (x, y) in [(0, 0), (n - 1, 0), (0, n - 1), (n - 1, n - 1), (n / 3, n / 2), (n / 2, n / 7)] {
                let tile = MapTile(zoom: zoom, x: x, y: y)
                #expect(PMTilesFile.tile(id: PMTilesWriter.tileID(tile)) == tile)
            }
        }
        #expect(PMTilesFile.tile(id: 0) == MapTile(zoom: 0, x: 0, y: 0) && PMTilesFile.tile(id: 1) == MapTile(zoom: 1, x: 0, y: 0))
    }

    /// Not an archive, or cut short: bad input naming the file, never a crash.
    @Test func damagedArchivesAreBadInput() throws {
        try withTemporaryFolderPath { folder in
            let path = folder + "/bad.pmtiles"
            try Data("not an archive at all".utf8).write(to: URL(fileURLWithPath: path))
            #expect { try PMTilesFile(path: path) } throws: { ($0 as? MeridianError)?.kind == .badInput }
            #expect { try PMTilesFile(path: folder + "/missing.pmtiles") } throws: { ($0 as? MeridianError)?.kind == .inputUnavailable }
            let good = folder + "/good.pmtiles"
            let writer = try PMTilesWriter(path: good, format: .mvt, tilesGzipped: true)
            try writer.write(MapTile(zoom: 0, x: 0, y: 0), Gzip.compress([1, 2, 3]))
            try writer.finish(metadataJSON: "{}", bounds: Self.bounds, zooms: 0...0)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
            try bytes.prefix(140).write(to: URL(fileURLWithPath: path))
            #expect { try PMTilesFile(path: path) } throws: { ($0 as? MeridianError)?.kind == .badInput }
        }
    }

    /// Damaged vector tiles (not a protocol buffer, a layer of no width, a layer wider than the
    /// joiner's units) are bad input naming the tile, never a crash.
    @Test func damagedVectorTilesAreBadInput() throws {
        let point = VectorTile.Feature(id: 1, type: .point, parts: [[SIMD2(1, 1)]])
        let contents: [[UInt8]] = [[0x1a, 0xff, 0x01], VectorTile(layers: [.init(name: "a", extent: 0, features: [point])]).encoded(),
                                   VectorTile(layers: [.init(name: "a", extent: 1 << 40, features: [point])]).encoded()]
        for bytes in contents {
            try withTemporaryFolderPath { folder in
                try TileSinks.writeNew(folder + "/t.pmtiles", format: .mvt) { store in
                    try store(MapTile(zoom: 2, x: 1, y: 1), bytes)
                    return TileSetMetadata(format: .mvt, name: "", description: "", bounds: Self.bounds, zooms: 2...2)
                }
                #expect { try TiledFeatureJoiner.features(of: TilePyramids.open(folder + "/t.pmtiles"), zoom: nil) } throws: { error in
                    let error = error as? MeridianError
                    return error?.kind == .badInput && error?.message.contains("2/1/1") == true
                }
            }
        }
    }

    /// gzip both ways.
    @Test func gzipRoundTrip() throws {
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 7 / 3) }
        #expect(try Gzip.decompress(Gzip.compress(bytes), limit: 1 << 20) == bytes)
        #expect(try Gzip.decompress(Gzip.compress([]), limit: 1 << 20) == [])
        #expect(throws: MeridianError.self) { try Gzip.decompress([0x1f, 0x8b, 1, 2, 3], limit: 1 << 20) }
    }

    /// A vector pyramid written into each container reads back the same: tiles uncompressed,
    /// name, bounds, zooms, layers and tilestats.
    @Test(arguments: ["tiles", "tiles.mbtiles", "tiles.pmtiles"])
    func everyContainerReadsBackTheSame(name: String) throws {
        try withTemporaryFolderPath { folder in
            let path = folder + "/" + name
            let tiles: [MapTile: [UInt8]] = [MapTile(zoom: 1, x: 0, y: 1): [1, 2], MapTile(zoom: 2, x: 3, y: 0): [3], MapTile(zoom: 2, x: 1, y: 2): [4, 5, 6]]
            let layers = "[{\"id\":\"roads\",\"fields\":{\"name\":\"String\"},\"minzoom\":1,\"maxzoom\":2}]"
            let metadata = TileSetMetadata(format: .mvt, name: "roads", description: "a test", bounds: Self.bounds, zooms: 1...2,
                                               vectorLayersJSON: layers, tileStatsJSON: "{\"layerCount\":1,\"layers\":[]}")
            try TileSinks.writeNew(path, format: .mvt) { store in
                for (tile, bytes) in tiles { try store(tile, bytes) }
                return metadata
            }

            let reader = try TilePyramids.open(path)
            #expect(try reader.pyramidMetadata() == metadata)
            #expect(try Set(reader.tileAddresses(zooms: nil)) == Set(tiles.keys))
            #expect(try reader.tileAddresses(zooms: 2...2).count == 2)
            for (tile, bytes) in tiles { #expect(try reader.uncompressedTile(tile) == bytes) }
            #expect(try reader.tile(MapTile(zoom: 0, x: 0, y: 0)) == nil)
        }
    }

    /// A folder in TMS rows (as `meridian tile --tms` writes) is read by XYZ address.
    @Test func tmsFoldersAreReadByXYZAddress() throws {
        try withTemporaryFolderPath { folder in
            try FileManager.default.createDirectory(atPath: folder + "/t/3/2", withIntermediateDirectories: true)
            try Data([9]).write(to: URL(fileURLWithPath: folder + "/t/3/2/6.png"))
            try Data("{\"scheme\":\"tms\",\"format\":\"png\",\"minzoom\":3,\"maxzoom\":3}".utf8).write(to: URL(fileURLWithPath: folder + "/t/metadata.json"))
            let reader = try TilePyramids.open(folder + "/t")
            #expect(try reader.tileAddresses(zooms: nil) == [MapTile(zoom: 3, x: 2, y: 1)])
            #expect(try reader.tile(MapTile(zoom: 3, x: 2, y: 1)) == [9])
        }
    }
}
