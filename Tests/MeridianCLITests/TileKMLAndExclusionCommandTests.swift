import Foundation
import Testing

import MeridianCore

/// `meridian tile --kml` (a KML super-overlay over a folder's tiles) and `--excluded-values`
/// with `--excluded-values-pct-threshold` (GDAL's options), from the command line.
@Suite struct TileKMLAndExclusionCommandTests {
    let margin = fixture("raster/white-margin.tif")
    let chart = fixture("raster/19347_2.KAP")

    /// The KML files of a folder, by path, with their text.
    func kmlFiles(_ folder: URL) -> [String: Data] { folderContents(folder).filter { $0.key.hasSuffix(".kml") } }

    /// Every option refused (64) where it cannot apply, saying so, with nothing written.
    @Test func refusedWhereItCannotApply() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("out")
            let refused: [[String]] = [
                [margin, out.path + ".mbtiles", "--kml"],
                [margin, out.path + ".pmtiles", "--kml"],
                [fixture("geojson/drop-rate-points.geojson"), out.path, "--kml"],
                [fixture("geojson/drop-rate-points.geojson"), out.path, "--excluded-values", "255,255,255"],
                [fixture("geojson/drop-rate-points.geojson"), out.path, "--tile-format", "png", "--excluded-values", "255,255,255"],
                [margin, out.path, "--excluded-values", "256,0,0"],
                [margin, out.path, "--excluded-values", "255,255"],
                [margin, out.path, "--excluded-values", "255,255,255", "--excluded-values-pct-threshold", "101"],
                [margin, out.path, "--excluded-values-pct-threshold", "60"],
                [margin, out.path, "--excluded-values", "255,255,255", "--resampling", "gdal2tiles"],
            ]
            for arguments in refused {
                let result = try meridian(["tile"] + arguments)
                #expect(result.status == ExitStatus.usage, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("--kml") || result.stderr.contains("--excluded-values"), "\(arguments): \(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: out.path), "\(arguments)")
            }
            // The container is named with its own article ("not from an PMTiles archive" before).
            let archive = try meridian(["tile", margin, out.path + ".pmtiles", "--kml"])
            #expect(archive.stderr.contains("not from a PMTiles archive"), "\(archive.stderr)")
        }
    }

    /// --excluded-values at the margin's edge (zoom 1, where a pixel is half white, half navy):
    /// white at GDAL's default 50%, navy at 60%, washed out without it.
    @Test func excludedValuesFromTheCommandLine() throws {
        try withTemporaryFolder { folder throws in
            func edgePixel(_ extra: [String]) throws -> [UInt8] {
                let out = folder.appendingPathComponent("out\(extra.count)-\(extra.last ?? "")")
                let result = try meridian(["tile", margin, out.path, "--zoom", "0-2", "-q"] + extra)
                #expect(result.status == 0, "\(result.stderr)")
                let value = try run("gdallocationinfo", ["-valonly", out.path + "/1/0/0.png", "144", "200"])
                return value.stdout.split(separator: "\n").compactMap { UInt8($0) }
            }
            #expect(try edgePixel([]) == [143, 173, 208, 255])
            #expect(try edgePixel(["--excluded-values", "255,255,255"]) == [255, 255, 255, 255])
            #expect(try edgePixel(["--excluded-values", "(255,255,255)", "--excluded-values-pct-threshold", "60"]) == [30, 90, 160, 255])
        }
    }

    /// Base tiles warped by GDAL's warper (`--gdal-warp`; the same warper takes the tiles where
    /// Meridian's kernel cannot transform every pixel) leave the excluded colours out of their
    /// averages as Meridian's kernel does: with zoom 1 as the base zoom (2 × 2 source pixels a
    /// tile pixel), the margin's edge is white at 50% and navy at 60% either way. (GDAL's own
    /// `average` averaged the white in: washed out whatever the option said.)
    @Test func excludedValuesInGDALsWarper() throws {
        try withTemporaryFolder { folder throws in
            func edgePixel(_ extra: [String]) throws -> [UInt8] {
                let out = folder.appendingPathComponent("out-\(extra.joined(separator: "_").filter { $0.isLetter || $0.isNumber })")
                let result = try meridian(["tile", margin, out.path, "--zoom", "0-1", "-q"] + extra)
                #expect(result.status == 0, "\(result.stderr)")
                let value = try run("gdallocationinfo", ["-valonly", out.path + "/1/0/0.png", "144", "200"])
                return value.stdout.split(separator: "\n").compactMap { UInt8($0) }
            }
            for warper in [[], ["--gdal-warp"]] {
                #expect(try edgePixel(warper + ["--excluded-values", "255,255,255"]) == [255, 255, 255, 255], "\(warper)")
                #expect(try edgePixel(warper + ["--excluded-values", "255,255,255", "--excluded-values-pct-threshold", "60"]) == [30, 90, 160, 255],
                        "\(warper)")
            }
        }
    }

    /// Shards and --finish --kml give the very files (tiles, metadata and KML) of one run with
    /// --kml; a shard writes no KML (the tiles are not all there yet); the summary counts them.
    @Test func shardsThenFinishWriteTheOneRunsKML() throws {
        try withTemporaryFolder { folder in
            let options = ["--zoom", "10-16", "--jobs", "1", "--kml"]
            let one = folder.appendingPathComponent("one"), split = folder.appendingPathComponent("split")
            let clean = try meridian(["tile", chart, one.path] + options)
            #expect(clean.status == 0, "\(clean.stderr)")
            let expected = folderContents(one)
            let tiles = expected.keys.filter { $0.hasSuffix(".png") }.count
            #expect(tiles > 10)
            #expect(kmlFiles(one).count == tiles + 1)
            #expect(clean.stderr.contains("\(tiles) tile KML files"), "\(clean.stderr)")
            for k in 0..<2 {
                #expect(try meridian(["tile", chart, split.path, "--shard", "\(k)/2", "-q"] + options).status == 0)
            }
            #expect(kmlFiles(split).isEmpty)
            let finish = try meridian(["tile", chart, split.path, "--finish"] + options)
            #expect(finish.status == 0, "\(finish.stderr)")
            #expect(folderContents(split) == expected)
        }
    }

    /// Vector data drawn as image tiles gets its super-overlay too: a KML beside every tile.
    @Test func drawnTilesGetTheirKML() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("drawn")
            let result = try meridian(["tile", fixture("geojson/drop-rate-points.geojson"), out.path, "--tile-format", "png", "--zoom", "0-1", "--kml", "-q"])
            #expect(result.status == 0, "\(result.stderr)")
            let files = folderContents(out).keys
            let tiles = Set(files.filter { $0.hasSuffix(".png") }.map { $0.dropLast(4) })
            #expect(!tiles.isEmpty)
            #expect(Set(files.filter { $0.hasSuffix(".kml") && $0 != "doc.kml" }.map { $0.dropLast(4) }) == tiles)
            #expect(files.contains("doc.kml"))
        }
    }

    /// A run killed part-way and resumed with --kml ends with the KML of a clean run.
    @Test func aResumedRunWritesTheCleanRunsKML() throws {
        try withTemporaryFolder { folder in
            let options = ["--zoom", "10-15", "--jobs", "1", "-q", "--kml"]
            let clean = folder.appendingPathComponent("clean"), resumed = folder.appendingPathComponent("resumed")
            #expect(try meridian(["tile", chart, clean.path] + options).status == 0)
            let state = resumed.appendingPathComponent(".meridian-tiling").path
            let (stopped, _) = try TileCommandTests.tileStoppedPartWay([chart, resumed.path] + options) {
                ((try? String(contentsOfFile: state, encoding: .utf8)) ?? "").contains("block ")
            }
            if stopped { #expect(kmlFiles(resumed).isEmpty) }
            let result = try meridian(["tile", chart, resumed.path, "--resume"] + options)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(kmlFiles(resumed) == kmlFiles(clean))
            #expect(folderContents(resumed) == folderContents(clean))
        }
    }

    /// A resumed run with --kml leaves only KML files of its own tiles: a tile KML file that an
    /// earlier run wrote into the folder for a tile this run does not make (here one at zoom 15
    /// far from the chart, as a run of other settings would have) is removed and counted; a
    /// KML file the overlay did not write is left. (It stayed, linked from nothing.)
    @Test func aResumedRunRemovesTheKMLOfTilesNoLongerThere() throws {
        try withTemporaryFolder { folder in
            let options = ["--zoom", "10-15", "--jobs", "1", "--kml"]
            let clean = folder.appendingPathComponent("clean"), resumed = folder.appendingPathComponent("resumed")
            #expect(try meridian(["tile", chart, clean.path, "-q"] + options).status == 0)
            let state = resumed.appendingPathComponent(".meridian-tiling").path
            let (stopped, _) = try TileCommandTests.tileStoppedPartWay([chart, resumed.path] + options) {
                ((try? String(contentsOfFile: state, encoding: .utf8)) ?? "").contains("block ")
            }
            try #require(stopped, "the run finished before it could be stopped")
            // An earlier run's KML of tile 15/0/0 (the overlay's own text for that tile), and the user's own file.
            let sample = try #require(kmlFiles(clean).first { $0.key.hasPrefix("15/") && $0.key != "doc.kml" })
            let sampleName = "<name>\(sample.key)</name>"
            let stale = String(decoding: sample.value, as: UTF8.self).replacingOccurrences(of: sampleName, with: "<name>15/0/0.kml</name>")
            let column = resumed.appendingPathComponent("15/0")
            try FileManager.default.createDirectory(at: column, withIntermediateDirectories: true)
            try Data(stale.utf8).write(to: column.appendingPathComponent("0.kml"))
            try Data("<kml/>".utf8).write(to: column.appendingPathComponent("1.kml"))

            let result = try meridian(["tile", chart, resumed.path, "--resume"] + options)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("1 tile KML file of tiles no longer there removed"), "\(result.stderr)")
            var expected = folderContents(clean)
            expected["15/0/1.kml"] = Data("<kml/>".utf8)
            #expect(folderContents(resumed) == expected)
        }
    }

    /// The KML super-overlay and the viewer page are part of the run: a run whose KML or page
    /// cannot be written (a folder stands at `doc.kml`'s or `index.html`'s place) fails with 73
    /// and keeps its resume state, and `--resume` then writes them as a clean run does. (The
    /// state was removed before they were written, and the folder could not be resumed.) For a
    /// chart (blocks), image tiles drawn from vector data and vector tiles (runs level by level,
    /// whose tiles' bytes are compared by name only).
    @Test(arguments: [("chart", "--kml"), ("drawn", "--kml"), ("chart", "--viewer"), ("drawn", "--viewer"), ("vector", "--viewer")])
    func aRunWhoseKMLOrPageFailsCanBeResumed(kind: String, writing: String) throws {
        guard kind != "vector" || mapLibreInstalled else { return }  // the page needs MapLibre GL JS (Scripts/bootstrap)
        try withTemporaryFolder { folder in
            let input = kind == "chart" ? chart : fixture("geojson/drop-rate-points.geojson")
            let zooms = ["chart": ["--zoom", "10-15"], "drawn": ["--tile-format", "png", "--zoom", "0-5"], "vector": ["--zoom", "0-8"]][kind]!
            let options = zooms + ["--jobs", "1", "-q", writing]
            let clean = folder.appendingPathComponent("clean"), resumed = folder.appendingPathComponent("resumed")
            #expect(try meridian(["tile", input, clean.path] + options).status == 0)
            let state = resumed.appendingPathComponent(".meridian-tiling").path
            let (stopped, _) = try TileCommandTests.tileStoppedPartWay([input, resumed.path] + options) {
                // A chart's run once a block is done; a level-by-level run once it has its state.
                kind == "chart" ? ((try? String(contentsOfFile: state, encoding: .utf8)) ?? "").contains("block ")
                    : FileManager.default.fileExists(atPath: state)
            }
            try #require(stopped, "the run finished before it could be stopped")
            let blocker = resumed.appendingPathComponent(writing == "--kml" ? "doc.kml" : "index.html")
            try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)
            let failed = try meridian(["tile", input, resumed.path, "--resume"] + options)
            #expect(failed.status == ExitStatus.cannotCreateOutput, "\(failed.stderr)")
            #expect(FileManager.default.fileExists(atPath: state))
            try FileManager.default.removeItem(at: blocker)
            let result = try meridian(["tile", input, resumed.path, "--resume"] + options)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: state))
            #expect(kmlFiles(resumed) == kmlFiles(clean))
            let page = "index.html"
            #expect(folderContents(resumed)[page] == folderContents(clean)[page])
            if kind == "chart" {
                #expect(folderContents(resumed) == folderContents(clean))
            } else {
                #expect(Set(folderContents(resumed).keys) == Set(folderContents(clean).keys))
            }
        }
    }
}
