import ArgumentParser
import MeridianCore
import MeridianFormats
import MeridianGeometry
import MeridianTilingRequest

/// The input every reading subcommand takes: a path or stdin, and an optional format override.
struct InputOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The input file; '-' or nothing reads standard input.", valueName: "input"))
    var input: String?

    @Option(name: .customLong("from"), help: ArgumentHelp(
        "The input format, when the extension and the first bytes do not tell (\(FormatNames.readable)).",
        valueName: "format"))
    var format: String?

    @Option(help: ArgumentHelp("KML folders: 'flat' (a folder property on each feature) or 'tree' (nested, like togeojson's kmlWithFolders; convert only).",
                               valueName: "flat|tree"))
    var folders: KMLReadOptions.Folders = .flat

    @Option(help: ArgumentHelp(
        "Keep only one layer: a KML or KMZ Folder or Document of this name, a layer of a GDAL dataset (a GeoPackage's table) or of vector tiles. A name the input has no layer of is an error that lists them.",
        valueName: "name"))
    var layer: String?

    /// Throws a usage error for `--folders tree` in a subcommand other than `convert`, the one
    /// that writes the tree (simplify, clip and info took it and did nothing with it).
    func refuseFolderTree() throws {
        if folders == .tree {
            throw ValidationError("--folders tree writes a KML file's folders as one JSON tree, which only meridian convert does: leave it out (each feature's folder path is in its folder property)")
        }
    }

    /// Throws a usage error for the options that read features from a file, when the input is a
    /// tile pyramid: `--from` (a pyramid is known by its extension or metadata.json) and
    /// `--folders tree` (a pyramid has layers, not folders). `convert` ignored both.
    func refuseFeatureFileOptionsForPyramid() throws {
        guard let input, TilePyramidInput.isPyramid(input) else { return }
        if format != nil {
            throw ValidationError("--from names a feature format; a tile pyramid is known by its extension (.mbtiles, .pmtiles) or its metadata.json")
        }
        if folders == .tree {
            throw ValidationError("--folders tree writes a KML file's folders as one JSON tree; a tile pyramid has layers, not folders (--layer NAME reads one)")
        }
    }

    /// Opens the input, sending the reader's warnings to stderr, and records it, so no output is
    /// it; `coordinates` says whether the output needs positions on the globe.
    func open(reporter: Reporter, coordinates: CoordinateRule = .warnOutsideRange) throws -> FeatureInput {
        RunInputs.record(input)
        return try FeatureInput(path: input, format: format,
                         options: ReadOptions(diagnostics: reporter.report, kml: KMLReadOptions(folders: folders), layer: layer,
                                              coordinates: coordinates),
                         registry: .commandLine)
    }
}

/// `--force`: the one option, shared by every subcommand that writes a file, that lets a run
/// replace a file already at its output's path (a tile output's MBTiles or PMTiles file too).
/// Without it such a file is refused (73) and left as it was.
struct ReplaceOption: ParsableArguments {
    @Flag(name: .customLong("force"), help: ArgumentHelp(
        "Replace the output if it is an existing file (for tiles, an .mbtiles or .pmtiles file; a folder never): still written out of sight and renamed over it, never over an input, a device or through a symbolic link. Without it an existing output is refused (exit 73)."))
    var force = false

    /// Throws a usage error when --force is given for a tile output that is a folder, which is
    /// never replaced (it may hold anyone's files), or with --resume, which continues what is there.
    func check(tileOutput output: String, resuming: Bool = false) throws {
        // '-' is standard output everywhere else: a folder of that name would surprise.
        if DescriptorPaths.isStandardOutput(output) {
            throw ValidationError("a tile pyramid is written to a folder, an .mbtiles file or a .pmtiles archive, never standard output: give its path (./- for a folder named '-')")
        }
        guard force else { return }
        if TileContainer(path: output) == .folder {
            throw ValidationError("--force replaces an existing .mbtiles file or .pmtiles archive; a folder of tiles is never replaced, since it may hold files no run made: remove it or choose another path")
        }
        if resuming { throw ValidationError("--resume continues the output that is there and --force replaces it: give one or the other") }
    }

