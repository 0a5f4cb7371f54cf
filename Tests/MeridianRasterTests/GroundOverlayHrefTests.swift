import Foundation
import MeridianCore
import MeridianFormats
import MeridianTestSupport
import Testing
@testable import MeridianRaster

/// A GroundOverlay's href comes from inside a file: it names an image in the KML's folder or the
/// KMZ, and nothing else (no absolute path, no `..`, no symbolic link, no URL, no GDAL virtual
/// file system), and an overlay whose image cannot be had is an error naming the href (65), not
/// vector data.
@Suite struct GroundOverlayHrefTests {
    /// ground-overlay.kml in `folder` with its href replaced by `href`.
    func overlay(href: String, in folder: String, named name: String = "overlay.kml") throws -> String {
        let text = try String(contentsOfFile: raster("ground-overlay.kml"), encoding: .utf8)
            .replacingOccurrences(of: "<href>389225main_sw_1965_1024.jpg</href>", with: "<href>\(href)</href>")
        let path = folder + "/" + name
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func hrefsOutsideTheFolderAreRefused() throws {
        try withTemporaryFolderPath { folder in
            let listener = try LoopbackListener()
            defer { listener.stop() }
            let image = folder + "/image.jpg"
            try FileManager.default.copyItem(atPath: raster("389225main_sw_1965_1024.jpg"), toPath: image)
            try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: folder + "/sub/link.jpg", withDestinationPath: image)
            try FileManager.default.createSymbolicLink(atPath: folder + "/sub/linked", withDestinationPath: folder)
            #expect(mkfifo(folder + "/sub/fifo.jpg", 0o600) == 0)
            let url = "http://127.0.0.1:\(listener.port)/image.jpg"
            let once = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            for href in [image, "../image.jpg", "./../image.jpg", "link.jpg", "linked/image.jpg", "file://\(image)", url,
                         "/vsicurl?url=\(once.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)", "/vsicurl/\(url)",
                         "%2Fvsicurl%2F\(url)", "/VSIZIP/\(folder)/x.zip/image.jpg", "missing.jpg", "fifo.jpg", ".", "./"] {
                let kml = try overlay(href: href.replacingOccurrences(of: "&", with: "&amp;"), in: folder + "/sub")
                #expect(RasterSource.holdsGroundOverlay(kml), "\(href)")
                let error = try #require(throws: MeridianError.self, "\(href)") { try RasterSource(path: kml) }
                #expect(error.kind == .badInput && error.location == SourceLocation(file: kml), "\(href): \(error)")
                #expect(error.message.contains(href), "\(href): \(error.message)")
            }
            usleep(200_000)
            #expect(listener.connections == 0)
            // The same image named from inside the folder is tiled.
            try FileManager.default.copyItem(atPath: image, toPath: folder + "/sub/image.jpg")
            #expect(throws: Never.self) { try RasterSource(path: try overlay(href: "./image.jpg", in: folder + "/sub")) }
        }
    }

    /// A KMZ's overlay whose href is a URL, with no image of that name inside: an error naming
    /// the href, while the archive's image under the URL's file name is taken (TilingTests).
    @Test func urlWithoutTheImageInTheArchiveIsAnError() throws {
        try withTemporaryFolderPath { folder in
            let kmz = folder + "/overlay.kmz"
            let href = "http://www.example.com/images/389225main_sw_1965_1024.jpg"
            let document = try String(contentsOfFile: try overlay(href: href, in: folder), encoding: .utf8)
            let archive = try ZipArchiveWriter(path: kmz)
            for (name, bytes) in [("doc.kml", Array(document.utf8)), ("files/other.jpg", [UInt8](repeating: 0, count: 16))] {
                try archive.addEntry(name, size: UInt64(bytes.count)) { write in try bytes.withUnsafeBytes { try write($0) } }
            }
            try archive.close()
            #expect(RasterSource.holdsGroundOverlay(kmz))
            let error = try #require(throws: MeridianError.self) { try RasterSource(path: kmz) }
            #expect(error.kind == .badInput && error.location == SourceLocation(file: kmz) && error.message.contains(href), "\(error)")
        }
    }
}
