import CGDAL
import Foundation
import GDALSupport
import MeridianCore
import MeridianFormats
import MeridianGeometry

extension ControlPointMethod {
    /// The option that makes GDAL's transformer use the method.
    var transformerOption: String { self == .tps ? "METHOD=GCP_TPS" : "METHOD=GCP_POLYNOMIAL" }
}

extension RasterSourceOptions {
    /// How the control points warp the image: the method asked for, else a polynomial.
    var warpMethod: ControlPointMethod { controlPointMethod ?? .polynomial }
}

/// An input raster, checked and prepared for warping into Web Mercator: how to open it (a
/// paletted image is expanded to RGBA through an in-memory VRT, control points are attached),
/// which bands become the tile's colour and alpha, its nodata, its cutline and its extent.
///
/// A plan is plain data, so each tiling thread opens its own GDAL dataset from it (GDAL
/// datasets are not thread-safe).
public struct RasterSource: Sendable {
    /// The file as the user gave it (a raster, or a KML or KMZ GroundOverlay).
    public let path: String
    /// What the user asked for (a resumed run must ask for the same).
    public let options: RasterSourceOptions
    /// The file GDAL opens (the image of a KML or KMZ GroundOverlay, else `path`).
    let openPath: String
    /// gdal_translate arguments that turn the file into the dataset to warp (empty: none).
    let translateArguments: [String]
    /// Bands of the prepared dataset giving gray or red, green, blue.
    public let colorBands: [Int]
    /// The prepared dataset's alpha band, if it has one.
    let alphaBand: Int?
    /// Per colour band: the value that means no data (all bands at once, UNIFIED_SRC_NODATA).
    let noData: [Double]?
    /// Options for GDALCreateGenImgProjTransformer2 (destination EPSG:3857, GCP method).
    let transformerOptions: [String]
    /// The collar cutline in source pixel coordinates (WKT), for BSB charts.
    public var cutline: String? {
        cutlineRing.map { ring in "POLYGON ((\((ring + [ring[0]]).map { "\($0.x) \($0.y)" }.joined(separator: ", "))))" }
    }
    /// The same outline as points (pixel, line).
    let cutlineRing: [SIMD2<Double>]?
    /// For a paletted file: its colour table as RGBA, 256 entries (missing ones transparent),
    /// and the index meaning no data; tiles are then read as indexes and expanded here.
    let palette: [UInt8]?
    let paletteNoData: Int?
    /// The bounds of the data in degrees: the cutline's, else the extent's.
    public let bounds: BoundingBox
    /// The raster's extent in EPSG:3857 and its pixel size there, as GDAL's suggested warp output.
    public let extent: MercatorExtent
    /// The size of a pixel of the suggested Web Mercator grid, in metres; it chooses the default zoom levels.
    public let pixelSize: Double
    /// The width of the suggested Web Mercator grid, in pixels.
    public let warpedWidth: Int
    /// The height of the suggested Web Mercator grid, in pixels.
    public let warpedHeight: Int
    /// The geotransform of that suggested grid (GDALSuggestedWarpOutput2 to EPSG:3857): the
    /// grid of the nearest-neighbour VRT gdal2tiles warps to first (AutoCreateWarpedVRT).
    public let warpedGeoTransform: [Double]
    /// The short name of the GDAL driver that reads the file (`GTiff`, `BSB`, `PNG`, …).
    public let driver: String
    /// The file's width in pixels, as stored.
    public let sourceWidth: Int
    /// The file's height in pixels, as stored.
    public let sourceHeight: Int
    /// What the user should know (bands dropped, data scaled).
    public let notes: [RasterSourceNote]
    /// The QGIS control-point file beside the image that georeferences it (see
    /// ``ControlPointFile``), when the image has no georeferencing of its own and no points were given.
    public let controlPointFile: String?
    /// A BSB chart's scale denominator (its header's `KNP/SC=`, GDAL's `BSB_KNP` item); nil for
    /// other rasters.
    public let chartScale: Int?