    /// Throws a usage error when --force is given for an output that is not a file at a path
    /// (`output` nil or `-`: standard output, which is never replaced).
    func check(output: String?, option: String = "-o") throws {
        if force && DescriptorPaths.isStandardOutput(output) {
            throw ValidationError("--force replaces an existing output file, and standard output is none: give \(option) PATH, or leave --force out")
        }
    }
}

/// The inputs of `tile`, `tile-copy` and `tile-join`: files and folders at paths.
enum TileRunInputs {
    /// Throws a usage error when one of a tile run's `inputs` is `-`, which is standard input
    /// everywhere else: a run reads its inputs more than once (and `--resume` checks them), and
    /// a pyramid is read at random. Before, `-` was looked for as a file, not found (66).
    /// A descriptor's path (`/dev/stdin`, `/dev/fd/63` from `<(…)`) is refused the same way
    /// when it is a pipe or anything else that is read once: a file redirected in (`< x.geojson`)
    /// can be read again, and is taken as a run's input; never as a pyramid, whose container
    /// its name tells (`.mbtiles`, `.pmtiles`, a folder), and a descriptor's name tells none
    /// (an MBTiles file redirected in was "not a tile pyramid", 65).
    static func refuseStandardInput(_ inputs: [String], pyramids: Bool) throws {
        if pyramids, let named = inputs.first(where: { $0 != "-" && DescriptorPaths.descriptor(named: $0) != nil && !isReadOnce($0) }) {
            throw ValidationError("\(named) names a descriptor, and a tile pyramid is told by its path (a folder, an .mbtiles file or a .pmtiles archive): give its path")
        }
        guard let stream = inputs.first(where: { $0 == "-" || isReadOnce($0) }) else { return }
        let what = stream == "-" ? "'-' is standard input" : "\(stream) is a stream read once"
        throw ValidationError(pyramids
            ? "\(what), and a tile pyramid is read from a folder, an .mbtiles file or a .pmtiles archive: give its path (./- for one named '-')"
            : "\(what), and meridian tile reads its inputs from files (more than once, and --resume checks them): save the data to a file first (meridian convert - -o features.geojson) and give its path (./- for a file named '-')")
    }

    /// Whether `path` names one of this process's descriptors that is not a regular file.
    private static func isReadOnce(_ path: String) -> Bool {
        guard let descriptor = DescriptorPaths.descriptor(named: path) else { return false }
        var info = stat()
        return fstat(descriptor, &info) != 0 || (info.st_mode & S_IFMT) != S_IFREG
    }
}

