import ArgumentParser
import MeridianCommandLine
import MeridianTilingRequest

/// The options of `meridian tile` that choose which features go into each vector tile, under
/// tippecanoe's long names where they do the same, so its users can move over.
struct VectorTileSelection: ParsableArguments {
    @Option(name: .customLong("maximum-tile-bytes"), help: ArgumentHelp("Vector tiles: the most bytes a tile may take gzipped, as tippecanoe counts them and MBTiles and PMTiles store them (default 500000); a tile over it loses features (see --drop-smallest-as-needed).", valueName: "bytes"))
    var maximumTileBytes: Int?

    @Option(name: .customLong("maximum-tile-features"), help: ArgumentHelp("Vector tiles: the most features a tile may hold (default 200000).", valueName: "count"))
    var maximumTileFeatures: Int?

    @Option(name: .customLong("drop-rate"), help: ArgumentHelp("Vector tiles: how many times fewer points show at each zoom below the base zoom (default 2.5; 1 keeps every point at every zoom).", valueName: "rate"))
    var dropRate: Double?

    @Option(name: .customLong("base-zoom"), help: ArgumentHelp("Vector tiles: the zoom from which every point shows (default: the deepest zoom).", valueName: "zoom"))
    var baseZoom: Int?

    @Flag(name: .customLong("drop-smallest-as-needed"), help: "Vector tiles: a tile over the limits loses its smallest features first (the smallest polygons, the shortest lines, points last): the default.")
    var dropSmallest = false

    @Flag(name: .customLong("drop-densest-as-needed"), help: "Vector tiles: a tile over the limits loses the features closest to their neighbours first.")
    var dropDensest = false

    @Flag(name: .customLong("drop-fraction-as-needed"), help: "Vector tiles: a tile over the limits loses an evenly spread fraction of its features.")
    var dropFraction = false

    @Flag(name: .customLong("coalesce-smallest-as-needed"), help: "Vector tiles: a tile over the limits merges its smallest features into their neighbours of the same kind (keeping the neighbours' attributes).")
    var coalesceSmallest = false

    @Flag(name: .customLong("coalesce-densest-as-needed"), help: "Vector tiles: a tile over the limits merges the features closest to their neighbours into them.")
    var coalesceDensest = false

    @Flag(name: .customLong("extend-zooms-if-still-dropping"), help: "Vector tiles: while tiles of the deepest zoom still lose features to the limits, add a deeper zoom (up to 24).")
    var extendZooms = false

    @Flag(name: .customLong("no-tiny-polygon-reduction"), help: "Vector tiles: leave out every polygon too small to draw at a zoom, instead of adding their areas up into small squares where they lie (tippecanoe's tiny polygon reduction, the default).")
    var noTinyPolygonReduction = false

    @Option(name: .customLong("cluster-distance"), help: ArgumentHelp("Vector tiles: below the deepest zoom, points within this many pixels (1-255, of 256 a tile) of a cluster's first point become one point with point_count (instead of being thinned by --drop-rate).", valueName: "pixels"))
    var clusterDistance: Int?

    @Option(name: .customLong("accumulate-attribute"), help: ArgumentHelp("Vector tiles, with --cluster-distance: combine this attribute over each cluster's points: NAME:sum, mean, max, min, concat or comma.", valueName: "name:how"))
    var accumulations: [String] = []

    @Option(name: [.customShort("y"), .customLong("include")], help: ArgumentHelp("Vector tiles: keep only this attribute (give it once for each to keep).", valueName: "name"))
    var included: [String] = []

    @Option(name: [.customShort("x"), .customLong("exclude")], help: ArgumentHelp("Vector tiles: leave this attribute out (give it once for each).", valueName: "name"))
    var excluded: [String] = []

    @Flag(name: [.customShort("X"), .customLong("exclude-all")], help: "Vector tiles: leave every attribute out but those given with --include (features keep their geometry and id).")
    var excludeAll = false

    /// The over-limit strategies given, with their options' names.
    var strategies: [(name: String, strategy: OverLimitStrategy)] {
        let given: [OverLimitStrategy: Bool] = [.dropSmallest: dropSmallest, .dropDensest: dropDensest, .dropFraction: dropFraction,
                                                .coalesceSmallest: coalesceSmallest, .coalesceDensest: coalesceDensest]
        return OverLimitStrategy.optionNames.filter { given[$0.strategy] == true }
    }

    func validate() throws {
        if let maximumTileBytes, maximumTileBytes < 1 { throw ValidationError("--maximum-tile-bytes must be at least 1") }
        if let maximumTileFeatures, maximumTileFeatures < 1 { throw ValidationError("--maximum-tile-features must be at least 1") }
        if let dropRate, !(dropRate >= 1 && dropRate.isFinite) { throw ValidationError("--drop-rate must be a number of 1 or more") }
        if let baseZoom, !(0...VectorTileChoices.deepestZoom).contains(baseZoom) {
            throw ValidationError("--base-zoom must be from 0 to \(VectorTileChoices.deepestZoom)")
        }
        if strategies.count > 1 {
            throw ValidationError("give one of \(strategies.map(\.name).joined(separator: " and ")): a tile over the limits is brought under them one way")
        }
        if let clusterDistance, !(1...255).contains(clusterDistance) { throw ValidationError("--cluster-distance must be from 1 to 255 pixels") }
        if clusterDistance != nil && (dropRate != nil || baseZoom != nil) {
            throw ValidationError("--cluster-distance gathers close points into clusters in place of thinning them: give it without --drop-rate and --base-zoom")
        }
        if !accumulations.isEmpty && clusterDistance == nil {
            throw ValidationError("--accumulate-attribute combines attributes over clusters: give --cluster-distance too")
        }
        _ = try accumulationList()
        if !included.isEmpty && !excluded.isEmpty {
            throw ValidationError("--include keeps only the attributes it names, so --exclude has nothing to do: give one or the other")
        }
    }

    /// These choices in the tiling job's terms.
    var choices: VectorTileChoices {
        var choices = VectorTileChoices()
        (choices.maximumTileBytes, choices.maximumTileFeatures, choices.dropRate, choices.baseZoom) = (maximumTileBytes, maximumTileFeatures, dropRate, baseZoom)
        choices.overLimit = strategies.first?.strategy
        (choices.extendZoomsIfStillDropping, choices.reducesTinyPolygons, choices.clusterDistance) = (extendZooms, !noTinyPolygonReduction, clusterDistance)
        choices.accumulations = (try? accumulationList()) ?? []
        (choices.included, choices.excluded, choices.excludesAll) = (included, excluded, excludeAll)
        return choices
    }

    /// `--accumulate-attribute NAME:HOW`s, in order.
    func accumulationList() throws -> [(name: String, how: ClusterAccumulation)] {
        var list: [(name: String, how: ClusterAccumulation)] = []
        for text in accumulations {
            guard let colon = text.lastIndex(of: ":"), colon != text.startIndex,
                  let how = ClusterAccumulation(rawValue: String(text[text.index(after: colon)...])) else {
                let hows = ClusterAccumulation.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("--accumulate-attribute takes NAME:HOW, HOW one of \(hows), not '\(text)'")
            }
            list.append((String(text[..<colon]), how))
        }
        return list
    }
}
