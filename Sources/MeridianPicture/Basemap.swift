import CCairo
import CTurboJPEG
import CWebP
import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
import MeridianTiles

/// Tiles drawn under a PNG picture, as `meridian tile` writes them: a folder of `z/x/y.png`,
/// `.jpg` or `.webp` (XYZ, or TMS as its metadata.json or a tilemapresource.xml says; other
/// tools' folders without metadata.json too), an MBTiles file or a PMTiles archive, read through
/// MeridianTiles' one tile-archive layer (`TilePyramids`, a `TilePyramidReader`), which checks
/// their sizes and follows no link inside them. The zoom drawn is the first whose tiles have at
/// least the picture's resolution, or the deepest there is. Tiles in another format (vector
/// tiles, AVIF) are an error that says so.
struct Basemap {
    /// Most tiles one picture looks up; past that a coarser zoom level is drawn.
    static let maximumTiles = 16_384
    /// Most pixels along a side of the surface the tiles are put together in (cairo's limit is 32,767).
    static let maximumMosaicSide = 16_384

    private let pyramid: any TilePyramidReader
    /// The levels the basemap has tiles at, lowest first (asked once: a folder lists its level folders).
    let zooms: [Int]

    /// Opens the basemap at `path` and checks that its tiles are images.
    /// - Throws: `MeridianError` (input unavailable) when there is nothing at `path`, (bad input)
    ///   when it is no tile pyramid, a damaged one, or holds no tiles; `BasemapError` when its
    ///   tiles are not images.
    init(path: String) throws {
        pyramid = try TilePyramids.open(path, readingFolderWithoutMetadata: true)
        let format = try pyramid.pyramidMetadata().format
        guard format.isImage else { throw BasemapError.unreadableTiles(format: format.fileExtension, basemap: path) }
        zooms = try pyramid.zoomLevels()
        guard !zooms.isEmpty else {
            throw MeridianError(.badInput, "the basemap holds no tiles", at: SourceLocation(file: path))
        }
    }

    /// A tile's image, or nil when the basemap does not have it.
    private func image(_ tile: MapTile) throws -> OpaquePointer? {
        guard let bytes = try pyramid.uncompressedTile(tile) else { return nil }
        return try TileDecoder.surface(bytes, name: "\(pyramid.path) tile \(tile)")
    }

    /// The zoom level to draw: the first at least as sharp as the picture, unless the part of
    /// the picture would take too many of its tiles; then the deepest that does not.
    private func zoom(for viewport: Viewport, pixelsPerPoint: Double) throws -> Int {
        let wanted = log2(viewport.pointsPerMapPoint * pixelsPerPoint * MapWorld.size / 256)
        let sharp = zooms.first { Double($0) >= wanted - 0.25 } ?? zooms.last!
        guard let ranges = tileRanges(viewport, zoom: sharp), ranges.x.count * ranges.y.count > Self.maximumTiles else { return sharp }
        guard let coarser = zooms.last(where: { z in
            z < sharp && tileRanges(viewport, zoom: z).map { $0.x.count * $0.y.count <= Self.maximumTiles } ?? true
        }) else {
            throw BasemapError.zoomLevelsTooFine(zooms: zooms.first!...zooms.last!, maximumTiles: Self.maximumTiles)
        }
        return coarser
    }

    /// The tiles of `zoom` under the picture (nil when none is).
    private func tileRanges(_ viewport: Viewport, zoom: Int) -> (x: ClosedRange<Int>, y: ClosedRange<Int>)? {
        let count = 1 << zoom
        let span = MapWorld.size / Double(count)
        let shown = viewport.drawnRect
        func range(_ low: Double, _ high: Double) -> ClosedRange<Int>? {
            let first = max(0, Int(max(-1, (low / span).rounded(.down)))), last = min(count - 1, Int(min(Double(count), (high / span).rounded(.down))))
            return first <= last ? first...last : nil
        }
        guard let xs = range(shown.minX, shown.maxX), let ys = range(shown.minY, shown.maxY) else { return nil }
        return (xs, ys)
    }

