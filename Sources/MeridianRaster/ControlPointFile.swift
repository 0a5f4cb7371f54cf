import CGDAL
import Foundation
import GDALSupport
import MeridianCore
import MeridianFormats

/// Control points saved by QGIS's Georeferencer beside an image (`scan.jpg.points`), so that
/// each image of a catalog carries its own: `meridian tile` reads the file of an image that has
/// no georeferencing of its own.
///
/// The format is comma-separated text: an optional `#CRS: <WKT>` line naming the map
/// coordinates' CRS (WGS 84 when absent; an `EPSG:n` code or a PROJ string is read too, and
/// nothing else: see `CoordinateReferenceSystemText`), a header naming the columns (`mapX,mapY,sourceX,
/// sourceY,enable,…`; older QGIS writes `pixelX,pixelY`), then one point a line. QGIS writes
/// the image row negated (its image y axis points up); either sign is read as the row.
/// Points whose `enable` is 0 are left out, as QGIS leaves them out.
public struct ControlPointFile: Sendable {
    /// The file's path.
    public let path: String
    /// The enabled points, in WGS 84.
    public let points: [ControlPoint]

    /// The sidecar QGIS writes for `imagePath`: the image's name with `.points` appended.
    public static func sidecarPath(of imagePath: String) -> String { imagePath + ".points" }

    /// The most a control-point file may hold, in bytes: far beyond what QGIS writes for the
    /// points a person places (about 60 bytes a point), and small enough to read at once.
    public static let maximumBytes = 1 << 20

    /// Reads the file. Errors: 66 when it cannot be read, 65 (with its line) when it is larger
    /// than `maximumBytes`, a line is not a point, the CRS line is not an EPSG code, WKT or a PROJ
    /// string GDAL knows, or fewer than three points (or more than any method takes) are enabled.
    public init(path: String) throws {
        let bytes: [UInt8]
        do {
            bytes = try BufferedInput.open(path).readAll(maximum: Self.maximumBytes)
        } catch let error as MeridianError where error.kind == .badInput {
            throw Self.tooLarge(path)
        }
        try self.init(bytes: bytes, path: path)
    }

    /// Reads the file's bytes (`path` names it in errors), as `init(path:)` does.
    public init(bytes: [UInt8], path: String) throws {
        self.path = path
        guard bytes.count <= Self.maximumBytes else { throw Self.tooLarge(path) }
        var crs: (text: String, line: Int)?, columns: [String: Int]?, read: [(ControlPoint, line: Int)] = []
        let mostPoints = ControlPointMethod.allCases.map(\.maximumPoints).max()!
        for (index, rawLine) in String(decoding: bytes, as: UTF8.self).split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            let here = SourceLocation(file: path, line: index + 1)
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                if line.hasPrefix("#CRS:") { crs = (String(line.dropFirst(5)).trimmingCharacters(in: .whitespaces), index + 1) }
                continue
            }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let columns else {
                columns = try Self.columns(fields, at: here)
                continue
            }
            func number(_ name: String) throws -> Double {
                guard let column = columns[name], column < fields.count, let value = Double(fields[column]), value.isFinite else {
                    throw MeridianError(.badInput, "a control point needs a number for \(name)", at: here)
                }
                return value
            }
            if let enable = columns["enable"], enable < fields.count, fields[enable] == "0" { continue }
            guard read.count < mostPoints else {
                throw MeridianError(.badInput, "the file enables more than \(mostPoints) control points, the most Meridian warps with", at: here)
            }
            let point = ControlPoint(pixel: try number("sourceX"), line: abs(try number("sourceY")),
                                     latitude: try number("mapY"), longitude: try number("mapX"))
            read.append((point, index + 1))
        }
        guard read.count >= 3 else {
            throw MeridianError(.badInput, "the file has \(read.count) enabled control point\(read.count == 1 ? "" : "s"); at least three are needed",
                                at: SourceLocation(file: path))
        }
        points = try Self.toWGS84(read, crs: crs, path: path)
    }

    static func tooLarge(_ path: String) -> MeridianError {
        MeridianError(.badInput, "the control-point file is larger than \(maximumBytes >> 20) MiB", at: SourceLocation(file: path),
                      hint: "QGIS writes about 60 bytes a point; a file holds at most \(ControlPointMethod.polynomial.maximumPoints) points")
    }

    /// Column indexes by the names Meridian uses (`pixelX`/`pixelY` become `sourceX`/`sourceY`).
    static func columns(_ header: [String], at location: SourceLocation) throws -> [String: Int] {
        var columns: [String: Int] = [:]
        for (index, name) in header.enumerated() {
            columns[["pixelX": "sourceX", "pixelY": "sourceY"][name] ?? name] = index
        }
        for needed in ["mapX", "mapY", "sourceX", "sourceY"] where columns[needed] == nil {
            throw MeridianError(.badInput, "the header names no \(needed) column (QGIS writes mapX,mapY,sourceX,sourceY,enable,…)", at: location)
        }
        return columns
    }

    /// The points with their map coordinates moved from `crs` (nil: WGS 84), the text of the
    /// `#CRS:` line and the line's number, to WGS 84.
    static func toWGS84(_ read: [(ControlPoint, line: Int)], crs: (text: String, line: Int)?, path: String) throws -> [ControlPoint] {
        guard let crs, !crs.text.isEmpty else { return try checked(read, path: path) }
        let wgs84 = SpatialReference.wgs84LongitudeLatitude()
        let here = SourceLocation(file: path, line: crs.line)
        guard CoordinateReferenceSystemText(crs.text) != nil else {
            throw MeridianError(.badInput, "the #CRS line is not an EPSG code, WKT or a PROJ string", at: here,
                                hint: "QGIS writes the CRS as WKT; EPSG:n and +proj=… strings are read too, nothing that names a file or URL")
        }
        guard let source = SpatialReference(crs.text) else {
            throw MeridianError(.badInput, "GDAL does not know the #CRS line's coordinate reference system", at: here)
        }
        OSRSetAxisMappingStrategy(source.handle, OAMS_TRADITIONAL_GIS_ORDER)   // mapX is easting or longitude
        guard let transform = OCTNewCoordinateTransformation(source.handle, wgs84.handle) else {
            throw MeridianError(.badInput, "cannot convert the #CRS line's coordinates to WGS 84", at: here)
        }
        defer { OCTDestroyCoordinateTransformation(transform) }
        let moved = try read.map { point, line -> (ControlPoint, line: Int) in
            var x = point.longitude, y = point.latitude
            guard OCTTransform(transform, 1, &x, &y, nil) != 0 else {
                throw MeridianError(.badInput, "the point cannot be converted to WGS 84", at: SourceLocation(file: path, line: line))
            }
            return (ControlPoint(pixel: point.pixel, line: point.line, latitude: y, longitude: x), line)
        }
        return try checked(moved, path: path)
    }

    /// The points, each checked to lie on Earth.
    static func checked(_ read: [(ControlPoint, line: Int)], path: String) throws -> [ControlPoint] {
        try read.map { point, line in
            guard abs(point.latitude) <= 90, abs(point.longitude) <= 180 else {
                throw MeridianError(.badInput, "the point lies at longitude \(point.longitude), latitude \(point.latitude), off the Earth",
                                    at: SourceLocation(file: path, line: line), hint: "add a #CRS: line if the coordinates are not WGS 84 degrees")
            }
            return point
        }
    }
}
