import Foundation
import MeridianFormats
import MeridianRaster
import MeridianTiles
import Testing

import MeridianCore

/// Every file under a folder (relative path → bytes), hidden files included.
func folderContents(_ folder: URL) -> [String: Data] {
    var files: [String: Data] = [:]
    guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return files }
    for case let relative as String in walker {
        var isFolder: ObjCBool = false
        let path = folder.appendingPathComponent(relative).path
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
            files[relative] = FileManager.default.contents(atPath: path)
        }
    }
    return files
}

func pngCount(_ folder: URL) -> Int {
    folderContents(folder).keys.filter { $0.hasSuffix(".png") && !($0 as NSString).lastPathComponent.hasPrefix(".") }.count
}

/// `meridian tile`, end to end through the forwarding `meridian` binary.
@Suite struct TileCommandTests {
    let chart = fixture("raster/19347_2.KAP")

    @Test func helpIsForwardedAndListed() throws {
        let top = try meridian(["--help"])
        #expect(top.stdout.contains("tile"))
        let help = try meridian(["tile", "--help"])
        #expect(help.status == 0)
        for option in ["--zoom", "--tms", "--tile-format", "--resampling", "--jobs", "--resume", "--viewer", "--nodata", "--bands", "--gcp"] {
            #expect(help.stdout.contains(option), "\(option)")
        }
    }

