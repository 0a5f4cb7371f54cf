import CGDAL
import Foundation
import GDALSupport
import MeridianFormats
import MeridianGeometry

/// A control point typed by a person: an image pixel and line, and where it is on Earth.
public struct ControlPoint: Sendable, Equatable {
    public var pixel: Double
    public var line: Double
    public var latitude: Double
    public var longitude: Double

    public init(pixel: Double, line: Double, latitude: Double, longitude: Double) {
        self.pixel = pixel
        self.line = line
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// How a raster georeferenced only by control points is warped.
public enum ControlPointMethod: String, Sendable, CaseIterable {
    /// A polynomial fitted to the points (order chosen from their number, as gdalwarp does).
    case polynomial
    /// A thin-plate spline through every point (exact at the points; for scanned maps that bend).
    case tps
}

/// What to take from the input and how to read it.
public struct RasterSourceOptions: Sendable {
    /// 1-based bands to use as gray (one) or red, green, blue (three); nil chooses.
    public var bands: [Int]?
    /// A value that marks pixels with no data, over the file's own.
    public var noData: Double?
    /// Control points for an image with no georeferencing (three or more).
    public var controlPoints: [ControlPoint]
    public var controlPointMethod: ControlPointMethod
    /// Cut a BSB chart's collar away along its PLY outline.
    public var cutCollar: Bool

    public init(bands: [Int]? = nil, noData: Double? = nil, controlPoints: [ControlPoint] = [],
                controlPointMethod: ControlPointMethod = .polynomial, cutCollar: Bool = true) {
        self.bands = bands
        self.noData = noData
        self.controlPoints = controlPoints
        self.controlPointMethod = controlPointMethod
        self.cutCollar = cutCollar
    }
}

/// An input raster, checked and prepared for warping into Web Mercator: how to open it (a
/// paletted image is expanded to RGBA through an in-memory VRT, control points are attached),
/// which bands become the tile's colour and alpha, its nodata, its cutline and its extent.
///
/// A plan is plain data, so each tiling thread opens its own GDAL dataset from it (GDAL
/// datasets are not thread-safe).
public struct RasterSource: Sendable {
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
    public let pixelSize: Double
    public let warpedWidth: Int
    public let warpedHeight: Int
    /// The geotransform of that suggested grid (GDALSuggestedWarpOutput2 to EPSG:3857): the
    /// grid of the nearest-neighbour VRT gdal2tiles warps to first (AutoCreateWarpedVRT).
    public let warpedGeoTransform: [Double]
    public let driver: String
    public let sourceWidth: Int
    public let sourceHeight: Int
    /// What the user should know (bands dropped, data scaled).
    public let notes: [RasterSourceNote]

    /// Opens `path` once to check and describe it. Errors: 66 when the file cannot be read,
    /// 65 when GDAL cannot read it as a raster or it has no georeferencing, 64 for bad options.
    public init(path: String, options: RasterSourceOptions = RasterSourceOptions()) throws {
        self.path = path
        self.options = options
        guard access(path, R_OK) == 0 else {
            throw MeridianError(.inputUnavailable, "cannot open input: \(String(cString: strerror(errno)))", at: SourceLocation(file: path))
        }
        var notes: [RasterSourceNote] = []
        var translate: [String] = []
        var openPath = path
        var controlPoints = options.controlPoints
        if [".kml", ".kmz"].contains(where: path.lowercased().hasSuffix) {
            let overlay = try GroundOverlay(path: path)
            openPath = overlay.imagePath
            if controlPoints.isEmpty { controlPoints = try overlay.controlPoints(imageAt: openPath) }
        }
        self.openPath = openPath
        CPLErrorReset()
        guard let file = GDALDataset(opening: openPath, for: .raster) else {
            throw MeridianError.gdal(.badInput, "GDAL cannot read this file as a raster", path: openPath)
        }
        let dataset = file.handle
        defer { withExtendedLifetime(file) {} }  // `dataset` is used until the end
        driver = file.driverName
        sourceWidth = file.width
        sourceHeight = file.height
        let bandCount = file.bandCount
        guard bandCount > 0 else { throw MeridianError(.badInput, "the raster has no bands", at: SourceLocation(file: path)) }

        // Bands: a palette is expanded to RGBA; otherwise gray or RGB plus an alpha band if any.
        let first = GDALGetRasterBand(dataset, 1)
        var colorBands: [Int]
        var alphaBand: Int? = nil
        var paletteNoData: [Double]?
        var palette: [UInt8]? = nil
        var paletteNoDataIndex: Int? = nil
        var hasNoData: Int32 = 0
        let fileNoData = GDALGetRasterNoDataValue(first, &hasNoData)
        if let table = GDALGetRasterColorTable(first), options.bands == nil || options.bands == [1] {
            // A nodata index becomes its colour in the expanded bands.
            if let index = options.noData ?? (hasNoData != 0 ? fileNoData : nil),
               index >= 0, Int(index) < Int(GDALGetColorEntryCount(table)), let entry = GDALGetColorEntry(table, Int32(index)) {
                paletteNoData = [Double(entry.pointee.c1), Double(entry.pointee.c2), Double(entry.pointee.c3)]
                paletteNoDataIndex = Int(index)
            }
            var lut = [UInt8](repeating: 0, count: 256 * 4)
            for i in 0..<min(256, Int(GDALGetColorEntryCount(table))) {
                if let e = GDALGetColorEntry(table, Int32(i)) {
                    lut.replaceSubrange(4 * i..<4 * i + 4, with: [UInt8(clamping: e.pointee.c1), UInt8(clamping: e.pointee.c2),
                                                                 UInt8(clamping: e.pointee.c3), UInt8(clamping: e.pointee.c4)])
                }
            }
            palette = lut
            translate += ["-expand", "rgba"]
            colorBands = [1, 2, 3]
            alphaBand = 4
        } else {
            for index in 1...bandCount where GDALGetRasterColorInterpretation(GDALGetRasterBand(dataset, Int32(index))) == GCI_AlphaBand {
                alphaBand = index
            }
            let colour = (1...bandCount).filter { $0 != alphaBand }
            if let chosen = options.bands {
                guard chosen.count == 1 || chosen.count == 3 else { throw RasterSourceError.unsupportedBandCount(chosen.count) }
                for band in chosen where !(1...bandCount).contains(band) {
                    throw RasterSourceError.noSuchBand(band: band, bandCount: bandCount, path: path)
                }
                colorBands = chosen
            } else if colour.count >= 3 {
                colorBands = Array(colour.prefix(3))
                if colour.count > 3 {
                    notes.append(.firstThreeBandsTiled(bandCount: colour.count, tiled: colorBands))
                }
            } else {
                colorBands = [colour.first ?? 1]
            }
        }
        // A mask shared by all bands (a JPEG-compressed GeoTIFF's internal mask, say) and no
        // alpha or nodata: the mask becomes the alpha band, as gdal2tiles honours it, so the
        // collar it masks is transparent rather than black. The prepared dataset's bands are
        // then the colour bands in order, and the mask.
        let type = GDALGetRasterDataType(first)
        let maskFlags = GDALGetMaskFlags(GDALGetRasterBand(dataset, Int32(colorBands[0])))
        if palette == nil, alphaBand == nil, hasNoData == 0, options.noData == nil, type == GDT_Byte,
           maskFlags & GMF_PER_DATASET != 0, maskFlags & GMF_ALL_VALID == 0 {
            translate += colorBands.flatMap { ["-b", "\($0)"] } + ["-b", "mask", "-colorinterp_\(colorBands.count + 1)", "alpha"]
            colorBands = Array(1...colorBands.count)
            alphaBand = colorBands.count + 1
        }
        // Data that is not 8-bit is scaled from its minimum and maximum to 0...255.
        if type != GDT_Byte {
            translate += ["-ot", "Byte", "-scale"]
            notes.append(.scaledToBytes(dataType: String(cString: GDALGetDataTypeName(type))))
        }
        // Control points typed by the user replace the file's georeferencing.
        if !controlPoints.isEmpty {
            guard controlPoints.count >= 3 else { throw RasterSourceError.tooFewControlPoints(controlPoints.count) }
            for point in controlPoints {
                translate += ["-gcp", "\(point.pixel)", "\(point.line)", "\(point.longitude)", "\(point.latitude)"]
            }
            translate += ["-a_srs", "+proj=longlat +datum=WGS84 +no_defs"]
        }
        self.translateArguments = translate
        self.palette = GDALGetRasterDataType(first) == GDT_Byte ? palette : nil
        self.paletteNoData = paletteNoDataIndex
        self.colorBands = colorBands
        self.alphaBand = alphaBand

        // Nodata: the user's value, else the first colour band's own.
        if let paletteNoData {
            noData = paletteNoData
        } else if alphaBand != nil && options.noData == nil {
            noData = nil
        } else {
            var has: Int32 = 0
            let value = GDALGetRasterNoDataValue(GDALGetRasterBand(dataset, Int32(colorBands[0])), &has)
            noData = (options.noData ?? (has != 0 ? value : nil)).map { [Double](repeating: $0, count: colorBands.count) }
        }

        // Georeferencing: a geotransform with a CRS, else control points with theirs.
        let preparedDataset = try Self.prepare(file, translate: translate, path: path)
        let prepared = preparedDataset.handle
        defer { withExtendedLifetime(preparedDataset) {} }
        var transformer = ["DST_SRS=\(Self.webMercatorWKT)"]
        var geoTransform = [Double](repeating: 0, count: 6)
        let hasGeoTransform = GDALGetGeoTransform(prepared, &geoTransform) == CE_None && geoTransform != [0, 1, 0, 0, 0, 1]
        let gcpCount = Int(GDALGetGCPCount(prepared))
        if controlPoints.isEmpty, hasGeoTransform, GDALGetSpatialRef(prepared) != nil {
            // Georeferenced by a geotransform.
        } else if gcpCount >= 3, GDALGetGCPSpatialRef(prepared) != nil {
            transformer.append(options.controlPointMethod == .tps ? "METHOD=GCP_TPS" : "METHOD=GCP_POLYNOMIAL")
        } else if hasGeoTransform {
            throw MeridianError(.badInput, "the raster has a geotransform but no coordinate reference system", at: SourceLocation(file: path),
                                hint: "assign one first, e.g. gdal_translate -a_srs EPSG:4326")
        } else {
            throw RasterSourceError.noGeoreferencing(path: path)
        }
        self.transformerOptions = transformer

        // The extent in EPSG:3857, as GDAL suggests it (gdal2tiles uses the same).
        let (extent, warpedGeoTransform, width, height) = try Self.suggestedOutput(prepared, transformer: transformer, path: path)
        self.extent = extent
        self.pixelSize = warpedGeoTransform[1]
        self.warpedGeoTransform = warpedGeoTransform
        self.warpedWidth = width
        self.warpedHeight = height

        // A BSB chart's collar: the PLY outline (degrees) turned into source pixels.
        if options.cutCollar, driver == "BSB", let outline = Self.bsbOutline(path: openPath), outline.count >= 3 {
            cutlineRing = try Self.pixelPolygon(outline, dataset: prepared, method: options.controlPointMethod, path: path)
            let whole = extent.boundingBox
            bounds = BoundingBox(west: max(whole.west, outline.map(\.1).min()!), south: max(whole.south, outline.map(\.0).min()!),
                                 east: min(whole.east, outline.map(\.1).max()!), north: min(whole.north, outline.map(\.0).max()!))
        } else {
            cutlineRing = nil
            bounds = extent.boundingBox
        }
        self.notes = notes
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

    static func suggestedOutput(_ dataset: GDALDatasetH, transformer options: [String], path: String) throws
        -> (MercatorExtent, [Double], Int, Int) {
        guard let transformer = GDAL.withStringList(options, { GDALCreateGenImgProjTransformer2(dataset, nil, $0) }) else {
            throw MeridianError.gdal(.badInput, "cannot transform the raster to Web Mercator", path: path)
        }
        defer { GDALDestroyGenImgProjTransformer(transformer) }
        var geoTransform = [Double](repeating: 0, count: 6)
        var extent = [Double](repeating: 0, count: 4)
        var width: Int32 = 0, height: Int32 = 0
        CPLErrorReset()
        guard GDALSuggestedWarpOutput2(dataset, GDALGenImgProjTransform, transformer, &geoTransform, &width, &height, &extent, 0) == CE_None else {
            throw MeridianError.gdal(.badInput, "cannot find the raster's extent in Web Mercator", path: path)
        }
        // gdal2tiles' bounds: the suggested output's geotransform times its size, clamped to the world.
        let limit = TilePyramid.originShift
        let minX = max(-limit, geoTransform[0]), maxY = min(limit, geoTransform[3])
        let maxX = min(limit, geoTransform[0] + Double(width) * geoTransform[1])
        let minY = max(-limit, geoTransform[3] + Double(height) * geoTransform[5])
        guard minX < maxX, minY < maxY else {
            throw MeridianError(.badInput, "the raster lies outside the Web Mercator world", at: SourceLocation(file: path))
        }
        return (MercatorExtent(minX: minX, minY: minY, maxX: maxX, maxY: maxY), geoTransform, Int(width), Int(height))
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

    /// An outline in degrees as a WKT polygon in the dataset's pixel coordinates.
    static func pixelPolygon(_ outline: [(Double, Double)], dataset: GDALDatasetH, method: ControlPointMethod, path: String) throws -> [SIMD2<Double>] {
        var options = ["DST_SRS=\(Self.lonLatWKT)"]
        if GDALGetGCPCount(dataset) >= 3 { options.append(method == .tps ? "METHOD=GCP_TPS" : "METHOD=GCP_POLYNOMIAL") }
        guard let transformer = GDAL.withStringList(options, { GDALCreateGenImgProjTransformer2(dataset, nil, $0) }) else {
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
