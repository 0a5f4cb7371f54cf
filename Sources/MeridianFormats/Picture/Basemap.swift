import CCairo
import Foundation
import MeridianGeometry

/// Tiles drawn under a PNG picture, as `meridian tile` writes them: a folder of `z/x/y.png`
/// (XYZ, or TMS when a tilemapresource.xml says so) or an MBTiles file. The zoom drawn is the
/// first whose tiles have at least the picture's resolution, or the deepest there is. Tiles
/// must be PNG (cairo's only image format); a JPEG or WebP tile is an error that says so.
struct Basemap {
    private enum Store {
        case folder(path: String, isTMS: Bool)
        case mbtiles(MBTilesFile)
    }

    private let store: Store
    let zooms: [Int]

    init(path: String) throws {
        if path.lowercased().hasSuffix(".mbtiles") {
            let file = try MBTilesFile(path: path)
            if let format = file.metadata["format"], format.lowercased() != "png" {
                throw MeridianError(.badInput, "the basemap's tiles are \(format); pictures draw PNG tiles only",
                                    at: SourceLocation(file: path), hint: "tile it with --tile-format png")
            }
            store = .mbtiles(file)
            zooms = try file.zoomLevels()
        } else {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
                throw MeridianError(.inputUnavailable, "the basemap must be a tile folder (z/x/y.png) or an .mbtiles file",
                                    at: SourceLocation(file: path))
            }
            store = .folder(path: path, isTMS: FileManager.default.fileExists(atPath: path + "/tilemapresource.xml"))
            zooms = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).compactMap(Int.init).filter { (0...30).contains($0) }.sorted()
        }
        guard !zooms.isEmpty else {
            throw MeridianError(.badInput, "the basemap holds no tiles", at: SourceLocation(file: path))
        }
    }

    /// A tile's image, or nil when the basemap does not have it.
    private func image(_ tile: MapTile) throws -> OpaquePointer? {
        let bytes: [UInt8]
        let name: String
        switch store {
        case .folder(let path, let isTMS):
            name = "\(path)/\(tile.zoom)/\(tile.x)/\(isTMS ? tile.tmsY : tile.y).png"
            guard let data = FileManager.default.contents(atPath: name) else { return nil }
            bytes = Array(data)
        case .mbtiles(let file):
            name = "\(file.path) tile \(tile)"
            guard let data = try file.tile(tile) else { return nil }
            bytes = data
        }
        guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) else {
            throw MeridianError(.badInput, "a basemap tile is not PNG; pictures draw PNG tiles only", at: SourceLocation(file: name))
        }
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
            throw MeridianError(.badInput, "cannot read a basemap tile as PNG", at: SourceLocation(file: name))
        }
        return surface
    }

    func draw(on cr: OpaquePointer, viewport: Viewport, pixelsPerPoint: Double) throws {
        let wanted = log2(viewport.pointsPerMapPoint * pixelsPerPoint * MapWorld.size / 256)
        let zoom = zooms.first { Double($0) >= wanted - 0.25 } ?? zooms.last!
        let count = 1 << zoom
        let span = MapWorld.size / Double(count)
        let shown = viewport.drawnRect
        func range(_ low: Double, _ high: Double) -> ClosedRange<Int>? {
            let first = max(0, Int((low / span).rounded(.down))), last = min(count - 1, Int((high / span).rounded(.down)))
            return first <= last ? first...last : nil
        }
        guard let xs = range(shown.minX, shown.maxX), let ys = range(shown.minY, shown.maxY) else { return }
        for y in ys {
            for x in xs {
                guard let image = try image(MapTile(zoom: zoom, x: x, y: y)) else { continue }
                defer { cairo_surface_destroy(image) }
                let origin = viewport.point(MapPoint(x: Double(x) * span, y: Double(y) * span))
                let size = span * viewport.pointsPerMapPoint
                cairo_save(cr)
                cairo_translate(cr, origin.x, origin.y)
                cairo_scale(cr, size / Double(cairo_image_surface_get_width(image)), size / Double(cairo_image_surface_get_height(image)))
                cairo_set_source_surface(cr, image, 0, 0)
                cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
                cairo_paint(cr)
                cairo_restore(cr)
            }
        }
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
