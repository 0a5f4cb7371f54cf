import CGDAL
import Foundation
import GDALSupport
import MeridianCore
import MeridianFormats
import MeridianGeometry
import MeridianTiles

extension Resampling {
    /// GDAL's warp kernel for the method.
    var gdal: GDALResampleAlg {
        switch self {
        case .near: GRA_NearestNeighbour
        case .bilinear: GRA_Bilinear
        case .cubic: GRA_Cubic
        case .lanczos: GRA_Lanczos
        case .average, .gdal2tiles: GRA_Average
        }
    }
}

/// One thread's tools for base tiles: its transformer (source to EPSG:3857, approximated to an
/// eighth of a pixel, as gdalwarp does) and tile-sized MEM dataset. Meridian's own kernels
/// sample windows read through `windowReader`, which the threads share; GDAL's warper (other
/// kernels, and where the transformer fails) warps each tile straight from the thread's own
/// dataset, opened when first needed, into that buffer: one read of the source window, one
/// resampling, nothing outside the data (the destination alpha band starts at 0).
final class TileRenderer {
    let source: RasterSource
    let windowReader: SourceWindowReader
    let pyramid: TilePyramid
    let resampling: Resampling
    /// Colours the `average` kernel leaves out of its means (nil: none).
    let excludedValues: ExcludedValues?
    let transformer: UnsafeMutableRawPointer
    private let approximate: UnsafeMutableRawPointer
    private let destination: GDALDataset
    private var buffer: [UInt8]

    var colorChannels: Int { source.colorBands.count }
    /// GDAL's warper for every kernel (`TilingMeasurement.gdalWarperOnly`, for comparisons).
    let gdalWarperOnly: Bool
    private let stageTimes: StageTimes

    init(source: RasterSource, windowReader: SourceWindowReader, pyramid: TilePyramid, resampling: Resampling, gdalWarperOnly: Bool = false,
         excludedValues: ExcludedValues? = nil, stageTimes: StageTimes = StageTimes(enabled: false)) throws {
        self.excludedValues = excludedValues
        self.source = source
        self.windowReader = windowReader
        self.pyramid = pyramid
        self.resampling = resampling
        self.gdalWarperOnly = gdalWarperOnly
        self.stageTimes = stageTimes
        // (The transformer copies what it needs of the dataset's georeferencing.)
        let transformer = windowReader.withPreparedDataset { prepared in
            GDAL.withStringList(source.transformerOptions) { GDALCreateGenImgProjTransformer2(prepared.handle, nil, $0) }
        }
        guard let transformer else {
            throw MeridianError.gdal(.badInput, "cannot transform the raster to Web Mercator", path: source.path)
        }
        guard let destination = GDALDataset.memoryRaster(width: pyramid.tileSize, height: pyramid.tileSize, bands: source.colorBands.count + 1) else {
            GDALDestroyGenImgProjTransformer(transformer)
            throw MeridianError.gdal(.io, "cannot make a tile in memory", path: source.path)
        }
        self.transformer = transformer
        approximate = GDALCreateApproxTransformer(GDALGenImgProjTransform, transformer, 0.125)
        self.destination = destination
        buffer = [UInt8](repeating: 0, count: pyramid.tileSize * pyramid.tileSize * (source.colorBands.count + 1))
    }

    /// (The datasets close after this, as the stored properties go.)
    deinit {
        if let operation { GDALDestroyWarpOperation(operation) }
        if let excludingOperation { GDALDestroyWarpOperation(excludingOperation.operation) }
        GDALDestroyApproxTransformer(approximate)
        GDALDestroyGenImgProjTransformer(transformer)
    }

    /// The thread's own datasets (the file and the dataset warped from it), for GDAL's warper
    /// and, where the window reader has each thread read its own, for the kernels' windows.
    private var warpSource: (file: GDALDataset, prepared: GDALDataset)?

    /// The thread's own datasets, opened the first time they are needed.
    func ownDatasets() throws -> (file: GDALDataset, prepared: GDALDataset) {
        if let warpSource { return warpSource }
        let datasets = try source.open()
        warpSource = datasets
        return datasets
    }

    /// The warp operation, made once per thread: only the destination geotransform (set in the
    /// transformer) changes from tile to tile.
    private var operation: GDALWarpOperationH?

