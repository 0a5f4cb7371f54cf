import Foundation
import GDALSupport
import MeridianCore
import MeridianFormats
import MeridianGeometry

/// A KML or KMZ GroundOverlay to tile: the first overlay with an image and a place (a
/// LatLonBox, turned by its rotation, or a gx:LatLonQuad), read by the library's KML reader,
/// and its image: inside the KMZ, which GDAL reads in place through /vsizip/, or in the KML's
/// (or KMZ's) folder.
///
/// The href comes from inside a file, so it reaches nothing else: not a URL (an image inside
/// the KMZ under the URL's file name is taken instead, as Google's own samples need), not a
/// GDAL virtual file system path, not an absolute path, not `..` out of the folder, and no
/// symbolic link is followed.
struct GroundOverlay {
    /// Whether `path`, a KML or KMZ file, holds a GroundOverlay to tile (whether or not its
    /// image can be had: one that cannot is an error when it is tiled, not vector data).
    static func exists(in path: String) -> Bool { ((try? first(in: path)) ?? nil) != nil }

    var imagePath: String
    /// Where the image's corners lie: upper-left, upper-right, lower-right, lower-left.
    var corners: [Position]
    /// The href as the file gives it, to name in errors.
    var href: String

    /// The file's first GroundOverlay with an image and a place, and the archive's entries for
    /// a KMZ (nil for a KML); nil when there is none.
    static func first(in path: String) throws -> (overlay: KMLGroundOverlay, archiveEntries: [String]?)? {
        let input = try BufferedInput.open(path)
        let reader = try FormatRegistry.standard.inputFormat(for: input, path: path, explicit: nil)
            .reader(for: input, options: ReadOptions(coordinates: .geographic(for: "tiles")))
        _ = try reader.readMetadata()
        guard let kml = reader as? any KMLDocumentReader else { return nil }
        while try kml.next() != nil {
            if let overlay = kml.groundOverlay { return (overlay, (reader as? KMZReader)?.entries) }
        }
        return nil
    }

    init(path: String) throws {
        guard let (overlay, entries) = try Self.first(in: path) else {
            throw MeridianError(.badInput, "there is no GroundOverlay with an image and a LatLonBox or gx:LatLonQuad",
                                at: SourceLocation(file: path))
        }
        href = overlay.imageHref
        corners = overlay.corners
        imagePath = try Self.image(href: overlay.imageHref, of: path, archiveEntries: entries)
    }

    /// Where GDAL reads the image `href` names, for the KML or KMZ at `path`.
    static func image(href: String, of path: String, archiveEntries entries: [String]?) throws -> String {
        let here = SourceLocation(file: path)
        func refused(_ why: String, hint: String? = nil) -> MeridianError {
            MeridianError(.badInput, "the GroundOverlay's image \"\(href)\" \(why)", at: here, hint: hint)
        }
        guard !GDAL.namesVirtualFileSystem(href) else {
            throw refused("names a GDAL virtual file system; Meridian reads images only from the KML's folder or the KMZ")
        }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var relative = href.removingPercentEncoding ?? href
        if let name = URLReference.fileName(relative) {
            // Google's samples name the image by URL and bundle it in the KMZ under that name.
            if let entries, let entry = entries.first(where: { ($0 as NSString).lastPathComponent == name }) {
                return "/vsizip/\(absolute)/\(entry)"
            }
            throw refused("is a URL\(entries == nil ? "" : " and the KMZ holds no file named \"\(name)\""); Meridian fetches nothing",
                          hint: "download the image beside the KML and name it in <href>")
        }
        while relative.hasPrefix("./") { relative.removeFirst(2) }
        let components = relative.split(separator: "/", omittingEmptySubsequences: true)
        guard !relative.hasPrefix("/"), !relative.contains("\\"), !components.contains("..") else {
            throw refused("lies outside the \(entries == nil ? "KML's folder" : "KMZ and its folder")",
                          hint: "keep the image beside the KML (or in the KMZ) and name it by a relative path")
        }
        guard !components.isEmpty else { throw refused("names no file") }
        if let entries, entries.contains(relative) { return "/vsizip/\(absolute)/\(relative)" }
        // The KML's folder as its path was given (`chart.kml`: ""), so that errors name the
        // image as the user would (not as an absolute path); GDAL opens it from here alike.
        var image = (path as NSString).deletingLastPathComponent
        for component in components {
            image = image.isEmpty ? String(component) : (image as NSString).appendingPathComponent(String(component))
            var info = stat()
            guard lstat(image, &info) == 0 else {
                throw refused("is not \(entries == nil ? "in the KML's folder" : "in the KMZ or its folder")")
            }
            guard (info.st_mode & S_IFMT) != S_IFLNK else {
                throw refused("is reached through a symbolic link (\(image)), which Meridian does not follow")
            }
            if component == components.last, (info.st_mode & S_IFMT) != S_IFREG {
                throw refused("is not a file")  // a FIFO would hold GDAL's open for ever
            }
        }
        return image
    }

    /// Control points at the image's corners (`name`: how errors name the image).
    func controlPoints(imageAt path: String, named name: String) throws -> [ControlPoint] {
        try DatasetFiles.checkRegularFiles(opening: path, name: name)
        try VRTSources.check(path, name: name)
        guard let image = GDALDataset(opening: path, for: .raster) else {
            throw MeridianError.gdal(.badInput, "cannot read the GroundOverlay's image \"\(href)\" as a raster", path: path)
        }
        let width = Double(image.width), height = Double(image.height)
        let pixels: [(Double, Double)] = [(0, 0), (width, 0), (width, height), (0, height)]
        return zip(pixels, corners).map { pixel, corner in
            ControlPoint(pixel: pixel.0, line: pixel.1, latitude: corner.latitude, longitude: corner.longitude)
        }
    }
}

/// A reference from inside a file that is a URL (`http://…`, `https:…`, `file:…`, `ftp://…`).
enum URLReference {
    /// The last path component of `text` when it is a URL with a scheme (query and fragment
    /// left out; "" when the URL ends in a slash); nil when it is not a URL.
    static func fileName(_ text: String) -> String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        // A scheme: a letter, then letters, digits, + - . (RFC 3986); two letters at least, so
        // that a drive letter (C:) is not one.
        guard scheme.count >= 2, scheme.first!.isASCII, scheme.first!.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
        let rest = text[text.index(after: colon)...].prefix { $0 != "?" && $0 != "#" }
        return String(rest.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
    }
}
