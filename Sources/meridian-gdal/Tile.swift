import ArgumentParser
import Foundation
import GDALSupport
import MeridianCommandLine
import MeridianCore
import MeridianFormats
import MeridianGeometry
import MeridianRaster
import MeridianTiles
import Synchronization

/// `meridian tile`: a raster into a Web Mercator tile pyramid.
struct Tile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tile",
        abstract: "Warp rasters (GeoTIFF, BSB/KAP charts, images with control points) into Web Mercator tiles, one or a catalog quilted together.",
        usage: """
            meridian tile <input>... <output> [<options>]
            meridian tile --inputs <list> [<input>...] <output> [<options>]
            """,
        discussion: """
            Writes a folder of z/x/y tiles (XYZ rows by default, TMS with --tms) with TileJSON \
            metadata.json, or an MBTiles 1.3 file when OUTPUT ends in .mbtiles. Each base tile is \
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
            and ends with exactly the tiles of a clean run.

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
    var planFormatChoice: PlanFormat?

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

    /// The image format of raster tiles.
    var tileFormat: TileFormat { TileFormat(rawValue: tileFormatChoice?.rawValue ?? "png") ?? .png }
    var quilt: QuiltRule { quiltChoice ?? .scale }
    var planFormat: PlanFormat { planFormatChoice ?? .text }
    var tileSize: Int { tileSizeChoice ?? 256 }
    var resampling: Resampling { resamplingChoice ?? .average }
    var controlPointMethod: ControlPointMethod { controlPointMethodChoice ?? .polynomial }

    enum PlanFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    enum SchemeFlag: String, EnumerableFlag {
        case xyz, tms
        static func help(for value: SchemeFlag) -> ArgumentHelp? {
            value == .xyz ? "XYZ rows, from the top (MapKit, OpenStreetMap, Leaflet)." : "TMS rows, from the bottom."
        }
    }

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give the rasters to tile and an output folder or .mbtiles file") }
        if paths.count == 1 && inputList == nil {
            throw ValidationError("give an output folder or .mbtiles file after the input '\(paths[0])'")
        }
        if !controlPoints.isEmpty && (paths.count > 2 || inputList != nil) {
            throw ValidationError("--gcp georeferences one image: for a catalog, save each image's control points beside it as IMAGE.points (QGIS Georeferencer's format), or georeference it with gdal_translate -gcp")
        }
        guard tileSize == 256 || tileSize == 512 else { throw ValidationError("--tile-size must be 256 or 512") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if let overzoom, overzoom < 0 { throw ValidationError("--overzoom must be 0 or more") }
        if let megabytes = measurement.gdalCacheMegabytes, megabytes < 1 { throw ValidationError("--gdal-cache-mb must be at least 1") }
        _ = try bandList()
        _ = try points()
        _ = try backgroundColour()
        _ = try excludedValues()
        if kml && (isMBTiles || isPMTiles) {
            throw ValidationError("--kml needs a folder output: Google Earth reads a super-overlay's tiles as image files beside its KML files, not from an \(isMBTiles ? "MBTiles file" : "PMTiles archive")")
        }
        if viewer && isMBTiles {
            throw ValidationError("--viewer needs a folder output, not an MBTiles file: a page opened from disk cannot read an SQLite file")
        }
        if let shard, shard != "auto", TileShard(shard) == nil {
            throw ValidationError("--shard takes K/N with 0 ≤ K < N ≤ \(TileShard.maximumCount) (e.g. 0/4), or auto, not '\(shard)'")
        }
        if let shards, !(1...TileShard.maximumCount).contains(shards) { throw ValidationError("--shards must be from 1 to \(TileShard.maximumCount)") }
        if finish && shard != nil { throw ValidationError("--finish joins the shards once they are done: give it without --shard") }
        if (finish || shard != nil) && plan { throw ValidationError("--plan prints the whole run's plan: give it without --shard or --finish") }
        if isMBTiles && scheme == .tms { throw ValidationError("--tms: MBTiles files always count rows TMS-style; give a folder to choose") }
        if isPMTiles && resume {
            throw ValidationError("a PMTiles archive is written in one go: --resume needs a folder or an .mbtiles file (shards, with --shard and --finish, can be joined into an archive)")
        }
        if isPMTiles && viewer {
            throw ValidationError("--viewer needs a folder output, not a PMTiles archive: a page opened from disk reads one only through the pmtiles JavaScript library, which Meridian does not install")
        }
    }

    var isMBTiles: Bool { TilePyramidWriter.isMBTiles(output) }
    /// How a folder output counts rows.
    var rows: TileScheme { scheme == .tms ? .tms : .xyz }
    /// What the run identity records of the output: a folder's row scheme (MBTiles rows are always TMS).
    var outputFields: [(String, String)] { isMBTiles ? [] : [("scheme", rows.rawValue)] }
    var isPMTiles: Bool { TilePyramidWriter.isPMTiles(output) }

    /// The last path: where the tiles go.
    var output: String { paths.last ?? "" }

    /// The inputs as given (paths, folders), then those of --inputs.
    func inputs() throws -> [String] {
        var inputs = Array(paths.dropLast())
        if let inputList { inputs += try TileInputs.listed(in: inputList) }
        return inputs
    }

    func bandList() throws -> [Int]? {
        guard let bands else { return nil }
        let list = bands.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
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
        if resampling == .gdal2tiles {
            throw ValidationError("--excluded-values does not apply to --resampling gdal2tiles, which reproduces the tiles of gdal2tiles 3.6 (before excluded values): use the default, average")
        }
        return excluded
    }

    func points() throws -> [ControlPoint] {
        if !controlPoints.isEmpty && controlPoints.count < 3 { throw ValidationError("give --gcp at least three times (got \(controlPoints.count))") }
        return controlPoints.map { ControlPoint(pixel: $0.pixel, line: $0.line, latitude: $0.position.latitude, longitude: $0.position.longitude) }
    }

    func run() throws {
        var reporter = Reporter(quiet: quiet)
        reporter.program = "meridian"
        try reporter.run {
            let inputs = try inputs()
            RunInputs.record(inputs + [inputList].compactMap { $0 })
            let kind: TileRunKind = try isVectorRun(inputs) ? (tileFormatChoice == nil || tileFormatChoice == .mvt ? .vectorTiles : .drawnVectors) : .rasters
            try refuseOptionsNotApplying(to: kind)
            var vectorRun = self
            if kind == .vectorTiles { vectorRun.tileFormatChoice = .mvt }
            switch kind {
            case .vectorTiles: return try vectorRun.tileVectors(inputs, reporter: &reporter)
            case .drawnVectors: return try drawVectors(inputs, reporter: &reporter)
            case .rasters: break
            }
            let sourceOptions = RasterSourceOptions(bands: try bandList(), noData: nodata, controlPoints: try points(),
                                                    controlPointMethod: controlPointMethod, cutCollar: !noCutline)
            let found = try TileInputs.open(inputs, options: sourceOptions)
            if !quiet {
                for skipped in found.skipped {
                    let (message, hint) = skipped.reason.commandLineWording
                    reporter.report(Diagnostic(.warning, "skipped: \(message)" + (hint.map { " (\($0))" } ?? ""), at: SourceLocation(file: skipped.path)))
                }
                for source in found.sources {
                    for note in source.notes { reporter.report(Diagnostic(.warning, note.commandLineText, at: SourceLocation(file: source.path))) }
                }
            }
            let tiler = try Tiler(catalog: TileCatalog(sources: found.sources, quilt: quilt, overzoom: overzoom, tileSize: tileSize), options: TilingOptions(
                zooms: zoom?.levels, tileSize: tileSize, format: tileFormat, resampling: resampling,
                jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount, background: try backgroundColour(),
                measurement: measurement.tilingMeasurement, excludedValues: try excludedValues()))
            if plan {
                print(try Self.planText(tiler.plan(), format: planFormat), terminator: "")
                return
            }
            if finish {
                guard let summary = try finishShards(tiler) else { return }
                try report(summary, tiler: tiler, reporter: &reporter)
                return
            }
            if let shard {
                guard let summary = try runShard(tiler, shard: shard) else { return }
                try report(summary, tiler: tiler, reporter: &reporter)
                return
            }
            let sink = try makeSink { try tiler.identity(output: outputFields) }
            guard let summary = try tiling({ try tiler.run(into: sink, progress: $0) }) else { return }
            try report(summary, tiler: tiler, reporter: &reporter)
        }
    }

    /// What a run makes: tiles of rasters, vector tiles of vector data, or image tiles of vector data drawn.
    enum TileRunKind: CaseIterable {
        case rasters, vectorTiles, drawnVectors

        var name: String {
            switch self {
            case .rasters: "tiles of rasters"
            case .vectorTiles: "vector tiles"
            case .drawnVectors: "image tiles drawn from vector data"
            }
        }
    }

    /// Refuses (usage) every option given that does nothing for a run of `kind`, rather than
    /// ignore it: each option works for every kind of run it is accepted for.
    func refuseOptionsNotApplying(to kind: TileRunKind) throws {
        let raster: Set<TileRunKind> = [.rasters], images: Set<TileRunKind> = [.rasters, .drawnVectors]
        let vector: Set<TileRunKind> = [.vectorTiles, .drawnVectors]
        let options: [(name: String, given: Bool, appliesTo: Set<TileRunKind>, why: String)] = [
            ("--tms", scheme == .tms, images, "vector tiles are written in XYZ rows, as their web maps read them"),
            ("--tile-size", tileSizeChoice != nil, images, "vector tiles have no pixels"),
            ("--background", background != nil, images, "vector tiles have no pixels"),
            ("--quilt", quiltChoice != nil, raster, "vector data is drawn in the order of the inputs"),
            ("--overzoom", overzoom != nil, raster, "it limits how deep a chart shows"),
            ("--resampling", resamplingChoice != nil, raster, "only a raster's pixels are resampled"),
            ("--nodata", nodata != nil, raster, "only a raster's pixels have values"),
            ("--bands", bands != nil, raster, "only a raster has bands"),
            ("--excluded-values", excludedValuesText != nil, raster, "only a raster's pixels are averaged into lower zoom levels (vector data is drawn at each)"),
            ("--kml", kml, images, "Google Earth lays image tiles on the globe, not vector tiles"),
            ("--gcp", !controlPoints.isEmpty, raster, "only an image is georeferenced by control points"),
            ("--gcp-method", controlPointMethodChoice != nil, raster, "only an image is georeferenced by control points"),
            ("--no-cutline", noCutline, raster, "only a chart has a collar"),
            ("--gdal-warp", measurement.gdalWarperOnly, raster, "only a raster is warped"),
            ("--profile", measurement.profile, raster, "it times a raster's stages"),
            ("--gdal-cache-mb", measurement.gdalCacheMegabytes != nil, raster, "only a raster is read through GDAL's block cache"),
            ("--layer-name", !layerNames.isEmpty, vector, "only vector data has layers"),
            (selection.firstGiven ?? "", selection.firstGiven != nil, [.vectorTiles], "it chooses which features and attributes go into vector tiles, and image tiles draw every feature"),
        ]
        guard let refused = options.first(where: { $0.given && !$0.appliesTo.contains(kind) }) else { return }
        let kinds = TileRunKind.allCases.filter(refused.appliesTo.contains).map(\.name).joined(separator: " and ")
        throw MeridianError(.usage, "\(refused.name) applies to \(kinds) only, and this run makes \(kind.name): \(refused.why)",
                            hint: "run again without \(refused.name)")
    }

    /// The output's tile set: a PMTiles archive, an MBTiles file or a folder, for the run
    /// `identity` gives (an archive cannot be resumed and needs none).
    func makeSink(identity: () throws -> TilingRunIdentity) throws -> TileSink {
        try TileSinks.open(output, format: tileFormat, scheme: rows, resume: resume, identity: identity)
    }

    /// Runs `body` (a run or a shard's) with the progress line and the note Ctrl-C prints; a
    /// failure says how to go on (`goingOn`).
    func tiling(_ body: (@escaping @Sendable (TilingProgress) -> Void) throws -> TilingSummary?) throws -> TilingSummary? {
        if !quiet { TemporaryFiles.setInterruptionNote(resumeNote) }
        defer { TemporaryFiles.setInterruptionNote(nil) }
        let line = TilingProgressLine(quiet: quiet)
        defer { line.finish() }
        do {
            let summary = try body(line.show)
            if let summary { line.complete(summary) }
            return summary
        } catch let failure as any MeridianFailure {
            let (message, hint) = failure.commandLineWording
            // Running again helps when the output or a helper failed, not the input or the command line.
            let outputFailed = [.io, .cannotCreateOutput, .unavailable].contains(failure.kind)
            throw MeridianError(failure.kind, message, at: failure.location, hint: hint ?? (outputFailed ? goingOn : nil))
        }
    }

    /// How to go on after a failed or interrupted run, for what the output keeps: a folder or
    /// an MBTiles file keeps its tiles for --resume; a PMTiles archive, written in one go,
    /// keeps nothing and cannot be resumed.
    var goingOn: String {
        isPMTiles ? "nothing of a PMTiles archive is kept (it is written in one go): once the cause is fixed, run the same command again"
            : "the tiles written so far are kept: once the cause is fixed, run again with --resume to finish"
    }

    /// What a run prints when it is done: the profile, the viewer, warnings, the summary line.
    func report(_ summary: TilingSummary, tiler: Tiler, reporter: inout Reporter) throws {
        for (stage, seconds) in summary.stageSeconds.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            print("profile \(stage.rawValue): \(String(format: "%.2f", seconds)) s")
        }
        let time = String(format: "%.1f s", summary.seconds)
        if let shard {
            if !quiet { Reporter.printError("\(output): shard \(shard): \(summary.tileCount) tiles written, \(time)") }
            return
        }
        if viewer {
            try TileViewer.write(folder: output, metadata: summary.metadata, scheme: rows)
        }
        if kml { try writeKML(summary.metadata) }
        if let shortfall = Self.zoomShortfall(summary) {
            reporter.report(Diagnostic(.warning, shortfall, at: SourceLocation(file: tiler.sources.count == 1 ? tiler.sources[0].path : output)))
        }
        guard !quiet else { return }
        if finish {
            let held = summary.zoomsWithTiles ?? summary.zooms
            Reporter.printError("\(output): shards joined, \(summary.tileCount) tiles built where they meet; zoom \(held.lowerBound)-\(held.upperBound), \(time)")
        } else {
            Reporter.printError(Self.summaryText(summary, output: output, resumed: resume))
        }
    }

    /// Writes the KML super-overlay over the finished folder and says how many files it wrote.
    func writeKML(_ metadata: TileSetMetadata) throws {
        let written = try KMLSuperOverlay.write(folder: output, metadata: metadata, scheme: rows)
        if !quiet {
            Reporter.printError("\(output)/doc.kml: KML super-overlay, \(written.tileFiles) tile KML files, \(written.roots) linked from doc.kml")
        }
    }

    /// The plan as a table (text) or as JSON.
    static func planText(_ plan: TilingPlan, format: PlanFormat) throws -> String {
        if format == .json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            return String(decoding: try encoder.encode(plan), as: UTF8.self) + "\n"
        }
        func levels(_ zooms: [Int]) -> String {
            guard let first = zooms.first else { return "never" }
            // Runs of consecutive levels: 12-15,18.
            var runs: [String] = [], start = first, previous = first
            for zoom in zooms.dropFirst() + [Int.max] {
                if zoom != previous + 1 { runs.append(start == previous ? "\(start)" : "\(start)-\(previous)"); start = zoom }
                previous = zoom
            }
            return runs.joined(separator: ",")
        }
        func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text : text + String(repeating: " ", count: width - text.count) }
        let nameWidth = max(5, plan.charts.map(\.name.count).max() ?? 0)
        var lines = ["\(plan.charts.count) chart\(plan.charts.count == 1 ? "" : "s"), zoom \(plan.zooms[0])-\(plan.zooms[1]), quilted by \(plan.quilt)" + (plan.overzoom.map { ", each shown at most \($0) level\($0 == 1 ? "" : "s") deeper than its native zoom" } ?? ""), ""]
        lines.append(pad("chart", nameWidth) + "  scale      native  alone  on top  bounds (west, south, east, north)")
        for chart in plan.charts {
            let scale = chart.scale.map { "1:\($0)" } ?? "-"
            let bounds = chart.bounds.map { String(format: "%.5f", $0) }.joined(separator: ", ")
            lines.append(pad(chart.name, nameWidth) + "  " + pad(scale, 9) + "  " + pad("\(chart.nativeZoom)", 6) + "  "
                         + pad("\(chart.zoomsAlone[0])-\(chart.zoomsAlone[1])", 5) + "  " + pad(levels(chart.onTop), 6) + "  " + bounds)
        }
        lines += ["", "zoom  tiles"]
        for zoom in plan.zooms[0]...plan.zooms[1] { lines.append(pad("\(zoom)", 4) + "  " + "\(plan.tilesPerZoom["\(zoom)"] ?? 0)") }
        let minutes = Int(plan.estimatedSeconds.rounded(.up)) / 60, seconds = Int(plan.estimatedSeconds.rounded(.up)) % 60
        let megabytes = Double(plan.estimatedBytes) / 1_000_000
        lines += ["", "\(plan.tiles) tiles at most; about \(minutes):\(String(format: "%02d", seconds)) with \(plan.jobs) thread\(plan.jobs == 1 ? "" : "s") "
                  + "and \(String(format: "%.1f", megabytes)) MB, estimated from \(plan.sampleTiles) sample tiles"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `out/: 1414 tiles, zoom 14-18, 3.1 s (456 tiles/s)`; after --resume, what a user can
    /// check: tiles written now and kept, whose sum a clean run writes.
    static func summaryText(_ summary: TilingSummary, output: String, resumed: Bool) -> String {
        let rate = summary.seconds > 0 ? Double(summary.tileCount) / summary.seconds : 0
        let held = summary.zoomsWithTiles ?? summary.zooms
        let zooms = "zoom \(held.lowerBound)-\(held.upperBound)"
        let time = String(format: "%.1f s (%.0f tiles/s)", summary.seconds, rate)
        guard resumed else { return "\(output): \(summary.tileCount) tiles, \(zooms), \(time)" }
        return "\(output): \(summary.totalTiles) tiles in all, as a clean run writes: \(summary.tileCount) written now, "
            + "\(summary.kept) kept from the interrupted run; \(zooms), \(time)"
    }

    /// The line printed when Ctrl-C (or SIGTERM, SIGHUP) stops the run: the command to resume
    /// it, or for a PMTiles archive (which cannot be resumed) to run it again.
    var resumeNote: String {
        var arguments = Array(CommandLine.arguments.dropFirst(2))  // meridian-gdal tile
        if !isPMTiles && !arguments.contains("--resume") { arguments.append("--resume") }
        let command = (["meridian", "tile"] + arguments).map(shellQuoted).joined(separator: " ")
        let clear = isatty(STDERR_FILENO) == 1 ? "\r\u{1B}[K" : ""
        let kept = isPMTiles ? "nothing of the PMTiles archive was kept (it is written in one go). To tile again, run:"
            : "the tiles written so far are kept. To finish, run:"
        return "\(clear)meridian: interrupted; \(kept)\n  \(command)\n"
    }

    /// Why the tile set holds fewer zoom levels than were asked for, if it does.
    static func zoomShortfall(_ summary: TilingSummary) -> String? {
        func levels(_ range: ClosedRange<Int>) -> String { range.count == 1 ? "zoom \(range.lowerBound)" : "zoom \(range.lowerBound)-\(range.upperBound)" }
        guard let held = summary.zoomsWithTiles else {
            return "no tiles: the raster shows at none of \(levels(summary.zooms)) (all transparent)"
        }
        guard held != summary.zooms else { return nil }
        var missing: [String] = []
        if held.lowerBound > summary.zooms.lowerBound { missing.append(levels(summary.zooms.lowerBound...held.lowerBound - 1)) }
        if held.upperBound < summary.zooms.upperBound { missing.append(levels(held.upperBound + 1...summary.zooms.upperBound)) }
        return "\(missing.joined(separator: " and ")) hold no tiles (there the raster covers less than 1/255 of a pixel): "
            + "the tile set and its metadata say \(levels(held))"
    }

    /// `412/1546 tiles (27%), 96 tiles/s, ETA 0:12`
    static func progressText(_ p: TilingProgress) -> String { progressText(done: p.done, total: p.total, seconds: p.seconds) }

    static func progressText(done: Int, total: Int, seconds: Double) -> String {
        let rate = seconds > 0 ? Double(done) / seconds : 0
        var text = "\(done)/\(total) tiles (\(total > 0 ? done * 100 / total : 100)%), \(Int(rate)) tiles/s"
        if rate > 0 {
            let left = Int(Double(total - done) / rate)
            text += String(format: ", ETA %d:%02d", left / 60, left % 60)
        }
        return text
    }
}

/// Switches for measuring the tiler, hidden from help (as swift-format's performance
/// measurement options are): they change no tile.
struct TilingMeasurementOptions: ParsableArguments {
    @Flag(name: .customLong("gdal-warp"), help: ArgumentHelp("Warp every base tile with GDAL's warper, never Meridian's own kernels.", visibility: .hidden))
    var gdalWarperOnly = false

    @Flag(help: ArgumentHelp("Print the wall time of each stage, summed over the threads, on standard output.", visibility: .hidden))
    var profile = false

    @Option(name: .customLong("gdal-cache-mb"), help: ArgumentHelp("The size of GDAL's block cache in megabytes (default \(GDAL.defaultBlockCacheMegabytes)).", visibility: .hidden))
    var gdalCacheMegabytes: Int?

    var tilingMeasurement: TilingMeasurement {
        var measurement = TilingMeasurement()
        measurement.gdalWarperOnly = gdalWarperOnly
        measurement.timesStages = profile
        measurement.gdalCacheMegabytes = gdalCacheMegabytes
        return measurement
    }
}

/// The progress line of a tiling run, which the tiler's worker threads draw one at a time.
final class TilingProgressLine: Sendable {
    private let line: Mutex<ProgressLine>

    init(quiet: Bool) {
        line = Mutex(ProgressLine(quiet: quiet))
    }

    /// Draws `progress` (at most ten times a second).
    func show(_ progress: TilingProgress) {
        line.withLock { $0.update(text: Tile.progressText(progress)) }
    }

    /// Draws the run's end: its true count of tiles as all of them (the count shown along the
    /// way is of at most ``TilingProgress/total``, a bound the run stays under), whatever the
    /// last drawing showed.
    func complete(_ summary: TilingSummary) {
        let text = Tile.progressText(done: summary.totalTiles, total: summary.totalTiles, seconds: summary.seconds)
        line.withLock { $0.update(text: text, force: true) }
    }

    /// Clears the line.
    func finish() {
        line.withLock { $0.finish() }
    }
}

extension TileFormat: ExpressibleByArgument {}
extension Resampling: ExpressibleByArgument {}
extension ControlPointMethod: ExpressibleByArgument {}
extension QuiltRule: ExpressibleByArgument {}
