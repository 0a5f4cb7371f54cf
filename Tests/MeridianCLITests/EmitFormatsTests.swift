import Foundation
import Testing

@Suite struct MapKitSourceTests {
    /// The generated source compiles against a stand-in MapKit module (MapKit is not on Linux)
    /// and, run, builds the overlays and annotations the features describe.
    @Test(.timeLimit(.minutes(10))) func compilesAndBuildsTheOverlays() throws {
        try withTemporaryFolder { folder in
            func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
            // A geodesic, a circle, the togeojson polygon-with-hole and point fixtures, together.
            #expect(try meridian(["geodesic", "--from", "34.05,-118.24", "--to", "35.68,139.69", "-o", path("geodesic.geojson")]).status == 0)
            #expect(try meridian(["circle", "--center", "37.33,-122.0", "--radius", "1000", "-o", path("circle.geojson")]).status == 0)
            var features: [String] = []
            for file in [path("geodesic.geojson"), path("circle.geojson"), fixture("kml/togeojson/polygon.kml"), fixture("kml/togeojson/point.kml")] {
                let seq = try meridian(["convert", file, "--to", "geojsonseq"])
                #expect(seq.status == 0, "\(seq.stderr)")
                features.append(seq.stdout)
            }
            let swift = try meridian(["convert", "--from", "geojsonseq", "--to", "swift", "-o", path("Overlays.swift")],
                                     stdin: Data(features.joined().utf8))
            #expect(swift.status == 0, "\(swift.stderr)")

            try FileManager.default.copyItem(atPath: fixture("swift/MapKit.swift"), toPath: path("MapKit.swift"))
            try """
                import MapKit
                for overlay in MeridianOverlays.overlays() {
                    switch overlay {
                    case let p as MKPolygon: print("MKPolygon", p.pointCount, p.interiorPolygons?.count ?? 0, p.title ?? "")
                    case let g as MKGeodesicPolyline: print("MKGeodesicPolyline", g.pointCount)
                    case let l as MKPolyline: print("MKPolyline", l.pointCount)
                    case let c as MKCircle: print("MKCircle", c.radius, c.coordinate.latitude)
                    default: print("other")
                    }
                }
                for annotation in MeridianOverlays.annotations() { print("MKPointAnnotation", annotation.title ?? "", annotation.coordinate.longitude) }
                """.write(toFile: path("main.swift"), atomically: true, encoding: .utf8)
            let module = try run("swiftc", ["-parse-as-library", "-emit-library", "-static", "-emit-module", "-module-name", "MapKit",
                                            "MapKit.swift", "-o", "libMapKit.a"], in: folder)
            #expect(module.status == 0, "\(module.stderr)")
            let app = try run("swiftc", ["Overlays.swift", "main.swift", "-I", ".", "-L", ".", "-lMapKit", "-o", "app"], in: folder)
            #expect(app.status == 0, "\(app.stderr)")
            let output = try run(path("app"), []).stdout.split(separator: "\n")
            #expect(output.contains("MKGeodesicPolyline 2"), "\(output)")      // from and to: MapKit draws the curve
            #expect(output.contains("MKCircle 1000.0 37.33"), "\(output)")
            #expect(output.contains { $0.hasPrefix("MKPolygon") && $0.hasSuffix(" 1 hollow box") } , "\(output)")
            #expect(output.contains { $0.hasPrefix("MKPointAnnotation") }, "\(output)")
        }
    }
}

/// Outside tools accept what Meridian writes.
@Suite struct OutsideToolsAcceptTheOutput {
    static func available(_ tool: String) -> Bool {
        ((try? run("which", [tool]))?.status ?? 1) == 0
    }

    static let corpus = [fixture("geojson/ne_10m_countries_sample.geojson"), fixture("gpx/mixed.gpx")]
        + ["gxtrack.kml", "multigeometry.kml", "point.kml", "polygon.kml", "inline_style.kml", "multitrack.kml"].map { fixture("kml/togeojson/\($0)") }

    @Test(.enabled(if: available("xmllint"))) func gpxValidatesAgainstTheSchema() throws {
        try withTemporaryFolder { folder in
            for (i, input) in Self.corpus.enumerated() {
                let out = folder.appendingPathComponent("\(i).gpx").path
                #expect(try meridian(["convert", input, "-o", out]).status == 0)
                let check = try run("xmllint", ["--noout", "--schema", fixture("gpx/gpx-1.1.xsd"), out])
                #expect(check.status == 0, "\(input): \(check.stderr)")
            }
        }
    }