    /// The warp operation, made (and the thread's datasets opened) the first time it is needed.
    private func warpOperation() throws -> GDALWarpOperationH? {
        if let operation { return operation }
        let datasets = try ownDatasets()
        operation = makeOperation(from: datasets.prepared, into: destination, resampling: resampling.gdal)
        return operation
    }

    /// How many point samples a side GDAL's warper takes for each tile pixel when `average`
    /// leaves colours out (`ExcludedValues`): the most Meridian's own kernel takes (4 × 4).
    static let excludingSamples = 4

    /// The nearest-neighbour warp into a dataset `excludingSamples` times the tile's size a side,
    /// for `average` with excluded colours, made the first time it is needed (GDAL's own
    /// `average` cannot leave colours out: its EXCLUDED_VALUES came with GDAL 3.9).
    private var excludingOperation: (operation: GDALWarpOperationH, destination: GDALDataset)?

    private func excludingWarpOperation() throws -> (operation: GDALWarpOperationH, destination: GDALDataset)? {
        if let excludingOperation { return excludingOperation }
        let datasets = try ownDatasets()
        let size = pyramid.tileSize * Self.excludingSamples
        guard let fine = GDALDataset.memoryRaster(width: size, height: size, bands: source.colorBands.count + 1) else {
            throw MeridianError.gdal(.io, "cannot make a tile in memory", path: source.path)
        }
        guard let made = makeOperation(from: datasets.prepared, into: fine, resampling: GRA_NearestNeighbour) else { return nil }
        excludingOperation = (made, fine)
        return excludingOperation
    }

    private func makeOperation(from prepared: GDALDataset, into destination: GDALDataset, resampling: GDALResampleAlg) -> GDALWarpOperationH? {
        let options = GDALCreateWarpOptions()!
        defer { GDALDestroyWarpOptions(options) }
        let bands = source.colorBands
        options.pointee.hSrcDS = prepared.handle
        options.pointee.hDstDS = destination.handle
        options.pointee.nBandCount = Int32(bands.count)
        options.pointee.panSrcBands = CPLMalloc(MemoryLayout<Int32>.size * bands.count).assumingMemoryBound(to: Int32.self)
        options.pointee.panDstBands = CPLMalloc(MemoryLayout<Int32>.size * bands.count).assumingMemoryBound(to: Int32.self)
        for (i, band) in bands.enumerated() {
            options.pointee.panSrcBands[i] = Int32(band)
            options.pointee.panDstBands[i] = Int32(i + 1)
        }
        if let alpha = source.alphaBand { options.pointee.nSrcAlphaBand = Int32(alpha) }
        options.pointee.nDstAlphaBand = Int32(bands.count + 1)
        if let noData = source.noData {
            options.pointee.padfSrcNoDataReal = CPLMalloc(MemoryLayout<Double>.size * bands.count).assumingMemoryBound(to: Double.self)
            for i in 0..<bands.count { options.pointee.padfSrcNoDataReal[i] = noData[i] }
        }
        options.pointee.eResampleAlg = resampling
        options.pointee.pfnTransformer = GDALApproxTransform
        options.pointee.pTransformerArg = approximate
        options.pointee.dfWarpMemoryLimit = 64 * 1024 * 1024
        var warpOptions = ["INIT_DEST=0", "UNIFIED_SRC_NODATA=YES"]
        if let cutline = source.cutline { warpOptions.append("CUTLINE=\(cutline)") }
        options.pointee.papszWarpOptions = GDAL.stringList(warpOptions)
        CPLErrorReset()
        return GDALCreateWarpOperation(options)
    }

    /// Warps one base tile; nil when nothing of the raster falls in it.
    func render(_ tile: MapTile) throws -> TileImage? {
        var geoTransform = pyramid.geoTransform(tile)
        GDALSetGenImgProjTransformerDstGeoTransform(transformer, &geoTransform)
        GDALSetGeoTransform(destination.handle, &geoTransform)
        if resampling == .gdal2tiles, !gdalWarperOnly {
            do {
                return try stageTimes.measure(.gdal2tiles) { try gdal2tilesRender(tile) }
            } catch is SampledWarp.Unsupported {
                // As below: GDAL's warper ('average') where the transformer fails.
                GDALSetGenImgProjTransformerDstGeoTransform(transformer, &geoTransform)
            }
        }
        if resampling == .average || resampling == .near, !gdalWarperOnly {
            do {
                return try stageTimes.measure(.sampled) { try sampledRender(tile, samples: resampling == .near ? 1 : nil) }
            } catch is SampledWarp.Unsupported {
                // The transformer fails in part of the tile (e.g. beyond the poles): GDAL's warper copes.
            }
        }
        return try warpedByGDAL(tile)
    }

