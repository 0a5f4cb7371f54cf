import Foundation
import MeridianFormats
import MeridianGeometry
import MeridianTestSupport
import Synchronization
import Testing
@testable import MeridianTiles

/// A shard of a run split N ways makes only its own tiles (`TileShardOwnership`): each the very
/// bytes a run of every tile makes, together every tile once, and each shard about 1/N of a
/// level's, with the options whose choices look beyond one feature (tiny polygons' squares,
/// point thinning and clusters, tiles fitted under the limits by dropping or merging).
@Suite struct VectorTilerShardTests {
    static func features(_ path: String) throws -> [Feature] {
        let reader = GeoJSONReader(input: try BufferedInput.open(fixture(path)))
        var features: [Feature] = []
        while let feature = try reader.next() { features.append(feature) }
        return features
    }

    /// Polygons far smaller than a tile unit at zoom 3, spread over the world: at that level
    /// they add up into squares, each square depending on the polygons before it.
    static var tinyPolygons: [Feature] {
        (0..<400).map { i in
            let lon = Double(i % 40) * 9 - 179, lat = Double(i / 40) * 14 - 70, side = 0.0005
            let ring = [Position(longitude: lon, latitude: lat), Position(longitude: lon + side, latitude: lat),
                        Position(longitude: lon + side, latitude: lat + side), Position(longitude: lon, latitude: lat + side),
                        Position(longitude: lon, latitude: lat)]
            return Feature(geometry: .polygon(Polygon([ring])), properties: nil)
        }
    }

    /// Tiles stored from several threads at once (`VectorTiler.runStoringOnWorkers(jobs:level:shard:_:)`),
    /// and how many were stored by the thread that asked for them.
    final class StoredTiles: Sendable {
        let tiles = Mutex<[MapTile: [UInt8]]>([:])
        let twice = Mutex<[MapTile]>([])
        let onCallingThread = Mutex(0)
        let callingThread = Mutex(ObjectIdentifier(Thread.current))

        func store(_ tile: MapTile, _ bytes: [UInt8]) {
            if tiles.withLock({ $0.updateValue(bytes, forKey: tile) }) != nil { twice.withLock { $0.append(tile) } }
            if ObjectIdentifier(Thread.current) == callingThread.withLock({ $0 }) { onCallingThread.withLock { $0 += 1 } }
        }
    }