    @Test(.enabled(if: available("rsvg-convert"))) func svgRendersWithoutErrors() throws {
        try withTemporaryFolder { folder in
            for (i, input) in Self.corpus.enumerated() {
                let svg = folder.appendingPathComponent("\(i).svg").path, png = folder.appendingPathComponent("\(i).png").path
                let made = try meridian(["convert", input, "-o", svg, "--size", "400x300"])
                #expect(made.status == 0, "\(made.stderr)")
                let rendered = try run("rsvg-convert", [svg, "-o", png])
                #expect(rendered.status == 0 && rendered.stderr.isEmpty, "\(input): \(rendered.stderr)")
                #expect(FileManager.default.fileExists(atPath: png))
            }
        }
    }

    @Test(.enabled(if: available("gdalinfo"))) func pngOpensInGDALWithTheExpectedSize() throws {
        try withTemporaryFolder { folder in
            let png = folder.appendingPathComponent("countries.png").path
            let made = try meridian(["render", Self.corpus[0], "-o", png, "--size", "300x200", "--scale", "2", "--heading", "30"])
            #expect(made.status == 0, "\(made.stderr)")
            let info = try run("gdalinfo", [png])
            #expect(info.status == 0)
            #expect(info.stdout.contains("Driver: PNG/Portable Network Graphics"))
            #expect(info.stdout.contains("Size is 600, 400"), "\(info.stdout)")
            // A stated view with nothing in it still makes a picture (blank), not an error.
            let empty = try meridian(["render", Self.corpus[0], "-o", png, "--view-tile", "10/0/0"])
            #expect(empty.status == 0, "\(empty.stderr)")
        }
    }

    @Test(.enabled(if: available("ogrinfo"))) func ogrReadsGPXAndCSVBack() throws {
        try withTemporaryFolder { folder in
            let csv = folder.appendingPathComponent("countries.csv").path
            #expect(try meridian(["convert", Self.corpus[0], "-o", csv]).status == 0)
            let info = try run("ogrinfo", ["-so", "-al", csv])
            #expect(info.stdout.contains("Feature Count: 31"), "\(info.stdout)")
            let gpx = folder.appendingPathComponent("walk.gpx").path
            #expect(try meridian(["convert", Self.corpus[1], "-o", gpx]).status == 0)
            let tracks = try run("ogrinfo", ["-so", gpx, "tracks"])
            #expect(tracks.stdout.contains("Feature Count: 1"), "\(tracks.stdout)")
            let waypoints = try run("ogrinfo", ["-so", gpx, "waypoints"])
            #expect(waypoints.stdout.contains("Feature Count: 1"), "\(waypoints.stdout)")
        }
    }
}

@Suite struct CoveragePreviewTests {
    @Test func colorsPolygonsByTheirWorstIssue() throws {
        try withTemporaryFolder { folder in
            let svg = folder.appendingPathComponent("preview.svg").path
            let warned = try meridian(["coverage", "validate", fixture("coverage/cases/bowtie.geojson"), "--preview", svg])
            #expect(warned.status == 0)
            let text = try String(contentsOfFile: svg, encoding: .utf8)
            #expect(text.contains("fill=\"#f0a020\""))            // the warned polygon is orange
            #expect(text.contains(">self-intersection</text>"))   // and a pin names the rule
            let clean = try meridian(["coverage", "validate", fixture("coverage/cases/three-cities.geojson"), "--preview", svg])
            #expect(clean.status == 0)
            let cleanText = try String(contentsOfFile: svg, encoding: .utf8)
            #expect(cleanText.contains("fill=\"#2f7dd1\"") && !cleanText.contains("#f0a020"))
            #expect(try meridian(["coverage", "validate", "--preview", svg]).status == 64)  // stdin cannot be drawn
        }
    }
}

/// GDAL's formats through meridian-gdal: written with typed fields, read back exactly.
@Suite struct GDALVectorFormatTests {
    static let countries = fixture("geojson/ne_10m_countries_sample.geojson")

