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

    /// The preview of a file drawn from the polygons as validated.
    static func preview(_ name: String) throws -> SVGPicture {
        try withTemporaryFolder { folder in
            let svg = folder.appendingPathComponent("preview.svg").path
            let made = try meridian(["coverage", "validate", fixture("coverage/cases/\(name)"), "--preview", svg, "--size", "480x320"])
            #expect(FileManager.default.fileExists(atPath: svg), "\(made.stderr)")
            return SVGPicture(try String(contentsOfFile: svg, encoding: .utf8))
        }
    }

    /// Each finding is drawn where it points: a hole as a hole with its pin on it, a ring too
    /// short to enclose anything as a line with its pin, a ring across ±180° as the small box it
    /// is with its pin at 180°, a self-intersection's pin where the edges cross.
    @Test func showsEveryFindingWhereItPoints() throws {
        func marker(_ picture: SVGPicture, _ rule: String) throws -> SVGPicture.Marker {
            try #require(picture.markers.first { $0.title == rule }, "no pin for \(rule): \(picture.markers.map(\.title))")
        }
        let hole = try Self.preview("hole.geojson")
        let rings = try #require(hole.paths.first)
        #expect(rings.count == 2, "the polygon and its hole")
        let holePin = try marker(hole, "holes")
        #expect(abs(holePin.x - rings[1][0].x) < 0.02 && abs(holePin.y - rings[1][0].y) < 0.02, "the pin is on the hole")

        let short = try Self.preview("short-ring.geojson")
        let line = try #require(short.paths.first?.first)
        #expect(line.count == 3)
        let shortPin = try marker(short, "ring-length")
        #expect(abs(shortPin.x - line[0].x) < 0.02 && abs(shortPin.y - line[0].y) < 0.02)

        let fiji = try Self.preview("crosses-antimeridian.geojson")
        let box = fiji.points
        let (left, right) = (box.map(\.x).min()!, box.map(\.x).max()!), (top, bottom) = (box.map(\.y).min()!, box.map(\.y).max()!)
        // Two degrees of longitude by one of latitude (179° to 181°), not a line round the world.
        #expect((right - left) / (bottom - top) > 1.8 && (right - left) / (bottom - top) < 2.2, "\(left)...\(right) × \(top)...\(bottom)")
        let crossing = try marker(fiji, "antimeridian")
        #expect(abs(crossing.x - (left + right) / 2) < 0.02 && abs(crossing.y - bottom) < 0.02, "at 180°, -17°")

        let bowtie = try Self.preview("bowtie.geojson")
        let edges = bowtie.points
        let middle = ((edges.map(\.x).min()! + edges.map(\.x).max()!) / 2, (edges.map(\.y).min()! + edges.map(\.y).max()!) / 2)
        let selfCrossing = try marker(bowtie, "self-intersection")
        #expect(abs(selfCrossing.x - middle.0) < 0.02 && abs(selfCrossing.y - middle.1) < 0.1, "at 1°, 1°, where the edges cross")
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

/// Which GDAL driver: never guessed from an extension other drivers share, never a mistyped name.
@Suite struct GDALFormatChoiceTests {
    static let countries = fixture("geojson/ne_10m_countries_sample.geojson")

    /// `-o out.xml` wrote NASA PDS4 (the first driver declaring .xml) and an `out/` folder.
    @Test func anUnusualExtensionNeedsTo() throws {
        try withTemporaryFolder { folder in
            let xml = folder.appendingPathComponent("out.xml").path
            let guessed = try meridian(["convert", Self.countries, "-o", xml])
            #expect(guessed.status == 64)
            #expect(guessed.stderr.contains("--to") && guessed.stderr.contains("GML"), "\(guessed.stderr)")
            #expect(contents(of: folder).isEmpty)
            // Named, it is written; a common extension needs no name.
            let named = try meridian(["convert", Self.countries, "--to", "GML", "-o", xml])
            #expect(named.status == 0, "\(named.stderr)")
            let gml = try meridian(["convert", Self.countries, "-o", folder.appendingPathComponent("out.gml").path])
            #expect(gml.status == 0, "\(gml.stderr)")
            #expect(try meridian(["info", folder.appendingPathComponent("out.gml").path]).stdout.contains("features:   31"))
        }
    }

    @Test func aMistypedFormatNameIsNamed() throws {
        try withTemporaryFolder { folder in
            let toStdout = try meridian(["convert", Self.countries, "--to", "geojsn"])
            #expect(toStdout.status == 64)
            #expect(toStdout.stderr.contains("unknown format") && toStdout.stderr.contains("did you mean 'geojson'?"), "\(toStdout.stderr)")
            let toFile = try meridian(["convert", Self.countries, "--to", "geojsn", "-o", folder.appendingPathComponent("x.geojson").path])
            #expect(toFile.status == 64)
            #expect(toFile.stderr.contains("did you mean 'geojson'?"), "\(toFile.stderr)")
            #expect(contents(of: folder).isEmpty)
            let from = try meridian(["info", "--from", "geojsn", Self.countries])
            #expect(from.status == 64)
            #expect(from.stderr.contains("did you mean 'geojson'?"), "\(from.stderr)")
        }
    }

    /// `--from` names the only driver tried: it used to be ignored, GDAL reading whatever it recognised.
    @Test func fromNamesTheDriver() throws {
        try withTemporaryFolder { folder in
            let gpkg = folder.appendingPathComponent("countries.gpkg").path
            let written = try meridian(["convert", Self.countries, "-o", gpkg])
            #expect(written.status == 0, "\(written.stderr)")
            #expect(try meridian(["info", "--from", "gpkg", gpkg]).status == 0)
            #expect(try meridian(["info", "--from", "fgb", gpkg]).status == 65)
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
