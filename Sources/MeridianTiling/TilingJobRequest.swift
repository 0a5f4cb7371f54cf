import Foundation
import MeridianCore
import MeridianRaster
import MeridianTiles

// What the job takes from its request (`TilingJobRequest`, `RasterChoices`, `VectorTileChoices`:
// MeridianTilingRequest's, so that a process that links no GDAL can make one): the defaults
// of the choices not made, and what the run's identity records of them.

extension TilingJobRequest {
    /// Threads at work: the number asked for, else one per active processor.
    var threads: Int { jobs ?? ProcessInfo.processInfo.activeProcessorCount }

    /// Writes the KML super-overlay over the finished folder when ``kml`` asks for one (a shard
    /// writes none: the folder's tiles are whole only once the shards are joined).
    /// - Returns: The KML files written; nil when none was written.
    func writeKML(_ metadata: TileSetMetadata) throws -> KMLSuperOverlay.Written? {
        guard kml, shard == nil else { return nil }
        return try KMLSuperOverlay.write(folder: output, metadata: metadata, scheme: scheme)
    }

    /// What the run identity records of the output: a folder's row scheme (MBTiles rows are always TMS).
    var outputFields: [(String, String)] { isMBTiles ? [] : [("scheme", scheme.rawValue)] }
}

extension VectorTileChoices {
    /// Which attributes the features keep.
    var attributeFilter: AttributeFilter {
        AttributeFilter(include: included, exclude: excluded, excludeAll: excludesAll)
    }

    /// The tiler's options for `zooms` with these choices.
    func tilingOptions(zooms: ClosedRange<Int>) -> VectorTilingOptions {
        var options = VectorTilingOptions(zooms: zooms)
        if let maximumTileBytes { options.limits.maximumBytes = maximumTileBytes }
        if let maximumTileFeatures { options.limits.maximumFeatures = maximumTileFeatures }
        options.overLimit = overLimit ?? .dropSmallest
        options.extendZoomsIfStillDropping = extendZoomsIfStillDropping
        options.reducesTinyPolygons = reducesTinyPolygons
        options.pointThinning = PointThinning(dropRate: dropRate ?? 2.5, baseZoom: baseZoom ?? zooms.upperBound)
        if let clusterDistance {
            options.pointThinning = nil
            options.clustering = PointClustering(distance: clusterDistance,
                                                 accumulations: Dictionary(accumulations.map { ($0.name, $0.how) }) { _, last in last })
        }
        return options
    }

    /// Every choice made, as the settings of the run's identity: a run resumed or joined with
    /// other choices would mix tiles of two runs, so the sink refuses it. (The names are those
    /// the run state has always recorded, so that older runs resume.)
    var identitySettings: [(String, String)] {
        var settings: [(String, String)] = []
        func add(_ name: String, _ value: (some CustomStringConvertible)?) { if let value { settings.append((name, value.description)) } }
        add("maximum-tile-bytes", maximumTileBytes)
        add("maximum-tile-features", maximumTileFeatures)
        add("drop-rate", dropRate)
        add("base-zoom", baseZoom)
        let strategies: [(String, OverLimitStrategy)] = [("drop-smallest-as-needed", .dropSmallest), ("drop-densest-as-needed", .dropDensest),
                                                         ("drop-fraction-as-needed", .dropFraction), ("coalesce-smallest-as-needed", .coalesceSmallest),
                                                         ("coalesce-densest-as-needed", .coalesceDensest)]
        for (name, strategy) in strategies where overLimit == strategy { settings.append((name, "yes")) }
        for (name, given) in [("extend-zooms-if-still-dropping", extendZoomsIfStillDropping), ("no-tiny-polygon-reduction", !reducesTinyPolygons),
                              ("exclude-all", excludesAll)] where given {
            settings.append((name, "yes"))
        }
        add("cluster-distance", clusterDistance)
        settings += accumulations.map { ("accumulate-attribute", "\($0.name):\($0.how.rawValue)") } + included.map { ("include", $0) } + excluded.map { ("exclude", $0) }
        return settings
    }
}
