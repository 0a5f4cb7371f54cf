import Foundation
import MeridianFormats
import MeridianGeometry
@testable import MeridianTiles
import MeridianTestSupport
import Testing
import MeridianCore

/// `TileJoin` on small pyramids written here: layers of one name from two inputs, their extents
/// reconciled; table keys matched by their text. (End to end, with independent readers:
/// MeridianCLITests' TileJoinCommandTests.)
@Suite struct TileJoinTests {
    static let bounds = BoundingBox(west: -10, south: 40, east: 5, north: 50)
    static let address = MapTile(zoom: 3, x: 4, y: 2)

    /// A one-tile PMTiles archive at `path` holding `tile`.
    func pyramid(_ path: String, _ tile: VectorTile) throws -> any TilePyramidReader {
        try TileSinks.writeNew(path, format: .mvt) { store in
            try store(Self.address, tile.encoded())
            return TileSetMetadata(format: .mvt, name: "", description: "", bounds: Self.bounds, zooms: 3...3)
        }
        return try TilePyramids.open(path)
    }

    /// A layer of one name in two inputs, 4096 and 512 units across: the second's features are
    /// scaled into the first's grid, after the first's.
    @Test func sameLayerOfAnotherExtentIsRescaled() throws {
        try withTemporaryFolderPath { folder in
            let a = try pyramid(folder + "/a.pmtiles", VectorTile(layers: [.init(name: "roads", extent: 4096, features: [
                .init(id: 1, type: .lineString, parts: [[SIMD2(0, 0), SIMD2(4096, 4096)]])])]))
            let b = try pyramid(folder + "/b.pmtiles", VectorTile(layers: [.init(name: "roads", extent: 512, features: [
                .init(id: 2, type: .point, parts: [[SIMD2(100, -3)]], properties: [("name", .string("x"))])])]))
            let summary = try TileJoin.join([a, b], into: folder + "/out.mbtiles")
            #expect(summary.tiles == 1 && summary.features == 2 && summary.layers == 1)
            let out = try TilePyramids.open(folder + "/out.mbtiles")
            let bytes = try out.uncompressedTile(Self.address)
            let tile = try VectorTile(decoding: try #require(bytes))
            #expect(tile.layers.map(\.name) == ["roads"] && tile.layers[0].extent == 4096)
            #expect(tile.layers[0].features.map(\.id) == [1, 2])
            #expect(tile.layers[0].features[1].parts == [[SIMD2(800, -24)]])
            let metadata = try out.pyramidMetadata()
            #expect(metadata.zooms == 3...3 && metadata.vectorLayersJSON == "[{\"id\":\"roads\",\"fields\":{\"name\":\"String\"},\"minzoom\":3,\"maxzoom\":3}]")
            #expect(metadata.tileStatsJSON == "{\"layerCount\":1,\"layers\":[{\"layer\":\"roads\",\"count\":2,\"geometry\":\"Point\",\"attributeCount\":1,"
                    + "\"attributes\":[{\"attribute\":\"name\",\"count\":1,\"type\":\"string\",\"values\":[\"x\"]}]}]}")
        }
    }