    @Test func missingHelperIsExplained() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: meridianBinary)
        process.arguments = ["tile", chart, "/tmp/never"]
        process.environment = ["MERIDIAN_GDAL": "/nonexistent/meridian-gdal", "PATH": "/usr/bin:/bin"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == ExitStatus.helperUnavailable)
    }

    /// A world file whose pixels are 1e-12 degrees puts the image's native zoom at 31: without
    /// --zoom that is the image's fault (65, naming it), where it was a usage error naming
    /// nothing ("zoom levels must lie between 0 and 24", 64); with --zoom the run goes on.
    @Test func pixelsFinerThanTheDeepestZoomNameTheImage() throws {
        try withTemporaryFolder { folder in
            let image = folder.appendingPathComponent("scan.jpg").path
            try FileManager.default.copyItem(atPath: fixture("raster/389225main_sw_1965_1024.jpg"), toPath: image)
            try Data("1e-12\n0\n0\n-1e-12\n-80\n25\n".utf8).write(to: folder.appendingPathComponent("scan.jgw"))
            try Data("<PAMDataset><SRS>EPSG:4326</SRS></PAMDataset>".utf8).write(to: URL(fileURLWithPath: image + ".aux.xml"))
            let refused = try meridian(["tile", image, folder.appendingPathComponent("out").path])
            #expect(refused.status == ExitStatus.badInput && refused.stderr.hasPrefix("meridian: error: \(image): "), "\(refused.stderr)")
            let chosen = try meridian(["tile", image, folder.appendingPathComponent("chosen").path, "--zoom", "3"])
            #expect(chosen.status == 0, "\(chosen.stderr)")
        }
    }

    @Test func exitCodes() throws {
        try withTemporaryFolder { folder in
            #expect(try meridian(["tile", fixture("raster/missing.tif"), folder.appendingPathComponent("a").path]).status == ExitStatus.inputUnavailable)
            let notRaster = try meridian(["tile", fixture("raster/USERAGREEMENT.TXT"), folder.appendingPathComponent("b").path])
            #expect(notRaster.status == ExitStatus.badInput)
            #expect(notRaster.stderr.contains("meridian: error: ") && notRaster.stderr.contains("USERAGREEMENT.TXT"))
            let plain = try meridian(["tile", fixture("raster/389225main_sw_1965_1024.jpg"), folder.appendingPathComponent("c").path])
            #expect(plain.status == ExitStatus.badInput && plain.stderr.contains("--gcp"))
            #expect(try meridian(["tile", chart, folder.appendingPathComponent("d").path, "--zoom", "9-3"]).status == ExitStatus.usage)
            #expect(try meridian(["tile", chart, folder.appendingPathComponent("e").path, "--gcp", "1,2,3"]).status == ExitStatus.usage)
            // A mistyped number is refused, not dropped (0,x,768,… once read as 0,768,…).
            let mistyped = try meridian(["tile", fixture("raster/389225main_sw_1965_1024.jpg"), folder.appendingPathComponent("f").path,
                                         "--gcp", "0,0,25.44,-78.41", "--gcp", "1024,0,25.18,-76.60", "--gcp", "0,x,768,23.93,-78.76"])
            #expect(mistyped.status == ExitStatus.usage && mistyped.stderr.contains("--gcp takes PIXEL,LINE,LAT,LON"), "\(mistyped.stderr)")
            // A folder that is not empty is not overwritten without --resume.
            let used = folder.appendingPathComponent("used")
            try FileManager.default.createDirectory(at: used, withIntermediateDirectories: true)
            try Data("x".utf8).write(to: used.appendingPathComponent("keep.txt"))
            #expect(try meridian(["tile", chart, used.path, "-q"]).status == ExitStatus.cannotCreateOutput)
            // Nothing is left behind by failures.
            #expect(contents(of: folder) == ["used"])
        }
    }

    /// A tile pyramid given to `tile` is named as one, with the subcommands that read it (it said
    /// "GDAL cannot read this file as a raster"); nothing is written.
    @Test func aTilePyramidAsInputPointsToTileCopy() throws {
        try withTemporaryFolder { folder in
            let points = folder.appendingPathComponent("points.geojson").path
            try Data(#"{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[151.2,-33.9]}}"#.utf8).write(to: URL(fileURLWithPath: points))
            for pyramid in ["made.pmtiles", "made"] {
                let path = folder.appendingPathComponent(pyramid).path
                let made = try meridian(["tile", points, path, "--zoom", "0-2", "-q"])
                #expect(made.status == 0, "\(made.stderr)")
                let again = try meridian(["tile", path, folder.appendingPathComponent("again-" + pyramid).path])
                #expect(again.status == ExitStatus.badInput && again.stderr.contains("\(path): ") && again.stderr.contains("tile-copy"), "\(again.stderr)")
            }
            #expect(contents(of: folder) == ["made", "made.pmtiles", "points.geojson"])
        }
    }

    /// `/dev/stdin` as a tile run's input: a pipe is read once, so refused as `-` is (64; it said
    /// "GDAL cannot read this file as a raster"); a file redirected in is read as that file.
    @Test func standardInputByPathIsTakenOnlyWhenAFile() throws {
        try withTemporaryFolder { folder in
            let points = folder.appendingPathComponent("points.geojson").path
            try Data(#"{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[-70.6,-33.4]}}"#.utf8).write(to: URL(fileURLWithPath: points))
            let piped = try run("sh", ["-c", "cat \"$1\" | \"$2\" tile /dev/stdin \"$3\" --zoom 0-1 -q", "sh", points, meridianBinary, folder.appendingPathComponent("piped.pmtiles").path])
            #expect(piped.status == ExitStatus.usage && piped.stderr.contains("/dev/stdin"), "\(piped.stderr)")
            let redirected = try meridian(["tile", "/dev/stdin", folder.appendingPathComponent("redirected.pmtiles").path, "--zoom", "0-1", "-q"],
                                          stdin: try Data(contentsOf: URL(fileURLWithPath: points)))
            #expect(redirected.status == 0, "\(redirected.stderr)")
            #expect(contents(of: folder) == ["points.geojson", "redirected.pmtiles"])
        }
    }

    @Test func jpegWithControlPointsAndMBTiles() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("photo.mbtiles").path
            let tiled = try meridian(["tile", fixture("raster/389225main_sw_1965_1024.jpg"), out, "-q",
                                    "--gcp", "0,0,25.441266,-78.408414", "--gcp", "1024,0,25.182248,-76.601538",
                                    "--gcp", "0,768,23.927775,-78.763685", "--zoom", "6-8"])
            #expect(tiled.status == 0, "\(tiled.stderr)")
            let file = try MBTilesFile(path: out)
            let tiles = try file.allTiles()
            #expect(file.metadata["minzoom"] == "6" && file.metadata["maxzoom"] == "8" && !tiles.isEmpty)
            // GDAL's MBTiles driver opens it.
            let info = try run("gdalinfo", [out])
            #expect(info.status == 0 && info.stdout.contains("Driver: MBTiles"))
        }
    }

    /// A chart into a PMTiles archive: the folder's tiles exactly, as PyPI's pmtiles reads them;
    /// --resume needs a folder or MBTiles; shards join into an archive.
    @Test func chartIntoPMTiles() throws {
        try withTemporaryFolder { folder in
            let archive = folder.appendingPathComponent("chart.pmtiles").path, tiles = folder.appendingPathComponent("chart")
            #expect(try meridian(["tile", chart, archive, "-q"]).status == 0)
            #expect(try meridian(["tile", chart, tiles.path, "-q"]).status == 0)
            let report = try pmtilesAgainstFolder(archive, tiles.path, extension: "png").compactMapValues { $0 as? Int }
            #expect(report["files"] == 25 && report["stored"] == 25 && report["same"] == 25 && report["type"] == 2, "\(report)")
            #expect(try meridian(["tile", chart, archive, "--resume"]).status == ExitStatus.usage)
            // Issue 31: shards (each an MBTiles part) joined into an archive give one run's archive, byte for byte.
            let split = folder.appendingPathComponent("s.pmtiles").path
            for k in 0..<2 { #expect(try meridian(["tile", chart, split, "--shard", "\(k)/2", "-q"]).status == 0) }
            #expect(try meridian(["tile", chart, split, "--finish", "-q"]).status == 0)
            #expect(FileManager.default.contents(atPath: split) == FileManager.default.contents(atPath: archive))
        }
    }

    /// Issue 13: `--zoom 0-17` on a small chart left zooms 0-2 empty (less than 1/255 of a pixel
    /// of chart there, so those tiles are fully transparent and not written) while every piece of
    /// metadata said minzoom 0. The metadata now names the zooms that hold tiles, in MBTiles,
    /// metadata.json, tilemapresource.xml and the viewer alike, and a warning says why.
    @Test func metadataNamesTheZoomsThatHoldTiles() throws {
        try withTemporaryFolder { folder in
            let mbtiles = folder.appendingPathComponent("chart.mbtiles").path
            let tiled = try meridian(["tile", chart, mbtiles, "--zoom", "0-5"])
            #expect(tiled.status == 0, "\(tiled.stderr)")
            let file = try MBTilesFile(path: mbtiles)
            let levels = try file.zoomLevels()
            try #require(!levels.isEmpty)
            #expect(levels.first! > 0, "the chart is far smaller than a pixel at zoom 0")
            #expect(file.metadata["minzoom"] == String(levels.first!) && file.metadata["maxzoom"] == String(levels.last!), "\(file.metadata)")
            #expect(tiled.stderr.contains("meridian: warning: "), "\(tiled.stderr)")
            #expect(tiled.stderr.contains("zoom \(levels.first!)-\(levels.last!)"), "\(tiled.stderr)")

            let tiles = folder.appendingPathComponent("tiles")
            #expect(try meridian(["tile", chart, tiles.path, "--zoom", "0-5", "--tms", "--viewer", "-q"]).status == 0)
            let zooms = try FileManager.default.contentsOfDirectory(atPath: tiles.path).compactMap(Int.init).sorted()
            #expect(zooms == levels)
            let json = try String(contentsOf: tiles.appendingPathComponent("metadata.json"), encoding: .utf8)
            #expect(json.contains("\"minzoom\": \(levels.first!),") && json.contains("\"maxzoom\": \(levels.last!),"), "\(json)")
            let resource = try String(contentsOf: tiles.appendingPathComponent("tilemapresource.xml"), encoding: .utf8)
            let orders = resource.matches(of: #/order="([0-9]+)"/#).map { Int($0.output.1)! }
            #expect(orders == levels, "\(resource)")
            let html = try String(contentsOf: tiles.appendingPathComponent("index.html"), encoding: .utf8)
            #expect(html.contains("minNativeZoom: \(levels.first!),"), "\(html)")
        }
    }

    /// Runs `meridian tile` with `arguments` and sends it `signal` once `started()` holds (or
    /// after 60 s): whether the signal ended it (it was caught part-way), and its stderr.
    static func tileStoppedPartWay(_ arguments: [String], signal: Int32 = SIGKILL,
                                   once started: () -> Bool) throws -> (stopped: Bool, stderr: String) {
        try withTemporaryFolder { streams in
            let errors = streams.appendingPathComponent("stderr")
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: meridianBinary)
            process.arguments = ["tile"] + arguments
            process.standardError = try FileHandle(forWritingTo: errors)
            try process.run()
            let deadline = Date().addingTimeInterval(60)
            while !started() && process.isRunning && Date() < deadline { usleep(2_000) }
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            let stopped = signal == SIGKILL ? process.terminationReason == .uncaughtSignal : process.terminationStatus == 128 + signal
            return (stopped, String(decoding: try Data(contentsOf: errors), as: UTF8.self))
        }
    }

    /// `meridian tile … OUT.mbtiles` stopped by `signal` once its partial file `partial` has grown
    /// past its empty tables (a block of tiles has been written into it).
    static func mbtilesStoppedPartWay(_ arguments: [String], partial: URL, signal: Int32 = SIGKILL) throws -> (stopped: Bool, stderr: String) {
        try tileStoppedPartWay(arguments, signal: signal) {
            ((try? FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? Int) ?? 0) >= 40_000
        }
    }

    /// kill -9 part-way, then --resume: exactly the files of a clean run.
    @Test func resumeAfterKillNineEqualsACleanRun() throws {
        try withTemporaryFolder { folder in
            let arguments = ["--zoom", "14-17", "--jobs", "1", "--no-cutline", "-q"]
            let clean = folder.appendingPathComponent("clean"), resumed = folder.appendingPathComponent("resumed")
            #expect(try meridian(["tile", chart, clean.path] + arguments).status == 0)

            let killed = try Self.tileStoppedPartWay([chart, resumed.path] + arguments) { pngCount(resumed) >= 8 }.stopped
            #expect(killed, "the run ended before it could be killed")
            let written = pngCount(resumed)
            #expect(written > 0 && written < pngCount(clean))
            #expect(!FileManager.default.fileExists(atPath: resumed.appendingPathComponent("metadata.json").path))

            let again = try meridian(["tile", chart, resumed.path, "--resume"] + arguments)
            #expect(again.status == 0, "\(again.stderr)")
            let a = folderContents(clean), b = folderContents(resumed)
            #expect(a.keys.sorted() == b.keys.sorted())
            #expect(a == b)
        }
    }

    /// The same for an MBTiles file: each block is one transaction, so a killed run keeps whole blocks.
    @Test func mbtilesResumeAfterKillNineEqualsACleanRun() throws {
        try withTemporaryFolder { folder in
            let arguments = ["--zoom", "14-17", "--jobs", "1", "--no-cutline", "-q"]
            let clean = folder.appendingPathComponent("clean.mbtiles"), resumed = folder.appendingPathComponent("resumed.mbtiles")
            #expect(try meridian(["tile", chart, clean.path] + arguments).status == 0)
            let partial = folder.appendingPathComponent(".resumed.mbtiles.meridian-partial")
            // Killed after the first committed block.
            let killed = try Self.mbtilesStoppedPartWay([chart, resumed.path] + arguments, partial: partial).stopped
            #expect(killed, "the run ended before it could be killed")
            #expect(!FileManager.default.fileExists(atPath: resumed.path))

            // A new run (no --resume) would lose what was written: refused, naming both ways on.
            let before = try Data(contentsOf: partial)
            let fresh = try meridian(["tile", chart, resumed.path] + arguments)
            #expect(fresh.status == 73, "\(fresh.stderr)")
            #expect(fresh.stderr.contains(partial.lastPathComponent), "\(fresh.stderr)")
            #expect(fresh.stderr.contains("--resume") && fresh.stderr.contains("rm -- "), "\(fresh.stderr)")
            #expect(try Data(contentsOf: partial) == before)

            let again = try meridian(["tile", chart, resumed.path, "--resume"] + arguments)
            #expect(again.status == 0, "\(again.stderr)")
            let a = try MBTilesFile(path: clean.path), b = try MBTilesFile(path: resumed.path)
            let (aTiles, bTiles) = (try a.allTiles(), try b.allTiles())
            #expect(aTiles == bTiles && a.metadata == b.metadata)
            #expect(contents(of: folder) == ["clean.mbtiles", "resumed.mbtiles"])
        }
    }

    /// Where the data ends, JPEG tiles are white (JPEG has no transparency), or --background;
    /// PNG tiles stay transparent unless --background makes them opaque.
    @Test func tilesTakeTheBackgroundWhereTheDataEnds() throws {
        try withTemporaryFolder { folder in
            // Zoom 14's tile 1051/7226 holds the chart's top-left corner: its own top left is empty.
            func corner(_ name: String, _ options: [String], file: String) throws -> DecodedImage {
                let out = folder.appendingPathComponent(name)
                let tiled = try meridian(["tile", chart, out.path, "--zoom", "14", "-q"] + options)
                #expect(tiled.status == 0, "\(tiled.stderr)")
                return try DecodedImage(path: out.appendingPathComponent(file).path)
            }
            func near(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8), _ r: Int, _ g: Int, _ b: Int) -> Bool {
                abs(Int(p.r) - r) <= 3 && abs(Int(p.g) - g) <= 3 && abs(Int(p.b) - b) <= 3 && p.a == 255
            }
            let jpeg = try corner("jpeg", ["--tile-format", "jpeg"], file: "14/1051/7226.jpg")
            #expect(near(jpeg.pixel(x: 0, y: 0), 255, 255, 255), "\(jpeg.pixel(x: 0, y: 0))")
            let navy = try corner("navy", ["--tile-format", "jpeg", "--background", "#000080"], file: "14/1051/7226.jpg")
            #expect(near(navy.pixel(x: 0, y: 0), 0, 0, 128), "\(navy.pixel(x: 0, y: 0))")
            // The chart itself is unchanged: its pixels are the same over either background.
            let paper = (jpeg.pixel(x: 240, y: 180), navy.pixel(x: 240, y: 180))
            #expect(near(paper.0, Int(paper.1.r), Int(paper.1.g), Int(paper.1.b)), "\(paper)")

            let png = try corner("png", [], file: "14/1051/7226.png")
            #expect(png.bandCount == 4 && png.pixel(x: 0, y: 0).a == 0)
            let opaque = try corner("png-navy", ["--background", "navy"], file: "14/1051/7226.png")
            #expect(opaque.bandCount == 3 && near(opaque.pixel(x: 0, y: 0), 0, 0, 128), "\(opaque.pixel(x: 0, y: 0))")

            let wrong = try meridian(["tile", chart, folder.appendingPathComponent("wrong").path, "--background", "#00008"])
            #expect(wrong.status == ExitStatus.usage && wrong.stderr.contains("--background"), "\(wrong.stderr)")
        }
    }

    /// --viewer: index.html with Leaflet beside it, no network; headless Chromium shows the chart.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "needs chromium"))
    func viewerShowsTheChartOffline() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("tiles")
            #expect(try meridian(["tile", chart, out.path, "--viewer", "--zoom", "14-16", "-q"]).status == 0)
            let html = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
            #expect(!html.contains("http://") && !html.contains("https://") && html.contains("leaflet/leaflet.js"))
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("leaflet/leaflet.js").path))

            let image = try screenshot(of: out.appendingPathComponent("index.html"), into: folder.appendingPathComponent("shot.png"))
            let chart = chartPixels(image)
            #expect(chart > image.width * image.height / 20, "chart pixels: \(chart)")
        }
    }
}

