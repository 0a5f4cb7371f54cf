import Foundation
import MeridianRaster
import MeridianTiles
import Testing

/// Issue 31's "done when": shards, resume, plan, viewer and leftovers for every kind of tiles
/// (rasters, vector tiles, vector data drawn into PNG, JPEG or WebP) in every container the
/// option applies to. The cells no other suite holds are here (the matrix is in the issue's
/// audit note): what a finished, a failed and a planned run leave beside the output and in
/// `$TMPDIR` for every kind and container; a raster run stopped by SIGINT, then resumed; the
/// viewer of drawn tiles in a browser; the viewer refused for archives of every kind; JPEG and
/// WebP tiles split into shards and joined.
@Suite struct TilingOptionMatrixTests {
    static let chart = fixture("raster/19347_2.KAP")
    static let countries = fixture("geojson/ne_10m_countries_sample.geojson")

    /// The kinds of tiles a run makes, each with a small run's inputs and options.
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case rasters, vectorTiles, drawnPNG, drawnJPEG, drawnWebP

        var testDescription: String { rawValue }

        /// The tile format asked for (nil: the default, PNG of rasters).
        var format: String? {
            switch self {
            case .rasters: nil
            case .vectorTiles: "mvt"
            case .drawnPNG: "png"
            case .drawnJPEG: "jpeg"
            case .drawnWebP: "webp"
            }
        }

