import CGDAL
import GDALSupport

/// How a raster's bands become a tile's colour and alpha: which bands of the prepared dataset
/// give gray or red, green, blue and which gives alpha, a paletted file's colour table, and the
/// gdal_translate arguments that prepare the dataset (`RasterSource.prepare`).
struct BandLayout {
    /// Bands of the prepared dataset giving gray or red, green, blue.
    var colorBands: [Int]
    /// The prepared dataset's alpha band, if it has one.
    var alphaBand: Int?
    /// A paletted file's colour table as RGBA, 256 entries (missing ones transparent), for
    /// 8-bit indexes only.
    var palette: [UInt8]?
    /// The palette index meaning no data, and its colour in the expanded bands.
    var paletteNoDataIndex: Int?
    var paletteNoDataColour: [Double]?
    var translate: [String] = []
    var notes: [RasterSourceNote] = []

    /// The layout of `file`'s bands, as `options` choose them. A palette is expanded to RGBA;
    /// otherwise the bands are gray or RGB, plus an alpha band if there is one (or a mask).
    init(of file: GDALDataset, options: RasterSourceOptions, path: String) throws {
        let first = file.band(1)
        var hasNoData: Int32 = 0
        let value = GDALGetRasterNoDataValue(first, &hasNoData)
        let fileNoData = hasNoData != 0 ? value : nil
        if let table = GDALGetRasterColorTable(first), options.bands == nil || options.bands == [1] {
            self.init(expanding: table, noDataIndex: options.noData ?? fileNoData)
        } else {
            try self.init(choosing: options.bands, of: file, path: path)
        }
        let type = GDALGetRasterDataType(first)
        if palette == nil, alphaBand == nil, fileNoData == nil, options.noData == nil, type == GDT_Byte {
            useSharedMask(of: file)
        }
        if type != GDT_Byte {
            scaleToBytes(from: type)
            palette = nil  // its indexes would be scaled
        }
    }

    /// A paletted band expanded to red, green, blue and alpha; the colour of the nodata index
    /// becomes the expanded bands' nodata.
    private init(expanding table: GDALColorTableH, noDataIndex index: Double?) {
        colorBands = [1, 2, 3]
        alphaBand = 4
        translate = ["-expand", "rgba"]
        let entries = Int(GDALGetColorEntryCount(table))
        if let index, index >= 0, Int(index) < entries, let entry = GDALGetColorEntry(table, Int32(index)) {
            paletteNoDataColour = [Double(entry.pointee.c1), Double(entry.pointee.c2), Double(entry.pointee.c3)]
            paletteNoDataIndex = Int(index)
        }
        var lut = [UInt8](repeating: 0, count: 256 * 4)
        for i in 0..<min(256, entries) {
            if let e = GDALGetColorEntry(table, Int32(i)) {
                lut.replaceSubrange(4 * i..<4 * i + 4, with: [UInt8(clamping: e.pointee.c1), UInt8(clamping: e.pointee.c2),
                                                             UInt8(clamping: e.pointee.c3), UInt8(clamping: e.pointee.c4)])
            }
        }
        palette = lut
    }

    /// The `chosen` bands (one or three), else the first three that are not alpha (with a
    /// note when there are more), else the first; the band GDAL calls alpha, if any.
    private init(choosing chosen: [Int]?, of file: GDALDataset, path: String) throws {
        let bandCount = file.bandCount
        let alpha = (1...bandCount).last { GDALGetRasterColorInterpretation(file.band($0)) == GCI_AlphaBand }
        alphaBand = alpha
        let colour = (1...bandCount).filter { $0 != alpha }
        if let chosen {
            guard chosen.count == 1 || chosen.count == 3 else { throw RasterSourceError.unsupportedBandCount(chosen.count) }
            for band in chosen where !(1...bandCount).contains(band) {
                throw RasterSourceError.noSuchBand(band: band, bandCount: bandCount, path: path)
            }
            colorBands = chosen
        } else if colour.count >= 3 {
            colorBands = Array(colour.prefix(3))
            if colour.count > 3 { notes.append(.firstThreeBandsTiled(bandCount: colour.count, tiled: colorBands)) }
        } else {
            colorBands = [colour.first ?? 1]
        }
    }

    /// A mask shared by all bands (a JPEG-compressed GeoTIFF's internal mask, say) where there
    /// is no alpha or nodata becomes the alpha band, as gdal2tiles honours it, so the collar it
    /// masks is transparent rather than black. The prepared dataset's bands are then the colour
    /// bands in order, and the mask.
    private mutating func useSharedMask(of file: GDALDataset) {
        let maskFlags = GDALGetMaskFlags(file.band(colorBands[0]))
        guard maskFlags & GMF_PER_DATASET != 0, maskFlags & GMF_ALL_VALID == 0 else { return }
        translate += colorBands.flatMap { ["-b", "\($0)"] } + ["-b", "mask", "-colorinterp_\(colorBands.count + 1)", "alpha"]
        colorBands = Array(1...colorBands.count)
        alphaBand = colorBands.count + 1
    }

    /// Data that is not 8-bit is scaled from its minimum and maximum to 0...255.
    private mutating func scaleToBytes(from type: GDALDataType) {
        translate += ["-ot", "Byte", "-scale"]
        notes.append(.scaledToBytes(dataType: String(cString: GDALGetDataTypeName(type))))
    }

    /// Per colour band, the value that means no data: the palette's nodata colour, else the
    /// user's value (`asked`), else the first colour band's own; none where an alpha band
    /// says it and the user gave no value.
    func noDataValues(in file: GDALDataset, asked: Double?) -> [Double]? {
        if let paletteNoDataColour { return paletteNoDataColour }
        if alphaBand != nil && asked == nil { return nil }
        var has: Int32 = 0
        let value = GDALGetRasterNoDataValue(file.band(colorBands[0]), &has)
        return (asked ?? (has != 0 ? value : nil)).map { [Double](repeating: $0, count: colorBands.count) }
    }
}