    /// Every position's text as Meridian writes it (shortest round-trip form): the same double
    /// always reads the same, so two of Meridian's outputs compare position by position.
    func positions(_ geojson: String) -> [Substring] {
        geojson.matches(of: #/\[-?[0-9][0-9.e+-]*,-?[0-9][0-9.e+-]*(,-?[0-9][0-9.e+-]*)?\]/#).map(\.output.0)
    }

    @Test(arguments: ["countries.gpkg", "countries.shp", "countries.fgb"])
    func writesThroughGDALAndReadsBack(_ name: String) throws {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent(name).path
            let written = try meridian(["convert", Self.countries, "-o", path])
            #expect(written.status == 0, "\(written.stderr)")
            let info = try run("ogrinfo", ["-so", "-al", path])
            #expect(info.stdout.contains("Feature Count: 31"), "\(info.stdout)")
            #expect(info.stdout.contains("POP_EST: Integer64") || info.stdout.contains("POP_EST: Real"), "\(info.stdout)")
            // One field per property key (168 in Natural Earth's table).
            #expect(info.stdout.matches(of: #/(?m)^[A-Za-z_0-9]+: [A-Za-z0-9]+ \(/#).count == 168)
            let back = try meridian(["convert", path, "--to", "geojson"])
            #expect(back.status == 0, "\(back.stderr)")
            // FlatGeobuf orders features along its spatial index: compare the sets of positions.
            let original = positions(try meridian(["convert", Self.countries]).stdout)
            let roundTripped = positions(back.stdout)
            #expect(original.count > 2000)
            #expect(original.sorted() == roundTripped.sorted())
            // From standard input too (set aside for GDAL), except a shapefile, which is several files.
            guard !name.hasSuffix(".shp") else { return }
            let format = String(name.split(separator: ".").last!)
            let piped = try meridian(["convert", "--from", format, "--to", "geojson"], stdin: try Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(piped.status == 0, "\(piped.stderr)")
            #expect(positions(piped.stdout).sorted() == original.sorted())
            let garbage = try meridian(["convert", "--from", format, "--to", "geojson"], stdin: Data("not \(format)\n".utf8))
            #expect(garbage.status == 65 && garbage.stderr.hasPrefix("meridian: error: <stdin>: GDAL cannot open it"), "\(garbage.stderr)")
        }
    }

    @Test func failuresLeaveNothingAndExplainThemselves() throws {
        try withTemporaryFolder { folder in
            let unknown = try meridian(["convert", Self.countries, "-o", folder.appendingPathComponent("x.nosuchformat").path])
            #expect(unknown.status == 64)
            #expect(unknown.stderr.contains("meridian formats"))
            let toStdout = try meridian(["convert", Self.countries, "--to", "gpkg"])
            #expect(toStdout.status == 64)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
            let formats = try meridian(["formats"])
            #expect(formats.status == 0)
            #expect(formats.stdout.contains("GPKG") && formats.stdout.contains("ESRI Shapefile") && formats.stdout.contains("gpx"))
        }
    }
}

@Suite struct RenderBasemapTests {
    /// A chart tiled by `meridian tile`, as a folder and as MBTiles, under the same route: the
    /// two pictures are the same, and the chart is in them.
    @Test(.timeLimit(.minutes(10))) func drawsTheChartFromAFolderOrMBTiles() throws {
        try withTemporaryFolder { folder in
            func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
            let chart = fixture("raster/19347_2.KAP")
            #expect(try meridian(["tile", chart, path("tiles"), "--zoom", "15-16", "-q"]).status == 0)
            #expect(try meridian(["tile", chart, path("tiles.mbtiles"), "--zoom", "15-16", "-q"]).status == 0)
            let route = fixtures.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples/data/manele-bay-route.geojson").path
            let common = [route, "--size", "320x200", "--view", "-156.8889,20.7385,-156.8774,20.7449"]
            for (name, extra) in [("folder.png", ["--basemap", path("tiles")]), ("mbtiles.png", ["--basemap", path("tiles.mbtiles")]), ("plain.png", [])] {
                let run = try meridian(["render"] + common + extra + ["-o", path(name)])
                #expect(run.status == 0, "\(run.stderr)")
            }
            let fromFolder = FileManager.default.contents(atPath: path("folder.png")), fromMBTiles = FileManager.default.contents(atPath: path("mbtiles.png"))
            let plain = FileManager.default.contents(atPath: path("plain.png"))
            #expect(fromFolder != nil && fromFolder == fromMBTiles)
            #expect(fromFolder!.count > 4 * plain!.count, "the chart's detail is in the picture")
            let missing = try meridian(["render"] + common + ["--basemap", path("nothing-here"), "-o", path("x.png")])
            #expect(missing.status == 66)
        }
    }
}

/// Issue 13: GPX output dropped `description`. Every writer keeps a feature's `name` and
/// `description` where its format has a place for them, checked with the tools users open the
/// files with: GPX wpt/trk/rte name and desc, KML name and description, CSV and GeoPackage
/// columns (read by ogrinfo), SVG title and desc (xmllint), MapKit titles and subtitles. KML's
/// HTML descriptions arrive as their HTML, not as JSON.
@Suite struct NamesAndDescriptionsTests {
    static let features = """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","geometry":{"type":"Point","coordinates":[8.5405,47.3659]},"properties":{"name":"Pier","description":"Boats leave hourly"}},
        {"type":"Feature","geometry":{"type":"LineString","coordinates":[[8.54,47.36],[8.55,47.35]]},"properties":{"name":"Walk","description":"Along the lake"}}
        ]}
        """

