import ArgumentParser
import MeridianCommandLine
import MeridianCore
import MeridianTilingRequest

extension Commands {
    /// `meridian tile`: rasters or vector data into a Web Mercator tile pyramid. Parsed here and
    /// run by `meridian-gdal tile` (which links GDAL) as a typed `TileRequest`: this process
    /// replaces itself with the helper (exec), so the run keeps the terminal, the signals and
    /// the exit code.
    struct Tile: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tile",
            abstract: "Tile rasters (GeoTIFF, BSB/KAP charts, images with control points; one or a catalog quilted together) or vector data (Mapbox Vector Tiles, or features drawn into images) in Web Mercator.",
            usage: """
                meridian tile <input>... <output> [<options>]
                meridian tile --inputs <list> [<input>...] <output> [<options>]
                """,
            discussion: """
                Writes a folder of z/x/y tiles (XYZ rows by default, TMS with --tms) with TileJSON \
                metadata.json, an MBTiles 1.3 file when OUTPUT ends in .mbtiles, or a PMTiles 3 archive when \
                it ends in .pmtiles. Each base tile of a raster is \
                warped straight from the source; lower zooms are built in memory from the level below. \
                Tiles outside the data are transparent, and fully transparent tiles are not written; \
                opaque tiles have no alpha channel. The metadata (and the viewer) name the zoom levels \
                that hold tiles: a raster far smaller than a pixel at the lowest levels asked for \
                leaves them empty, with a warning.

                Inputs: anything GDAL reads, in any CRS; paletted images (BSB/KAP charts) are expanded \
                to RGBA and a chart's collar is cut away along its outline; images georeferenced by \
                control points are warped by a polynomial or a thin-plate spline; a plain image takes \
                --gcp PIXEL,LINE,LAT,LON three times or more, or the control points QGIS's Georeferencer \
                saved beside it (IMAGE.points, one file per image of a catalog); a KML or KMZ GroundOverlay gives its image \
                (beside the KML, or inside the KMZ) and its LatLonBox or gx:LatLonQuad.

                Several inputs (files, folders of rasters, or --inputs LIST) make one pyramid, quilted \
                as a chart plotter does (--quilt): at each zoom the chart made for that scale shows, and \
                where it has no data (outside its outline, nodata, transparent) the next best shows \
                through. Each chart's collar is cut, so neighbouring charts meet edge to edge.

                The default zoom range follows the rasters' resolution, as gdal2tiles chooses it \
                (from the coarsest chart's lowest level to the most detailed chart's deepest). \
                Tiles are written atomically; --resume continues an interrupted run (even after kill -9) \
                and ends with exactly the tiles of a clean run. An output that exists is refused (an \
                empty folder counts as new); --force lets a run replace an .mbtiles or .pmtiles file, \
                once the new one is finished. A folder is never replaced.

                Across machines: --shard K/N (or --shard auto in a Slurm, Kubernetes or AWS Batch array \
                job) renders one shard of the run into a shared output; --finish, run once after every \
                shard, joins them into exactly the pyramid one machine makes.

                Vector data (GeoJSON, KML without a GroundOverlay, GPX, CSV, GDAL's vector formats) \
                becomes Mapbox Vector Tiles, or with --tile-format png, jpeg or webp image tiles of the \
                features drawn with their simplestyle properties as meridian render draws them, seamless \
                across tiles (pins without labels).

                JPEG has no transparency: JPEG tiles are laid over white where the data ends, or over \
                --background. With --background, PNG and WebP tiles are laid over it too and written \
                opaque. Tiles with no data at all are never written.
                """
        )

        @Argument(help: ArgumentHelp("The rasters to tile (any GDAL raster, a KML or KMZ GroundOverlay, or a folder: every raster in it and its subfolders), then the output: a folder, an .mbtiles file or a .pmtiles archive.", valueName: "input… output"))
        var paths: [String] = []

        @Option(name: .customLong("inputs"), help: ArgumentHelp("A file listing rasters to tile, one path a line (relative to the list's folder; blank lines and lines starting with # are skipped), before or instead of inputs on the command line.", valueName: "list"))
        var inputList: String?

        @Option(name: .customLong("quilt"), help: ArgumentHelp("Where several rasters overlap, which shows: scale (the chart made for each zoom's scale, as a chart plotter quilts; the default), detail (the most detailed everywhere) or order (the first input on top).", valueName: "rule"))
        var quiltChoice: QuiltRule?

        @Option(help: ArgumentHelp("Show a chart at most this many zoom levels deeper than its native zoom (the most detailed charts show at every level); by default a chart shows wherever nothing better covers it, however deep.", valueName: "levels"))
        var overzoom: Int?

        @Flag(help: "Print what the run would do, without tiling: each chart's scale, native zoom, bounds and the zooms where it is on top, the tiles per zoom, and the time and disk it would take (estimated from a few sample tiles).")
        var plan = false

        @Option(name: .customLong("plan-format"), help: ArgumentHelp("How --plan prints: text (the default) or json.", valueName: "format"))
        var planFormatChoice: TileRequest.PlanFormat?

        @Option(help: ArgumentHelp("Zoom levels, MIN-MAX or one level, or auto, the default (tippecanoe's -zg): from the raster's resolution; for vector data from 0 to the deeper of where a pixel is as fine as the points' coordinates and where lines' and polygons' median vertex spacing spans 16 tile units, at most 14; levels where the raster covers less than 1/255 of a pixel hold no tiles.", valueName: TileZooms.syntax.valueName))
        var zoom: TileZooms?

        @Flag(help: "Rows counted from the top (XYZ, as MapKit and OpenStreetMap; the default) or the bottom (TMS).")
        var scheme: SchemeFlag = .xyz

        @Option(name: .customLong("tile-format"), help: ArgumentHelp("The tiles' format: png, jpeg or webp images (of rasters, or of vector data drawn as meridian render draws it), or mvt, Mapbox Vector Tiles (the default for vector input: GeoJSON, KML without a GroundOverlay, GPX, CSV, GDAL's vector formats).", valueName: "format"))
        var tileFormatChoice: TileFormatChoice?

        @Option(name: .customLong("layer-name"), help: ArgumentHelp("Vector tiles: the layer name of each input, in order (default: the file's name).", valueName: "name"))
        var layerNames: [String] = []

        @Option(name: .customLong("tile-size"), help: ArgumentHelp("Image tiles: width and height in pixels, 256 (the default) or 512.", valueName: "pixels"))
        var tileSizeChoice: Int?

        @Option(help: ArgumentHelp("The colour under the data, where tiles would be transparent: #rrggbb, #rgb or a CSS name (white, navy, …). Default: white for JPEG, transparent for PNG and WebP.", valueName: "colour"))
        var background: String?

        @Option(name: .customLong("resampling"), help: ArgumentHelp("Resampling of a raster's base tiles (average, the default: the mean of 4 × 4 samples, as gdal2tiles; gdal2tiles: gdal2tiles' own sampling, to match its tiles; lower zooms always average the level below).", valueName: "method"))
        var resamplingChoice: Resampling?

        @Option(help: ArgumentHelp("Threads warping tiles (default: the number of cores).", valueName: "n"))
        var jobs: Int?

        @Flag(help: "Continue an interrupted run into the same output, keeping the tiles it wrote.")
        var resume = false

        @OptionGroup var replacing: ReplaceOption

        @Flag(help: "Write index.html, a map of the tiles that works offline, opened from disk (folder output): Leaflet for image tiles, MapLibre GL JS for vector tiles.")
        var viewer = false

        @Flag(help: "Write a KML super-overlay over the tiles (folder output), which Google Earth opens: doc.kml, and beside each tile a KML with its region, its image and links to its children, as gdal2tiles -k writes.")
        var kml = false

        @Option(name: .customLong("excluded-values"), help: ArgumentHelp("Colours left out of the averages of pixels, as GDAL's option: R,G,B tuples separated by ; or written (R,G,B),(R,G,B) (one value is a gray level), e.g. a scan's white margin 255,255,255. Such a pixel is still valid (not transparent), and a pixel made from at least --excluded-values-pct-threshold percent of them takes that colour.", valueName: "R,G,B[;R,G,B…]"))
        var excludedValuesText: String?

        @Option(name: .customLong("excluded-values-pct-threshold"), help: ArgumentHelp("With --excluded-values: the share of the pixels under a coarser one, in percent, at and above which it takes the excluded colour most of them have instead of the mean of the others (default 50, as GDAL's).", valueName: "percent"))
        var excludedValuesThreshold: Double?

        @Option(help: ArgumentHelp("A pixel value meaning 'no data' (transparent), over the file's own.", valueName: "value"))
        var nodata: Double?

        @Option(help: ArgumentHelp("Bands to tile, 1-based: one (gray) or three (red,green,blue), e.g. 3,2,1.", valueName: "list"))
        var bands: String?

        @Option(name: .customLong("gcp"), help: ArgumentHelp("A control point for an image without georeferencing: its pixel and line, and its LAT,LON. Give three or more (for one image; in a catalog each image reads its own IMAGE.points).", valueName: ControlPointArgument.syntax.valueName))
        var controlPoints: [ControlPointArgument] = []

        @Option(name: .customLong("gcp-method"), help: ArgumentHelp("How control points warp the image: a polynomial (the default), or a thin-plate spline (tps).", valueName: "method"))
        var controlPointMethodChoice: ControlPointMethod?

        @Flag(name: .customLong("no-cutline"), help: "Keep a BSB chart's collar instead of cutting it away along the chart's outline.")
        var noCutline = false

        @Option(help: ArgumentHelp("Render only shard K of N (K from 0) of the run into the shared output, for a batch engine's array job; auto takes K and N from Slurm (SLURM_ARRAY_TASK_ID), Kubernetes (JOB_COMPLETION_INDEX) or AWS Batch (AWS_BATCH_JOB_ARRAY_INDEX). Then run --finish once.", valueName: "K/N|auto"))
        var shard: String?

        @Option(help: ArgumentHelp("How many shards the run is split into, for --shard auto where the engine does not say (Kubernetes, AWS Batch) and for --finish.", valueName: "N"))
        var shards: Int?

        @Flag(help: "After every shard has completed: build the tiles that span shards, write the metadata (and the viewer), join MBTiles shards into one file. Idempotent.")
        var finish = false

        @Flag(name: .shortAndLong, help: "Print no progress and no notes (errors are still printed).")
        var quiet = false

        @OptionGroup(visibility: .hidden)
        var measurement: TilingMeasurementOptions

        @OptionGroup(title: "Vector tile contents")
        var selection: VectorTileSelection

        /// What `--tile-format` takes: an image format for rasters, or Mapbox Vector Tiles.
        enum TileFormatChoice: String, ExpressibleByArgument, CaseIterable {
            case png, jpeg, webp, mvt
        }

        /// `--xyz` or `--tms`.
        enum SchemeFlag: String, EnumerableFlag {
            case xyz, tms
            static func help(for value: SchemeFlag) -> ArgumentHelp? {
                value == .xyz ? "XYZ rows, from the top (MapKit, OpenStreetMap, Leaflet)." : "TMS rows, from the bottom."
            }
        }

        func validate() throws {
            if paths.isEmpty { throw ValidationError("give the rasters or vector data to tile, then the output: a folder, an .mbtiles file or a .pmtiles archive") }
            if paths.count == 1 && inputList == nil {
                throw ValidationError("give the output (a folder, an .mbtiles file or a .pmtiles archive) after the input '\(paths[0])'")
            }
            if !controlPoints.isEmpty && (paths.count > 2 || inputList != nil) {
                throw ValidationError("--gcp georeferences one image: for a catalog, save each image's control points beside it as IMAGE.points (QGIS Georeferencer's format), or georeference it with gdal_translate -gcp")
            }
            if let tileSizeChoice, tileSizeChoice != 256 && tileSizeChoice != 512 { throw ValidationError("--tile-size must be 256 or 512") }
            if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
            if let overzoom, overzoom < 0 { throw ValidationError("--overzoom must be 0 or more") }
            if let megabytes = measurement.gdalCacheMegabytes, megabytes < 1 { throw ValidationError("--gdal-cache-mb must be at least 1") }
            _ = try bandList()
            _ = try points()
            _ = try backgroundColour()
            _ = try excludedValues()
            if kml && (isMBTiles || isPMTiles) {
                throw ValidationError("--kml needs a folder output: Google Earth reads a super-overlay's tiles as image files beside its KML files, not from \(isMBTiles ? "an MBTiles file" : "a PMTiles archive")")
            }
            if viewer && isMBTiles {
                throw ValidationError("--viewer needs a folder output, not an MBTiles file: a page opened from disk cannot read an SQLite file")
            }
            if let shard, shard != "auto", TileShard(shard) == nil {
                throw ValidationError("--shard takes K/N with 0 ≤ K < N ≤ \(TileShard.maximumCount) (e.g. 0/4), or auto, not '\(shard)'")
            }
            if let shards, !(1...TileShard.maximumCount).contains(shards) { throw ValidationError("--shards must be from 1 to \(TileShard.maximumCount)") }
            if finish && shard != nil { throw ValidationError("--finish joins the shards once they are done: give it without --shard") }
            try TileRunInputs.refuseStandardInput(Array(paths.dropLast()), pyramids: false)
            try replacing.check(tileOutput: output, resuming: resume)
            if replacing.force && (finish || shard != nil) {
                throw ValidationError("--force replaces an output that is there before a run, and a run split into shards shares its output from the first shard to --finish: remove the output or choose another path")
            }
            if (finish || shard != nil) && plan { throw ValidationError("--plan prints the whole run's plan: give it without --shard or --finish") }
            if isMBTiles && scheme == .tms { throw ValidationError("--tms: MBTiles files always count rows TMS-style; give a folder to choose") }
            if isPMTiles && scheme == .tms {
                throw ValidationError("--tms: a PMTiles archive always counts rows XYZ-style (its tile ids number them from the top); give a folder to choose")
            }
            if planFormatChoice != nil && !plan { throw ValidationError("--plan-format says how --plan prints: give --plan too, or leave it out") }
            if shards != nil && shard == nil && !finish {
                throw ValidationError("--shards N counts the shards of a run split with --shard auto, and --finish joins them: give one of them, or leave --shards out")
            }
            if isPMTiles && resume {
                throw ValidationError("a PMTiles archive is written in one go: --resume needs a folder or an .mbtiles file (shards, with --shard and --finish, can be joined into an archive)")
            }
            if isPMTiles && viewer {
                throw ValidationError("--viewer needs a folder output, not a PMTiles archive: a page opened from disk reads one only through the pmtiles JavaScript library, which Meridian does not install")
            }
        }

        var isMBTiles: Bool { TileContainer(path: output) == .mbtiles }
        /// How a folder output counts rows.
        var rows: TileScheme { scheme == .tms ? .tms : .xyz }
        var isPMTiles: Bool { TileContainer(path: output) == .pmtiles }

        /// The last path: where the tiles go.
        var output: String { paths.last ?? "" }

        func bandList() throws -> [Int]? {
            guard let bands else { return nil }
            let list = bands.split(separator: ",").map { Int(String($0.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())) }
            guard !list.isEmpty, list.allSatisfy({ ($0 ?? 0) >= 1 }), list.count == 1 || list.count == 3 else {
                throw ValidationError("--bands takes one band or three, 1-based, e.g. 3,2,1, not '\(bands)'")
            }
            return list.map { $0! }
        }

        func backgroundColour() throws -> RGB? {
            guard let background else { return nil }
            guard let colour = RGB(css: background) else {
                throw ValidationError("--background takes a colour: #rrggbb, #rgb or a CSS name such as white or navy, not '\(background)'")
            }
            return colour
        }

        /// What `--excluded-values` and its threshold ask for (nil when not given).
        func excludedValues() throws -> ExcludedValues? {
            guard let excludedValuesText else {
                if excludedValuesThreshold != nil { throw ValidationError("--excluded-values-pct-threshold goes with --excluded-values") }
                return nil
            }
            guard let colours = ExcludedValues.colours(parsing: excludedValuesText) else {
                throw ValidationError("--excluded-values takes R,G,B tuples of 0-255, separated by ; or written (R,G,B),(R,G,B), not '\(excludedValuesText)'")
            }
            guard let excluded = ExcludedValues(colours: colours, thresholdPercent: excludedValuesThreshold ?? ExcludedValues.defaultThresholdPercent) else {
                throw ValidationError("--excluded-values-pct-threshold must be from 0 to 100")
            }
            if resamplingChoice == .gdal2tiles {
                throw ValidationError("--excluded-values does not apply to --resampling gdal2tiles, which reproduces the tiles of gdal2tiles 3.6 (before excluded values): use the default, average")
            }
            return excluded
        }

        func points() throws -> [ControlPoint] {
            if !controlPoints.isEmpty && controlPoints.count < 3 { throw ValidationError("give --gcp at least three times (got \(controlPoints.count))") }
            return controlPoints.map { ControlPoint(pixel: $0.pixel, line: $0.line, latitude: $0.position.latitude, longitude: $0.position.longitude) }
        }

        /// The request `meridian-gdal tile` runs: the job in the library's terms (every choice not
        /// made left nil), and the command line's own (the plan's form, quiet, the user's words).
        func request() throws -> TileRequest {
            var job = TilingJobRequest(inputs: Array(paths.dropLast()), output: output, jobs: jobs)
            job.tileFormat = tileFormatChoice.map { TileFormat(rawValue: $0.rawValue) ?? .png }
            job.zooms = zoom?.levels
            job.scheme = rows
            job.tileSize = tileSizeChoice
            job.background = try backgroundColour()
            (job.resume, job.viewer, job.kml, job.finish, job.shardCount) = (resume, viewer, kml, finish, shards)
            job.replacesExistingFile = replacing.force
            if let shard, shard != "auto", let given = TileShard(shard) {
                if let shards, shards != given.count { throw MeridianError(.usage, "--shards \(shards) disagrees with --shard \(given)") }
                job.shard = given
            }
            job.raster.source = RasterSourceOptions(bands: try bandList(), noData: nodata, controlPoints: try points(),
                                                    controlPointMethod: controlPointMethodChoice, cutCollar: !noCutline)
            (job.raster.quilt, job.raster.overzoom, job.raster.resampling) = (quiltChoice, overzoom, resamplingChoice)
            job.raster.measurement = measurement.tilingMeasurement
            job.raster.excludedValues = try excludedValues()
            job.layerNames = layerNames
            job.vector = selection.choices
            var request = TileRequest(job: job)
            request.inputList = inputList
            request.shardFromEnvironment = shard == "auto"
            request.plan = plan ? planFormatChoice ?? .text : nil
            request.quiet = quiet
            // The user's words after `tile`, for the command an interrupted run prints to go on.
            request.command = Array(CommandLine.arguments.dropFirst().drop { $0 != Self.configuration.commandName }.dropFirst())
            return request
        }

        /// Replaces this process with `meridian-gdal tile` and the request; returns only when the
        /// helper cannot be run (69).
        func run() throws {
            var request: TileRequest?
            try Reporter(quiet: quiet).run { request = try self.request() }
            guard let request else { return }
            throw ExitCode(HelperExecutable.gdal.exec(TileRequest.subcommand, request.words))
        }
    }
}