/// Where and how a subcommand writes: a path or stdout, exact or rounded, compact or indented.
struct OutputFileOptions: ParsableArguments {
    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp(
        "The output file, written atomically; '-' or nothing writes standard output (never PNG or KMZ bytes to a terminal). An existing file is refused unless --force is given.", valueName: "path"))
    var output: String?

    @OptionGroup var replacing: ReplaceOption

    @Option(help: ArgumentHelp("Round coordinates to this many decimal places (default: exact).", valueName: "digits"))
    var precision: Int?

    @Flag(help: "Indent the output instead of writing one feature per line.")
    var pretty = false

    @Flag(help: "GPX: write lines as routes (rte) instead of tracks (trk).")
    var gpxRoutes = false

    @OptionGroup(title: "MapKit Swift (swift)") var mapKit: MapKitSourceArguments
    @OptionGroup(title: "Pictures (svg, png)") var picture: PictureArguments

    func validate() throws {
        if let precision, !(0...17).contains(precision) {
            throw ValidationError("--precision must be between 0 and 17")
        }
        try replacing.check(output: output)
    }

    /// Each format's own settings as the flags give them, with the flags that were given.
    private var formatSettings: [(flags: [String], settings: any FormatWriteOptions)] {
        var mapKitSettings = mapKit.options
        // Each generated file gets its own type, so several compile into one app.
        mapKitSettings.typeName = mapKit.swiftType ?? output.flatMap { DescriptorPaths.hasNoFileName($0) ? nil : MapKitSourceWriter.typeName(forFile: $0) }
        return [
            (pretty ? ["--pretty"] : [], GeoJSONWriteOptions(pretty: pretty)),
            (gpxRoutes ? ["--gpx-routes"] : [], GPXWriteOptions(routes: gpxRoutes)),
            (mapKit.given, mapKitSettings),
            (picture.given, picture.options),
        ]
    }

    /// The writer's options for `format`: its own settings from the flags, its warnings going
    /// to `reporter`. A flag for another format's settings is refused (64), never ignored.
    func writeOptions(for format: FeatureFormat, reporter: Reporter) throws -> WriteOptions {
        if precision != nil && !format.roundsCoordinates {
            throw MeridianError(.usage, "--precision does not apply to \(format.displayName) output",
                                hint: "\(format.displayName) is written without rounding: leave --precision out")
        }
        if let kind = PictureKind(rawValue: format.id) { try picture.refusePNGOnlyOptions(for: kind) }
        var options = WriteOptions(precision: precision)
        for (flags, settings) in formatSettings {
            if format.takes(settings) {
                options.formatOptions = settings
            } else if let flag = flags.first {
                let takers = FormatRegistry.commandLine.formats.filter { $0.takes(settings) }.map(\.id)
                throw MeridianError(.usage, "\(flag) does not apply to \(format.displayName) output",
                                    hint: "it is for \(listed(takers)) output; leave it out")
            }
        }
        options.replacesExisting = replacing.force
        options.generator = Meridian.invokedCommand
        options.diagnostics = { reporter.report($0) }
        return options
    }

    /// Opens the output; the format follows `format`, else the extension, else GeoJSON.
    func open(format name: String? = nil, protecting input: String? = nil, reporter: Reporter) throws -> FeatureOutput {
        let path = DescriptorPaths.hasNoFileName(output) ? nil : output
        let format = try FormatRegistry.commandLine.outputFormat(path: path, explicit: name, fallback: .geoJSON)
        return try FeatureOutput(path: output, chosen: format, options: writeOptions(for: format, reporter: reporter), protectedInput: input)
    }

    /// What a position off the globe is for this output in `format` (else its extension's):
    /// an error when the format needs geographic coordinates. A format named with `--to` that
    /// does not exist throws here, once: looking a GDAL name up runs `meridian-gdal`, which
    /// reports the unknown name itself, so a second look-up when the output is opened would
    /// print the error twice. (An output whose extension tells no format fails when it is opened,
    /// where a subcommand words that its own way.)
    func coordinateRule(format: String?) throws -> CoordinateRule {
        let path = DescriptorPaths.hasNoFileName(output) ? nil : output
        let chosen: FeatureFormat?
        if format != nil {
            chosen = try FormatRegistry.commandLine.outputFormat(path: path, explicit: format, fallback: .geoJSON)
        } else {
            chosen = try? FormatRegistry.commandLine.outputFormat(path: path, explicit: nil, fallback: .geoJSON)
        }
        guard let chosen, chosen.needsGeographicCoordinates else { return .warnOutsideRange }
        return .geographic(for: chosen.displayName)
    }

    /// Writes features made by a subcommand (a geodesic, a circle) as one collection.
    func write(_ features: [Feature], format: String? = nil, reporter: Reporter) throws {
        let destination = try open(format: format, reporter: reporter)
        try destination.commit { try copyFeatures(from: FeatureList(features), to: destination.writer) }
    }
}