    /// Draws the tiles under the picture. They are first put side by side in one surface, each
    /// on whole pixels, and that surface is drawn once: tiles drawn one by one at fractional
    /// places leave light seams where their anti-aliased edges meet.
    func draw(on cr: OpaquePointer, viewport: Viewport, pixelsPerPoint: Double) throws {
        let zoom = try zoom(for: viewport, pixelsPerPoint: pixelsPerPoint)
        guard let (xs, ys) = tileRanges(viewport, zoom: zoom) else { return }
        // Tiles much sharper than the picture are shrunk by halves (whole pixels still), so the
        // surface stays near the picture's own size.
        let wanted = log2(viewport.pointsPerMapPoint * pixelsPerPoint * MapWorld.size / 256)
        var halvings = max(0, zoom - Int(wanted.rounded(.up)))
        var mosaic: OpaquePointer?
        var cell = 0
        defer { if let mosaic { cairo_surface_destroy(mosaic) } }
        for y in ys {
            for x in xs {
                guard let image = try image(MapTile(zoom: zoom, x: x, y: y)) else { continue }
                defer { cairo_surface_destroy(image) }
                let width = Int(cairo_image_surface_get_width(image)), height = Int(cairo_image_surface_get_height(image))
                if mosaic == nil {
                    while halvings < 8, max(xs.count, ys.count) * (width >> halvings) > Self.maximumMosaicSide { halvings += 1 }
                    cell = max(1, width >> min(halvings, 8))
                    mosaic = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(xs.count * cell), Int32(ys.count * cell))
                    guard cairo_surface_status(mosaic) == CAIRO_STATUS_SUCCESS else {
                        throw MeridianError(.usage, "cannot make a \(xs.count * cell)×\(ys.count * cell) surface for the basemap")
                    }
                }
                let m = cairo_create(mosaic)
                defer { cairo_destroy(m) }
                cairo_translate(m, Double((x - xs.lowerBound) * cell), Double((y - ys.lowerBound) * cell))
                cairo_scale(m, Double(cell) / Double(width), Double(cell) / Double(height))
                cairo_set_source_surface(m, image, 0, 0)
                let pattern = cairo_get_source(m)
                // Edge pixels repeat outward, so shrinking does not pull in transparency.
                cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
                cairo_pattern_set_filter(pattern, cell == width ? CAIRO_FILTER_NEAREST : CAIRO_FILTER_GOOD)
                cairo_set_operator(m, CAIRO_OPERATOR_SOURCE)
                cairo_rectangle(m, 0, 0, Double(width), Double(height))
                cairo_fill(m)
            }
        }
        guard let mosaic else { return }
        cairo_surface_mark_dirty(mosaic)
        let span = MapWorld.size / Double(1 << zoom)
        let origin = viewport.point(MapPoint(x: Double(xs.lowerBound) * span, y: Double(ys.lowerBound) * span))
        cairo_save(cr)
        cairo_translate(cr, origin.x, origin.y)
        cairo_scale(cr, span * viewport.pointsPerMapPoint / Double(cell), span * viewport.pointsPerMapPoint / Double(cell))
        cairo_set_source_surface(cr, mosaic, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
        cairo_paint(cr)
        cairo_restore(cr)
    }
}

/// Why a basemap cannot be drawn, told in facts: the executables word the hints in terms of
/// their options (`WordedForCommandLine`).
public enum BasemapError: MeridianFailure, Equatable {
    /// Its tiles are in a format pictures do not draw (vector tiles): `format` is the name
    /// its metadata would give them (`pbf`).
    case unreadableTiles(format: String, basemap: String)
    /// Its zoom levels are all too fine for the picture: the coarsest that would do takes more
    /// than `maximumTiles` tiles.
    case zoomLevelsTooFine(zooms: ClosedRange<Int>, maximumTiles: Int)

    /// Always bad input: the basemap, not the command, is what cannot be drawn.
    public var kind: MeridianError.Kind { .badInput }

    /// The basemap whose tiles cannot be read; nil when the picture, not a file, is at fault.
    public var location: SourceLocation? {
        switch self {
        case .unreadableTiles(_, let basemap): SourceLocation(file: basemap)
        case .zoomLevelsTooFine: nil
        }
    }

    /// What cannot be drawn, with the facts (the tiles' format, the zoom levels).
    public var message: String {
        switch self {
        case .unreadableTiles(let format, _):
            "the basemap's tiles are \(format); pictures draw PNG, JPEG and WebP tiles"
        case .zoomLevelsTooFine(let zooms, let maximumTiles):
            "the basemap's zoom levels (\(zooms.lowerBound)-\(zooms.upperBound)) are too fine for this picture: it would take more than \(maximumTiles) tiles"
        }
    }

    /// What to change in the basemap or the picture, in terms free of command-line options.
    public var hint: String? {
        switch self {
        case .unreadableTiles: "make its tiles PNG, JPEG or WebP"
        case .zoomLevelsTooFine: "give the basemap coarser zoom levels too, or show a smaller part of the map"
        }
    }
}