    /// Opens `path` once to check and describe it. Errors: 66 when the file cannot be read,
    /// 65 when GDAL cannot read it as a raster or it has no georeferencing, 64 for bad options.
    public init(path: String, options: RasterSourceOptions = RasterSourceOptions()) throws {
        self.path = path
        self.options = options
        guard access(path, R_OK) == 0 else {
            throw MeridianError(.inputUnavailable, "cannot open input: \(String(cString: strerror(errno)))", at: SourceLocation(file: path))
        }
        var image = try Self.image(of: path, controlPoints: options.controlPoints)
        openPath = image.path
        let file = try Self.openRaster(image.path, path: path)
        // An image with no georeferencing of its own takes the control points QGIS saved beside it.
        let sidecar = ControlPointFile.sidecarPath(of: path)
        if image.controlPoints.isEmpty && !Self.isGeoreferenced(file) && FileManager.default.fileExists(atPath: sidecar) {
            image.controlPoints = try ControlPointFile(path: sidecar).points
            controlPointFile = sidecar
        } else {
            controlPointFile = nil
        }
        let method = options.warpMethod
        if image.controlPoints.count > method.maximumPoints {
            guard let controlPointFile else { throw RasterSourceError.tooManyControlPoints(image.controlPoints.count, method: method) }
            throw MeridianError(.badInput, "the file enables \(image.controlPoints.count) control points; the \(method.rawValue) method takes at most \(method.maximumPoints)",
                                at: SourceLocation(file: controlPointFile),
                                hint: method == .tps ? "the polynomial method takes up to \(ControlPointMethod.polynomial.maximumPoints)" : nil)
        }
        // The file's own control points, when they are what places it, meet the same limit
        // (a thin-plate spline over n points solves an n-by-n system: 3,000 took 35 s).
        let ownControlPoints = Int(GDALGetGCPCount(file.handle))
        if image.controlPoints.isEmpty, !(Self.hasGeoTransform(file) && GDALGetSpatialRef(file.handle) != nil),
           ownControlPoints > method.maximumPoints {
            throw MeridianError(.badInput, "the raster holds \(ownControlPoints) control points; the \(method.rawValue) method takes at most \(method.maximumPoints)",
                                at: SourceLocation(file: path),
                                hint: method == .tps ? "the polynomial method takes up to \(ControlPointMethod.polynomial.maximumPoints)" : nil)
        }
        driver = file.driverName
        if driver == "BSB" { try Self.checkChartRows(openPath, width: file.width, height: file.height, path: path) }
        chartScale = Self.chartScale(of: file)
        sourceWidth = file.width
        sourceHeight = file.height

        let bands = try BandLayout(of: file, options: options, path: path)
        translateArguments = bands.translate + (try Self.controlPointArguments(image.controlPoints))
        colorBands = bands.colorBands
        alphaBand = bands.alphaBand
        palette = bands.palette
        paletteNoData = bands.paletteNoDataIndex
        noData = bands.noDataValues(in: file, asked: options.noData)
        notes = bands.notes

        let prepared = try Self.prepare(file, translate: translateArguments, path: path)
        transformerOptions = try Self.transformerOptions(georeferencing: prepared, controlPointsGiven: !image.controlPoints.isEmpty,
                                                         method: options.warpMethod, path: path)
        let grid = try Self.suggestedOutput(prepared, transformer: transformerOptions, path: path)
        extent = grid.extent
        pixelSize = grid.geoTransform[1]
        warpedGeoTransform = grid.geoTransform
        warpedWidth = grid.width
        warpedHeight = grid.height

        let collar = options.cutCollar && driver == "BSB"
            ? try Self.collar(of: prepared, chart: openPath, extent: extent, method: options.warpMethod, path: path) : nil
        cutlineRing = collar?.ring
        bounds = collar?.bounds ?? extent.boundingBox
    }

    /// Whether `path`, a KML or KMZ file, holds a GroundOverlay with an image and a place (so
    /// it is a raster to tile rather than vector data).
    public static func holdsGroundOverlay(_ path: String) -> Bool { GroundOverlay.exists(in: path) }

    /// The file GDAL opens and the control points that place it: for a KML or KMZ
    /// GroundOverlay its image, placed by its corners unless `controlPoints` are given; else
    /// `path` itself.
    static func image(of path: String, controlPoints: [ControlPoint]) throws -> (path: String, controlPoints: [ControlPoint]) {
        guard [".kml", ".kmz"].contains(where: path.lowercased().hasSuffix) else { return (path, controlPoints) }
        let overlay = try GroundOverlay(path: path)
        return (overlay.imagePath, controlPoints.isEmpty
                    ? try overlay.controlPoints(imageAt: overlay.imagePath, named: shownName(opening: overlay.imagePath, for: path)) : controlPoints)
    }