/// Headless Chromium's picture of a viewer page (640 × 480), taken once the page has drawn its
/// tiles (Scripts/browser-screenshot.py waits for the page's ready flag).
func screenshot(of page: URL, into shot: URL) throws -> DecodedImage {
    try browserScreenshot(of: page, into: shot).image
}

/// Pixels of a chart's white paper or buff land (the viewer's background is #dde4ea).
func chartPixels(_ image: DecodedImage, columns: Range<Int>? = nil) -> Int {
    var count = 0
    for y in 0..<image.height {
        for x in columns ?? 0..<image.width {
            let p = image.pixel(x: x, y: y)
            if (p.r > 240 && p.g > 240 && p.b > 240) || (p.r > 230 && p.g > 200 && p.b < 190) { count += 1 }
        }
    }
    return count
}

/// `meridian tile` with several inputs: a catalog quilted into one pyramid.
@Suite struct TileCatalogCommandTests {
    let first = fixture("raster/19347_2.KAP"), second = fixture("raster/19351_2.KAP")

    @Test func inputsFoldersAndListsGiveTheSamePyramid() throws {
        try withTemporaryFolder { folder in
            let charts = folder.appendingPathComponent("charts/19351")
            try FileManager.default.createDirectory(at: charts, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: first, toPath: folder.appendingPathComponent("charts/19347_2.KAP").path)
            try FileManager.default.copyItem(atPath: second, toPath: charts.appendingPathComponent("19351_2.KAP").path)
            // What NOAA ships beside its charts: text GDAL does not take for a raster.
            try Data("NOAA's terms\n".utf8).write(to: folder.appendingPathComponent("charts/USERAGREEMENT.TXT"))
            try Data("# two charts\n\n19347_2.KAP\n19351/19351_2.KAP\n".utf8).write(to: folder.appendingPathComponent("charts/list.txt"))

            let named = try meridian(["tile", first, second, folder.appendingPathComponent("named").path, "--zoom", "14-18", "-q"])
            #expect(named.status == 0, "\(named.stderr)")
            let fromFolder = try meridian(["tile", folder.appendingPathComponent("charts").path, folder.appendingPathComponent("folder").path, "--zoom", "14-18"])
            #expect(fromFolder.status == 0, "\(fromFolder.stderr)")
            #expect(!fromFolder.stderr.contains("USERAGREEMENT"))
            let listed = try meridian(["tile", "--inputs", folder.appendingPathComponent("charts/list.txt").path, folder.appendingPathComponent("listed").path, "--zoom", "14-18", "-q"])
            #expect(listed.status == 0, "\(listed.stderr)")

            let tiles = folderContents(folder.appendingPathComponent("named")).filter { $0.key.hasSuffix(".png") }
            #expect(tiles.count > 25)
            for other in ["folder", "listed"] {
                #expect(folderContents(folder.appendingPathComponent(other)).filter { $0.key.hasSuffix(".png") } == tiles, "\(other)")
            }
            let metadata = try String(contentsOf: folder.appendingPathComponent("named/metadata.json"), encoding: .utf8)
            #expect(metadata.contains("19347_2, 19351_2") && metadata.contains("quilted by scale"))
        }
    }

