import MeridianCore
import Foundation
import MeridianFormats
import Testing

/// Inputs made to exhaust memory, run end to end under an address-space limit (util-linux's
/// prlimit), so a reader that held its input would be killed rather than pass.
@Suite struct HostileInputTests {
    /// A 1 GiB sparse file of zeros under every input format's extension: each is refused (65)
    /// with its file named, within 512 MiB of address space, and no output appears. The
    /// line-based formats (CSV, WKT, WKB) stop at the 64 MiB line limit; the others at byte 1.
    @Test(arguments: ["geojson", "geojsons", "kml", "kmz", "gpx", "wkt", "wkb", "csv"])
    func hugeSparseFileIsRefusedInBoundedMemory(_ fileExtension: String) throws {
        try withTemporaryFolder { folder in
            let input = folder.appendingPathComponent("zeros.\(fileExtension)").path
            #expect(FileManager.default.createFile(atPath: input, contents: nil))
            #expect(truncate(input, 1 << 30) == 0)
            let output = folder.appendingPathComponent("out.geojson").path
            let result = try run("prlimit", ["--as=\(512 << 20)", meridianBinary, "convert", input, "-o", output])
            #expect(result.status == ExitStatus.badInput, "\(fileExtension): \(result.stderr)")
            #expect(result.stderr.hasPrefix("meridian: error: \(input)"), "\(result.stderr)")
            #expect(contents(of: folder) == ["zeros.\(fileExtension)"])
        }
    }

    /// A zip bomb that is valid KML: 384 placemarks, each after 1 MiB of blanks (384 MiB in all;
    /// one text node of more than 256 MiB would be refused), deflated to well under 1 MiB. It
    /// converts within 256 MiB of address space, because the entry inflates as the KML reader
    /// reads it.
    @Test func kmzBombOfBlanksStreamsWithinAMemoryLimit() throws {
        try withTemporaryFolder { folder in
            let input = folder.appendingPathComponent("blanks.kmz").path
            let placemark = Array("<Placemark><Point><coordinates>1,2</coordinates></Point></Placemark>".utf8)
            let head = Array("<kml><Document>".utf8), tail = Array("</Document></kml>".utf8)
            let blanks = [UInt8](repeating: 0x20, count: 1 << 20)
            let archive = try ZipArchiveWriter(path: input)
            try archive.addEntry("doc.kml", size: UInt64(head.count + 384 * (blanks.count + placemark.count) + tail.count)) { write in
                try head.withUnsafeBytes { try write($0) }
                for _ in 0..<384 {
                    try blanks.withUnsafeBytes { try write($0) }
                    try placemark.withUnsafeBytes { try write($0) }
                }
                try tail.withUnsafeBytes { try write($0) }
            }
            try archive.close()
            let zipped = try FileManager.default.attributesOfItem(atPath: input)[.size] as! Int
            #expect(zipped < (1 << 20))
            let output = folder.appendingPathComponent("out.geojson").path
            let result = try run("prlimit", ["--as=\(256 << 20)", meridianBinary, "convert", input, "-o", output])
            #expect(result.status == 0, "\(result.stderr)")
            let text = try String(contentsOfFile: output, encoding: .utf8)
            #expect(text.components(separatedBy: "\"coordinates\":[1.0,2.0]").count - 1 == 384)
        }
    }
}