    /// Refuses a BSB chart whose rows do not hold the width and height its header claims
    /// (``BSBChartRows``), before GDAL decodes a row of it.
    static func checkChartRows(_ openPath: String, width: Int, height: Int, path: String) throws {
        guard let bytes = chartBytes(openPath) else {
            throw MeridianError(.inputUnavailable, "cannot read the chart", at: SourceLocation(file: path))
        }
        guard let problem = BSBChartRows.check(bytes, width: width, height: height) else { return }
        let message = switch problem {
        case .sideTooLarge(let width, let height):
            "the chart's header gives it \(width) by \(height) pixels; a chart may have at most \(BSBChartRows.maximumSide) a side"
        case .noImageData: "the chart has no image data after its header"
        case .rowsEnd(let row): "the chart's header gives it \(height) rows, but its bytes end in row \(row)"
        case .shortRow(let row, let pixels, let width):
            "the chart's header gives it \(width) pixels a row, but row \(row) holds \(pixels)"
        }
        throw MeridianError(.badInput, message, at: SourceLocation(file: path))
    }

    /// The bytes of the chart GDAL opens at `openPath`: mapped for a file, read through GDAL
    /// inside a KMZ (`/vsizip/`); nil when they cannot be read.
    static func chartBytes(_ openPath: String) -> Data? {
        guard openPath.hasPrefix("/vsi") else { return try? Data(contentsOf: URL(fileURLWithPath: openPath), options: .alwaysMapped) }
        guard let file = VSIFOpenL(openPath, "rb") else { return nil }
        defer { VSIFCloseL(file) }
        guard VSIFSeekL(file, 0, SEEK_END) == 0, let size = Int(exactly: VSIFTellL(file)), VSIFSeekL(file, 0, SEEK_SET) == 0 else { return nil }
        var bytes = Data(count: size)
        let read = bytes.withUnsafeMutableBytes { VSIFReadL($0.baseAddress, 1, size, file) }
        return read == size ? bytes : nil
    }

    /// A BSB chart's scale denominator from its `BSB_KNP` metadata item (`SC=10000,GD=…`), or nil.
    static func chartScale(of file: GDALDataset) -> Int? {
        guard let knp = GDALGetMetadataItem(file.handle, "BSB_KNP", nil).map({ String(cString: $0) }) else { return nil }
        return knp.split(separator: ",").first { $0.hasPrefix("SC=") }.flatMap { Int($0.dropFirst(3).trimmingCharacters(in: .whitespaces)) }
    }

    /// How errors name the file GDAL opens at `openPath` for the input `path`: the path itself,
    /// or `KMZ:ENTRY` for a GroundOverlay's image inside a KMZ.
    static func shownName(opening openPath: String, for path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let archive = "/vsizip/" + absolute + "/"
        return openPath.hasPrefix(archive) ? path + ":" + openPath.dropFirst(archive.count) : openPath
    }

    /// `openPath` opened as a raster that has bands (errors name `path`, what the user gave).
    static func openRaster(_ openPath: String, path: String) throws -> GDALDataset {
        // Nothing GDAL could open for it (a world file, an .aux.xml) is a named pipe or a device.
        try DatasetFiles.checkRegularFiles(opening: openPath, name: shownName(opening: openPath, for: path))
        try VRTSources.check(openPath, name: shownName(opening: openPath, for: path))
        SQLiteConnectionRules.apply(toFileAt: openPath)
        // GDAL reads an MBTiles or GeoPackage raster's tiles through the file's own views (one that
        // recursed ran the run until killed): Meridian reads no views.
        if let view = SQLiteConnectionRules.views(inFileAt: openPath).first {
            throw MeridianError(.badInput, "the file's \"\(view)\" is a view: SQL the file chose, which Meridian does not run",
                                at: SourceLocation(file: path), hint: "make its tiles a table (tile-copy writes one)")
        }
        CPLErrorReset()
        guard let file = GDALDataset(opening: openPath, for: .raster) else {
            throw MeridianError.gdal(.badInput, "GDAL cannot read this file as a raster", path: openPath)
        }
        guard file.bandCount > 0 else { throw MeridianError(.badInput, "the raster has no bands", at: SourceLocation(file: path)) }
        // A PDS or ISIS label names its data file by any path (`^IMAGE = "../x"`): a label and a
        // `.points` file beside it made tiles of whatever file they named.
        try DatasetFiles.checkStayInFolder(file, openPath: openPath, name: path,
                                           hint: "keep a raster's files in its folder (a label's data file beside it)")
        return file
    }

