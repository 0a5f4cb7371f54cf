import Foundation
import MeridianFormats
import MeridianGeometry
import MeridianTestSupport
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

    /// Every tile of `level`, made whole, then by each of `count` shards.
    static func compare(_ layers: [(name: String, features: [Feature])], options: VectorTilingOptions, level: Int, count: Int) throws {
        let spill = try VectorFeatureSpill(layers: layers)
        var whole: [MapTile: [UInt8]] = [:]
        _ = try VectorTiler(features: spill, options: options).run(jobs: 2, level: level) { whole[$0] = $1 }
        var joined: [MapTile: [UInt8]] = [:]
        for index in 0..<count {
            let shard = try #require(TileShardOwnership(index: index, count: count))
            var made = 0
            let summary = try VectorTiler(features: spill, options: options).run(jobs: 2, level: level, shard: shard) { tile, bytes in
                #expect(shard.owns(tile), "shard \(shard) made \(tile), another's")
                #expect(joined.updateValue(bytes, forKey: tile) == nil, "\(tile) made twice")
                made += 1
            }
            #expect(summary.tiles == made)
            // About 1/N of the level (levels of a few tiles aside).
            if whole.count >= 40 { #expect(Double(made) < 2.0 * Double(whole.count) / Double(count), "shard \(shard): \(made) of \(whole.count)") }
        }
        #expect(joined.count == whole.count, "zoom \(level): shards made \(joined.count) tiles, one run \(whole.count)")
        for (tile, bytes) in whole { #expect(joined[tile] == bytes, "\(tile) differs") }
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
}