    /// Pyramids in the catalog's own folder (a tile folder with its KML super-overlay, an
    /// MBTiles file, which GDAL opens as a raster; made there from the chart itself, since a
    /// run of the folder may not write into it) are not charts of the next run of that folder:
    /// it tiles the one chart, with no warning about the tiles.
    @Test func pyramidsInsideTheCatalogFolderAreNotCharts() throws {
        try withTemporaryFolder { folder in
            let charts = folder.appendingPathComponent("charts")
            try FileManager.default.createDirectory(at: charts, withIntermediateDirectories: true)
            let chart = charts.appendingPathComponent("19347_2.KAP").path
            try FileManager.default.copyItem(atPath: first, toPath: chart)
            for output in ["tiles", "tms", "chart.mbtiles"] {
                let extra = output == "tiles" ? ["--kml"] : output == "tms" ? ["--tms"] : []
                let made = try meridian(["tile", chart, charts.appendingPathComponent(output).path, "--zoom", "14-15", "-q"] + extra)
                #expect(made.status == 0, "\(made.stderr)")
            }
            // The folder's own run into it is refused (64), naming both.
            let inside = try meridian(["tile", charts.path, charts.appendingPathComponent("more").path, "--zoom", "14-15"])
            #expect(inside.status == ExitStatus.usage && inside.stderr.contains("inside the input folder \(charts.path)"), "\(inside.stderr)")
            let plan = try meridian(["tile", "--plan", charts.path, folder.appendingPathComponent("again").path, "--zoom", "14-15"])
            #expect(plan.status == 0, "\(plan.stderr)")
            #expect(plan.stdout.hasPrefix("1 chart"), "\(plan.stdout)")
            #expect(!plan.stderr.contains("tiles/") && !plan.stderr.contains("tms/"), "\(plan.stderr)")
            let again = try meridian(["tile", charts.path, folder.appendingPathComponent("again").path, "--zoom", "14-15"])
            #expect(again.status == 0 && !again.stderr.contains("warning"), "\(again.stderr)")
            let metadata = try String(contentsOf: folder.appendingPathComponent("again/metadata.json"), encoding: .utf8)
            #expect(metadata.contains("19347_2") && !metadata.contains("quilted by"), "\(metadata)")
        }
    }