    /// `ogrinfo -al` of a file, one layer or all.
    func ogrinfo(_ path: String, _ layer: String? = nil) throws -> String {
        let info = try run("ogrinfo", ["-al", "-q", path] + (layer.map { [$0] } ?? []))
        #expect(info.status == 0, "\(info.stderr)")
        return info.stdout
    }

    @Test(.enabled(if: OutsideToolsAcceptTheOutput.available("ogrinfo") && OutsideToolsAcceptTheOutput.available("xmllint")))
    func everyWriterKeepsNameAndDescription() throws {
        try withTemporaryFolder { folder in
            func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
            try Self.features.write(toFile: path("in.geojson"), atomically: true, encoding: .utf8)
            for output in ["out.gpx", "routes.gpx", "out.kml", "out.csv", "out.gpkg", "out.svg", "Out.swift"] {
                let made = try meridian(["convert", path("in.geojson"), "-o", path(output)] + (output == "routes.gpx" ? ["--gpx-routes"] : []))
                #expect(made.status == 0, "\(output): \(made.stderr)")
            }
            for gpx in ["out.gpx", "routes.gpx"] {
                let valid = try run("xmllint", ["--noout", "--schema", fixture("gpx/gpx-1.1.xsd"), path(gpx)])
                #expect(valid.status == 0, "\(valid.stderr)")
            }
            let waypoints = try ogrinfo(path("out.gpx"), "waypoints")
            #expect(waypoints.contains("name (String) = Pier") && waypoints.contains("desc (String) = Boats leave hourly"), "\(waypoints)")
            let tracks = try ogrinfo(path("out.gpx"), "tracks")
            #expect(tracks.contains("name (String) = Walk") && tracks.contains("desc (String) = Along the lake"), "\(tracks)")
            let routes = try ogrinfo(path("routes.gpx"), "routes")
            #expect(routes.contains("name (String) = Walk") && routes.contains("desc (String) = Along the lake"), "\(routes)")
            let kml = try ogrinfo(path("out.kml"))
            #expect(kml.contains("Name (String) = Pier") && kml.contains("description (String) = Boats leave hourly"), "\(kml)")
            for table in ["out.csv", "out.gpkg"] {
                let info = try ogrinfo(path(table))
                #expect(info.contains("name (String) = Walk") && info.contains("description (String) = Along the lake"), "\(table): \(info)")
            }
            for (element, text) in [("title", "Walk"), ("desc", "Along the lake")] {
                let svg = try run("xmllint", ["--xpath", "string(//*[local-name()='path']/*[local-name()='\(element)'])", path("out.svg")])
                #expect(svg.stdout.trimmingCharacters(in: .newlines) == text, "SVG \(element): \(svg.stdout) \(svg.stderr)")
            }
            let swift = try String(contentsOfFile: path("Out.swift"), encoding: .utf8)
            #expect(swift.contains("shape.title = \"Pier\"") && swift.contains("shape.subtitle = \"Boats leave hourly\""))
            #expect(swift.contains("shape.title = \"Walk\"") && swift.contains("shape.subtitle = \"Along the lake\""))

            // A KML description in CDATA is HTML: its text goes into GPX's desc and CSV's column.
            let lakeWalk = fixtures.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples/data/lake-walk.kml").path
            for output in ["lake.gpx", "lake.csv"] {
                #expect(try meridian(["convert", lakeWalk, "-o", path(output), "-q"]).status == 0)
            }
            #expect(try ogrinfo(path("lake.gpx"), "waypoints").contains("desc (String) = <b>Boats</b> leave every 30 minutes."))
            #expect(try ogrinfo(path("lake.csv")).contains("description (String) = <b>Boats</b> leave every 30 minutes."))
        }
    }
}
