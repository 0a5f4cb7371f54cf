import Foundation
import MeridianFormats
import MeridianTestSupport
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

    /// A raster's own control points (here a VRT's GCPList) meet the method's limit too: 1,001
    /// with `--gcp-method tps` are refused at once (65, naming the file), as a sidecar's are,
    /// where they were solved (3,000 took 35 s, and the time grows as the cube); the
    /// polynomial method takes them.
    @Test func controlPointsInsideTheFile() throws {
        try withTemporaryFolder { folder in
            try FileManager.default.copyItem(atPath: fixture("raster/389225main_sw_1965_1024.jpg"),
                                             toPath: folder.appendingPathComponent("389225main_sw_1965_1024.jpg").path)
            var points = ""
            for i in 0..<1_001 {
                let (pixel, line) = (Double(i % 32) * 32, Double(i / 32) * 24)
                points += "<GCP Id=\"\(i)\" Pixel=\"\(pixel)\" Line=\"\(line)\" X=\"\(-80 + pixel / 1024)\" Y=\"\(25 - line / 768)\"/>\n"
            }
            let text = try String(contentsOfFile: fixture("raster/white-gemini-iv.vrt"), encoding: .utf8)
            let start = text.range(of: "<GCPList")!.lowerBound, end = text.range(of: "</GCPList>")!.upperBound
            let vrt = folder.appendingPathComponent("many.vrt").path
            try Data(text.replacingCharacters(in: start..<end, with: "<GCPList Projection=\"EPSG:4326\">\n\(points)</GCPList>").utf8)
                .write(to: URL(fileURLWithPath: vrt))
            let started = Date()
            let refused = try meridian(["tile", vrt, folder.appendingPathComponent("tps").path, "--zoom", "5", "--gcp-method", "tps"])
            #expect(refused.status == ExitStatus.badInput && refused.stderr.hasPrefix("meridian: error: \(vrt): "), "\(refused.stderr)")
            #expect(Date().timeIntervalSince(started) < 10)
            let taken = try meridian(["tile", vrt, folder.appendingPathComponent("polynomial").path, "--zoom", "5"])
            #expect(taken.status == 0, "\(taken.stderr)")
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

    /// Each crafted VRT of Tests/Fixtures/hostile-vrt, beside a real raster at every place it
    /// names by a relative path (`raster/`, `../raster/`, the current folder): refused before
    /// GDAL opens it, with the exit code, the file and the line:column expected.tsv gives, no
    /// output, no connection (a database or URL at a listener's port), no Python run (with
    /// GDAL_VRT_ENABLE_PYTHON=YES in the environment). Before, a `MEM:::` source crashed
    /// meridian-gdal (SIGSEGV), a `PG:` source connected to the server, and `/etc/passwd` or a
    /// file through `..` became pixels of tiles.
    @Test(arguments: try fixtureTable("hostile-vrt/expected.tsv"))
    func craftedVRTs(_ row: [String]) throws {
        try withTemporaryFolder { folder in
            let listener = try LoopbackListener()
            defer { listener.stop() }
            let vrts = folder.appendingPathComponent("vrts"), raster = folder.appendingPathComponent("raster")
            for place in [raster, vrts.appendingPathComponent("raster")] {
                try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: fixture("raster/rgbsmall.tif"), toPath: place.appendingPathComponent("rgbsmall.tif").path)
            }
            for name in try FileManager.default.contentsOfDirectory(atPath: fixture("hostile-vrt")) where name.hasSuffix(".vrt") {
                let text = try String(contentsOfFile: fixture("hostile-vrt/" + name), encoding: .utf8)
                    .replacingOccurrences(of: "127.0.0.1 port=9 ", with: "127.0.0.1 port=\(listener.port) ")
                    .replacingOccurrences(of: "127.0.0.1:9/", with: "127.0.0.1:\(listener.port)/")
                try Data(text.utf8).write(to: vrts.appendingPathComponent(name))
            }
            let input = vrts.appendingPathComponent(row[0]).path
            let output = folder.appendingPathComponent(row[1] == "convert" ? "out.geojson" : "out").path
            let arguments = row[1] == "convert" ? ["convert", input, "-o", output] : ["tile", input, output, "--zoom", "3"]
            // From `raster/`, where current-folder.vrt's "rgbsmall.tif" is.
            let result = try run("/usr/bin/env", ["GDAL_VRT_ENABLE_PYTHON=YES", meridianBinary] + arguments, in: raster)
            #expect(result.status == Int32(row[2]), "\(row[0]): \(result.stderr)")
            #expect(result.stderr.hasPrefix("meridian: error: \(vrts.path)/\(row[3]): "), "\(row[0]): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output), "\(row[0])")
            #expect(try FileManager.default.contentsOfDirectory(atPath: raster.path) == ["rgbsmall.tif"], "\(row[0])")
            usleep(100_000)
            #expect(listener.connections == 0, "\(row[0])")
        }
    }

    /// A VRT is tiled when it names files beside it by relative paths; one whose source is
    /// reached through a symbolic link is refused naming it, and a KMZ GroundOverlay whose
    /// image is a VRT naming a file outside the archive is refused naming the KMZ's entry.
    @Test func vrtSourcesStayInTheirFolder() throws {
        try withTemporaryFolder { folder in
            let vrt = folder.appendingPathComponent("chart.vrt").path
            let text = try String(contentsOfFile: fixture("hostile-vrt/absolute.vrt"), encoding: .utf8)
            try Data(text.replacingOccurrences(of: "relativeToVRT=\"0\">/etc/passwd", with: "relativeToVRT=\"1\">scans/rgbsmall.tif").utf8)
                .write(to: URL(fileURLWithPath: vrt))
            let scans = folder.appendingPathComponent("scans")
            try FileManager.default.createDirectory(at: scans, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: fixture("raster/rgbsmall.tif"), toPath: scans.appendingPathComponent("rgbsmall.tif").path)
            let tiled = try meridian(["tile", vrt, folder.appendingPathComponent("tiles").path, "--zoom", "3"])
            #expect(tiled.status == 0, "\(tiled.stderr)")

            try FileManager.default.moveItem(at: scans, to: folder.appendingPathComponent("elsewhere"))
            try FileManager.default.createSymbolicLink(atPath: scans.path, withDestinationPath: folder.appendingPathComponent("elsewhere").path)
            let linked = try meridian(["tile", vrt, folder.appendingPathComponent("linked").path, "--zoom", "3"])
            #expect(linked.status == ExitStatus.badInput && linked.stderr.hasPrefix("meridian: error: \(vrt):6:41: "), "\(linked.stderr)")
            #expect(linked.stderr.contains("symbolic link"), "\(linked.stderr)")

            let kml = try String(contentsOfFile: fixture("raster/ground-overlay.kml"), encoding: .utf8)
                .replacingOccurrences(of: "<href>389225main_sw_1965_1024.jpg</href>", with: "<href>image.vrt</href>")
            let kmz = folder.appendingPathComponent("overlay.kmz").path
            let archive = try ZipArchiveWriter(path: kmz)
            for (entry, bytes) in [("doc.kml", Array(kml.utf8)), ("image.vrt", Array(try Data(contentsOf: URL(fileURLWithPath: fixture("hostile-vrt/parent-folder.vrt")))))] {
                try archive.addEntry(entry, size: UInt64(bytes.count)) { write in try bytes.withUnsafeBytes { try write($0) } }
            }
            try archive.close()
            let overlay = try meridian(["tile", kmz, folder.appendingPathComponent("overlay").path, "--zoom", "5"])
            #expect(overlay.status == ExitStatus.badInput && overlay.stderr.hasPrefix("meridian: error: \(kmz):image.vrt:6:41: "), "\(overlay.stderr)")
        }
    }

    /// A folder of charts is read without following a symbolic link in it (to a chart outside,
    /// to a folder) and without opening what is not a regular file: each is reported as
    /// skipped and the others are tiled. A FIFO held the run for ever, and a link's chart
    /// outside the folder was tiled.
    @Test func catalogFolderFollowsNoLinkAndOpensNoFIFO() throws {
        try withTemporaryFolder { folder in
            let charts = folder.appendingPathComponent("charts"), outside = folder.appendingPathComponent("outside")
            for place in [charts, outside] { try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true) }
            try FileManager.default.copyItem(atPath: fixture("raster/19351_2.KAP"), toPath: charts.appendingPathComponent("19351_2.KAP").path)
            try FileManager.default.copyItem(atPath: fixture("raster/19347_2.KAP"), toPath: outside.appendingPathComponent("19347_2.KAP").path)
            try FileManager.default.createSymbolicLink(atPath: charts.appendingPathComponent("linked.KAP").path,
                                                       withDestinationPath: outside.appendingPathComponent("19347_2.KAP").path)
            try FileManager.default.createSymbolicLink(atPath: charts.appendingPathComponent("more").path, withDestinationPath: outside.path)
            #expect(mkfifo(charts.appendingPathComponent("pipe.tif").path, 0o644) == 0)
            let result = try run("timeout", ["30", meridianBinary, "tile", charts.path, folder.appendingPathComponent("out").path, "--plan"])
            #expect(result.status == 0, "\(result.stderr)")
            for name in ["linked.KAP", "more", "pipe.tif"] {
                #expect(result.stderr.contains("meridian: warning: \(charts.path)/\(name): skipped: "), "\(name): \(result.stderr)")
            }
            #expect(result.stdout.hasPrefix("1 chart,") && !result.stdout.contains("19347_2"), "\(result.stdout)")
        }
    }

    /// A PDS label whose data file is outside its folder (`^IMAGE = ("../secret.bin", 1)`),
    /// georeferenced by control points, is refused naming the label (65), where its tiles were
    /// made of the other file's bytes; the same label with its data beside it is tiled.
    @Test func labelsDataFileStaysInItsFolder() throws {
        try withTemporaryFolder { folder in
            let inner = folder.appendingPathComponent("inner")
            try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
            var random = SplitMix64(seed: 7)
            let bytes = Data((0..<4096).map { _ in UInt8(random.below(256)) })
            try bytes.write(to: folder.appendingPathComponent("secret.bin"))
            try bytes.write(to: inner.appendingPathComponent("beside.bin"))
            func label(_ data: String) -> String {
                "PDS_VERSION_ID = PDS3\nRECORD_TYPE = FIXED_LENGTH\nRECORD_BYTES = 64\nFILE_RECORDS = 64\n^IMAGE = (\"\(data)\", 1)\n"
                    + "OBJECT = IMAGE\n  LINES = 64\n  LINE_SAMPLES = 64\n  SAMPLE_TYPE = UNSIGNED_INTEGER\n  SAMPLE_BITS = 8\n  BANDS = 1\nEND_OBJECT = IMAGE\nEND\n"
            }
            let outside = inner.appendingPathComponent("outside.lbl").path, beside = inner.appendingPathComponent("beside.lbl").path
            try Data(label("../secret.bin").utf8).write(to: URL(fileURLWithPath: outside))
            try Data(label("beside.bin").utf8).write(to: URL(fileURLWithPath: beside))
            let points = ["--gcp", "0,0,10,10", "--gcp", "64,0,10,11", "--gcp", "0,64,9,10", "--zoom", "5"]
            let refused = try meridian(["tile", outside, folder.appendingPathComponent("refused").path] + points)
            #expect(refused.status == ExitStatus.badInput && refused.stderr.hasPrefix("meridian: error: \(outside): "), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("refused").path))
            let tiled = try meridian(["tile", beside, folder.appendingPathComponent("tiled").path] + points)
            #expect(tiled.status == 0, "\(tiled.stderr)")
        }
    }

    /// Vector data read through GDAL reads nothing outside its folder either, as rasters do
    /// (one check): a GML file's schema beside it that includes a schema elsewhere (an absolute
    /// path, `..`, a link), here a named pipe that would hold GDAL for ever if it were opened,
    /// is refused before GDAL opens anything (65, naming the schema); a schema it imports from
    /// a URL is never fetched; a shapefile whose `.dbf` is a link to a file elsewhere is refused
    /// from GDAL's own list of the dataset's files. The same GML with its schemas beside it
    /// converts, and GDAL writes no `.gfs` beside it (it replaced an older one there).
    @Test func vectorDataReadsNothingOutsideItsFolder() throws {
        try withTemporaryFolder { folder in
            let listener = try LoopbackListener()
            defer { listener.stop() }
            let inner = folder.appendingPathComponent("inner"), elsewhere = folder.appendingPathComponent("elsewhere")
            for made in [inner, elsewhere] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
            let pipe = elsewhere.appendingPathComponent("types.xsd").path
            #expect(mkfifo(pipe, 0o600) == 0)
            let gml = inner.appendingPathComponent("places.gml").path, schema = inner.appendingPathComponent("places.xsd").path
            try Data("""
                <?xml version="1.0" encoding="UTF-8"?>
                <m:FeatureCollection xmlns:m="http://example.com/m" xmlns:gml="http://www.opengis.net/gml">
                <gml:featureMember><m:place gml:id="p1"><m:name>Lanai</m:name><m:geometryProperty><gml:Point srsName="EPSG:4326"><gml:pos>20.8 -156.9</gml:pos></gml:Point></m:geometryProperty></m:place></gml:featureMember>
                </m:FeatureCollection>
                """.utf8).write(to: URL(fileURLWithPath: gml))
            func writeSchema(including location: String) throws {
                try Data("""
                    <?xml version="1.0" encoding="UTF-8"?>
                    <xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:m="http://example.com/m" targetNamespace="http://example.com/m">
                    <xs:include schemaLocation="\(location)"/>
                    </xs:schema>
                    """.utf8).write(to: URL(fileURLWithPath: schema))
            }
            try FileManager.default.createSymbolicLink(atPath: inner.appendingPathComponent("linked.xsd").path, withDestinationPath: pipe)
            for location in [pipe, "../elsewhere/types.xsd", "linked.xsd"] {
                try writeSchema(including: location)
                let refused = try meridian(["convert", gml, "-o", folder.appendingPathComponent("out.geojson").path])
                #expect(refused.status == ExitStatus.badInput && refused.stderr.hasPrefix("meridian: error: \(schema):3:"), "\(location): \(refused.stderr)")
                #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.geojson").path))
                // Nobody has the pipe open for reading: GDAL never opened it.
                let writer = open(pipe, O_WRONLY | O_NONBLOCK)
                #expect(writer < 0 && errno == ENXIO, "\(location): the pipe was opened")
                if writer >= 0 { close(writer) }
            }
            try writeSchema(including: "http://127.0.0.1:\(listener.port)/types.xsd")
            let fetched = try meridian(["convert", gml])
            #expect(fetched.status == 0 && fetched.stdout.contains("Lanai"), "\(fetched.stderr)")
            usleep(100_000)
            #expect(listener.connections == 0)
            // GDAL's GML driver writes no `.gfs` schema into the input's folder.
            #expect(!FileManager.default.fileExists(atPath: inner.appendingPathComponent("places.gfs").path))

            // A shapefile whose table is a link to one elsewhere.
            let made = try meridian(["convert", gml, "-o", elsewhere.appendingPathComponent("roads.shp").path, "-q"])
            try #require(made.status == 0, "\(made.stderr)")
            for ext in ["shp", "shx", "prj"] {
                try FileManager.default.copyItem(atPath: elsewhere.appendingPathComponent("roads.\(ext)").path, toPath: inner.appendingPathComponent("roads.\(ext)").path)
            }
            try FileManager.default.createSymbolicLink(atPath: inner.appendingPathComponent("roads.dbf").path,
                                                       withDestinationPath: elsewhere.appendingPathComponent("roads.dbf").path)
            let shapefile = inner.appendingPathComponent("roads.shp").path
            let linked = try meridian(["convert", shapefile])
            #expect(linked.status == ExitStatus.badInput && linked.stderr.hasPrefix("meridian: error: \(shapefile): "), "\(linked.stderr)")
            try FileManager.default.removeItem(atPath: inner.appendingPathComponent("roads.dbf").path)
            try FileManager.default.copyItem(atPath: elsewhere.appendingPathComponent("roads.dbf").path, toPath: inner.appendingPathComponent("roads.dbf").path)
            let beside = try meridian(["convert", shapefile])
            #expect(beside.status == 0 && beside.stdout.contains("Lanai"), "\(beside.stderr)")
        }
    }

    /// Nothing GDAL could open for a dataset is a named pipe, a device or a socket, which would
    /// hold its open for ever: a named pipe (or a link to one, or to a device) beside a shapefile
    /// as its `.dbf`, `.shx`, `.prj` or `.cpg` (any case), beside a raster as its `.aux.xml` or
    /// world file, is refused before GDAL opens anything
    /// (65, naming the input and the entry); each run under `timeout`, so a hang fails the test
    /// (124) instead of holding the suite. With regular files there, each converts or tiles.
    @Test func namedPipesBesideADatasetAreRefused() throws {
        try withTemporaryFolder { folder in
            func meridianWithin(_ arguments: [String]) throws -> RunResult { try run("timeout", ["30", meridianBinary] + arguments) }
            let places = folder.appendingPathComponent("places.geojson").path
            try Data(#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Lanai"},"geometry":{"type":"Point","coordinates":[-156.9,20.8]}}]}"#.utf8)
                .write(to: URL(fileURLWithPath: places))
            let data = folder.appendingPathComponent("data")
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            let shapefile = data.appendingPathComponent("roads.shp").path
            let made = try meridian(["convert", places, "-o", shapefile, "-q"])
            try #require(made.status == 0, "\(made.stderr)")
            let spare = folder.appendingPathComponent("spare")
            for companion in ["roads.dbf", "roads.shx", "roads.prj", "ROADS.CPG", "roads.dbf@link", "roads.cpg@device"] {
                let name = String(companion.split(separator: "@")[0]), entry = data.appendingPathComponent(name).path
                let kept = FileManager.default.fileExists(atPath: entry)
                if kept { try FileManager.default.moveItem(atPath: entry, toPath: spare.path) }
                if companion.hasSuffix("@link") {
                    #expect(mkfifo(folder.appendingPathComponent("pipe").path, 0o600) == 0)
                    try FileManager.default.createSymbolicLink(atPath: entry, withDestinationPath: folder.appendingPathComponent("pipe").path)
                } else if companion.hasSuffix("@device") {
                    try FileManager.default.createSymbolicLink(atPath: entry, withDestinationPath: "/dev/zero")
                } else {
                    #expect(mkfifo(entry, 0o600) == 0)
                }
                let refused = try meridianWithin(["convert", shapefile, "-o", folder.appendingPathComponent("out.geojson").path])
                #expect(refused.status == ExitStatus.badInput && refused.stderr.hasPrefix("meridian: error: \(shapefile): \"\(entry)\""),
                        "\(companion): \(refused.status) \(refused.stderr)")
                #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.geojson").path))
                try FileManager.default.removeItem(atPath: entry)
                try? FileManager.default.removeItem(atPath: folder.appendingPathComponent("pipe").path)
                if kept { try FileManager.default.moveItem(atPath: spare.path, toPath: entry) }
            }
            // A named pipe beside it under another name is none of its files.
            #expect(mkfifo(data.appendingPathComponent("notes.txt").path, 0o600) == 0)
            let converted = try meridianWithin(["convert", shapefile])
            #expect(converted.status == 0 && converted.stdout.contains("Lanai"), "\(converted.stderr)")

            // A raster with a named pipe as its .aux.xml or world file.
            let raster = data.appendingPathComponent("rgbsmall.tif").path
            try FileManager.default.copyItem(atPath: fixture("raster/rgbsmall.tif"), toPath: raster)
            for sidecar in ["rgbsmall.tif.aux.xml", "rgbsmall.tfw"] {
                let entry = data.appendingPathComponent(sidecar).path
                #expect(mkfifo(entry, 0o600) == 0)
                let output = folder.appendingPathComponent("tiles").path
                let refused = try meridianWithin(["tile", raster, output, "--zoom", "2"])
                #expect(refused.status == ExitStatus.badInput && refused.stderr.hasPrefix("meridian: error: \(raster): \"\(entry)\""),
                        "\(sidecar): \(refused.status) \(refused.stderr)")
                #expect(!FileManager.default.fileExists(atPath: output))
                try FileManager.default.removeItem(atPath: entry)
            }
            let tiled = try meridianWithin(["tile", raster, folder.appendingPathComponent("tiles").path, "--zoom", "2"])
            #expect(tiled.status == 0, "\(tiled.stderr)")
        }
    }

    /// A named pipe a label names under a name of its own (a PDS label's `^IMAGE = "DATA.IMG"`,
    /// which GDAL opens and waits on for ever: the names share nothing), in any case, by a path
    /// into a subfolder, or through a symbolic link: refused before GDAL opens anything (65,
    /// naming the label, line and column), each run under `timeout` (a hang is 124). With a
    /// regular file there, GDAL reads it (and the run goes on to what the data is).
    @Test func namedPipesALabelNamesAreRefused() throws {
        try withTemporaryFolder { folder in
            func meridianWithin(_ arguments: [String]) throws -> RunResult { try run("timeout", ["30", meridianBinary] + arguments) }
            let label = folder.appendingPathComponent("label.lbl").path
            func writeLabel(naming image: String) throws {
                let text = ["PDS_VERSION_ID = PDS3", "RECORD_TYPE = FIXED_LENGTH", "RECORD_BYTES = 4", "FILE_RECORDS = 4",
                            "^IMAGE = \"\(image)\"", "OBJECT = IMAGE", "  LINES = 4", "  LINE_SAMPLES = 4", "  SAMPLE_TYPE = UNSIGNED_INTEGER",
                            "  SAMPLE_BITS = 8", "  BANDS = 1", "END_OBJECT = IMAGE", "END"].map { $0 + "\r\n" }.joined()
                try Data(text.utf8).write(to: URL(fileURLWithPath: label))
            }
            let sub = folder.appendingPathComponent("sub")
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            let outside = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-pipe-\(getpid())").path
            #expect(mkfifo(outside, 0o600) == 0)
            defer { unlink(outside) }
            // (name in the label, entry made, how)
            for (named, entry, how) in [("DATA.IMG", "data.img", "pipe"), ("sub/pipe.img", "sub/pipe.img", "pipe"), ("LINKED.IMG", "LINKED.IMG", "link")] {
                try writeLabel(naming: named)
                let path = folder.appendingPathComponent(entry).path
                if how == "pipe" { #expect(mkfifo(path, 0o600) == 0) } else { try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: outside) }
                let output = folder.appendingPathComponent("tiles").path
                let refused = try meridianWithin(["tile", label, output, "--zoom", "2"])
                #expect(refused.status == ExitStatus.badInput && refused.stderr.hasPrefix("meridian: error: \(label):5:11: it names \"\(named)\""),
                        "\(named): \(refused.status) \(refused.stderr)")
                #expect(!FileManager.default.fileExists(atPath: output))
                unlink(path)
            }
            // A regular file under the name: GDAL reads it (a 4 x 4 image without a place, which tile refuses on its own grounds).
            try writeLabel(naming: "DATA.IMG")
            try Data(repeating: 7, count: 16).write(to: folder.appendingPathComponent("data.img"))
            let read = try meridianWithin(["tile", label, folder.appendingPathComponent("tiles").path, "--zoom", "2"])
            #expect(read.status != 124 && !read.stderr.contains("wait on it"), "\(read.status) \(read.stderr)")
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