    /// gdal_translate arguments by which control points typed by the user replace the file's
    /// georeferencing (none without them).
    static func controlPointArguments(_ controlPoints: [ControlPoint]) throws -> [String] {
        guard !controlPoints.isEmpty else { return [] }
        guard controlPoints.count >= 3 else { throw RasterSourceError.tooFewControlPoints(controlPoints.count) }
        return controlPoints.flatMap { ["-gcp", "\($0.pixel)", "\($0.line)", "\($0.longitude)", "\($0.latitude)"] }
            + ["-a_srs", "+proj=longlat +datum=WGS84 +no_defs"]
    }

    /// Options for GDAL's transformer from the prepared dataset to EPSG:3857: georeferenced by
    /// a geotransform with a CRS (unless the user gave control points), else by control points
    /// with theirs.
    static func transformerOptions(georeferencing prepared: GDALDataset, controlPointsGiven: Bool, method: ControlPointMethod,
                                   path: String) throws -> [String] {
        let toWebMercator = "DST_SRS=\(Self.webMercatorWKT)"
        if !controlPointsGiven, hasGeoTransform(prepared), GDALGetSpatialRef(prepared.handle) != nil {
            return [toWebMercator]
        }
        if hasControlPoints(prepared) {
            return [toWebMercator, method.transformerOption]
        }
        if hasGeoTransform(prepared) {
            throw MeridianError(.badInput, "the raster has a geotransform but no coordinate reference system", at: SourceLocation(file: path),
                                hint: "assign one first, e.g. gdal_translate -a_srs EPSG:4326")
        }
        throw RasterSourceError.noGeoreferencing(path: path)
    }

    /// Whether the dataset has a geotransform other than GDAL's default (pixels as units).
    static func hasGeoTransform(_ dataset: GDALDataset) -> Bool {
        var geoTransform = [Double](repeating: 0, count: 6)
        return GDALGetGeoTransform(dataset.handle, &geoTransform) == CE_None && geoTransform != [0, 1, 0, 0, 0, 1]
    }

    /// Whether the dataset has three or more control points with their CRS.
    static func hasControlPoints(_ dataset: GDALDataset) -> Bool {
        GDALGetGCPCount(dataset.handle) >= 3 && GDALGetGCPSpatialRef(dataset.handle) != nil
    }

    /// Whether the file places itself on Earth: a geotransform with a CRS, or control points.
    static func isGeoreferenced(_ file: GDALDataset) -> Bool {
        (hasGeoTransform(file) && GDALGetSpatialRef(file.handle) != nil) || hasControlPoints(file)
    }

    /// The dataset to warp: the file itself, or the VRT gdal_translate makes of it (which
    /// keeps the file open while it lives).
    static func prepare(_ file: GDALDataset, translate: [String], path: String) throws -> GDALDataset {
        guard !translate.isEmpty else { return file }
        let arguments = ["-of", "VRT"] + translate
        let options = GDAL.withStringList(arguments) { GDALTranslateOptionsNew($0, nil) }
        defer { GDALTranslateOptionsFree(options) }
        var usageError: Int32 = 0
        CPLErrorReset()
        guard let result = GDALTranslate("", file.handle, options, &usageError) else {
            throw MeridianError.gdal(.badInput, "cannot prepare the raster (\(translate.joined(separator: " ")))", path: path)
        }
        return GDALDataset(result, readingFrom: file)
    }

    /// Opens the file and the dataset to warp made of it, for one thread (GDAL datasets are
    /// not thread-safe). `prepared` is `file` itself when nothing needs preparing.
    func open() throws -> (file: GDALDataset, prepared: GDALDataset) {
        guard let file = GDALDataset(opening: openPath, for: .raster) else {
            throw MeridianError.gdal(.inputUnavailable, "cannot open input", path: path)
        }
        return (file, try Self.prepare(file, translate: translateArguments, path: path))
    }

    /// The grid GDAL suggests for the raster in EPSG:3857 (gdal2tiles warps to the same).
    struct WarpedGrid {
        /// gdal2tiles' bounds: the grid's geotransform times its size, clamped to the world.
        var extent: MercatorExtent
        var geoTransform: [Double]
        var width: Int
        var height: Int
    }

