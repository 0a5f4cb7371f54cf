import MeridianCore
import Foundation
import MeridianFormats
import Testing

/// Inputs made to exhaust memory, run end to end under an address-space limit (util-linux's
/// prlimit), so a reader that held its input would be killed rather than pass.
@Suite struct HostileInputTests {
    /// An MBTiles raster whose tiles are a view that recurses for ever, tiled as a raster
    /// (through GDAL's MBTiles driver, which reads the file's view), is refused at once (65,
    /// naming it) where the run went on until killed.
    @Test func rasterMBTilesViewsAreNotRun() throws {
        try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("raster.mbtiles").path
            let made = try meridian(["tile", fixture("raster/rgbsmall.tif"), file])
            try #require(made.status == 0, "\(made.stderr)")
            let script = """
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1])
                c.execute("ALTER TABLE tiles RENAME TO stored")
                c.execute("CREATE VIEW tiles AS WITH r(z, x, y, d) AS (SELECT zoom_level, tile_column, tile_row, tile_data FROM stored UNION ALL SELECT z, x, y, d FROM r) SELECT z AS zoom_level, x AS tile_column, y AS tile_row, d AS tile_data FROM r")
                c.commit()
                """
            let viewMade = try run("/usr/bin/python3", ["-c", script, file])
            try #require(viewMade.status == 0, "\(viewMade.stderr)")
            let started = Date()
            let result = try run("timeout", ["60", meridianBinary, "tile", file, folder.appendingPathComponent("out").path])
            #expect(result.status == ExitStatus.badInput && result.stderr.hasPrefix("meridian: error: \(file): "), "\(result.stderr)")
            #expect(Date().timeIntervalSince(started) < 30)
        }
    }

    /// A GeoPackage whose layer is a view that recurses for ever, joins a table to itself 64
    /// times (2^64 rows), or merely reads a table: `convert` and `info` refuse it at once (65,
    /// naming the file and the layer) where they ran until killed, and an error reading a
    /// layer is not taken for its end (the whole file's conversion said nothing and left the
    /// layer out). The file's own tables still convert.
    @Test func geoPackageViewsAreNotRun() throws {
        try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("views.gpkg").path
            let made = try run("ogr2ogr", ["-f", "GPKG", file, packageRoot.appendingPathComponent("examples/data/microstates.geojson").path, "-nln", "good"])
            try #require(made.status == 0, "\(made.stderr)")
            let selfJoin = (1...64).map { "good t\($0)" }.joined(separator: ", ")
            let views = [
                ("recursing", "WITH r(fid, geom) AS (SELECT fid, geom FROM good UNION ALL SELECT fid + 1000, geom FROM r) SELECT fid, geom FROM r"),
                ("joined", "SELECT t1.fid AS fid, t1.geom AS geom FROM \(selfJoin)"),
                ("plain", "SELECT fid, geom FROM good"),
            ]
            let script = "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\n" + views.map { name, sql in
                "c.execute(\"CREATE VIEW \(name) AS \(sql)\")\nc.execute(\"INSERT INTO gpkg_contents(table_name, data_type, identifier, srs_id) VALUES ('\(name)', 'features', '\(name)', 4326)\")\n"
                    + "c.execute(\"INSERT INTO gpkg_geometry_columns VALUES ('\(name)', 'geom', 'GEOMETRY', 4326, 0, 0)\")\n"
            }.joined() + "c.commit()\n"
            let viewsMade = try run("/usr/bin/python3", ["-c", script, file])
            try #require(viewsMade.status == 0, "\(viewsMade.stderr)")
            for (name, _) in views {
                let started = Date()
                let result = try run("timeout", ["60", meridianBinary, "convert", file, "--layer", name, "-o", folder.appendingPathComponent("\(name).geojson").path])
                #expect(result.status == ExitStatus.badInput && result.stderr.hasPrefix("meridian: error: \(file): ") && result.stderr.contains("\"\(name)\""),
                        "\(name): \(result.stderr)")
                #expect(Date().timeIntervalSince(started) < 30, "\(name)")
            }
            let whole = try run("timeout", ["60", meridianBinary, "convert", file, "-o", folder.appendingPathComponent("whole.geojson").path])
            #expect(whole.status == ExitStatus.badInput, "\(whole.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("whole.geojson").path))
            let good = try meridian(["convert", file, "--layer", "good", "-o", folder.appendingPathComponent("good.geojson").path])
            #expect(good.status == 0, "\(good.stderr)")
        }
    }

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