/// What a MapKit Swift output declares beyond the shapes: its type's name, the overlays' level,
/// how markers cluster and rank, and literals or a GeoJSON resource.
struct MapKitSourceArguments: ParsableArguments {
    @Option(help: ArgumentHelp(
        "MapKit Swift: the name of the enum that holds the overlays (default: the output file's name in UpperCamelCase, Flight.swift → Flight; MeridianOverlays on standard output).",
        valueName: "name"))
    var swiftType: String?
    @Option(help: ArgumentHelp("The MKOverlayLevel the generated add(to:) puts overlays at (default: above-roads).", valueName: "above-roads|above-labels"))
    var overlayLevel: MapKitSourceOptions.OverlayLevel?
    @Option(help: ArgumentHelp("The property whose value is each marker's clusteringIdentifier (default: its layer, else its KML folder, else the type's name).", valueName: "property"))
    var clusterBy: String?
    @Option(help: ArgumentHelp("The property giving each marker's displayPriority: a number from 0 to 1000, or required, high, low (default: required).", valueName: "property"))
    var displayPriorityBy: String?
    @Option(help: ArgumentHelp(
        "Coordinates as Swift literals, or a GeoJSON resource beside the output read with MKGeoJSONDecoder; auto writes a resource past \(MapKitSourceOptions.literalPositionLimit) positions, which compile slowly as literals (default: auto).",
        valueName: "auto|literals|resource"))
    var swiftGeometry: MapKitSourceOptions.GeometryForm?

    func validate() throws {
        if let swiftType, !MapKitSourceWriter.isTypeName(swiftType) {
            throw ValidationError("--swift-type takes a Swift type name (letters, digits and _, not a keyword), not '\(swiftType)'")
        }
    }

    /// The settings given, the type's name left to the output's path.
    var options: MapKitSourceOptions {
        var options = MapKitSourceOptions()
        options.typeName = swiftType
        options.overlayLevel = overlayLevel ?? options.overlayLevel
        options.clusterBy = clusterBy
        options.displayPriorityBy = displayPriorityBy
        options.geometry = swiftGeometry ?? options.geometry
        return options
    }

    /// The options given on the command line, for refusing them where they do not apply.
    var given: [String] {
        [(swiftType != nil, "--swift-type"), (overlayLevel != nil, "--overlay-level"), (clusterBy != nil, "--cluster-by"),
         (displayPriorityBy != nil, "--display-priority-by"), (swiftGeometry != nil, "--swift-geometry")].filter(\.0).map(\.1)
    }
}

extension MapKitSourceOptions.OverlayLevel: ExpressibleByArgument {}
extension MapKitSourceOptions.GeometryForm: ExpressibleByArgument {}

/// What an SVG or PNG output shows: size, scale, heading, view and basemap.
struct PictureArguments: ParsableArguments {
    @Option(help: ArgumentHelp("The picture's size in points (default: 800x600).", valueName: PictureSize.syntax.valueName))
    var size: PictureSize?
    @Option(help: ArgumentHelp("PNG pixels per point (1, 2 or 3, as Apple's screens; default: 1).", valueName: "n")) var scale: Int?
    // .unconditional: a negative heading ("-75") is a value, not an option.
    @Option(parsing: .unconditional, help: ArgumentHelp("Degrees clockwise from north that point up (default: 0); the turned data (or the whole stated view) is fitted in.", valueName: "deg"))
    var heading: Double?
    @Option(parsing: .unconditional, help: ArgumentHelp("Show this box (degrees) instead of fitting the data.", valueName: DegreeBox.syntax.valueName))
    var view: DegreeBox?
    @Option(help: ArgumentHelp("Show this map tile instead of fitting the data.", valueName: TileAddress.syntax.valueName)) var viewTile: TileAddress?
    @Option(help: ArgumentHelp("PNG: a tile folder, .mbtiles file or .pmtiles archive made by `meridian tile` (PNG, JPEG or WebP tiles) to draw underneath.", valueName: "path"))
    var basemap: String?

    func validate() throws {
        if let scale, !(1...3).contains(scale) { throw ValidationError("--scale takes 1, 2 or 3") }
        if let heading { try requireFinite([(heading, "--heading")]) }
        guard view == nil || viewTile == nil else { throw ValidationError("give --view or --view-tile, not both") }
        _ = try view?.requireOneSide(of: "--view")
    }