    static func suggestedOutput(_ dataset: GDALDataset, transformer options: [String], path: String) throws -> WarpedGrid {
        guard let transformer = GDAL.withStringList(options, { GDALCreateGenImgProjTransformer2(dataset.handle, nil, $0) }) else {
            throw MeridianError.gdal(.badInput, "cannot transform the raster to Web Mercator", path: path)
        }
        defer { GDALDestroyGenImgProjTransformer(transformer) }
        var geoTransform = [Double](repeating: 0, count: 6)
        var extent = [Double](repeating: 0, count: 4)
        var width: Int32 = 0, height: Int32 = 0
        CPLErrorReset()
        guard GDALSuggestedWarpOutput2(dataset.handle, GDALGenImgProjTransform, transformer, &geoTransform, &width, &height, &extent, 0) == CE_None else {
            throw MeridianError.gdal(.badInput, "cannot find the raster's extent in Web Mercator", path: path)
        }
        let limit = TilePyramid.originShift
        let minX = max(-limit, geoTransform[0]), maxY = min(limit, geoTransform[3])
        let maxX = min(limit, geoTransform[0] + Double(width) * geoTransform[1])
        let minY = max(-limit, geoTransform[3] + Double(height) * geoTransform[5])
        guard minX < maxX, minY < maxY else {
            throw MeridianError(.badInput, "the raster lies outside the Web Mercator world", at: SourceLocation(file: path))
        }
        return WarpedGrid(extent: MercatorExtent(minX: minX, minY: minY, maxX: maxX, maxY: maxY), geoTransform: geoTransform,
                          width: Int(width), height: Int(height))
    }

    static let webMercatorWKT = SpatialReference.wkt("EPSG:3857")!
    /// WGS 84 in longitude, latitude order, whatever the EPSG axis order says.
    static let lonLatWKT = SpatialReference.wkt("+proj=longlat +datum=WGS84 +no_defs")!

    /// The PLY/ lines of a BSB/KAP header: the chart's outline as (latitude, longitude).
    /// (GDAL 3.6's BSB driver reads REF/ points as GCPs but does not expose PLY/.)
    static func bsbOutline(path: String) -> [(Double, Double)]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = handle.readData(ofLength: 256 * 1024)
        // The text header ends at the first 0x1A.
        let end = head.firstIndex(of: 0x1A) ?? head.endIndex
        let text = String(decoding: head[head.startIndex..<end], as: UTF8.self)
        var points: [(Double, Double)] = []
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("PLY/") {
            let fields = line.dropFirst(4).split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            if fields.count >= 3, let lat = fields[1], let lon = fields[2] { points.append((lat, lon)) }
        }
        return points.isEmpty ? nil : points
    }

    /// A BSB chart's collar: its PLY outline (degrees) turned into the prepared dataset's
    /// pixels, and the bounds of the data within it; nil when the chart has no outline.
    static func collar(of prepared: GDALDataset, chart: String, extent: MercatorExtent, method: ControlPointMethod,
                       path: String) throws -> (ring: [SIMD2<Double>], bounds: BoundingBox)? {
        guard let outline = bsbOutline(path: chart), outline.count >= 3 else { return nil }
        let ring = try pixelPolygon(outline, dataset: prepared, method: method, path: path)
        let whole = extent.boundingBox
        let bounds = BoundingBox(west: max(whole.west, outline.map(\.1).min()!), south: max(whole.south, outline.map(\.0).min()!),
                                 east: min(whole.east, outline.map(\.1).max()!), north: min(whole.north, outline.map(\.0).max()!))
        return (ring, bounds)
    }

    /// An outline in degrees as a polygon in the dataset's pixel coordinates.
    static func pixelPolygon(_ outline: [(Double, Double)], dataset: GDALDataset, method: ControlPointMethod, path: String) throws -> [SIMD2<Double>] {
        var options = ["DST_SRS=\(Self.lonLatWKT)"]
        if GDALGetGCPCount(dataset.handle) >= 3 { options.append(method.transformerOption) }
        guard let transformer = GDAL.withStringList(options, { GDALCreateGenImgProjTransformer2(dataset.handle, nil, $0) }) else {
            throw MeridianError.gdal(.badInput, "cannot place the chart's outline", path: path)
        }
        defer { GDALDestroyGenImgProjTransformer(transformer) }
        var xs = outline.map { $0.1 }, ys = outline.map { $0.0 }, zs = [Double](repeating: 0, count: outline.count)
        var ok = [Int32](repeating: 0, count: outline.count)
        guard GDALGenImgProjTransform(transformer, 1, Int32(outline.count), &xs, &ys, &zs, &ok) != 0, !ok.contains(0) else {
            throw MeridianError.gdal(.badInput, "cannot place the chart's outline (PLY) on the image", path: path)
        }
        return zip(xs, ys).map { SIMD2($0, $1) }
    }
}