        /// A run of this kind over `input` (the kind's own fixture when nil): inputs and options.
        func arguments(input: String? = nil) -> [String] {
            switch self {
            case .rasters: [input ?? TilingOptionMatrixTests.chart, "--zoom", "14-16", "--no-cutline"]
            default: [input ?? TilingOptionMatrixTests.countries, "--tile-format", format!, "--zoom", self == .vectorTiles ? "0-3" : "0-2"]
            }
        }
    }

    static let containers = ["tiles", "tiles.mbtiles", "tiles.pmtiles"]

    /// `meridian tile` with `arguments` and `TMPDIR` pointed at `scratch`.
    static func tile(_ arguments: [String], scratch: URL) throws -> RunResult {
        try run("/usr/bin/env", ["TMPDIR=" + scratch.path, meridianBinary, "tile"] + arguments)
    }

    /// `body` with an empty `$TMPDIR` for the run, an empty folder for its output, and the
    /// output's path `name` in that folder.
    static func inPlace(_ name: String, _ body: (_ scratch: URL, _ place: URL, _ output: String) throws -> Void) throws {
        try withTemporaryFolder { folder in
            let scratch = folder.appendingPathComponent("tmp"), place = folder.appendingPathComponent("place")
            for made in [scratch, place] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
            try body(scratch, place, place.appendingPathComponent(name).path)
        }
    }

    /// What an unfinished run of `output` may leave beside it: its documented resume state (a
    /// folder holding its state file; an MBTiles file's partial file and SQLite's journal). A
    /// PMTiles archive is written in one go and leaves nothing.
    static func resumeState(of output: String) -> Set<String> {
        output.hasSuffix(".pmtiles") ? []
            : output.hasSuffix(".mbtiles") ? [".\(output).meridian-partial", ".\(output).meridian-partial-journal"] : [output]
    }

    /// A finished run leaves its output and nothing else: no hidden sibling, nothing in
    /// `$TMPDIR`, and in a folder no staging or scratch file (its state file is the folder's
    /// documented record of the run).
    @Test(arguments: Kind.allCases, containers)
    func aFinishedRunLeavesOnlyItsOutput(kind: Kind, output: String) throws {
        try Self.inPlace(output) { scratch, place, path in
            let result = try Self.tile(kind.arguments() + [path, "-q"], scratch: scratch)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(contents(of: place) == [output])
            #expect(contents(of: scratch).isEmpty, "left in TMPDIR: \(contents(of: scratch))")
            if !output.contains(".") {
                let hidden = folderContents(URL(fileURLWithPath: path)).keys.filter { $0.split(separator: "/").contains { $0.hasPrefix(".") } }
                #expect(Set(hidden).isSubset(of: [".meridian-tiling"]), "hidden files in the folder: \(hidden.sorted())")
            }
        }
    }

    /// A run whose input turns out broken (a GeoTIFF cut short, which fails while its tiles
    /// are made, on four threads; GeoJSON cut off in the middle of its features) fails, 74 or
    /// 65, and leaves at most its resume state, no lock file, nothing in `$TMPDIR` (three times
    /// for rasters: the lock was left when a worker thread outlived the error, now and then);
    /// so does --finish where no shard has run (66).
    @Test(arguments: Kind.allCases, containers)
    func aFailedRunLeavesAtMostItsResumeState(kind: Kind, output: String) throws {
        for _ in 0..<(kind == .rasters ? 3 : 1) {
            try Self.inPlace(output) { scratch, place, path in
                let original = kind == .rasters ? fixture("raster/RGB.byte.half.tif") : Self.countries
                let bytes = try Data(contentsOf: URL(fileURLWithPath: original))
                let cut = scratch.deletingLastPathComponent().appendingPathComponent("cut-" + (original as NSString).lastPathComponent)
                try bytes.prefix(bytes.count * 6 / 10).write(to: cut)

                let arguments = kind == .rasters ? [cut.path, "--jobs", "4"] : kind.arguments(input: cut.path)
                let broken = try Self.tile(arguments + [path, "-q"], scratch: scratch)
                #expect([ExitStatus.badInput, ExitStatus.io].contains(broken.status), "\(broken.status): \(broken.stderr)")
                #expect(broken.stderr.contains(cut.lastPathComponent), "\(broken.stderr)")
                #expect(Set(contents(of: place)).isSubset(of: Self.resumeState(of: output)), "left \(contents(of: place))")
                #expect(contents(of: scratch).isEmpty, "left in TMPDIR: \(contents(of: scratch))")
            }
        }
        try Self.inPlace(output) { scratch, place, path in
            let early = try Self.tile(kind.arguments() + [path, "--finish", "-q"], scratch: scratch)
            #expect(early.status == ExitStatus.inputUnavailable, "\(early.status): \(early.stderr)")
            #expect(contents(of: place).isEmpty, "left \(contents(of: place))")
            #expect(contents(of: scratch).isEmpty, "left in TMPDIR: \(contents(of: scratch))")
        }
    }

    /// --plan estimates every kind of run into every container, in words and in JSON, and
    /// makes nothing: no output, nothing beside it, nothing in `$TMPDIR`.
    @Test(arguments: Kind.allCases, containers)
    func planMakesNothing(kind: Kind, output: String) throws {
        try Self.inPlace(output) { scratch, place, path in
            let plan = try Self.tile(kind.arguments() + [path, "--plan"], scratch: scratch)
            #expect(plan.status == 0, "\(plan.stderr)")
            #expect(plan.stdout.contains("tiles at most"), "\(plan.stdout)")
            let json = try Self.tile(kind.arguments() + [path, "--plan", "--plan-format", "json"], scratch: scratch)
            let decoded = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any], "\(json.stderr)")
            let tiles = try #require(decoded["tiles"] as? Int), perZoom = try #require(decoded["tilesPerZoom"] as? [String: Int])
            #expect(tiles > 0 && perZoom.values.reduce(0, +) == tiles)
            #expect(contents(of: place).isEmpty && contents(of: scratch).isEmpty)
        }
    }

    /// --viewer into an MBTiles file or a PMTiles archive is refused (64) for every kind,
    /// saying why, before anything is made.
    @Test(arguments: Kind.allCases, ["tiles.mbtiles", "tiles.pmtiles"])
    func viewerOfAnArchiveIsRefused(kind: Kind, output: String) throws {
        try Self.inPlace(output) { scratch, place, path in
            let refused = try Self.tile(kind.arguments() + [path, "--viewer"], scratch: scratch)
            #expect(refused.status == ExitStatus.usage && refused.stderr.contains("--viewer"), "\(refused.stderr)")
            #expect(contents(of: place).isEmpty && contents(of: scratch).isEmpty)
        }
    }

    /// A raster run stopped by SIGINT part-way leaves only its resume state (nothing in
    /// `$TMPDIR`); --resume then gives a clean run's pyramid byte for byte and leaves only the
    /// output. Into a PMTiles archive (written in one go, not resumable) it leaves nothing.
    @Test(arguments: containers)
    func anInterruptedRasterRunResumesIntoACleanRunsPyramid(output: String) throws {
        let arguments = [Self.chart, "--zoom", "14-17", "--jobs", "1", "--no-cutline", "-q"]
        try Self.inPlace(output) { scratch, place, path in
            let clean = scratch.deletingLastPathComponent().appendingPathComponent("clean-" + output).path
            #expect(try Self.tile(arguments.dropLast() + [clean, "-q"], scratch: scratch).status == 0)
            let expected = try VectorTileRunTests.pyramid(clean)

            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["TMPDIR=" + scratch.path, meridianBinary, "tile"] + arguments.dropLast() + [path, "-q"]
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Part-way: a folder or MBTiles file holds what it would keep; an archive's run has
            // made something beside it or in TMPDIR (its scratch may have no name: or a second in).
            let deadline = Date().addingTimeInterval(60)
            func partWay() -> Bool {
                guard output.hasSuffix(".pmtiles") else { return VectorTileRunTests.isPartWay(path) }
                return !contents(of: place).isEmpty || !contents(of: scratch).isEmpty || Date() > deadline.addingTimeInterval(-59)
            }
            while process.isRunning && Date() < deadline && !partWay() { usleep(2_000) }
            #expect(process.isRunning, "the run ended before it could be stopped")
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            #expect(process.terminationStatus == 128 + SIGINT)
            let left = Set(contents(of: place))
            #expect(left.isSubset(of: Self.resumeState(of: output)) && (output.hasSuffix(".pmtiles") || !left.isEmpty), "left \(left)")
            #expect(contents(of: scratch).isEmpty, "left in TMPDIR: \(contents(of: scratch))")

            if output.hasSuffix(".pmtiles") {
                #expect(try Self.tile(arguments + [path, "--resume"], scratch: scratch).status == ExitStatus.usage)
                #expect(try Self.tile(arguments + [path], scratch: scratch).status == 0)
            } else {
                let resumed = try Self.tile(arguments + [path, "--resume"], scratch: scratch)
                #expect(resumed.status == 0, "\(resumed.stderr)")
            }
            #expect(try VectorTileRunTests.pyramid(path) == expected)
            #expect(contents(of: place) == [output])
            #expect(contents(of: scratch).isEmpty, "left in TMPDIR: \(contents(of: scratch))")
        }
    }

    /// JPEG and WebP tiles drawn from vector data, split into shards and joined by --finish,
    /// are one run's pyramid byte for byte (PNG's are in `VectorTileRunTests`).
    @Test(arguments: [("jpeg", "tiles"), ("webp", "tiles.mbtiles"), ("webp", "tiles.pmtiles")])
    func drawnJPEGAndWebPShardsJoinIntoOneRunsPyramid(format: String, output: String) throws {
        try VectorTileRunTests.afterACleanRun(format: format, output: output) { scratch, place, split, expected throws in
            for k in 0..<2 { #expect(try VectorTileRunTests.run(split, format: format, ["--shard", "\(k)/2"], scratch: scratch) == 0) }
            #expect(try VectorTileRunTests.run(split, format: format, ["--finish"], scratch: scratch) == 0)
            #expect(try VectorTileRunTests.pyramid(split) == expected)
            #expect(VectorTileRunTests.names(in: place) == [output, output + ".shards"])
            #expect(VectorTileRunTests.names(in: scratch).isEmpty)
        }
    }

    /// The viewer of image tiles drawn from vector data (Leaflet, offline) shows what `meridian
    /// render` draws of the same data over the view the page opened on: inside each polygon its
    /// fill colour, outside the page's background, each polygon's fill over as many pixels.
    @Test(.enabled(if: chromiumInstalled, "needs Chromium (Scripts/bootstrap --test installs it)"))
    func drawnTilesViewerShowsWhatRenderDraws() throws {
        let polygons = fixture("geojson/viewer-polygons.geojson")
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("tiles")
            let tiled = try meridian(["tile", polygons, out.path, "--tile-format", "png", "--viewer", "--zoom", "0-5", "-q"])
            #expect(tiled.status == 0, "\(tiled.stderr)")
            let html = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
            #expect(!html.contains("http://") && !html.contains("https://") && html.contains("leaflet/leaflet.js"))

            try VectorViewerCommandTests.expectShowsWhatRenderDraws(
                page: out.appendingPathComponent("index.html"), of: polygons, in: folder,
                view: "[map.getBounds().getWest(), map.getBounds().getSouth(), map.getBounds().getEast(), map.getBounds().getNorth()]",
                place: "p => { const q = map.latLngToContainerPoint([p[1], p[0]]); return [q.x, q.y]; }", minimumFill: 5_000)
        }
    }
}
