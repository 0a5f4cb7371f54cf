import CGDAL
import Foundation
import MeridianFormats

/// A KML GroundOverlay: an image and the LatLonBox it covers (turned by its rotation), read
/// as control points at the image's corners.
struct GroundOverlay {
    var imagePath: String
    var north, south, east, west, rotation: Double

    init(kmlPath: String) throws {
        guard let data = FileManager.default.contents(atPath: kmlPath) else {
            throw MeridianError(.inputUnavailable, "cannot open input", at: SourceLocation(file: kmlPath))
        }
        let text = String(decoding: data, as: UTF8.self)
        func value(_ tag: String) -> String? {
            guard let open = text.range(of: "<\(tag)>"), let close = text.range(of: "</\(tag)>", range: open.upperBound..<text.endIndex) else { return nil }
            return text[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard text.contains("<GroundOverlay"), let href = value("href"),
              let north = value("north").flatMap(Double.init), let south = value("south").flatMap(Double.init),
              let east = value("east").flatMap(Double.init), let west = value("west").flatMap(Double.init) else {
            throw MeridianError(.badInput, "the KML file has no GroundOverlay with an image and a LatLonBox", at: SourceLocation(file: kmlPath))
        }
        let folder = (kmlPath as NSString).deletingLastPathComponent
        imagePath = href.hasPrefix("/") ? href : (folder.isEmpty ? href : folder + "/" + href)
        self.north = north
        self.south = south
        self.east = east
        self.west = west
        rotation = value("rotation").flatMap(Double.init) ?? 0
    }

    /// The image's four corners on Earth, turned counter-clockwise by `rotation` about the box's centre.
    func controlPoints(imageAt path: String) throws -> [ControlPoint] {
        _ = GDAL.setUp
        guard let dataset = GDALOpenEx(path, UInt32(GDAL_OF_RASTER | GDAL_OF_READONLY), nil, nil, nil) else {
            throw MeridianError.raster(.inputUnavailable, "cannot open the GroundOverlay's image", path: path)
        }
        let width = Double(GDALGetRasterXSize(dataset)), height = Double(GDALGetRasterYSize(dataset))
        GDALClose(dataset)
        let cx = (east + west) / 2, cy = (north + south) / 2
        let angle = rotation * .pi / 180
        func turned(_ lon: Double, _ lat: Double) -> (Double, Double) {
            let dx = lon - cx, dy = lat - cy
            return (cx + dx * cos(angle) - dy * sin(angle), cy + dx * sin(angle) + dy * cos(angle))
        }
        let corners: [(Double, Double, Double, Double)] = [(0, 0, west, north), (width, 0, east, north), (0, height, west, south), (width, height, east, south)]
        return corners.map { pixel, line, lon, lat in
            let (x, y) = turned(lon, lat)
            return ControlPoint(pixel: pixel, line: line, latitude: y, longitude: x)
        }
    }
}
