import Foundation
import MeridianFormats
import MeridianRaster
import MeridianTestSupport
import MeridianTiles
import Testing
import MeridianCore

/// Where Scripts/bootstrap puts MapLibre GL JS for a checkout's `.build/*/meridian`.
let checkoutMapLibre = packageRoot.appendingPathComponent(".build/share/meridian/maplibre-gl").path
let chromiumInstalled = FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
let mapLibreInstalled = FileManager.default.fileExists(atPath: checkoutMapLibre + "/maplibre-gl.js")

/// A page's picture in headless Chromium, taken by Scripts/browser-screenshot.py once the page
/// says it has drawn (the viewers' ready flag), and what `evaluate` gave then (JSON), if given.
func browserScreenshot(of page: URL, into shot: URL, size: (width: Int, height: Int) = (640, 480),
                       evaluate: String? = nil) throws -> (image: DecodedImage, evaluated: Any?) {
    let script = packageRoot.appendingPathComponent("Scripts/browser-screenshot.py").path
    let result = try run("python3", [script, page.absoluteString, shot.path, "--size", "\(size.width)x\(size.height)", "--timeout", "90"]
                         + (evaluate.map { ["--evaluate", $0] } ?? []))
    #expect(result.status == 0, "browser-screenshot: \(result.stderr)")
    let evaluated = try evaluate.map { _ in try JSONSerialization.jsonObject(with: Data(result.stdout.utf8), options: [.fragmentsAllowed]) }
    return (try DecodedImage(path: shot.path), evaluated)
}

/// `meridian tile --viewer` of vector tiles: a MapLibre GL JS page that works offline from disk.
@Suite struct VectorViewerCommandTests {
    let polygons = fixture("geojson/viewer-polygons.geojson")

    typealias Colour = (Double, Double, Double)
    /// The viewer's background; `meridian render` draws on white.
    static let viewerPaper: Colour = (221, 228, 234), renderPaper: Colour = (255, 255, 255)
    /// The fixture's two polygons' fills: the plain one in `meridian render`'s default
    /// (#555555 at 60 %), the other in its own (#2f7dd1 at 80 %).
    static let fills: [(colour: Colour, opacity: Double)] = [((85, 85, 85), 0.6), ((47, 125, 209), 0.8)]

    /// `colour` at `opacity` over `paper`.
    static func over(_ colour: Colour, _ opacity: Double, on paper: Colour) -> Colour {
        (colour.0 * opacity + paper.0 * (1 - opacity), colour.1 * opacity + paper.1 * (1 - opacity), colour.2 * opacity + paper.2 * (1 - opacity))
    }

    /// The pixel at (x, y), laid over `paper` by its alpha.
    static func colour(_ image: DecodedImage, _ x: Int, _ y: Int, on paper: Colour) -> Colour {
        let p = image.pixel(x: min(max(x, 0), image.width - 1), y: min(max(y, 0), image.height - 1)), a = Double(p.a) / 255
        return (Double(p.r) * a + paper.0 * (1 - a), Double(p.g) * a + paper.1 * (1 - a), Double(p.b) * a + paper.2 * (1 - a))
    }

    /// The mean colour of the 5 × 5 pixels around (x, y).
    static func mean(_ image: DecodedImage, _ x: Double, _ y: Double, on paper: Colour) -> Colour {
        var sum: Colour = (0, 0, 0)
        for dy in -2...2 {
            for dx in -2...2 {
                let c = colour(image, Int(x) + dx, Int(y) + dy, on: paper)
                sum = (sum.0 + c.0, sum.1 + c.1, sum.2 + c.2)
            }
        }
        return (sum.0 / 25, sum.1 / 25, sum.2 / 25)
    }

    static func near(_ a: Colour, _ b: Colour, within tolerance: Double = 10) -> Bool {
        abs(a.0 - b.0) <= tolerance && abs(a.1 - b.1) <= tolerance && abs(a.2 - b.2) <= tolerance
    }

    /// The picture's pixels of `colour` (within 10 in each channel).
    static func count(_ image: DecodedImage, _ colour: Colour, on paper: Colour) -> Int {
        var found = 0
        for y in 0..<image.height {
            for x in 0..<image.width where near(Self.colour(image, x, y, on: paper), colour) { found += 1 }
        }
        return found
    }

