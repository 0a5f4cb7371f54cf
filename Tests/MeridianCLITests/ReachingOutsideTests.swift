import Foundation
import MeridianFormats
import Testing

/// What a file names reaches nothing outside the input: a crafted control-point sidecar is a
/// clean error naming it, a GroundOverlay whose image is at a URL and not in the KMZ is an error
/// naming the href rather than vector tiles of its outline.
@Suite struct ReachingOutsideTests {
    /// Each crafted sidecar of Tests/Fixtures/hostile-points beside a plain JPEG: `meridian tile`
    /// exits with the expected code, names the sidecar, writes no output and connects nowhere.
    @Test(arguments: try fixtureTable("hostile-points/expected.tsv"))
    func craftedControlPointFiles(_ row: [String]) throws {
        try withTemporaryFolder { folder in
            let listener = try LoopbackListener()
            defer { listener.stop() }
            let image = folder.appendingPathComponent("scan.jpg").path
            try FileManager.default.copyItem(atPath: fixture("raster/389225main_sw_1965_1024.jpg"), toPath: image)
            let text = try String(decoding: Data(contentsOf: URL(fileURLWithPath: fixture("hostile-points/" + row[0]))), as: UTF8.self)
            try Data(text.replacingOccurrences(of: "127.0.0.1:9/", with: "127.0.0.1:\(listener.port)/").utf8)
                .write(to: URL(fileURLWithPath: image + ".points"))
            let output = folder.appendingPathComponent("out").path
            let result = try meridian(["tile", image, output, "--zoom", "5"] + row.dropFirst(2).filter { !$0.isEmpty })
            #expect(result.status == Int32(row[1]), "\(row[0]): \(result.stderr)")
            #expect(result.stderr.hasPrefix("meridian: error: \(image).points"), "\(row[0]): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
            usleep(100_000)
            #expect(listener.connections == 0, "\(row[0])")
        }
    }

    /// Sidecars too large to read at once, or with more points than a method takes, are refused
    /// at once: 65, naming the sidecar.
    @Test(arguments: ["big", "many", "tps"])
    func oversizedControlPointFiles(_ kind: String) throws {
        try withTemporaryFolder { folder in
            let image = folder.appendingPathComponent("scan.jpg").path
            try FileManager.default.copyItem(atPath: fixture("raster/389225main_sw_1965_1024.jpg"), toPath: image)
            let count = kind == "tps" ? 1_001 : 10_001
            var text = "mapX,mapY,sourceX,sourceY,enable\n"
            for i in 0..<count { text += "\(-78 + Double(i % 100) * 0.01),\(25 - Double(i / 100) * 0.01),\(i % 100 * 10),-\(i / 100 * 7),1\n" }
            if kind == "big" { text += String(repeating: "# padding\n", count: 110_000) }
            try Data(text.utf8).write(to: URL(fileURLWithPath: image + ".points"))
            let started = Date()
            let result = try meridian(["tile", image, folder.appendingPathComponent("out").path, "--zoom", "5"]
                                      + (kind == "tps" ? ["--gcp-method", "tps"] : []))
            #expect(result.status == ExitStatus.badInput && result.stderr.hasPrefix("meridian: error: \(image).points"), "\(kind): \(result.stderr)")
            #expect(Date().timeIntervalSince(started) < 30)
        }
    }

    /// A KMZ GroundOverlay whose href is a URL, with no image of that name in the archive, is
    /// an error naming the href (it was tiled as vector data of its outline, exit 0).
    @Test func groundOverlayWhoseImageCannotBeHad() throws {
        try withTemporaryFolder { folder in
            let href = "http://www.example.com/overlays/photo.jpg"
            let kml = try String(contentsOfFile: fixture("raster/ground-overlay.kml"), encoding: .utf8)
                .replacingOccurrences(of: "<href>389225main_sw_1965_1024.jpg</href>", with: "<href>\(href)</href>")
            let kmz = folder.appendingPathComponent("overlay.kmz").path
            let archive = try ZipArchiveWriter(path: kmz)
            let bytes = Array(kml.utf8)
            try archive.addEntry("doc.kml", size: UInt64(bytes.count)) { write in try bytes.withUnsafeBytes { try write($0) } }
            try archive.close()
            let output = folder.appendingPathComponent("out").path
            let result = try meridian(["tile", kmz, output, "--zoom", "5"])
            #expect(result.status == ExitStatus.badInput, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("meridian: error: \(kmz)") && result.stderr.contains(href), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }

    /// A list of inputs names files: a GDAL virtual file system path in it (however escaped) is
    /// refused with the list's line (65), and nothing is requested.
    @Test func listOfInputsNamesOnlyFiles() throws {
        try withTemporaryFolder { folder in
            let listener = try LoopbackListener()
            defer { listener.stop() }
            let list = folder.appendingPathComponent("charts.txt").path
            for entry in ["/vsicurl/http://127.0.0.1:\(listener.port)/chart.tif", "%2Fvsicurl%2Fhttp://127.0.0.1:\(listener.port)/chart.tif",
                          "/VSIZIP/\(folder.path)/charts.zip/chart.tif"] {
                try Data("# charts\n\(fixture("raster/19347_2.KAP"))\n\(entry)\n".utf8).write(to: URL(fileURLWithPath: list))
                let result = try meridian(["tile", "--inputs", list, folder.appendingPathComponent("out").path, "--zoom", "5"])
                #expect(result.status == ExitStatus.badInput && result.stderr.hasPrefix("meridian: error: \(list):3:"), "\(entry): \(result.stderr)")
            }
            usleep(100_000)
            #expect(listener.connections == 0)
        }
    }
}