    /// Extents that cannot be reconciled (a layer of no width) are bad input naming the tile and
    /// the input; nothing is written.
    @Test func unreconcilableExtentsAreBadInput() throws {
        try withTemporaryFolderPath { folder in
            let point = VectorTile.Feature(type: .point, parts: [[SIMD2(1, 1)]])
            let a = try pyramid(folder + "/a.pmtiles", VectorTile(layers: [.init(name: "p", extent: 4096, features: [point])]))
            let b = try pyramid(folder + "/b.pmtiles", VectorTile(layers: [.init(name: "p", extent: 0, features: [point])]))
            #expect { try TileJoin.join([a, b], into: folder + "/out.pmtiles") } throws: { error in
                let error = error as? MeridianError
                return error?.kind == .badInput && error?.location?.file == folder + "/b.pmtiles" && error?.message.contains("3/4/2") == true
            }
            #expect(!FileManager.default.fileExists(atPath: folder + "/out.pmtiles"))
        }
    }

    /// tippecanoe's MBTiles layout: `images` keyed by zoom level and id, ids repeating across
    /// levels. Each tile is listed once, with its own level's bytes, and joined once.
    @Test func tippecanoesMBTilesLayoutListsEachTileOnce() throws {
        try withTemporaryFolderPath { folder in
            let path = folder + "/tippecanoe.mbtiles"
            let tile = { (id: UInt64) in VectorTile(layers: [.init(name: "p", features: [.init(id: id, type: .point, parts: [[SIMD2(1, 1)]])])]).encoded() }
            let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02x", $0) }.joined() }
            let script = """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                db.executescript('''
                CREATE TABLE metadata (name text, value text);
                CREATE TABLE map (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_id TEXT);
                CREATE TABLE images (zoom_level integer, tile_data blob, tile_id text);
                CREATE VIEW tiles AS SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column, map.tile_row AS tile_row,
                    images.tile_data AS tile_data FROM map JOIN images ON images.tile_id = map.tile_id and images.zoom_level = map.zoom_level;
                INSERT INTO metadata VALUES ('format', 'pbf'), ('minzoom', '0'), ('maxzoom', '1');
                INSERT INTO map VALUES (0, 0, 0, 'a'), (1, 0, 0, 'a'), (1, 1, 1, 'b');
                ''')
                for zoom, id, data in [(0, 'a', sys.argv[2]), (1, 'a', sys.argv[3]), (1, 'b', sys.argv[4])]:
                    db.execute('INSERT INTO images VALUES (?, ?, ?)', (zoom, bytes.fromhex(data), id))
                db.commit()
                """
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = ["-c", script, path, hex(tile(10)), hex(tile(11)), hex(tile(12))]
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0)
            let file = try MBTilesFile(path: path)
            #expect(try file.tileAddresses(zooms: nil) == [MapTile(zoom: 0, x: 0, y: 0), MapTile(zoom: 1, x: 0, y: 1), MapTile(zoom: 1, x: 1, y: 0)])
            #expect(try file.tile(MapTile(zoom: 1, x: 0, y: 1)) == tile(11))
            let summary = try TileJoin.join([file], into: folder + "/out")
            #expect(summary.tiles == 3 && summary.features == 3)
            // A level a folder holds but its metadata does not state is in the joined set's zooms.
            try FileManager.default.createDirectory(atPath: folder + "/out/4/3", withIntermediateDirectories: true)
            try Data(tile(13)).write(to: URL(fileURLWithPath: folder + "/out/4/3/5.pbf"))
            try TileJoin.join([TilePyramids.open(folder + "/out")], into: folder + "/deeper.pmtiles")
            #expect(try TilePyramids.open(folder + "/deeper.pmtiles").pyramidMetadata().zooms == 0...4)
        }
    }

    /// Keys are matched by their text: a whole double as an integer, negative and unsigned
    /// numbers, booleans, strings as they are.
    @Test func keysAreMatchedByTheirText() {
        #expect(AttributeTable.keyText(.double(12)) == "12" && AttributeTable.keyText(.double(1.5)) == "1.5")
        #expect(AttributeTable.keyText(.sint(-4)) == "-4" && AttributeTable.keyText(.uint(7)) == "7")
        #expect(AttributeTable.keyText(.bool(true)) == "true" && AttributeTable.keyText(.string("FJI")) == "FJI")
        #expect(AttributeTable.keyText(.double(1e300)) != "")
    }

    /// A table's rows: typed cells, the first row of a key, empty cells left out; a row longer
    /// than the header is bad input at its line.
    @Test func tableRows() throws {
        try withTemporaryFolderPath { folder in
            let path = folder + "/t.csv"
            try "code,pop,flag,note\nA,12,true,\nB,x,,hi\nA,99,false,later\n".write(toFile: path, atomically: true, encoding: .utf8)
            let table = try AttributeTable(csv: path, key: nil)
            #expect(table.key == "code" && table.columns == ["pop", "flag", "note"] && table.rowCount == 2)
            let a = try #require(table.row(for: .string("A")))
            #expect(a.map(\.key) == ["pop", "flag"] && a.map(\.value) == [.uint(12), .bool(true)])
            #expect(table.row(for: .string("B"))?.map(\.value) == [.string("x"), .string("hi")])
            let byPop = try AttributeTable(csv: path, key: "pop")
            #expect(byPop.row(for: .double(12))?.map(\.key) == ["code", "flag"])
            try "a,b\n1,2,3\n".write(toFile: path, atomically: true, encoding: .utf8)
            #expect { try AttributeTable(csv: path, key: nil) } throws: { ($0 as? MeridianError)?.kind == .badInput && ($0 as? MeridianError)?.location?.line == 2 }
            #expect { try AttributeTable(csv: path, key: "c") } throws: { ($0 as? MeridianError)?.kind == .usage }
        }
    }
}
