import Foundation
import GDALSupport
import MeridianFormats
import MeridianGeometry

/// A KML or KMZ GroundOverlay to tile: the first overlay with an image and a place (a
/// LatLonBox, turned by its rotation, or a gx:LatLonQuad), read by the library's KML reader,
/// and its image: beside the KML, or inside the KMZ, which GDAL reads in place through /vsizip/.
struct GroundOverlay {
    /// Whether `path`, a KML or KMZ file, holds a GroundOverlay to tile.
    static func exists(in path: String) -> Bool { (try? GroundOverlay(path: path)) != nil }

    var imagePath: String
    /// Where the image's corners lie: upper-left, upper-right, lower-right, lower-left.
    var corners: [Position]

    init(path: String) throws {
        let input = try BufferedInput.open(path)
        let reader = try FormatRegistry.standard.inputFormat(for: input, path: path, explicit: nil)
            .reader(for: input, options: ReadOptions(coordinates: .geographic(for: "tiles")))
        _ = try reader.readMetadata()
        var found: KMLGroundOverlay?
        if let kml = reader as? any KMLDocumentReader {
            while found == nil, try kml.next() != nil { found = kml.groundOverlay }
        }
        guard let overlay = found else {
            throw MeridianError(.badInput, "there is no GroundOverlay with an image and a LatLonBox or gx:LatLonQuad",
                                at: SourceLocation(file: path))
        }
        var href = overlay.imageHref.removingPercentEncoding ?? overlay.imageHref
        guard !href.contains("://") else {
            throw MeridianError(.badInput, "the GroundOverlay's image is at a URL (\(href)); Meridian fetches nothing",
                                at: SourceLocation(file: path), hint: "download the image beside the KML and name it in <href>")
        }
        while href.hasPrefix("./") { href.removeFirst(2) }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        if let kmz = reader as? KMZReader, kmz.entries.contains(href) {
            imagePath = "/vsizip/\(absolute)/\(href)"
        } else {
            let folder = (absolute as NSString).deletingLastPathComponent
            imagePath = href.hasPrefix("/") ? href : folder + "/" + href
        }
        corners = overlay.corners
    }

    /// Control points at the image's corners.
    func controlPoints(imageAt path: String) throws -> [ControlPoint] {
        guard let image = GDALDataset(opening: path, for: .raster) else {
            throw MeridianError.gdal(.inputUnavailable, "cannot open the GroundOverlay's image", path: path)
        }
        let width = Double(image.width), height = Double(image.height)
        let pixels: [(Double, Double)] = [(0, 0), (width, 0), (width, height), (0, height)]
        return zip(pixels, corners).map { pixel, corner in
            ControlPoint(pixel: pixel.0, line: pixel.1, latitude: corner.latitude, longitude: corner.longitude)
        }
    }
}