    /// Inside the plain polygon, inside the blue one, and well outside both (between them;
    /// between the plain one and the line): longitude, latitude.
    static let places = [[-10.0, 0.0], [20.0, 5.0], [5.0, 0.0], [-10.0, 15.0]]

    /// The issue's comparison, for a viewer page of the fixture's polygons (`data`): headless
    /// Chromium's picture of `page` against `meridian render` of `data` over the view the page
    /// opened on (`view`, JavaScript giving west, south, east, north; `place`, a JavaScript
    /// function from a longitude and latitude to the page's pixel): inside each polygon both
    /// show its fill colour, well outside both show the background, and each polygon's fill
    /// covers as many pixels in both (within 2 %, and more than `minimumFill` in the render).
    static func expectShowsWhatRenderDraws(page: URL, of data: String, in folder: URL, view: String, place: String, minimumFill: Int) throws {
        let (shot, evaluated) = try browserScreenshot(
            of: page, into: folder.appendingPathComponent("viewer.png"),
            evaluate: "({ view: \(view), places: \(places).map(\(place)) })")
        let answer = try #require(evaluated as? [String: Any])
        let bounds = try #require(answer["view"] as? [Double]), pixels = try #require(answer["places"] as? [[Double]])
        #expect(bounds.count == 4 && pixels.count == places.count)

        let renderPath = folder.appendingPathComponent("render.png").path
        let rendered = try meridian(["render", data, "--view=\(bounds.map { String($0) }.joined(separator: ","))", "--size", "\(shot.width)x\(shot.height)", "-o", renderPath])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        let render = try DecodedImage(path: renderPath)

        // Inside the plain polygon, inside the blue one, outside both twice.
        let shown: [Int?] = [0, 1, nil, nil]
        for (index, pixel) in pixels.enumerated() {
            for (image, paper, name) in [(shot, viewerPaper, "viewer"), (render, renderPaper, "render")] {
                let expected = shown[index].map { over(fills[$0].colour, fills[$0].opacity, on: paper) } ?? paper
                let found = mean(image, pixel[0], pixel[1], on: paper)
                #expect(near(found, expected), "\(name) at \(places[index]): \(found), not \(expected)")
            }
        }
        // Each polygon's fill covers as many pixels in both (a polygon moved or scaled would not).
        for fill in fills {
            let inViewer = count(shot, over(fill.colour, fill.opacity, on: viewerPaper), on: viewerPaper)
            let inRender = count(render, over(fill.colour, fill.opacity, on: renderPaper), on: renderPaper)
            #expect(inRender > minimumFill && abs(inViewer - inRender) * 50 < inRender, "pixels of \(fill): viewer \(inViewer), render \(inRender)")
        }
    }

    /// The issue's check: headless Chromium shows the viewer of a vector pyramid of two
    /// polygons (MapLibre GL JS, from disk, no network) as `meridian render` draws the same
    /// data over the view the page opened on: inside each polygon both show its fill colour,
    /// well outside both show the background, and each polygon covers as many pixels in both.
    @Test(.enabled(if: chromiumInstalled, "needs Chromium (Scripts/bootstrap --test installs it)"),
          .enabled(if: mapLibreInstalled, "needs MapLibre GL JS in .build/share/meridian/maplibre-gl (Scripts/bootstrap fetches it)"))
    func viewerShowsThePolygonsAsRenderDrawsThem() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("tiles")
            let tiled = try meridian(["tile", polygons, out.path, "--viewer", "--zoom", "0-4"])
            #expect(tiled.status == 0 && tiled.stderr.contains("index.html"), "\(tiled.stderr)")
            let html = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
            #expect(!html.contains("http://") && !html.contains("https://") && html.contains("viewer/maplibre-gl.js"))
            for file in ["viewer/maplibre-gl.js", "viewer/maplibre-gl.css", "viewer/tiles/0/0/0.js", "0/0/0.pbf", "metadata.json"] {
                #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(file).path), "\(file)")
            }
            #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent(".viewer.partial").path))