    /// Plain images in a folder, each with the control points QGIS saved beside it: each is
    /// placed by its own (the second 4° east of the first), and the .points files are not taken
    /// for rasters; one without points is skipped, with a hint that names its sidecar.
    @Test func imagesOfAFolderTakeTheirOwnControlPoints() throws {
        try withTemporaryFolder { folder in
            let scans = folder.appendingPathComponent("scans")
            try FileManager.default.createDirectory(at: scans, withIntermediateDirectories: true)
            for (name, east) in [("west", 0.0), ("east", 4.0), ("unplaced", nil)] as [(String, Double?)] {
                try FileManager.default.copyItem(atPath: fixture("raster/389225main_sw_1965_1024.jpg"), toPath: scans.appendingPathComponent(name + ".jpg").path)
                guard let east else { continue }
                let points = "mapX,mapY,sourceX,sourceY,enable\n\(-78.408414 + east),25.441266,0,-0,1\n"
                    + "\(-76.601538 + east),25.182248,1024,-0,1\n\(-78.763685 + east),23.927775,0,-768,1\n"
                try Data(points.utf8).write(to: scans.appendingPathComponent(name + ".jpg.points"))
            }
            let tiled = try meridian(["tile", scans.path, folder.appendingPathComponent("out").path, "--zoom", "6"])
            #expect(tiled.status == 0, "\(tiled.stderr)")
            #expect(tiled.stderr.contains("unplaced.jpg") && tiled.stderr.contains("unplaced.jpg.points") && !tiled.stderr.contains("west.jpg.points"), "\(tiled.stderr)")
            let metadata = try String(contentsOf: folder.appendingPathComponent("out/metadata.json"), encoding: .utf8)
            #expect(metadata.contains("east, west") || metadata.contains("west, east"), "\(metadata)")
            // 4° apart at zoom 6 (5.6° a tile): tiles of both, in columns apart.
            let columns = Set(folderContents(folder.appendingPathComponent("out")).keys.filter { $0.hasSuffix(".png") }.map { $0.split(separator: "/")[1] })
            #expect(columns.count >= 2, "\(columns)")
        }
    }