    /// Every tile of `level`, made whole (each tile handed to the calling thread), then by each of
    /// `count` shards (each tile stored by the thread that made it): the same tiles, byte for byte.
    static func compare(_ layers: [(name: String, features: [Feature])], options: VectorTilingOptions, level: Int, count: Int) throws {
        let spill = try VectorFeatureSpill(layers: layers)
        var whole: [MapTile: [UInt8]] = [:]
        _ = try VectorTiler(features: spill, options: options).run(jobs: 2, level: level) { whole[$0] = $1 }
        var joined: [MapTile: [UInt8]] = [:]
        for index in 0..<count {
            let shard = try #require(TileShardOwnership(index: index, count: count))
            let stored = StoredTiles()
            let summary = try VectorTiler(features: spill, options: options).runStoringOnWorkers(jobs: 2, level: level, shard: shard, stored.store)
            #expect(stored.twice.withLock { $0 }.isEmpty, "stored twice: \(stored.twice.withLock { $0 })")
            let made = stored.tiles.withLock { $0 }
            for (tile, bytes) in made {
                #expect(shard.owns(tile), "shard \(shard) made \(tile), another's")
                #expect(joined.updateValue(bytes, forKey: tile) == nil, "\(tile) made twice")
            }
            let madeCount = made.count
            #expect(summary.tiles == madeCount)
            // About 1/N of the level (levels of a few tiles aside).
            if whole.count >= 40 { #expect(Double(madeCount) < 2.0 * Double(whole.count) / Double(count), "shard \(shard): \(madeCount) of \(whole.count)") }
        }
        #expect(joined.count == whole.count, "zoom \(level): shards made \(joined.count) tiles, one run \(whole.count)")
        for (tile, bytes) in whole { #expect(joined[tile] == bytes, "\(tile) differs") }
    }

    /// Stored by the threads that make them, a level's tiles are the very bytes handed to the
    /// calling thread, each once, and none is stored by the calling thread (which only counts
    /// them) unless the level is made again from a scratch file.
    @Test func tilesStoredByTheThreadsThatMakeThemAreTheCallingThreadsTiles() throws {
        let spill = try VectorFeatureSpill(layers: [("countries", try Self.features("geojson/ne_10m_countries_sample.geojson"))])
        let options = VectorTilingOptions(zooms: 0...5)
        var whole: [MapTile: [UInt8]] = [:]
        let summary = try VectorTiler(features: spill, options: options).run(jobs: 2) { whole[$0] = $1 }
        let stored = StoredTiles()
        let storedSummary = try VectorTiler(features: spill, options: options).runStoringOnWorkers(jobs: 2, stored.store)
        #expect(stored.twice.withLock { $0 }.isEmpty)
        #expect(stored.onCallingThread.withLock { $0 } == 0)
        #expect(storedSummary.tilesPerZoom == summary.tilesPerZoom)
        #expect(whole.count > 50)
        #expect(stored.tiles.withLock { $0 } == whole)
    }

    @Test(arguments: [2, 3])
    func shardsMakeOneRunsTilesOfCountries(count: Int) throws {
        let countries = try Self.features("geojson/ne_10m_countries_sample.geojson")
        for level in 0...7 {
            try Self.compare([("countries", countries)], options: VectorTilingOptions(zooms: 0...7), level: level, count: count)
        }
    }

    @Test func tinyPolygonsSquaresAreOneRunsInEveryShard() throws {
        for level in 2...4 {
            try Self.compare([("tiny", Self.tinyPolygons)], options: VectorTilingOptions(zooms: 0...6), level: level, count: 3)
        }
    }

    @Test(arguments: [OverLimitStrategy.dropDensest, .coalesceDensest, .dropFraction])
    func thinnedClusteredAndFittedPointsAreOneRunsInEveryShard(strategy: OverLimitStrategy) throws {
        let points = try Self.features("geojson/drop-rate-points.geojson")
        let countries = try Self.features("geojson/ne_10m_countries_sample.geojson")
        var options = VectorTilingOptions(zooms: 0...9, maximumTileBytes: 6_000)
        options.overLimit = strategy
        options.clustering = PointClustering(distance: 20, accumulations: ["pop": .sum])
        for level in [1, 4, 9] {
            try Self.compare([("countries", countries), ("points", points)], options: options, level: level, count: 3)
        }
    }

    /// A level is thinned as a whole (and a shard makes all of it) only when its features could
    /// go over the limits in one tile; the bound is never under what a tile takes: a level
    /// said not to go over has no tile over the limits, whatever the limits.
    /// A shard of a level thinned as a whole makes, beyond its own tiles, only the other
    /// shards' tiles that may go over the limits (which set the level's threshold), not the
    /// whole level: its tiles are still one run's, byte for byte.
    @Test func aShardOfALevelThinnedWholeMakesOnlyTheOtherTilesThatMayGoOver() throws {
        let points = try Self.features("geojson/drop-rate-points.geojson")
        let countries = try Self.features("geojson/ne_10m_countries_sample.geojson")
        let options = VectorTilingOptions(zooms: 0...9, maximumTileBytes: 6_000)
        let spill = try VectorFeatureSpill(layers: [("countries", countries), ("points", points)])
        for level in [4, 6, 9] {
            let tiler = VectorTiler(features: spill, options: options)
            #expect(try tiler.levelMayExceedLimits(zoom: level))
            let whole = try tiler.run(jobs: 2, level: level) { _, _ in }
            for index in 0..<3 {
                let shard = try #require(TileShardOwnership(index: index, count: 3))
                let own = try tiler.run(jobs: 2, level: level, shard: shard) { _, _ in }
                // About a third of the level, and the few tiles dense enough to go over.
                #expect(Double(own.tiles + own.tilesMadeForOtherShards) < 0.6 * Double(whole.tiles),
                        "zoom \(level), shard \(index): \(own.tiles) + \(own.tilesMadeForOtherShards) of \(whole.tiles)")
            }
            try Self.compare([("countries", countries), ("points", points)], options: options, level: level, count: 3)
        }
    }

    /// A level of 1,600 tiles, one point at the centre of each, made on two threads: each
    /// thread hands its tiles over in several batches (`VectorTiler.handOffTiles` tiles, or
    /// `handOffBytes` bytes of tiles with large properties), and every tile is handed over
    /// once, to the calling thread and by the threads that store them alike, the same bytes as
    /// one thread makes. With the smaller properties the level may go over the limits: its
    /// tiles then wait in a scratch file before they are handed over.
    @Test(arguments: [(propertyBytes: 0, maximumTileBytes: 500_000), (propertyBytes: 4_000, maximumTileBytes: 100_000_000)])
    func everyTileOfSeveralHandOffsIsHandedOverOnce(propertyBytes: Int, maximumTileBytes: Int) throws {
        let zoom = 10
        var expected: Set<MapTile> = []
        var points: [Feature] = []
        for column in 0..<40 {
            for row in 0..<40 {
                let tile = MapTile(zoom: zoom, x: 8 * column + 3, y: 8 * row + 300), rect = tile.mapRect
                expected.insert(tile)
                let centre = MapPoint(x: (rect.minX + rect.maxX) / 2, y: (rect.minY + rect.maxY) / 2).position
                points.append(Feature(geometry: .point(Point(centre)),
                                      properties: ["n": .integer(Int64(points.count)), "text": .string(String(repeating: "x", count: propertyBytes))]))
            }
        }
        let spill = try VectorFeatureSpill(layers: [("points", points)])
        let tiler = VectorTiler(features: spill, options: VectorTilingOptions(zooms: 0...zoom, maximumTileBytes: maximumTileBytes))
        #expect(try tiler.levelMayExceedLimits(zoom: zoom) == (maximumTileBytes < 1_000_000))
        // Each thread's share is several hand-offs, whichever limit ends them.
        #expect(expected.count > 4 * VectorTiler.handOffTiles)
        if propertyBytes > 0 { #expect(expected.count * propertyBytes > 4 * VectorTiler.handOffBytes) }

        var oneThread: [MapTile: [UInt8]] = [:]
        _ = try tiler.run(jobs: 1, level: zoom) { oneThread[$0] = $1 }
        #expect(Set(oneThread.keys) == expected)

        var handedOver: [MapTile: [UInt8]] = [:], twice: [MapTile] = []
        let summary = try tiler.run(jobs: 2, level: zoom) { tile, bytes in
            if handedOver.updateValue(bytes, forKey: tile) != nil { twice.append(tile) }
        }
        #expect(twice.isEmpty, "handed over twice: \(twice)")
        #expect(summary.tilesPerZoom[zoom] == expected.count)
        #expect(handedOver == oneThread)

        let stored = StoredTiles()
        let storedSummary = try tiler.runStoringOnWorkers(jobs: 2, level: zoom, stored.store)
        #expect(stored.twice.withLock { $0 }.isEmpty, "stored twice: \(stored.twice.withLock { $0 })")
        #expect(storedSummary.tilesPerZoom[zoom] == expected.count)
        #expect(stored.tiles.withLock { $0 } == oneThread)
    }

    @Test func levelsThatCannotGoOverTheLimitsAreMadeOnce() throws {
        let countries = try Self.features("geojson/ne_10m_countries_sample.geojson")
        let spill = try VectorFeatureSpill(layers: [("countries", countries)])
        #expect(try !VectorTiler(features: spill, options: VectorTilingOptions(zooms: 0...7)).levelMayExceedLimits(zoom: 7))
        var fewFeatures = VectorTilingOptions(zooms: 0...7)
        fewFeatures.limits.maximumFeatures = 12
        #expect(try VectorTiler(features: spill, options: fewFeatures).levelMayExceedLimits(zoom: 0))
        var madeOnce = 0
        for bytes in [40_000, 300_000, 500_000, 2_000_000] {
            let options = VectorTilingOptions(zooms: 0...5, maximumTileBytes: bytes)
            let tiler = VectorTiler(features: spill, options: options)
            for level in 0...5 where try !tiler.levelMayExceedLimits(zoom: level) {
                madeOnce += 1
                var largest = 0
                let summary = try tiler.run(jobs: 2, level: level) { _, tile in largest = max(largest, tile.count) }
                #expect(summary.tilesOverLimit == 0 && largest <= bytes, "zoom \(level), \(bytes) bytes: \(largest)")
            }
        }
        #expect(madeOnce >= 12)   // every level under the two largest limits
    }
}
