import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
@testable import MeridianTiles
import MeridianTestSupport
import Testing

/// The limits a tile file Meridian did not write meets (``TileInputLimits``), at the level of
/// the readers; Tests/MeridianCLITests/HostileTileInputTests runs the crafted files end to end.
@Suite struct UntrustedTileInputTests {
    /// A query that would run without end (a recursive common table expression, as a view in a
    /// hostile file would hold) is stopped by the progress handler: bad input, in bounded time.
    @Test func aQueryThatNeverReturnsARowIsStopped() throws {
        let file = try MBTilesFile(path: fixture("fuzz-seeds/mbtiles/vector.mbtiles"))
        let start = Date()
        #expect { try file.rows("WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n") { _ in } } throws: {
            ($0 as? MeridianError)?.kind == .badInput
        }
        #expect(Date().timeIntervalSince(start) < 120)
    }

    /// The deduplicating layout (`tiles` a view over the tables `map` and `images`) is read
    /// through Meridian's own join; a `tiles` view of any other shape is refused.
    @Test func theMapAndImagesLayoutIsReadAndOtherViewsAreNot() throws {
        let file = try MBTilesFile(path: fixture("fuzz-seeds/mbtiles/map-images.mbtiles"))
        #expect(try file.tileAddresses(zooms: nil).count == 3)
        #expect(try file.zoomLevels() == [0, 1])
        #expect(try file.tile(MapTile(zoom: 1, x: 0, y: 1)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect { try MBTilesFile(path: fixture("malformed-tiles/mbtiles/tiles-recursive-view.mbtiles")) } throws: {
            ($0 as? MeridianError)?.kind == .badInput
        }
    }

    /// `--finish` joining shards attaches each shard's file: one whose `tiles` is a view that
    /// never ends is refused before it is attached.
    @Test func aShardWhoseTilesAreARecursiveViewIsRefused() throws {
        try withTemporaryFolderPath { folder in
            let writer = try MBTilesWriter(path: folder + "/joined.mbtiles", resume: false, run: [("kind", "test")]) { _ in }
            let part = fixture("malformed-tiles/mbtiles/tiles-recursive-view.mbtiles")
            #expect { try writer.copyTiles(from: part, run: [("kind", "test")], format: "png", belongs: { _ in true }) } throws: {
                ($0 as? MeridianError)?.kind == .badInput
            }
        }
    }

    /// A tile of more layers, or features, than ``TileInputLimits`` allows is refused however
    /// few bytes each takes (an empty layer is two bytes).
    @Test func vectorTileCountsAreBounded() throws {
        let layers = Array([[UInt8]](repeating: [0x1a, 0x00], count: TileInputLimits.layersPerTile + 1).joined())
        #expect { try VectorTile(decoding: layers) } throws: { ($0 as? MeridianError)?.kind == .badInput }
        #expect(try VectorTile(decoding: Array(layers.prefix(2 * TileInputLimits.layersPerTile))).layers.count == TileInputLimits.layersPerTile)
        // One layer of empty point features: 4 bytes each (field 2, length 2, type 1).
        var features = ProtobufWriter()
        for _ in 0...TileInputLimits.featuresPerTile { features.message(2, [0x18, 0x01]) }
        var tile = ProtobufWriter()
        tile.message(3, features.bytes)
        #expect { try VectorTile(decoding: tile.bytes) } throws: { ($0 as? MeridianError)?.kind == .badInput }
    }

    /// gzip data that inflates past its limit is refused there.
    @Test func inflatingStopsAtTheLimit() throws {
        let zeros = try Gzip.compress([UInt8](repeating: 0, count: 3 << 20))
        #expect { try Gzip.decompress(zeros, limit: 1 << 20) } throws: { ($0 as? MeridianError)?.kind == .badInput }
        #expect(try Gzip.decompress(zeros, limit: 3 << 20).count == 3 << 20)
    }

    /// Zoom levels and bounds as metadata states them: whole levels 0-30, finite bounds within
    /// the world's degrees; anything else is bad input naming the file.
    @Test func statedMetadataNumbersAreChecked() throws {
        #expect(try TileSetMetadata.statedZooms(minimum: 2, maximum: 5, in: "m") == 2...5)
        #expect(try TileSetMetadata.statedZooms(minimum: nil, maximum: 5, in: "m") == nil)
        for (low, high) in [(-1.0, 3.0), (0, 31), (1e300, 2), (.nan, 2), (0.5, 2)] {
            #expect { try TileSetMetadata.statedZooms(minimum: low, maximum: high, in: "m") } throws: {
                ($0 as? MeridianError)?.kind == .badInput && ($0 as? MeridianError)?.location?.file == "m"
            }
        }
        #expect(try TileSetMetadata.statedBounds([170, -10, -170, 10], in: "m").west == 170)
        for bounds in [[.nan, 0, 1, 1], [.infinity, 0, 1, 1], [-1000, 0, 1, 1], [0, 10, 1, -10], [0, -91, 1, 1]] as [[Double]] {
            #expect { try TileSetMetadata.statedBounds(bounds, in: "m") } throws: { ($0 as? MeridianError)?.kind == .badInput }
        }
    }
}
