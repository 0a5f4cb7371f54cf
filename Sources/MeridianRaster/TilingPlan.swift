import Foundation
import GDALSupport
import MeridianFormats

/// What a tiling run would do, worked out without tiling (`meridian tile --plan`): each chart's
/// scale, native zoom, bounds and the zooms at which it is on top, the tiles per zoom level, and
/// the time and disk the run would take, estimated from a few sample tiles of each chart.
public struct TilingPlan: Sendable, Codable, Equatable {
    /// One chart of the catalog.
    public struct Chart: Sendable, Codable, Equatable {
        /// The file name without its extension.
        public var name: String
        /// The path as given.
        public var path: String
        /// The chart's scale denominator (a BSB chart's `KNP/SC=`), when the file says it.
        public var scale: Int?
        /// The deepest zoom level the chart has detail for (gdal2tiles' maximum for it alone).
        public var nativeZoom: Int
        /// The zoom levels gdal2tiles would tile the chart to alone, `[min, max]`.
        public var zoomsAlone: [Int]
        /// The zoom levels of the run at which the chart is on top of every chart it overlaps
        /// (elsewhere it shows only where those have no data); empty when it never is.
        public var onTop: [Int]
        /// West, south, east, north in degrees (the cut collar's bounds for a BSB chart).
        public var bounds: [Double]
    }

    /// The charts, in the order given.
    public var charts: [Chart]
    /// How overlapping charts are quilted.
    public var quilt: String
    /// How many levels deeper than its native zoom a chart shows at most (nil: no limit).
    public var overzoom: Int?
    /// The run's zoom levels, `[min, max]`.
    public var zooms: [Int]
    /// Tiles with data at most, per zoom level (as strings, JSON's keys); tiles that turn out fully
    /// transparent are not written, so a run may write fewer.
    public var tilesPerZoom: [String: Int]
    /// Their sum.
    public var tiles: Int
    /// The run's estimated wall time in seconds, with `jobs` threads.
    public var estimatedSeconds: Double
    /// The tiles' estimated size on disk in bytes.
    public var estimatedBytes: Int
    /// The sample tiles the estimates come from (warped, encoded, timed and measured).
    public var sampleTiles: Int
    /// Threads the estimate assumes.
    public var jobs: Int
}

extension Tiler {
    /// What this run would do, without writing a tile: up to `samples` tiles of each chart at its
    /// base zoom are warped and encoded to estimate the time per tile and the bytes per tile.
    /// - Throws: the source's errors if a chart cannot be read.
    public func plan(samples: Int = 4) throws -> TilingPlan {
        var planned: [TilingPlan.Chart] = []
        let stageTimes = StageTimes(enabled: false)
        let codec = TileCodec(format: options.format, size: options.tileSize, background: options.tileBackground,
                               pngFiltering: catalog.pngFiltering)
        var seconds = 0.0, sampled = 0, encodedBytes = 0, encodedTiles = 0
        for (index, chart) in catalog.charts.enumerated() {
            let b = chart.source.bounds
            planned.append(TilingPlan.Chart(
                name: chart.name, path: chart.source.path, scale: chart.source.chartScale, nativeZoom: chart.nativeZoom,
                zoomsAlone: [chart.zooms.lowerBound, chart.zooms.upperBound], onTop: zoomsOnTop(index),
                bounds: [b.west, b.south, b.east, b.north]))
            // Time per tile: the chart's own tiles at its base zoom, a few spread over its range.
            let base = baseZooms[index]
            guard let range = coverage.ranges[base]?[index], !range.isEmpty else { continue }
            let renderer = try TileRenderer(source: chart.source, windowReader: SourceWindowReader(source: chart.source), pyramid: pyramid,
                                            resampling: options.resampling,
                                            gdalWarperOnly: options.measurement.gdalWarperOnly, stageTimes: stageTimes)
            // A run reads neighbouring tiles one after another, sharing GDAL's cached source
            // blocks: time a row of neighbours in the middle of the range after one untimed tile.
            let tiles = Array(range)
            let first = max(0, tiles.count / 2 - samples / 2)
            let picks = Array(tiles[first..<min(tiles.count, first + samples + 1)])
            var chartSeconds = 0.0, timed = 0
            for (n, tile) in picks.enumerated() {
                let start = ContinuousClock.now
                let image = try renderer.render(tile)
                if let image, !image.isEmpty {
                    encodedBytes += try codec.encode(image).count
                    encodedTiles += 1
                }
                if n > 0 || picks.count == 1 {
                    chartSeconds += (ContinuousClock.now - start) / .seconds(1)
                    timed += 1
                }
                sampled += 1
            }
            // Each of the chart's base tiles is warped once, and lower levels cost a third of that
            // (a quarter of the tiles each, averaged and encoded); deeper than its base zoom it is
            // warped into each tile of its range (at most: not where charts above cover it).
            let deeper = zooms.filter { $0 > base }.reduce(0) { $0 + (coverage.ranges[$1]?[index].count ?? 0) }
            seconds += chartSeconds / Double(timed) * (Double(range.count) * 4 / 3 + Double(deeper))
        }
        let perZoom: [String: Int] = Dictionary(uniqueKeysWithValues: zooms.map { zoom in ("\(zoom)", coverage.count(atZoom: zoom)) })
        let tiles = perZoom.values.reduce(0, +)
        let jobs = max(1, options.jobs)
        return TilingPlan(charts: planned, quilt: catalog.quilt.rawValue, overzoom: catalog.overzoom, zooms: [zooms.lowerBound, zooms.upperBound],
                          tilesPerZoom: perZoom, tiles: tiles, estimatedSeconds: seconds / Double(min(jobs, max(1, tiles))),
                          estimatedBytes: encodedTiles > 0 ? encodedBytes / encodedTiles * tiles : 0, sampleTiles: sampled, jobs: jobs)
    }

    /// The run's zoom levels at which chart `index` shows and comes before every chart whose
    /// extent overlaps its own.
    func zoomsOnTop(_ index: Int) -> [Int] {
        let own = catalog.charts[index].source.extent
        let overlapping = catalog.charts.indices.filter { other in
            let e = catalog.charts[other].source.extent
            return other != index && e.minX < own.maxX && own.minX < e.maxX && e.minY < own.maxY && own.minY < e.maxY
        }
        return zooms.filter { zoom in
            // A chart that does not show at the level is never on top; one that does, above every other that shows.
            let order = preferences[zoom]!
            guard let position = order.firstIndex(of: index) else { return false }
            return overlapping.allSatisfy { (order.firstIndex(of: $0) ?? .max) > position }
        }
    }
}