    /// The map rect to show, when one is given; nil fits the data.
    var viewRect: MapRect? {
        if let box = view?.box {
            let northWest = MapPoint(Position(longitude: box.west, latitude: box.north))
            let southEast = MapPoint(Position(longitude: box.east, latitude: box.south))
            return MapRect(x: northWest.x, y: northWest.y, width: southEast.x - northWest.x, height: southEast.y - northWest.y)
        }
        return viewTile?.tile().mapRect
    }

    /// The picture's settings: the options given, the defaults for the others.
    var options: PictureOptions {
        let defaults = PictureOptions()
        return PictureOptions(width: size?.width ?? defaults.width, height: size?.height ?? defaults.height, scale: scale ?? defaults.scale,
                              heading: heading ?? defaults.heading, view: viewRect, basemap: basemap)
    }

    /// Throws a usage error for the options that only a PNG takes, given for an SVG: `--scale`
    /// (pixels per point; SVG is drawn in points) and `--basemap` (the SVG writer draws no
    /// tiles). Both were taken and left out of the picture.
    func refusePNGOnlyOptions(for kind: PictureKind) throws {
        guard kind == .svg else { return }
        for (given, flag, why) in [(scale != nil, "--scale", "it sets a PNG's pixels per point, and an SVG is drawn in points at any scale"),
                                   (basemap != nil, "--basemap", "tiles are drawn underneath PNG pictures only")] where given {
            throw MeridianError(.usage, "\(flag) does not apply to SVG output", hint: "\(why): leave it out, or write a .png")
        }
    }

    /// The options given on the command line, for refusing them where they do not apply.
    var given: [String] {
        [(size != nil, "--size"), (scale != nil, "--scale"), (heading != nil, "--heading"), (view != nil, "--view"),
         (viewTile != nil, "--view-tile"), (basemap != nil, "--basemap")].filter(\.0).map(\.1)
    }
}

extension PictureKind {
    /// The picture an output asks for: `--to` (`format`), else the file's extension, else
    /// `standard` (a file without an extension, or standard output). Anything but a picture
    /// is a usage error, so a subcommand that draws never quietly writes GeoJSON instead.
    /// - Parameters:
    ///   - path: The output file, if one is named.
    ///   - format: The format named with `--to`, if any.
    ///   - what: What draws it, for the message (`render`, `--preview`).
    static func chosen(path: String?, format: String?, standard: PictureKind = .png, by what: String) throws -> PictureKind {
        let names = listed(allCases.map { ".\($0.rawValue)" })
        if let format {
            guard let kind = PictureKind(rawValue: format.lowercased()) else {
                throw MeridianError(.usage, "\(what) draws a picture, not \(format)", hint: "give --to \(listed(allCases.map(\.rawValue)))")
            }
            return kind
        }
        guard let path, path != "-", let ext = fileExtension(path) else { return standard }
        guard let kind = PictureKind(rawValue: ext.lowercased()) else {
            throw MeridianError(.usage, "\(what) draws a picture: '\(path)' is not one", hint: "name the picture \(names)")
        }
        return kind
    }
}

/// The output of a converting subcommand: the file options plus `--to FORMAT`.
struct OutputOptions: ParsableArguments {
    @OptionGroup var file: OutputFileOptions

    @Option(name: .customLong("to"), help: ArgumentHelp(
        "The output format, when the extension does not tell (\(FormatNames.writable)); default geojson.",
        valueName: "format"))
    var format: String?

    var precision: Int? { file.precision }
    var pretty: Bool { file.pretty }

    func open(protecting input: String?, reporter: Reporter) throws -> FeatureOutput {
        try file.open(format: format, protecting: input, reporter: reporter)
    }

    /// What a position off the globe is for this output (see ``OutputFileOptions/coordinateRule(format:)``).
    func coordinateRule() throws -> CoordinateRule { try file.coordinateRule(format: format) }
}

