import MeridianCore

/// What a tiling job makes: the inputs, the output and every choice of the run, in the
/// library's terms (a command line parses its arguments into one, and `meridian` sends it to
/// `meridian-gdal` as it is). Each group of choices is a struct of its own, so that a new
/// option is one field added where it belongs. A choice not made is nil (or false, or empty):
/// the job takes its default, and refuses a choice made that does nothing for its run
/// (``TilingChoice/notApplying(in:to:)``).
public struct TilingJobRequest: Sendable, Equatable {
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
    /// Image tiles' width and height in pixels (256 or 512); nil: 256.
    public var tileSize: Int?
    /// The colour under the data; nil leaves PNG and WebP transparent (JPEG goes on white).
    public var background: RGB?
    /// Threads at work; nil: one per active processor.
    public var jobs: Int?
    /// Whether to continue an interrupted run into the same output.
    public var resume = false
    /// Whether the finished MBTiles file or PMTiles archive replaces a regular file already at
    /// ``output`` (a folder is never replaced); false refuses it.
    public var replacesExistingFile = false
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
    ///   - jobs: Threads at work; nil: one per active processor.
    public init(inputs: [String], output: String, jobs: Int? = nil) {
        self.inputs = inputs
        self.output = output
        self.jobs = jobs
    }

    /// Whether the output is a PMTiles archive, written in one go (never resumed).
    public var isPMTiles: Bool { TileContainer(path: output) == .pmtiles }
    /// Whether the output is an MBTiles file.
    public var isMBTiles: Bool { TileContainer(path: output) == .mbtiles }
    /// Image tiles' width and height in pixels: the size asked for, else 256.
    public var pixelsPerTile: Int { tileSize ?? 256 }
}

/// How a tiling job reads, quilts and warps rasters. A choice not made is nil.
public struct RasterChoices: Sendable, Equatable {
    /// Bands, nodata, control points, the collar.
    public var source = RasterSourceOptions()
    /// Which chart shows where charts overlap; nil: by scale.
    public var quilt: QuiltRule?
    /// How many levels deeper than its native zoom a chart shows at most; nil: however deep.
    public var overzoom: Int?
    /// How base tiles are sampled; nil: averaged.
    public var resampling: Resampling?
    /// Switches that measure the tiler without changing a tile.
    public var measurement = TilingMeasurement()
    /// Colours left out of the averages of pixels (GDAL's excluded values); nil leaves none out.
    public var excludedValues: ExcludedValues?

    /// The defaults: every raster read as it is, quilted by scale, averaged.
    public init() {}
}

/// What goes into each vector tile, as tippecanoe's options choose it: the limits, how a tile
/// over them is brought under, point thinning or clustering, and which attributes are kept.
public struct VectorTileChoices: Sendable, Equatable {
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
    public var accumulations: [(name: String, how: ClusterAccumulation)] = []
    /// The only attributes kept (empty: all).
    public var included: [String] = []
    /// Attributes left out.
    public var excluded: [String] = []
    /// Whether every attribute is left out.
    public var excludesAll = false

    /// The deepest zoom level vector tiles reach, extended levels included (tippecanoe's).
    public static let deepestZoom = 24

    /// The defaults: tippecanoe's.
    public init() {}

    /// Whether two sets of choices choose alike (accumulations compared in order).
    public static func == (left: VectorTileChoices, right: VectorTileChoices) -> Bool {
        left.maximumTileBytes == right.maximumTileBytes && left.maximumTileFeatures == right.maximumTileFeatures
            && left.dropRate == right.dropRate && left.baseZoom == right.baseZoom && left.overLimit == right.overLimit
            && left.extendZoomsIfStillDropping == right.extendZoomsIfStillDropping && left.reducesTinyPolygons == right.reducesTinyPolygons
            && left.clusterDistance == right.clusterDistance
            && left.accumulations.map(\.name) == right.accumulations.map(\.name) && left.accumulations.map(\.how) == right.accumulations.map(\.how)
            && left.included == right.included && left.excluded == right.excluded && left.excludesAll == right.excludesAll
    }
}

/// What a tiling run makes.
public enum TilingJobKind: CaseIterable, Sendable {
    /// Image tiles of rasters.
    case rasters
    /// Mapbox Vector Tiles of vector data.
    case vectorTiles
    /// Image tiles of vector data drawn with its simplestyle properties.
    case drawnVectors

    /// What a run of this kind makes, in words.
    public var name: String {
        switch self {
        case .rasters: "tiles of rasters"
        case .vectorTiles: "vector tiles"
        case .drawnVectors: "image tiles drawn from vector data"
        }
    }
}