/// Basemap tiles into cairo image surfaces, by what their bytes are: PNG through cairo, JPEG
/// through libjpeg-turbo, WebP through libwebp.
enum TileDecoder {
    static func surface(_ bytes: [UInt8], name: String) throws -> OpaquePointer {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            // The size from the IHDR chunk (big-endian width and height after the signature,
            // the chunk's length and its type), checked before cairo decodes a pixel.
            guard bytes.count >= 24 else { throw unreadable("PNG", name) }
            func u32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
            try checkSize(width: u32(16), height: u32(20), name: name)
            return try png(bytes, name: name)
        }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return try jpeg(bytes, name: name) }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return try webp(bytes, name: name)
        }
        throw MeridianError(.badInput, "a basemap tile is not PNG, JPEG or WebP", at: SourceLocation(file: name))
    }

    /// Refuses an image larger than a tile is (``TileInputLimits/imageSide`` along a side):
    /// decoding a 20000×20000 image from a small file takes a minute and gigabytes.
    private static func checkSize(width: Int, height: Int, name: String) throws {
        guard width <= TileInputLimits.imageSide, height <= TileInputLimits.imageSide else {
            throw MeridianError(.badInput, "a basemap tile is \(width)×\(height) pixels; tiles are drawn up to \(TileInputLimits.imageSide) pixels a side",
                                at: SourceLocation(file: name))
        }
    }

    private static func unreadable(_ format: String, _ name: String, _ detail: String? = nil) -> MeridianError {
        MeridianError(.badInput, "cannot read a basemap tile as \(format)" + (detail.map { ": \($0)" } ?? ""), at: SourceLocation(file: name))
    }

    private static func png(_ bytes: [UInt8], name: String) throws -> OpaquePointer {
        // cairo reads PNG through a callback; it hands out the bytes in pieces.
        var reader = PNGBytes(bytes: bytes)
        let surface = withUnsafeMutablePointer(to: &reader) { pointer in
            cairo_image_surface_create_from_png_stream({ closure, data, length in
                guard let closure, let data else { return CAIRO_STATUS_READ_ERROR }
                let reader = closure.assumingMemoryBound(to: PNGBytes.self)
                return reader.pointee.read(into: data, count: Int(length)) ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_READ_ERROR
            }, pointer)
        }
        guard let surface, cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            if let surface { cairo_surface_destroy(surface) }
            throw unreadable("PNG", name)
        }
        return surface
    }

    /// A new image surface, or an error naming the tile.
    private static func imageSurface(_ format: cairo_format_t, _ width: Int32, _ height: Int32, name: String) throws -> OpaquePointer {
        let surface = cairo_image_surface_create(format, width, height)!
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw MeridianError(.badInput, "a basemap tile is too large (\(width)×\(height))", at: SourceLocation(file: name))
        }
        return surface
    }

    private static func jpeg(_ bytes: [UInt8], name: String) throws -> OpaquePointer {
        guard let decoder = tjInitDecompress() else { throw unreadable("JPEG", name) }
        defer { tjDestroy(decoder) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colourspace: Int32 = 0
        guard tjDecompressHeader3(decoder, bytes, UInt(bytes.count), &width, &height, &subsampling, &colourspace) == 0,
              width > 0, height > 0 else {
            throw unreadable("JPEG", name, String(cString: tjGetErrorStr2(decoder)))
        }
        try checkSize(width: Int(width), height: Int(height), name: name)
        // RGB24: cairo's 32-bit pixels with the top byte unused, which TurboJPEG's X matches.
        let surface = try imageSurface(CAIRO_FORMAT_RGB24, width, height, name: name)
        cairo_surface_flush(surface)
        #if _endian(little)
        let pixelFormat = Int32(TJPF_BGRX.rawValue)
        #else
        let pixelFormat = Int32(TJPF_XRGB.rawValue)
        #endif
        let status = tjDecompress2(decoder, bytes, UInt(bytes.count), cairo_image_surface_get_data(surface), width,
                                   cairo_image_surface_get_stride(surface), height, pixelFormat, 0)
        guard status == 0 || tjGetErrorCode(decoder) == TJERR_WARNING.rawValue else {
            let detail = String(cString: tjGetErrorStr2(decoder))
            cairo_surface_destroy(surface)
            throw unreadable("JPEG", name, detail)
        }
        cairo_surface_mark_dirty(surface)
        return surface
    }

    private static func webp(_ bytes: [UInt8], name: String) throws -> OpaquePointer {
        var width: Int32 = 0, height: Int32 = 0
        guard WebPGetInfo(bytes, bytes.count, &width, &height) != 0, width > 0, height > 0 else { throw unreadable("WebP", name) }
        try checkSize(width: Int(width), height: Int(height), name: name)
        let surface = try imageSurface(CAIRO_FORMAT_ARGB32, width, height, name: name)
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = cairo_image_surface_get_data(surface)!
        // cairo's ARGB32 is a native-endian 32-bit word with premultiplied colour.
        #if _endian(little)
        let decoded = WebPDecodeBGRAInto(bytes, bytes.count, data, stride * Int(height), Int32(stride))
        let alphaOffset = 3
        #else
        let decoded = WebPDecodeARGBInto(bytes, bytes.count, data, stride * Int(height), Int32(stride))
        let alphaOffset = 0
        #endif
        guard decoded != nil else {
            cairo_surface_destroy(surface)
            throw unreadable("WebP", name)
        }
        for row in 0..<Int(height) {
            let line = data + row * stride
            for x in 0..<Int(width) {
                let pixel = line + 4 * x
                let alpha = UInt32(pixel[alphaOffset])
                guard alpha != 255 else { continue }
                for c in 0..<4 where c != alphaOffset { pixel[c] = UInt8((UInt32(pixel[c]) * alpha + 127) / 255) }
            }
        }
        cairo_surface_mark_dirty(surface)
        return surface
    }
}

/// PNG bytes handed to cairo piece by piece.
private struct PNGBytes {
    let bytes: [UInt8]
    var offset = 0

    mutating func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Bool {
        guard offset + count <= bytes.count else { return false }
        bytes.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + offset, count: count) }
        offset += count
        return true
    }
}