/// The format names `--from` and `--to` take, for their help.
enum FormatNames {
    static var readable: String { FormatRegistry.meridian.formats.filter(\.canRead).map(\.id).joined(separator: ", ") + ", or any GDAL vector format (meridian formats)" }
    static var writable: String {
        FormatRegistry.meridian.formats.filter(\.canWrite).map(\.id).joined(separator: ", ")
            + ", or any GDAL vector driver's name (meridian formats); an extension picks a GDAL format only for \(CommonGDALFormat.extensionList)"
    }
    /// The extensions that name a format Meridian writes itself: `.geojson .kml …`.
    static var writableExtensions: String {
        FormatRegistry.meridian.formats.filter(\.canWrite).flatMap(\.extensions).map { "." + $0 }.joined(separator: " ")
    }
}

/// How a subcommand reports: warnings on stderr unless --quiet.
struct ReportingOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print no warnings (errors are still printed).")
    var quiet = false

    var reporter: Reporter { Reporter(quiet: quiet) }
}

extension KMLReadOptions.Folders: ExpressibleByArgument {}

/// A zoom level typed by a person must lie where tiles are counted (0 to 30).
func checkZoomLevel(_ level: Double, option: String) throws {
    guard Double(MapTile.zoomLevels.lowerBound)...Double(MapTile.zoomLevels.upperBound) ~= level else {
        throw ValidationError("\(option) must be between \(MapTile.zoomLevels.lowerBound) and \(MapTile.zoomLevels.upperBound), not \(level)")
    }
}

/// `--antimeridian split|continuous`: how an overlay that reaches over ±180° is written.
extension Antimeridian.Style: ExpressibleByArgument {}

/// The shape every feature-to-feature subcommand shares: open the input and the output, let
/// `body` move the features (with a progress line on a terminal), then commit the output
/// atomically, or drop it if anything failed.
func runPipeline(input: InputOptions, output: OutputOptions, reporting: ReportingOptions,
                 _ body: (FeatureInput, FeatureOutput, ProgressLine) throws -> Void) throws {
    let reporter = reporting.reporter
    try reporter.run {
        let source = try input.open(reporter: reporter, coordinates: output.coordinateRule())
        let destination = try output.open(protecting: source.path, reporter: reporter)
        let progress = ProgressLine(reporting: reporting, input: source.input)
        defer { progress.finish() }
        try destination.commit { try body(source, destination, progress) }
    }
}

/// What a geometry pipeline did with the features it read.
struct FeatureCounts {
    var read = 0
    /// Features whose geometry `change` dropped (nothing of it was left).
    var dropped = 0
    /// Features that had no geometry and were left out.
    var droppedWithoutGeometry = 0
}

/// A pipeline that changes each feature's geometry; a nil result drops the feature. A feature
/// without geometry is passed on as it is, or, with `droppingFeaturesWithoutGeometry` (a clip:
/// it has no place inside), left out. Returns the counts, for the subcommand to report.
@discardableResult
func runGeometryPipeline(input: InputOptions, output: OutputOptions, reporting: ReportingOptions,
                         droppingFeaturesWithoutGeometry: Bool = false,
                         _ change: @escaping (Geometry) -> Geometry?) throws -> FeatureCounts {
    var counts = FeatureCounts()
    try runPipeline(input: input, output: output, reporting: reporting) { source, destination, progress in
        try copyFeatures(from: source.reader, to: destination.writer, progress: progress.update, transform: { feature in
            counts.read += 1
            guard let geometry = feature.geometry else {
                if droppingFeaturesWithoutGeometry { counts.droppedWithoutGeometry += 1 }
                return droppingFeaturesWithoutGeometry ? nil : feature
            }
            guard let changed = change(geometry) else {
                counts.dropped += 1
                return nil
            }
            var feature = feature
            feature.replaceGeometry(with: changed, at: SourceLocation(file: source.input.name), diagnostics: reporting.reporter.report)
            feature.bbox = nil
            return feature
        })
    }
    return counts
}
