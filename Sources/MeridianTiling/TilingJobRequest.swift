import MeridianCore
import MeridianRaster
import MeridianTiles

/// What a `TilingJob` makes: the inputs, the output and every choice of the run, in the
/// library's terms (a command line parses its arguments into one). Each group of choices is a
/// struct of its own, so that a new option is one field added where it belongs.
public struct TilingJobRequest: Sendable {
    /// The inputs: rasters, folders of rasters, or vector data files (in order, one layer each).
    public var inputs: [String]
    /// Where the tiles go: a folder, an `.mbtiles` file or a `.pmtiles` archive.
    public var output: String
    /// The tiles' format; nil takes PNG for rasters and Mapbox Vector Tiles for vector data.
    public var tileFormat: TileFormat?
    /// The zoom levels; nil chooses them from the rasters' resolution or the vector data's detail.
    public var zooms: ClosedRange<Int>?
    /// How a folder output counts rows (MBTiles rows are always TMS).
    public var scheme: TileScheme = .xyz
    /// Image tiles' width and height in pixels.
    public var tileSize = 256
    /// The colour under the data; nil leaves PNG and WebP transparent (JPEG goes on white).
    public var background: RGB?
    /// Threads at work.
    public var jobs: Int
    /// Whether to continue an interrupted run into the same output.
    public var resume = false
    /// Whether to write `index.html`, a page showing the tiles (folder outputs).
    public var viewer = false
    /// Whether to write a KML super-overlay (`doc.kml` and a KML beside each tile) over a
    /// folder of image tiles once the run is done (not by a shard: its tiles are not all there).
    public var kml = false
    /// One shard of the run to make into the shared output, or nil for the whole run.
    public var shard: TileShard?
    /// Whether to join the shards of a run whose every shard has completed.
    public var finish = false
    /// The number of shards, for ``finish`` (nil: the shards' folder says).
    public var shardCount: Int?
    /// How rasters are read, quilted and warped.
    public var raster = RasterChoices()
    /// The layer name of each input of vector data, in order (empty: each file's name).
    public var layerNames: [String] = []
    /// What goes into each vector tile.
    public var vector = VectorTileChoices()

    /// A request to tile `inputs` into `output` on `jobs` threads, with every other choice at its default.
    /// - Parameters:
    ///   - inputs: Rasters, folders of rasters, or vector data.
    ///   - output: A folder, an `.mbtiles` file or a `.pmtiles` archive.
    ///   - jobs: Threads at work.
    public init(inputs: [String], output: String, jobs: Int) {
        self.inputs = inputs
        self.output = output
        self.jobs = jobs
    }

    /// Whether the output is a PMTiles archive, written in one go (never resumed).
    public var isPMTiles: Bool { TileContainer(path: output) == .pmtiles }
    /// Whether the output is an MBTiles file.
    public var isMBTiles: Bool { TileContainer(path: output) == .mbtiles }

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

/// How a tiling job reads, quilts and warps rasters.
public struct RasterChoices: Sendable {
    /// Bands, nodata, control points, the collar.
    public var source = RasterSourceOptions()
    /// Which chart shows where charts overlap.
    public var quilt: QuiltRule = .scale
    /// How many levels deeper than its native zoom a chart shows at most; nil: however deep.
    public var overzoom: Int?
    /// How base tiles are sampled.
    public var resampling: Resampling = .average
    /// Switches that measure the tiler without changing a tile.
    public var measurement = TilingMeasurement()
    /// Colours left out of the averages of pixels (GDAL's excluded values); nil leaves none out.
    public var excludedValues: ExcludedValues?

    /// The defaults: every raster read as it is, quilted by scale, averaged.
    public init() {}
}

/// What goes into each vector tile, as tippecanoe's options choose it: the limits, how a tile
/// over them is brought under, point thinning or clustering, and which attributes are kept.
public struct VectorTileChoices: Sendable {
    /// The most bytes a tile may take; nil: the tiler's default.
    public var maximumTileBytes: Int?
    /// The most features a tile may hold; nil: the tiler's default.
    public var maximumTileFeatures: Int?
    /// How many times fewer points show at each level below the base zoom; nil: 2.5.
    public var dropRate: Double?
    /// The level from which every point shows; nil: the deepest.
    public var baseZoom: Int?
    /// How a tile over the limits is brought under them; nil: the smallest features go first.
    public var overLimit: OverLimitStrategy?
    /// Whether to add deeper levels while the deepest still drops features.
    public var extendZoomsIfStillDropping = false
    /// Whether polygons too small to draw are added up into small squares (tippecanoe's default).
    public var reducesTinyPolygons = true
    /// Below the deepest level, points within this many pixels become clusters; nil: thinned instead.
    public var clusterDistance: Int?
    /// Attributes combined over each cluster's points, in the order given.
    public var accumulations: [(name: String, how: PointClustering.Accumulation)] = []
    /// The only attributes kept (empty: all).
    public var included: [String] = []
    /// Attributes left out.
    public var excluded: [String] = []
    /// Whether every attribute is left out.
    public var excludesAll = false

    /// The defaults: tippecanoe's.
    public init() {}

    /// Which attributes the features keep.
    var attributeFilter: AttributeFilter {
        AttributeFilter(included: included.isEmpty ? nil : Set(included), excluded: Set(excluded), excludesAll: excludesAll)
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
