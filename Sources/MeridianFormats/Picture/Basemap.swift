import CCairo
import Foundation
import MeridianGeometry

/// Tiles drawn under a PNG picture: a folder of `z/x/y.png` as `meridian tile` writes it (XYZ,
/// or TMS when a tilemapresource.xml says so). The zoom drawn is the first whose tiles have
/// at least the picture's resolution, or the deepest there is.
struct Basemap {
    let path: String
    let isTMS: Bool
    let zooms: [Int]

    init(path: String) throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
            throw MeridianError(.inputUnavailable, "the basemap must be a tile folder (z/x/y.png)", at: SourceLocation(file: path))
        }
        self.path = path
        isTMS = FileManager.default.fileExists(atPath: path + "/tilemapresource.xml")
        zooms = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).compactMap(Int.init).filter { (0...30).contains($0) }.sorted()
        guard !zooms.isEmpty else {
            throw MeridianError(.badInput, "the basemap folder holds no zoom levels (folders named 0, 1, …)", at: SourceLocation(file: path))
        }
    }

    func draw(on cr: OpaquePointer, viewport: Viewport, heading: Double, pixelsPerPoint: Double) throws {
        let wanted = log2(viewport.pointsPerMapPoint * pixelsPerPoint * MapWorld.size / 256)
        let zoom = zooms.first { Double($0) >= wanted - 0.25 } ?? zooms.last!
        let count = 1 << zoom
        let span = MapWorld.size / Double(count)
        let shown = viewport.rectCovering(heading: heading)
        func range(_ low: Double, _ high: Double) -> ClosedRange<Int> {
            max(0, Int((low / span).rounded(.down)))...min(count - 1, Int((high / span).rounded(.down)))
        }
        let xs = range(shown.minX, shown.maxX), ys = range(shown.minY, shown.maxY)
        guard !xs.isEmpty, !ys.isEmpty else { return }
        for y in ys {
            for x in xs {
                let file = "\(path)/\(zoom)/\(x)/\(isTMS ? count - 1 - y : y).png"
                guard FileManager.default.fileExists(atPath: file) else { continue }
                guard let image = cairo_image_surface_create_from_png(file), cairo_surface_status(image) == CAIRO_STATUS_SUCCESS else {
                    throw MeridianError(.badInput, "cannot read the basemap tile as PNG", at: SourceLocation(file: file))
                }
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