    /// A catalog into MBTiles: the folder's tiles, bounds the union of the charts', the charts listed.
    @Test func catalogIntoMBTiles() throws {
        try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("charts.mbtiles").path, tiles = folder.appendingPathComponent("charts")
            #expect(try meridian(["tile", first, second, file, "--zoom", "14-17", "-q"]).status == 0)
            #expect(try meridian(["tile", first, second, tiles.path, "--zoom", "14-17", "-q"]).status == 0)
            let mbtiles = try MBTilesFile(path: file)
            #expect(try mbtiles.allTiles().count == pngCount(tiles))
            let bounds = try #require(mbtiles.metadata["bounds"]).split(separator: ",").compactMap { Double($0) }
            // 19351_2's west edge and 19347_2's east edge.
            #expect(bounds.count == 4 && abs(bounds[0] - -156.99458) < 1e-4 && abs(bounds[2] - -156.87745) < 1e-4, "\(bounds)")
            let description = try #require(mbtiles.metadata["description"])
            #expect(description.contains("19347_2.KAP") && description.contains("19351_2.KAP"))
        }
    }

    /// --plan says what a run would do and writes nothing; its tile counts bound the run's.
    @Test func planDescribesTheRunWithoutTiling() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("out")
            let text = try meridian(["tile", "--plan", first, second, out.path, "--zoom", "14-18"])
            #expect(text.status == 0, "\(text.stderr)")
            #expect(text.stdout.contains("19347_2  1:10000") && text.stdout.contains("19351_2  1:5000"), "\(text.stdout)")
            #expect(!FileManager.default.fileExists(atPath: out.path))

            let json = try meridian(["tile", "--plan", "--plan-format", "json", first, second, out.path, "--zoom", "14-18"])
            let plan = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let charts = try #require(plan["charts"] as? [[String: Any]])
            #expect(charts.map { $0["name"] as? String } == ["19347_2", "19351_2"])
            #expect(charts.map { $0["nativeZoom"] as? Int } == [17, 18] && charts.map { $0["scale"] as? Int } == [10000, 5000])
            let perZoom = try #require(plan["tilesPerZoom"] as? [String: Int])
            #expect(perZoom.keys.sorted() == ["14", "15", "16", "17", "18"] && perZoom.values.reduce(0, +) == plan["tiles"] as? Int)
            #expect((plan["estimatedSeconds"] as? Double ?? 0) > 0 && (plan["estimatedBytes"] as? Int ?? 0) > 0)

            #expect(try meridian(["tile", first, second, out.path, "--zoom", "14-18", "-q"]).status == 0)
            let written = pngCount(out)
            #expect(written > 0 && written <= plan["tiles"] as? Int ?? 0)
        }
    }

    /// The viewer of a catalog opens on the charts' union: both charts show, offline.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "needs chromium"))
    func viewerShowsEveryChart() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("tiles")
            #expect(try meridian(["tile", first, second, out.path, "--viewer", "-q"]).status == 0)
            let image = try screenshot(of: out.appendingPathComponent("index.html"), into: folder.appendingPathComponent("shot.png"))
            // 19351_2 lies west of 19347_2: each half of the page shows one chart.
            let west = chartPixels(image, columns: 0..<image.width / 2), east = chartPixels(image, columns: image.width / 2..<image.width)
            #expect(west > 100 && east > 100, "chart pixels: west \(west), east \(east)")
        }
    }

    @Test func catalogMistakesAreUsageErrors() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("out").path
            // --gcp georeferences one image, not a catalog.
            let gcp = try meridian(["tile", first, second, out, "--gcp", "0,0,1,1", "--gcp", "1,0,1,2", "--gcp", "0,1,2,1"])
            #expect(gcp.status == ExitStatus.usage)
            #expect(try meridian(["tile", first]).status == ExitStatus.usage)   // no output
            #expect(try meridian(["tile", first, second, out, "--quilt", "biggest"]).status == ExitStatus.usage)
            #expect(try meridian(["tile", first, second, out, "--overzoom", "-1"]).status == ExitStatus.usage)
            let missingList = try meridian(["tile", "--inputs", folder.appendingPathComponent("none.txt").path, out])
            #expect(missingList.status == ExitStatus.inputUnavailable && missingList.stderr.contains("none.txt"))
            let empty = folder.appendingPathComponent("empty")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            #expect(try meridian(["tile", empty.path, out]).status == ExitStatus.badInput)
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    /// The resume state covers the whole list: a run of two charts killed part-way resumes with
    /// the same two (ending with a clean run's files), and is refused with a third or one fewer.
    @Test func resumeCoversTheWholeCatalog() throws {
        try withTemporaryFolder { folder in
            let arguments = ["--zoom", "14-18", "--jobs", "1", "-q"]
            let clean = folder.appendingPathComponent("clean"), resumed = folder.appendingPathComponent("resumed")
            #expect(try meridian(["tile", first, second, clean.path] + arguments).status == 0)
            let killed = try TileCommandTests.tileStoppedPartWay([first, second, resumed.path] + arguments) { pngCount(resumed) >= 8 }.stopped
            #expect(killed, "the run ended before it could be killed")

            let fewer = try meridian(["tile", first, resumed.path, "--resume"] + arguments)
            #expect(fewer.status == ExitStatus.usage && fewer.stderr.contains("inputs"), "\(fewer.stderr)")
            let more = try meridian(["tile", first, second, fixture("raster/rgbsmall.tif"), resumed.path, "--resume"] + arguments)
            #expect(more.status == ExitStatus.usage && more.stderr.contains("input-3"), "\(more.stderr)")

            let again = try meridian(["tile", first, second, resumed.path, "--resume"] + arguments)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(folderContents(clean) == folderContents(resumed))
        }
    }
}