/// Switches for measuring the tiler, hidden from help (as swift-format's performance
/// measurement options are): they change no tile.
struct TilingMeasurementOptions: ParsableArguments {
    @Flag(name: .customLong("gdal-warp"), help: ArgumentHelp("Warp every base tile with GDAL's warper, never Meridian's own kernels.", visibility: .hidden))
    var gdalWarperOnly = false

    @Flag(help: ArgumentHelp("Print the wall time of each stage, summed over the threads, on standard output.", visibility: .hidden))
    var profile = false

    @Option(name: .customLong("gdal-cache-mb"), help: ArgumentHelp("The size of GDAL's block cache in megabytes (default 64, GDALSupport's GDAL.defaultBlockCacheMegabytes).", visibility: .hidden))
    var gdalCacheMegabytes: Int?

    var tilingMeasurement: TilingMeasurement {
        var measurement = TilingMeasurement()
        measurement.gdalWarperOnly = gdalWarperOnly
        measurement.timesStages = profile
        measurement.gdalCacheMegabytes = gdalCacheMegabytes
        return measurement
    }
}

extension TileRequest.PlanFormat: ExpressibleByArgument {}
extension Resampling: ExpressibleByArgument {}
extension ControlPointMethod: ExpressibleByArgument {}
extension QuiltRule: ExpressibleByArgument {}