    /// A base tile warped by GDAL's warper (every kernel; where Meridian's fail, and for
    /// `bilinear`, `cubic` and `lanczos`) into the tile-sized MEM dataset, and read back.
    private func warpedByGDAL(_ tile: MapTile) throws -> TileImage? {
        if resampling == .average, let excludedValues { return try warpedByGDAL(tile, excluding: excludedValues) }
        guard let operation = try warpOperation() else {
            throw MeridianError.gdal(.badInput, "cannot set up the warp", path: source.path)
        }
        let bands = source.colorBands
        let size = Int32(pyramid.tileSize)
        try stageTimes.measure(.warp) {
            guard GDALChunkAndWarpImage(operation, 0, 0, size, size) == CE_None else {
                throw MeridianError.gdal(.io, "cannot warp tile \(tile)", path: source.path)
            }
        }
        let channels = Int32(bands.count + 1)
        let status = buffer.withUnsafeMutableBytes { raw in
            GDALDatasetRasterIO(destination.handle, GF_Read, 0, 0, size, size, raw.baseAddress, size, size, GDT_Byte,
                                channels, nil, channels, channels * size, 1)
        }
        guard status == CE_None else { throw MeridianError.gdal(.io, "cannot read tile \(tile) back", path: source.path) }
        let image = TileImage(size: pyramid.tileSize, colorChannels: bands.count, pixels: buffer)
        return image.isEmpty ? nil : image
    }

    /// A base tile by GDAL's warper under `average` with excluded colours, by the rule of
    /// Meridian's own kernel (`ExcludingSampleAverager`): 4 × 4 point samples a tile pixel (a
    /// nearest-neighbour warp at four times the tile's size a side), averaged by
    /// `ExcludingMean`. GDAL 3.6's `average` has no excluded values, so it is not used here.
    private func warpedByGDAL(_ tile: MapTile, excluding excluded: ExcludedValues) throws -> TileImage? {
        guard let (operation, fine) = try excludingWarpOperation() else {
            throw MeridianError.gdal(.badInput, "cannot set up the warp", path: source.path)
        }
        let k = Self.excludingSamples, size = pyramid.tileSize, fineSize = size * k
        var geoTransform = pyramid.geoTransform(tile)
        geoTransform[1] /= Double(k)
        geoTransform[5] /= Double(k)
        GDALSetGenImgProjTransformerDstGeoTransform(transformer, &geoTransform)
        GDALSetGeoTransform(fine.handle, &geoTransform)
        let colorChannels = source.colorBands.count, channels = colorChannels + 1
        // INIT_DEST=0: what the warp does not reach stays transparent, tile after tile.
        try stageTimes.measure(.warp) {
            guard GDALChunkAndWarpImage(operation, 0, 0, Int32(fineSize), Int32(fineSize)) == CE_None else {
                throw MeridianError.gdal(.io, "cannot warp tile \(tile)", path: source.path)
            }
        }
        var samples = [UInt8](repeating: 0, count: fineSize * fineSize * channels)
        let status = samples.withUnsafeMutableBytes { raw in
            GDALDatasetRasterIO(fine.handle, GF_Read, 0, 0, Int32(fineSize), Int32(fineSize), raw.baseAddress, Int32(fineSize), Int32(fineSize),
                                GDT_Byte, Int32(channels), nil, Int32(channels), Int32(channels * fineSize), 1)
        }
        guard status == CE_None else { throw MeridianError.gdal(.io, "cannot read tile \(tile) back", path: source.path) }
        var pixels = [UInt8](repeating: 0, count: size * size * channels)
        var mean = ExcludingMean(excluded)
        samples.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                for y in 0..<size {
                    for x in 0..<size {
                        mean.reset()
                        for sy in 0..<k {
                            let row = (y * k + sy) * fineSize
                            for sx in 0..<k {
                                mean.add(src, at: (row + x * k + sx) * channels, colorChannels: colorChannels, alphaAt: colorChannels)
                            }
                        }
                        mean.store(into: dst, at: (y * size + x) * channels, colorChannels: colorChannels)
                    }
                }
            }
        }
        let image = TileImage(size: size, colorChannels: colorChannels, pixels: pixels)
        return image.isEmpty ? nil : image
    }
}

