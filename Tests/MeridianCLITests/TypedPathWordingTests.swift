import Foundation
import MeridianTestSupport
import Testing

/// Errors name a file as the user typed its path (relative stays relative), also where the file
/// named is not the one typed but one beside it: a Shapefile's companion, a GroundOverlay's image.
@Suite struct TypedPathWordingTests {
    /// `meridian convert roads.dbf -o roads.shp`: the `.dbf` the driver writes beside the output
    /// is the input; the error names it `roads.dbf` (or `./roads.dbf`), not by its absolute path.
    @Test(arguments: ["roads.shp", "./roads.shp", "sub/../roads.shp"])
    func shapefileCompanionThatIsTheInput(_ output: String) throws {
        try withTemporaryFolder { folder in
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("sub"), withIntermediateDirectories: false)
            let made = try meridian(["convert", fixture("geojson/drop-rate-points.geojson"), "-o", "made.shp", "-q"], in: folder)
            try #require(made.status == 0, "\(made.stderr)")
            try FileManager.default.moveItem(at: folder.appendingPathComponent("made.dbf"), to: folder.appendingPathComponent("roads.dbf"))
            let before = try Data(contentsOf: folder.appendingPathComponent("roads.dbf"))

            let refused = try meridian(["convert", "roads.dbf", "-o", output], in: folder)
            #expect(refused.status == ExitStatus.usage, "\(refused.stderr)")
            let companion = String(output.dropLast(4)) + ".dbf"
            #expect(refused.stderr.hasPrefix("meridian: error: \(companion):"), "\(refused.stderr)")
            #expect(!refused.stderr.contains(folder.path), "\(refused.stderr)")
            #expect(try Data(contentsOf: folder.appendingPathComponent("roads.dbf")) == before)
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("roads.shp").path))
        }
    }

    /// A GroundOverlay's image that is no raster, or is reached through a symbolic link: the
    /// error names the image's path from the KML's path as typed.
    @Test func groundOverlayImageNamedAsTyped() throws {
        try withTemporaryFolder { folder in
            let kml = try String(contentsOfFile: fixture("raster/ground-overlay.kml"), encoding: .utf8)
            let images = folder.appendingPathComponent("images")
            try FileManager.default.createDirectory(at: images, withIntermediateDirectories: false)
            try Data("not an image".utf8).write(to: images.appendingPathComponent("scan.jpg"))
            try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("linked").path, withDestinationPath: "images")
            try Data(kml.replacingOccurrences(of: "389225main_sw_1965_1024.jpg", with: "scan.jpg").utf8)
                .write(to: images.appendingPathComponent("overlay.kml"))
            try Data(kml.replacingOccurrences(of: "389225main_sw_1965_1024.jpg", with: "linked/scan.jpg").utf8)
                .write(to: folder.appendingPathComponent("overlay.kml"))
            let notRaster = try meridian(["tile", "images/overlay.kml", "out", "--zoom", "5"], in: folder)
            #expect(notRaster.status == ExitStatus.badInput, "\(notRaster.stderr)")
            #expect(notRaster.stderr.hasPrefix("meridian: error: images/scan.jpg:"), "\(notRaster.stderr)")
            #expect(!notRaster.stderr.contains(folder.path), "\(notRaster.stderr)")
            let linked = try meridian(["tile", "overlay.kml", "out", "--zoom", "5"], in: folder)
            #expect(linked.status == ExitStatus.badInput, "\(linked.stderr)")
            #expect(linked.stderr.hasPrefix("meridian: error: overlay.kml:") && linked.stderr.contains("(linked)"), "\(linked.stderr)")
            #expect(!linked.stderr.contains(folder.path), "\(linked.stderr)")
        }
    }
}