            try Self.expectShowsWhatRenderDraws(page: out.appendingPathComponent("index.html"), of: polygons, in: folder,
                                                view: "map.getBounds().toArray().flat()",
                                                place: "p => { const q = map.project(p); return [q.x, q.y]; }", minimumFill: 20_000)
        }
    }

    /// Without MapLibre GL JS where meridian looks for it, a vector run with --viewer stops
    /// before tiling with 69 (unavailable), saying what to install, and writes nothing; image
    /// tiles' viewer (Leaflet) is not affected. The binaries are run from a folder of their own
    /// (hard links), with no share/meridian/maplibre-gl beside it.
    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/usr/share/meridian/maplibre-gl/maplibre-gl.js"), "MapLibre is installed system-wide"))
    func viewerWithoutMapLibreIsUnavailable() throws {
        let build = URL(fileURLWithPath: meridianBinary).deletingLastPathComponent()
        let elsewhere = packageRoot.appendingPathComponent(".build/viewer-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let bin = elsewhere.appendingPathComponent("usr/bin")   // share/ looked for in usr/ and the test folder
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        for tool in ["meridian", "meridian-gdal"] {
            try FileManager.default.linkItem(at: build.appendingPathComponent(tool), to: bin.appendingPathComponent(tool))
        }
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("tiles")
            let refused = try run(bin.appendingPathComponent("meridian").path, ["tile", polygons, out.path, "--viewer", "--zoom", "0-2"])
            #expect(refused.status == ExitStatus.helperUnavailable, "\(refused.status): \(refused.stderr)")
            #expect(refused.stderr.contains("MapLibre") && refused.stderr.contains("bootstrap"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
            // Without --viewer the same run tiles.
            #expect(try run(bin.appendingPathComponent("meridian").path, ["tile", polygons, out.path, "--zoom", "0-2", "-q"]).status == 0)
        }
    }

    /// MBTiles and PMTiles outputs refuse --viewer (usage), saying why: a page opened from disk
    /// cannot read them.
    @Test func viewerOfAnArchiveIsRefused() throws {
        try withTemporaryFolder { folder in
            for name in ["tiles.mbtiles", "tiles.pmtiles"] {
                let out = folder.appendingPathComponent(name)
                let refused = try meridian(["tile", polygons, out.path, "--viewer"])
                #expect(refused.status == ExitStatus.usage && refused.stderr.contains("--viewer"), "\(refused.stderr)")
                #expect(!FileManager.default.fileExists(atPath: out.path))
            }
        }
    }

    /// The library refuses to write the page where one is already, and names where it looked
    /// for MapLibre when it is not there.
    @Test func libraryRefusesWhatItWouldReplace() throws {
        try withTemporaryFolder { folder in
            #expect(throws: TileOutputError.mapLibreMissing(folder: folder.path, searched: [folder.path + "/none"])) {
                try VectorTileViewer.locateMapLibre(for: folder.path, in: [folder.path + "/none"])
            }
            let out = folder.appendingPathComponent("tiles")
            #expect(try meridian(["tile", polygons, out.path, "--zoom", "0-1", "-q"]).status == 0)
            let assets = folder.appendingPathComponent("maplibre")
            try FileManager.default.createDirectory(at: assets, withIntermediateDirectories: true)
            for file in ["maplibre-gl.js", "maplibre-gl.css"] { try Data("/* stand-in */".utf8).write(to: assets.appendingPathComponent(file)) }
            #expect(try VectorTileViewer.locateMapLibre(for: out.path, in: [folder.path + "/none", assets.path]) == assets.path)
            let tiles = try TileFolderReader(path: out.path).tileAddresses(zooms: nil)
            #expect(try VectorTileViewer.write(folder: out.path, mapLibre: assets.path) == tiles.count && tiles.count >= 2)
            for tile in tiles {
                #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("viewer/tiles/\(tile.zoom)/\(tile.x)/\(tile.y).js").path))
            }
            do {
                try VectorTileViewer.write(folder: out.path, mapLibre: assets.path)
                Issue.record("a second viewer replaced the first")
            } catch let failure as any MeridianFailure {
                #expect(failure.kind == .cannotCreateOutput && failure.location?.file.hasSuffix("/viewer") == true, "\(failure)")
            }
        }
    }
}