extension TileFormat {
    /// The GDAL driver that encodes images of the format.
    var driver: String { self == .jpeg ? "JPEG" : rawValue.uppercased() }
    /// The driver's creation options for tiles of the format.
    var creationOptions: [String] {
        switch self {
        case .png: []
        case .jpeg: ["QUALITY=85"]
        case .webp: ["QUALITY=85"]
        case .mvt: []
        }
    }
}

/// Encodes tiles (PNG with `PNGEncoder`, JPEG and WebP through GDAL's drivers and /vsimem/)
/// and decodes them (through GDAL), one per thread.
final class TileCodec {
    let format: TileFormat
    /// What transparent pixels are laid over before encoding (opaque tiles); nil keeps alpha.
    let background: RGB?
    /// How PNG rows are filtered: none for tiles of paletted rasters, else adaptively.
    let pngFiltering: PNGEncoder.Filtering
    private let name: String
    private let driver: GDALDriverH
    /// In-memory rasters to encode from, by band count.
    private var scratch: [Int: GDALDataset] = [:]
    private var pngEncoder: PNGEncoder?
    private let size: Int

    init(format: TileFormat, size: Int, background: RGB? = nil, pngFiltering: PNGEncoder.Filtering = .adaptive) {
        GDAL.setUp()
        self.format = format
        self.background = background
        self.pngFiltering = pngFiltering
        self.size = size
        name = "/vsimem/meridian-tile-\(UUID().uuidString).\(format.fileExtension)"
        driver = GDALGetDriverByName(format.driver)
    }

    private func memDataset(bands: Int) throws -> GDALDataset {
        if let dataset = scratch[bands] { return dataset }
        guard let dataset = GDALDataset.memoryRaster(width: size, height: size, bands: bands) else {
            throw MeridianError(.io, "cannot encode a tile: \(GDAL.lastError ?? "")")
        }
        scratch[bands] = dataset
        return dataset
    }

    /// The encoded tile: over the background when there is one, without alpha when opaque
    /// (JPEG has none: its tiles always have a background).
    func encode(_ image: TileImage) throws -> [UInt8] {
        let image = background.map { image.flattened(onto: $0) } ?? image
        let keepAlpha = format != .jpeg && !image.isOpaque
        let bands = keepAlpha ? image.channels : image.colorChannels
        if format == .png {
            let encoder = try pngEncoder ?? PNGEncoder(filtering: pngFiltering)
            pngEncoder = encoder
            return try image.pixels.withUnsafeBufferPointer {
                try encoder.encode($0, width: size, height: size, channels: bands, stride: image.channels)
            }
        }
        let dataset = try memDataset(bands: bands)
        let n = Int32(size), stride = Int32(image.channels)
        var pixels = image.pixels
        let status = pixels.withUnsafeMutableBytes { raw in
            GDALDatasetRasterIO(dataset.handle, GF_Write, 0, 0, n, n, raw.baseAddress, n, n, GDT_Byte, Int32(bands), nil, stride, stride * n, 1)
        }
        guard status == CE_None else { throw MeridianError(.io, "cannot encode a tile: \(GDAL.lastError ?? "")") }
        CPLErrorReset()
        let copy = GDAL.withStringList(format.creationOptions) { GDALCreateCopy(driver, name, dataset.handle, 0, $0, nil, nil) }
        guard let copy else { throw MeridianError(.io, "cannot encode a tile as \(format.rawValue): \(GDAL.lastError ?? "")") }
        GDALClose(copy)
        var length: vsi_l_offset = 0
        guard let bytes = VSIGetMemFileBuffer(name, &length, 1) else { throw MeridianError(.io, "cannot encode a tile") }
        defer { VSIFree(bytes) }
        VSIUnlink(name + ".aux.xml")
        return Array(UnsafeBufferPointer(start: bytes, count: Int(length)))
    }

