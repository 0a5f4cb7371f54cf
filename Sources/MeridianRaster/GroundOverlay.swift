import CGDAL
import Foundation
import MeridianFormats
import MeridianGeometry

/// A KML or KMZ GroundOverlay to tile: the first overlay with an image and a place (a
/// LatLonBox, turned by its rotation, or a gx:LatLonQuad), read by the library's KML reader,
/// and its image: beside the KML, or inside the KMZ, which GDAL reads in place through /vsizip/.
struct GroundOverlay {
    var imagePath: String
    /// Where the image's corners lie: upper-left, upper-right, lower-right, lower-left.
    var corners: [Position]

    init(path: String) throws {
        let input = try BufferedInput.open(path)
        let reader = try FormatRegistry.standard.inputFormat(for: input, path: path, explicit: nil).reader(for: input)
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
        _ = GDAL.setUp
        guard let dataset = GDALOpenEx(path, UInt32(GDAL_OF_RASTER | GDAL_OF_READONLY), nil, nil, nil) else {
            throw MeridianError.raster(.inputUnavailable, "cannot open the GroundOverlay's image", path: path)
        }
        let width = Double(GDALGetRasterXSize(dataset)), height = Double(GDALGetRasterYSize(dataset))
        GDALClose(dataset)
        let pixels: [(Double, Double)] = [(0, 0), (width, 0), (width, height), (0, height)]
        return zip(pixels, corners).map { pixel, corner in
            ControlPoint(pixel: pixel.0, line: pixel.1, latitude: corner.latitude, longitude: corner.longitude)
        }
    }
}