    /// Reads an encoded tile back as `colorChannels` + alpha (opaque when the file has no alpha).
    func decode(_ data: [UInt8], colorChannels: Int) throws -> TileImage {
        let file = "/vsimem/meridian-read-\(UUID().uuidString)"
        var data = data
        return try data.withUnsafeMutableBufferPointer { bytes in
            VSIFCloseL(VSIFileFromMemBuffer(file, bytes.baseAddress, vsi_l_offset(bytes.count), 0))
            defer { VSIUnlink(file) }
            // Only the run's format's driver: a stored tile holding a VRT's text would make GDAL
            // open whatever the VRT names.
            guard let dataset = GDALDataset(opening: file, for: .raster, drivers: [format.driver], explainingFailure: true) else {
                throw MeridianError(.badInput, "cannot read a tile back: \(GDAL.lastError ?? "")")
            }
            let bands = dataset.bandCount
            let channels = colorChannels + 1
            var pixels = [UInt8](repeating: 255, count: size * size * channels)
            let n = Int32(size)
            let readBands = min(bands, channels)
            var map = (1...readBands).map { Int32($0) }
            let status = pixels.withUnsafeMutableBytes { raw in
                GDALDatasetRasterIO(dataset.handle, GF_Read, 0, 0, n, n, raw.baseAddress, n, n, GDT_Byte, Int32(readBands), &map,
                                    Int32(channels), Int32(channels) * n, 1)
            }
            guard status == CE_None else { throw MeridianError(.badInput, "cannot read a tile back") }
            return TileImage(size: size, colorChannels: colorChannels, pixels: pixels)
        }
    }
}

/// An image file read through GDAL as RGBA (for checks and tests): gray becomes three equal
/// channels, a missing alpha 255.
public struct DecodedImage: Sendable {
    /// The image's width in pixels.
    public let width: Int
    /// The image's height in pixels.
    public let height: Int
    /// Bands in the file (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA).
    public let bandCount: Int
    /// RGBA, row by row.
    public let rgba: [UInt8]

    /// Reads a whole image file (any raster GDAL reads, typically a PNG, JPEG or WebP tile).
    /// - Parameter path: The image file.
    /// - Throws: A bad-input `MeridianError` when GDAL cannot read it as a raster.
    public init(path: String) throws {
        guard let dataset = GDALDataset(opening: path, for: .raster, explainingFailure: true) else {
            throw MeridianError.gdal(.badInput, "cannot read the image", path: path)
        }
        let width = dataset.width, height = dataset.height
        let bandCount = dataset.bandCount
        self.width = width
        self.height = height
        self.bandCount = bandCount
        let map: [Int32]
        switch bandCount {
        case 1: map = [1, 1, 1]
        case 2: map = [1, 1, 1, 2]
        case 3: map = [1, 2, 3]
        default: map = [1, 2, 3, 4]
        }
        guard let pixels = Self.read(dataset, width: width, height: height, bands: map) else {
            throw MeridianError.gdal(.badInput, "cannot read the image", path: path)
        }
        rgba = pixels
    }

    private static func read(_ dataset: GDALDataset, width: Int, height: Int, bands: [Int32]) -> [UInt8]? {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        var map = bands
        let status = pixels.withUnsafeMutableBytes { raw in
            GDALDatasetRasterIO(dataset.handle, GF_Read, 0, 0, Int32(width), Int32(height), raw.baseAddress, Int32(width), Int32(height),
                                GDT_Byte, Int32(map.count), &map, 4, Int32(4 * width), 1)
        }
        return status == CE_None ? pixels : nil
    }

    /// One pixel's red, green, blue and alpha values.
    /// - Parameters:
    ///   - x: The column, from 0 at the left, below ``width``.
    ///   - y: The row, from 0 at the top, below ``height``.
    /// - Returns: The pixel's channels, 0 to 255 each.
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * width + x) * 4
        return (rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3])
    }

    /// Pixels with alpha above 0.
    public var opaqueCount: Int { stride(from: 3, to: rgba.count, by: 4).reduce(0) { $0 + (rgba[$1] > 0 ? 1 : 0) } }
}
