import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
@testable import MeridianTiles
import Testing
@testable import MeridianRaster
import MeridianTestSupport

/// A file under Tests/Fixtures/raster.
func raster(_ name: String) -> String { fixture("raster/\(name)") }

/// Every `z/x/y.ext` under a folder, as "z/x/y".
func tileSet(_ folder: String) -> Set<String> {
    var found = Set<String>()
    for case let path as String in FileManager.default.enumerator(atPath: folder)! {
        let parts = path.split(separator: "/")
        if parts.count == 3, Int(parts[0]) != nil, !parts[2].hasPrefix("."), let dot = parts[2].firstIndex(of: ".") {
            found.insert("\(parts[0])/\(parts[1])/\(parts[2][..<dot])")
        }
    }
    return found
}

/// Expects each PNG tile `names` ("z/x/y") in `folder` to be byte for byte the one in `reference`.
func expectSamePNGTiles(_ names: some Sequence<String>, in folder: String, as reference: String, _ label: String,
                        sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    for name in names {
        #expect(FileManager.default.contents(atPath: "\(folder)/\(name).png") == FileManager.default.contents(atPath: "\(reference)/\(name).png"),
                "\(label): \(name)", sourceLocation: sourceLocation)
    }
}

@discardableResult
func tile(_ input: String, _ output: String, zooms: ClosedRange<Int>? = nil, format: TileFormat = .png, scheme: TileScheme = .xyz,
          resampling: Resampling = .average, source options: RasterSourceOptions = RasterSourceOptions(),
          jobs: Int = 2) throws -> (Tiler, TilingSummary) {
    let source = try RasterSource(path: input, options: options)
    let tiler = try Tiler(source: source, options: TilingOptions(zooms: zooms, format: format, resampling: resampling, jobs: jobs))
    let sink: TileSink = output.hasSuffix(".mbtiles")
        ? try MBTilesSink(path: output, format: format, resume: false, identity: tiler.identity())
        : try FolderTileSink(path: output, scheme: scheme, format: format, resume: false, identity: tiler.identity())
    return (tiler, try tiler.run(into: sink))
}

@Suite struct TilePyramidTests {
    let pyramid = TilePyramid()

    @Test func tileBoundsAreWebMercator() {
        let b = pyramid.bounds(MapTile(zoom: 1, x: 0, y: 0))
        #expect(b.minX == -TilePyramid.originShift && b.maxY == TilePyramid.originShift)
        #expect(abs(b.maxX) < 1e-6 && abs(b.minY) < 1e-6)
        #expect(abs(pyramid.resolution(zoom: 0) - 156543.03392804097) < 1e-6)
    }

    @Test func zoomForPixelSizeLikeGdal2tiles() {
        // gdal2tiles: the level above the first whose resolution is finer than the pixel.
        #expect(pyramid.zoom(forPixelSize: 0.681366776329512) == 17)
        #expect(pyramid.zoom(forPixelSize: 156543.04) == 0)
        #expect(pyramid.zoom(forPixelSize: 1.0) == 17)
        #expect(pyramid.zoom(forPixelSize: 2.5) == 15)
    }

    @Test func rangeUsesTheCeilMinusOneRule() {
        // An extent whose west edge is exactly on a tile boundary does not reach the tile to its west.
        let b = pyramid.bounds(MapTile(zoom: 3, x: 4, y: 2))
        let range = pyramid.range(zoom: 3, extent: MercatorExtent(minX: b.minX, minY: b.minY + 1, maxX: b.maxX - 1, maxY: b.maxY - 1))
        #expect(range == TileRange(zoom: 3, minX: 3, minY: 2, maxX: 4, maxY: 2))
        #expect(range.count == 2)
        #expect(Array(range).map(\.description) == ["3/3/2", "3/4/2"])
    }

    @Test func downsampleWeighsByAlpha() {
        // A child whose left half is opaque red and right half transparent black.
        var pixels = [UInt8](repeating: 0, count: 4 * 4 * 4)
        for y in 0..<4 { for x in 0..<2 { pixels.replaceSubrange((y * 4 + x) * 4..<(y * 4 + x) * 4 + 4, with: [255, 0, 0, 255]) } }
        let child = TileImage(size: 4, colorChannels: 3, pixels: pixels)
        // Straddling blocks: alpha halves, colour stays red (no dark fringe).
        let parent = TileImage.downsample([child, nil, nil, nil], size: 4, colorChannels: 3)
        #expect(Array(parent.pixels[0..<4]) == [255, 0, 0, 255])
        #expect(Array(parent.pixels[4..<8]) == [0, 0, 0, 0])
        let mixed = TileImage(size: 4, colorChannels: 3, pixels: (0..<16).flatMap { i -> [UInt8] in i % 2 == 0 ? [200, 100, 0, 255] : [0, 0, 0, 0] })
        let half = TileImage.downsample([mixed, mixed, mixed, mixed], size: 4, colorChannels: 3)
        #expect(Array(half.pixels[0..<4]) == [200, 100, 0, 128])
    }
}

@Suite struct RasterSourceTests {
    @Test func paletteChartIsExpandedAndCut() throws {
        let chart = try RasterSource(path: raster("19347_2.KAP"))
        #expect(chart.driver == "BSB")
        #expect(chart.colorBands == [1, 2, 3])
        #expect(chart.cutline?.hasPrefix("POLYGON ((") == true)
        let kept = try RasterSource(path: raster("19347_2.KAP"), options: RasterSourceOptions(cutCollar: false))
        #expect(kept.cutline == nil)
    }

    /// A chart whose header claims more rows than its bytes hold, or rows wider than its rows'
    /// runs give (GDAL fills a too-wide row from the bytes after it: 2 GB and six minutes for
    /// ten rows of `RA=2000000000,2624`), is bad data naming the chart, before GDAL decodes a
    /// row; the real chart opens.
    @Test func aChartClaimingMoreRowsOrColumnsThanItsBytesHoldIsRefused() throws {
        try withTemporaryFolderPath { folder in
            let chart = try Data(contentsOf: URL(fileURLWithPath: raster("19351_2.KAP")))
            let header = Data("RA=2521,2624".utf8)
            let range = try #require(chart.range(of: header))
            for (claim, refused) in [("RA=2521,2624", false), ("RA=25,999999", true), ("RA=252,99999", true), ("RA=2000000000,2624", true),
                                     ("RA=2522,2624", true), ("RA=2521,2626", true), ("RA=2520,2624", false)] {
                var crafted = chart
                crafted.replaceSubrange(range, with: Data(claim.utf8))
                let path = folder + "/crafted.KAP"
                try crafted.write(to: URL(fileURLWithPath: path))
                if refused {
                    let error = try #require(throws: MeridianError.self, "\(claim)") { try RasterSource(path: path) }
                    #expect(error.exitCode == 65 && error.location?.file == path, "\(claim): \(error)")
                } else {
                    #expect(throws: Never.self) { try RasterSource(path: path) }
                }
            }
        }
    }

    /// Every row of the chart's bytes is decoded for its run lengths: rows in order and where the
    /// index table puts them must each give the width, and a run standing for any number of
    /// pixels does not let a side pass the most a chart may have.
    @Test func aChartsRowsAreCheckedAgainstItsHeader() throws {
        let chart = try Data(contentsOf: URL(fileURLWithPath: raster("19351_2.KAP")))
        #expect(BSBChartRows.check(chart, width: 2521, height: 2624) == nil)
        #expect(BSBChartRows.check(chart, width: 2522, height: 2624) == .shortRow(row: 1, pixels: 2521, width: 2522))
        #expect(BSBChartRows.check(chart, width: BSBChartRows.maximumSide + 1, height: 2) == .sideTooLarge(width: BSBChartRows.maximumSide + 1, height: 2))
        // Header, 0x1A 0x00, 4 bits a pixel; row 1: one run of colour 1 standing for 1 + 2^21 - 1
        // pixels in 4 bytes; row 2 a run of 3 pixels.
        let header = Data("BSB/RA=5,2\r\n".utf8) + Data([0x1A, 0x00, 4])
        let rows = Data([0x01, 0x10 | 0x80, 0xFF, 0xFF, 0x7F, 0x00, 0x02, 0x12, 0x00])
        #expect(BSBChartRows.check(header + rows, width: 3, height: 2) == nil)
        #expect(BSBChartRows.check(header + rows, width: 4, height: 2) == .shortRow(row: 2, pixels: 3, width: 4))
        #expect(BSBChartRows.check(header + rows, width: 3, height: 3) == .rowsEnd(row: 3))
        #expect(BSBChartRows.check(Data("BSB/RA=5,2".utf8), width: 3, height: 2) == .noImageData)
        // An index table (big-endian offsets, then the table's own offset) that puts row 2 at a
        // short row GDAL would take: rows in order are whole, the indexed row 2 is not.
        let start = header.count
        var indexed = header + rows + Data([0x02, 0x11, 0x00])
        let table = indexed.count
        for offset in [start, start + 9, table] { indexed += Data((0..<4).map { UInt8(truncatingIfNeeded: offset >> (24 - 8 * $0)) }) }
        #expect(BSBChartRows.check(indexed, width: 3, height: 2) == .shortRow(row: 2, pixels: 2, width: 3))
    }

    @Test func errorsHaveExitCodes() {
        #expect { try RasterSource(path: raster("missing.tif")) } throws: { ($0 as? MeridianError)?.exitCode == 66 }
        #expect { try RasterSource(path: raster("USERAGREEMENT.TXT")) } throws: { ($0 as? MeridianError)?.exitCode == 65 }
        // A plain JPEG has no georeferencing.
        let jpeg = raster("389225main_sw_1965_1024.jpg")
        #expect(throws: RasterSourceError.noGeoreferencing(path: jpeg)) { try RasterSource(path: jpeg) }
        #expect(RasterSourceError.noGeoreferencing(path: jpeg).exitCode == 65)
        let bands = raster("L7_ETMs.tif")
        #expect(throws: RasterSourceError.noSuchBand(band: 7, bandCount: 6, path: bands)) {
            try RasterSource(path: bands, options: RasterSourceOptions(bands: [7, 2, 1]))
        }
        #expect(RasterSourceError.noSuchBand(band: 7, bandCount: 6, path: bands).exitCode == 64)
    }

    /// The library says what happened in its own words; only the executables name options.
    @Test func typedErrorsNameNoCommandLineFlag() {
        let errors: [any MeridianFailure] = [
            RasterSourceError.unsupportedBandCount(2), RasterSourceError.noSuchBand(band: 4, bandCount: 3, path: "a.tif"),
            RasterSourceError.tooFewControlPoints(2), RasterSourceError.noGeoreferencing(path: "a.jpg"),
            TileOutputError.folderNotEmpty(path: "out"), TileOutputError.nothingToResume(path: "out"),
            TileOutputError.resumeMismatch(path: "out", differences: [.init(name: "zoom", recorded: "0-5", current: "0-6")]),
            TileOutputError.leafletMissing(folder: "out", leaflet: "/nowhere"), TileOutputError.shardStarted(path: "out.shards/shard-0.state"),
        ]
        for error in errors {
            #expect(!error.message.contains("--") && !(error.hint ?? "").contains("--"), "\(error)")
        }
        let notes: [RasterSourceNote] = [.firstThreeBandsTiled(bandCount: 4, tiled: [1, 2, 3]), .scaledToBytes(dataType: "UInt16")]
        #expect(!notes.contains { $0.description.contains("--") })
    }

    @Test func viewerWithoutLeafletSaysWhereItLooked() throws {
        try withTemporaryFolderPath { folder in
            let metadata = TileSetMetadata(name: "t", format: .png, bounds: BoundingBox(west: 0, south: 0, east: 1, north: 1),
                                           minZoom: 0, maxZoom: 1, tileSize: 256, description: "")
            #expect(throws: TileOutputError.leafletMissing(folder: folder, leaflet: folder + "/none")) {
                try TileViewer.write(folder: folder, metadata: metadata, scheme: .xyz, leaflet: folder + "/none")
            }
        }
    }
}

@Suite struct TilerTests {
    /// gdal2tiles.py --xyz (GDAL 3.6.2) on 19347_2.KAP expanded to RGBA wrote exactly these tiles.
    static let gdal2tilesSet: Set<String> = {
        var set: Set<String> = ["14/1051/7226", "14/1052/7226", "15/2103/14452", "15/2103/14453", "15/2104/14452", "15/2104/14453"]
        for x in 4207...4209 { for y in 28905...28907 { set.insert("16/\(x)/\(y)") } }
        for x in 8414...8419 { for y in 57811...57815 { set.insert("17/\(x)/\(y)") } }
        return set
    }()

    @Test func chartGivesGdal2tilesZoomsAndTileSet() throws {
        try withTemporaryFolderPath { folder in
            // With its collar (gdal2tiles cannot cut it): the very same tiles.
            let (tiler, summary) = try tile(raster("19347_2.KAP"), folder + "/out", source: RasterSourceOptions(cutCollar: false))
            #expect(tiler.zooms == 14...17)
            #expect(tileSet(folder + "/out") == Self.gdal2tilesSet)
            #expect(summary.tileCount == 45)
            // Cut along its outline, tiles that hold only collar are not written.
            try tile(raster("19347_2.KAP"), folder + "/cut")
            let cut = tileSet(folder + "/cut")
            #expect(cut.isSubset(of: Self.gdal2tilesSet) && cut.count == 25)
            // Inside the chart, tiles are opaque and written without alpha; at the collar, the
            // cutline leaves transparent pixels.
            let inner = try DecodedImage(path: folder + "/out/17/8416/57813.png")
            #expect(inner.bandCount == 3)
            let edge = try DecodedImage(path: folder + "/out/17/8414/57811.png")
            #expect(edge.bandCount == 4)
            #expect(edge.opaqueCount > 0 && edge.opaqueCount < 256 * 256)
            let json = try String(contentsOfFile: folder + "/out/metadata.json", encoding: .utf8)
            #expect(json.contains("\"tilejson\": \"3.0.0\"") && json.contains("\"minzoom\": 14") && json.contains("\"maxzoom\": 17"))
            #expect(!FileManager.default.fileExists(atPath: folder + "/out/.meridian-tiling"))
        }
    }

    @Test func cutlineRemovesTheCollar() throws {
        try withTemporaryFolderPath { folder in
            try tile(raster("19347_2.KAP"), folder + "/cut", zooms: 15...15)
            try tile(raster("19347_2.KAP"), folder + "/collar", zooms: 15...15, source: RasterSourceOptions(cutCollar: false))
            let cut = try DecodedImage(path: folder + "/cut/15/2103/14453.png")
            let collar = try DecodedImage(path: folder + "/collar/15/2103/14453.png")
            #expect(cut.opaqueCount < collar.opaqueCount)
            #expect(tileSet(folder + "/cut").count == 2 && tileSet(folder + "/collar").count == 4)
        }
    }

    @Test func lowerZoomsComeFromTheLevelBelow() throws {
        try withTemporaryFolderPath { folder in
            try tile(raster("19347_2.KAP"), folder + "/out", zooms: 15...16)
            // The zoom-15 tile equals the 2×2 average of its four zoom-16 children.
            let parent = MapTile(zoom: 15, x: 2104, y: 14453)
            let children = try parent.children.map { child -> TileImage? in
                let path = folder + "/out/\(child.zoom)/\(child.x)/\(child.y).png"
                guard FileManager.default.fileExists(atPath: path) else { return nil }
                let image = try DecodedImage(path: path)
                var rgba = image.rgba
                if image.bandCount == 3 { for i in stride(from: 3, to: rgba.count, by: 4) { rgba[i] = 255 } }
                return TileImage(size: 256, colorChannels: 3, pixels: rgba)
            }
            let expected = TileImage.downsample(children, size: 256, colorChannels: 3)
            let written = try DecodedImage(path: folder + "/out/15/2104/14453.png")
            #expect(written.rgba == expected.pixels)
        }
    }

    @Test func everyFixtureTiles() throws {
        try withTemporaryFolderPath { folder in
            // The whole world in EPSG:4326, clipped at ±85.05°: one opaque tile at zoom 0.
            let (world, _) = try tile(raster("world.rgb.tif"), folder + "/world")
            #expect(world.zooms == 0...0)
            #expect(try DecodedImage(path: folder + "/world/0/0/0.png").bandCount == 3)
            // A black nodata collar becomes transparent: no opaque black pixel anywhere.
            try tile(raster("RGB.byte.half.tif"), folder + "/rgb")
            for name in tileSet(folder + "/rgb") {
                let image = try DecodedImage(path: folder + "/rgb/\(name).png")
                var black = 0
                for i in stride(from: 0, to: image.rgba.count, by: 4) where image.rgba[i + 3] > 0 && image.rgba[i] == 0 && image.rgba[i + 1] == 0 && image.rgba[i + 2] == 0 {
                    black += 1
                }
                #expect(black == 0, "\(name)")
            }
            // A photo georeferenced only by three GCPs.
            let (gemini, gs) = try tile(raster("white-gemini-iv.vrt"), folder + "/gemini")
            #expect(gemini.zooms == 7...9 && gs.tileCount > 10)
            // Six bands, three chosen.
            let (l7, ls) = try tile(raster("L7_ETMs.tif"), folder + "/l7", source: RasterSourceOptions(bands: [3, 2, 1]))
            #expect(l7.sources[0].colorBands == [3, 2, 1] && ls.tileCount > 0)
            // Paletted, in Albers.
            let (_, lcs) = try tile(raster("lc.tif"), folder + "/lc")
            #expect(lcs.tileCount > 0)
            let (_, small) = try tile(raster("rgbsmall.tif"), folder + "/small", format: .jpeg)
            #expect(small.tileCount == 1)
        }
    }

    @Test func controlPointsPutAPlainImageInTheRightPlace() throws {
        try withTemporaryFolderPath { folder in
            // Three corners of the JPEG, from white-gemini-iv.vrt's GCPs (UTM 18N) in degrees.
            let points = [
                ControlPoint(pixel: 0, line: 0, latitude: 25.441266, longitude: -78.408414),
                ControlPoint(pixel: 1024, line: 0, latitude: 25.182248, longitude: -76.601538),
                ControlPoint(pixel: 0, line: 768, latitude: 23.927775, longitude: -78.763685),
            ]
            let (tiler, summary) = try tile(raster("389225main_sw_1965_1024.jpg"), folder + "/out", source: RasterSourceOptions(controlPoints: points))
            // An affine fit through three points is exact: the fourth corner follows.
            let fourth = (latitude: 25.182248 + 23.927775 - 25.441266, longitude: -76.601538 + -78.763685 - -78.408414)
            let lats = points.map(\.latitude) + [fourth.latitude], lons = points.map(\.longitude) + [fourth.longitude]
            let bounds = summary.metadata.bounds
            let slack = 0.01  // one warped pixel is about 0.002°
            #expect(abs(bounds.north - lats.max()!) < slack && abs(bounds.south - lats.min()!) < slack)
            #expect(abs(bounds.west - lons.min()!) < slack && abs(bounds.east - lons.max()!) < slack)
            // Each control point lands on an opaque pixel of its max-zoom tile, and a point
            // outside the image's corner lands on a transparent one.
            let z = tiler.zooms.upperBound
            for point in points {
                let p = MapPoint(Position(longitude: point.longitude, latitude: point.latitude))
                let t = MapTile(containing: p, zoom: z)
                let image = try DecodedImage(path: folder + "/out/\(z)/\(t.x)/\(t.y).png")
                let scale = 256 / (MapWorld.size / Double(1 << z))
                let px = min(255, Int((p.x - t.mapRect.minX) * scale)), py = min(255, Int((p.y - t.mapRect.minY) * scale))
                // Step one pixel into the image (towards its centre).
                let cx = point.pixel == 0 ? min(255, px + 2) : max(0, px - 2), cy = point.line == 0 ? min(255, py + 2) : max(0, py - 2)
                #expect(image.pixel(x: cx, y: cy).a == 255, "\(point)")
            }
        }
    }

    @Test func groundOverlayIsPlacedByItsLatLonBox() throws {
        try withTemporaryFolderPath { folder in
            let (_, summary) = try tile(raster("ground-overlay.kml"), folder + "/out", zooms: 5...7)
            let b = summary.metadata.bounds
            #expect(abs(b.north - 25.44) < 0.01 && abs(b.south - 23.93) < 0.01 && abs(b.east - -76.60) < 0.01 && abs(b.west - -78.76) < 0.01)
            #expect(summary.tileCount > 0)
            // Three zoom-7 pixels inside the north-west corner: opaque; three outside: transparent.
            let scale = 256 / (MapWorld.size / Double(1 << 7))
            let corner = MapPoint(Position(longitude: -78.76, latitude: 25.44))
            func alpha(dx: Double, dy: Double) throws -> UInt8 {
                let p = MapPoint(x: corner.x + dx / scale, y: corner.y + dy / scale)
                let t = MapTile(containing: p, zoom: 7)
                let path = folder + "/out/7/\(t.x)/\(t.y).png"
                guard FileManager.default.fileExists(atPath: path) else { return 0 }
                return try DecodedImage(path: path).pixel(x: Int((p.x - t.mapRect.minX) * scale), y: Int((p.y - t.mapRect.minY) * scale)).a
            }
            #expect(try alpha(dx: 3, dy: 3) == 255)
            #expect(try alpha(dx: -3, dy: -3) == 0)
        }
    }

    /// The same overlay written three other ways tiles to the same pixels as the LatLonBox
    /// KML: its corners as a gx:LatLonQuad (KML orders them from the image's lower-left,
    /// counter-clockwise), behind a Style whose icon comes first, and in a KMZ holding the image
    /// (read in place through /vsizip/), and in a KMZ whose href is a URL while the image sits
    /// in the archive under the URL's file name, as Google's samples have it.
    @Test(arguments: ["quad.kml", "styled.kml", "overlay.kmz", "url.kmz"])
    func groundOverlayWrittenOtherwiseTilesTheSame(_ variant: String) throws {
        try withTemporaryFolderPath { folder in
            let image = raster("389225main_sw_1965_1024.jpg")
            let box = try String(contentsOfFile: raster("ground-overlay.kml"), encoding: .utf8)
            let quad = box.replacingOccurrences(of: #"<LatLonBox>[\s\S]*</LatLonBox>"#, with: """
                <gx:LatLonQuad><coordinates>-78.76,23.93 -76.60,23.93 -76.60,25.44 -78.76,25.44</coordinates></gx:LatLonQuad>
                """, options: .regularExpression)
                .replacingOccurrences(of: #"xmlns="http://www.opengis.net/kml/2.2""#,
                                      with: #"xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2""#)
            let styled = box.replacingOccurrences(of: "<GroundOverlay>", with: """
                <Document><Style id="pin"><IconStyle><Icon><href>pin.png</href></Icon></IconStyle></Style><GroundOverlay>
                """).replacingOccurrences(of: "</GroundOverlay>", with: "</GroundOverlay></Document>")
            try FileManager.default.copyItem(atPath: image, toPath: folder + "/389225main_sw_1965_1024.jpg")
            let input = folder + "/" + variant
            switch variant {
            case "quad.kml": try quad.write(toFile: input, atomically: true, encoding: .utf8)
            case "styled.kml": try styled.write(toFile: input, atomically: true, encoding: .utf8)
            default:
                let archive = try ZipArchiveWriter(path: input)
                let folderInHref = variant == "url.kmz" ? "http://www.example.com/images/" : "files/"
                let document = Array(box.replacingOccurrences(of: "<href>389225", with: "<href>\(folderInHref)389225").utf8)
                let jpeg = Array(try Data(contentsOf: URL(fileURLWithPath: image)))
                for (name, bytes) in [("doc.kml", document), ("files/389225main_sw_1965_1024.jpg", jpeg)] {
                    try archive.addEntry(name, size: UInt64(bytes.count)) { write in try bytes.withUnsafeBytes { try write($0) } }
                }
                try archive.close()
                try FileManager.default.removeItem(atPath: folder + "/389225main_sw_1965_1024.jpg")  // only the archive's copy
            }
            try tile(raster("ground-overlay.kml"), folder + "/box", zooms: 5...6)
            try tile(input, folder + "/other", zooms: 5...6)
            let tiles = tileSet(folder + "/box")
            #expect(!tiles.isEmpty && tileSet(folder + "/other") == tiles)
            for tile in tiles {
                let a = try DecodedImage(path: folder + "/box/\(tile).png"), b = try DecodedImage(path: folder + "/other/\(tile).png")
                let differing = zip(a.rgba, b.rgba).filter { $0 != $1 }.count
                #expect(a.rgba.count == b.rgba.count && differing == 0, "\(variant): \(tile) differs in \(differing) bytes")
            }
        }
    }

    @Test func thinPlateSplineThroughControlPoints() throws {
        try withTemporaryFolderPath { folder in
            let (tiler, summary) = try tile(raster("white-gemini-iv.vrt"), folder + "/tps", zooms: 7...8,
                                            source: RasterSourceOptions(controlPointMethod: .tps))
            #expect(tiler.sources[0].transformerOptions.contains("METHOD=GCP_TPS") && summary.tileCount > 0)
        }
    }

    @Test func tiles512PixelsWide() throws {
        try withTemporaryFolderPath { folder in
            let source = try RasterSource(path: raster("rgbsmall.tif"))
            let tiler = try Tiler(source: source, options: TilingOptions(tileSize: 512))
            let sink = try FolderTileSink(path: folder + "/big", scheme: .xyz, format: .png, resume: false, identity: tiler.identity())
            let summary = try tiler.run(into: sink)
            #expect(summary.tileCount == 1)
            let name = tileSet(folder + "/big").first!
            let image = try DecodedImage(path: folder + "/big/\(name).png")
            #expect(image.width == 512 && image.height == 512)
        }
    }

    @Test func mbtilesHoldTheSameTilesAsTheFolder() throws {
        try withTemporaryFolderPath { folder in
            try tile(raster("19347_2.KAP"), folder + "/out", zooms: 14...16)
            try tile(raster("19347_2.KAP"), folder + "/out.mbtiles", zooms: 14...16)
            let mbtiles = try MBTilesFile(path: folder + "/out.mbtiles")
            let tiles = try mbtiles.allTiles()
            let files = tileSet(folder + "/out")
            #expect(Set(tiles.keys.map(\.description)) == files)
            for (tile, data) in tiles {
                #expect(FileManager.default.contents(atPath: folder + "/out/\(tile.zoom)/\(tile.x)/\(tile.y).png") == Data(data))
            }
            for key in ["name", "format", "bounds", "center", "minzoom", "maxzoom", "type", "version", "description"] {
                #expect(mbtiles.metadata[key] != nil, "\(key)")
            }
            #expect(mbtiles.metadata["format"] == "png" && mbtiles.metadata["minzoom"] == "14" && mbtiles.metadata["maxzoom"] == "16")
            #expect(!FileManager.default.fileExists(atPath: folder + "/.out.mbtiles.meridian-partial"))
        }
    }

    /// Four tiles side by side against one gdalwarp -r average over the same 512 × 512 pixels:
    /// as close at the seams between tiles as anywhere else.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gdalwarp")))
    func tilesMeetWithoutSeams() throws {
        try withTemporaryFolderPath { folder in
            try tile(raster("19347_2.KAP"), folder + "/out", zooms: 17...17, source: RasterSourceOptions(cutCollar: false))
            let pyramid = TilePyramid()
            let topLeft = pyramid.bounds(MapTile(zoom: 17, x: 8416, y: 57812)), bottomRight = pyramid.bounds(MapTile(zoom: 17, x: 8417, y: 57813))
            try runTool("gdal_translate", ["-q", "-of", "VRT", "-expand", "rgba", raster("19347_2.KAP"), folder + "/rgba.vrt"])
            try runTool("gdalwarp", ["-q", "-t_srs", "EPSG:3857", "-r", "average", "-ts", "512", "512",
                                 "-te", "\(topLeft.minX)", "\(bottomRight.minY)", "\(bottomRight.maxX)", "\(topLeft.maxY)",
                                 folder + "/rgba.vrt", folder + "/whole.tif"])
            let whole = try DecodedImage(path: folder + "/whole.tif")
            var squared = [Double](repeating: 0, count: 512), counts = [Double](repeating: 0, count: 512)
            for (index, (x, y)) in [(8416, 57812), (8417, 57812), (8416, 57813), (8417, 57813)].enumerated() {
                let part = try DecodedImage(path: folder + "/out/17/\(x)/\(y).png")
                let ox = (index % 2) * 256, oy = (index / 2) * 256
                for py in 0..<256 {
                    for px in 0..<256 {
                        let a = part.pixel(x: px, y: py), b = whole.pixel(x: ox + px, y: oy + py)
                        for (u, v) in [(a.r, b.r), (a.g, b.g), (a.b, b.b)] {
                            let d = Double(u) - Double(v)
                            squared[ox + px] += d * d
                            counts[ox + px] += 1
                        }
                    }
                }
            }
            func psnr(_ columns: [Int]) -> Double {
                let mse = columns.reduce(0) { $0 + squared[$1] } / columns.reduce(0) { $0 + counts[$1] }
                return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
            }
            let overall = psnr(Array(0..<512)), seam = psnr([255, 256])
            // 4 × 4 samples against GDAL's exact area weights: about 34.5 dB on this line art.
            #expect(overall > 32, "PSNR against gdalwarp: \(overall) dB")
            #expect(seam > overall - 3, "at the seam \(seam) dB, overall \(overall) dB")
        }
    }

    /// Opaque pixels, and opaque pure-black ones, over every tile of a zoom.
    static func opaqueAndBlack(_ folder: String, zoom: Int) throws -> (opaque: Int, black: Int) {
        var opaque = 0, black = 0
        for tile in tileSet(folder) where tile.hasPrefix("\(zoom)/") {
            let image = try DecodedImage(path: folder + "/\(tile).png")
            for i in stride(from: 0, to: image.rgba.count, by: 4) where image.rgba[i + 3] > 0 {
                opaque += 1
                if image.rgba[i] == 0 && image.rgba[i + 1] == 0 && image.rgba[i + 2] == 0 { black += 1 }
            }
        }
        return (opaque, black)
    }

    /// A JPEG-compressed GeoTIFF whose collar is hidden by an internal mask (no alpha, no
    /// nodata): the mask becomes alpha, as in gdal2tiles, so the collar is transparent, not
    /// black. The same image with its nodata value instead covers the same pixels.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gdal_translate")))
    func perDatasetMaskBecomesAlpha() throws {
        try withTemporaryFolderPath { folder in
            try runTool("gdal_translate", ["-q", raster("RGB.byte.half.tif"), folder + "/masked.tif", "-mask", "1", "-a_nodata", "none",
                                           "-co", "COMPRESS=JPEG", "-co", "PHOTOMETRIC=YCBCR", "--config", "GDAL_TIFF_INTERNAL_MASK", "YES"])
            try tile(folder + "/masked.tif", folder + "/masked", zooms: 9...9)
            try tile(raster("RGB.byte.half.tif"), folder + "/nodata", zooms: 9...9)
            let masked = try Self.opaqueAndBlack(folder + "/masked", zoom: 9), nodata = try Self.opaqueAndBlack(folder + "/nodata", zoom: 9)
            // Unmasked, a third of the opaque pixels were the black collar; JPEG leaves a few
            // dark pixels along the mask's edge.
            #expect(Double(masked.black) < 0.02 * Double(masked.opaque), "\(masked)")
            #expect(abs(Double(masked.opaque - nodata.opaque)) < 0.03 * Double(nodata.opaque), "\(masked) against \(nodata)")
        }
    }

    /// 16-bit data is scaled from each band's minimum and maximum to 0–255, with a note. world.rgb.tif
    /// stretched to UInt16 keeps its red band's range (0–255 became 0–65535), so red comes back
    /// as it was, within rounding.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gdal_translate")))
    func sixteenBitDataIsScaledToBytes() throws {
        try withTemporaryFolderPath { folder in
            try runTool("gdal_translate", ["-q", "-ot", "UInt16", "-scale", "0", "255", "0", "65535", raster("world.rgb.tif"), folder + "/wide.tif"])
            let (tiler, _) = try tile(folder + "/wide.tif", folder + "/wide", zooms: 2...2)
            #expect(tiler.sources[0].notes.contains(.scaledToBytes(dataType: "UInt16")))
            try tile(raster("world.rgb.tif"), folder + "/byte", zooms: 2...2)
            let tiles = tileSet(folder + "/byte")
            #expect(!tiles.isEmpty && tileSet(folder + "/wide") == tiles)
            var largest = 0
            for tile in tiles {
                let a = try DecodedImage(path: folder + "/wide/\(tile).png"), b = try DecodedImage(path: folder + "/byte/\(tile).png")
                for i in stride(from: 0, to: a.rgba.count, by: 4) { largest = max(largest, abs(Int(a.rgba[i]) - Int(b.rgba[i]))) }
            }
            #expect(largest <= 2, "red differs by up to \(largest)")
        }
    }

    @Test func paletteNodataIndexBecomesTransparent() throws {
        try withTemporaryFolderPath { folder in
            // lc.tif's background is class 0, black in its colour table.
            func blackPixels(_ out: String) throws -> Int {
                var count = 0
                for name in tileSet(out) {
                    let image = try DecodedImage(path: out + "/\(name).png")
                    for i in stride(from: 0, to: image.rgba.count, by: 4)
                    where image.rgba[i + 3] > 0 && image.rgba[i] == 0 && image.rgba[i + 1] == 0 && image.rgba[i + 2] == 0 { count += 1 }
                }
                return count
            }
            try tile(raster("lc.tif"), folder + "/plain")
            try tile(raster("lc.tif"), folder + "/nodata", source: RasterSourceOptions(noData: 0))
            #expect(try blackPixels(folder + "/plain") > 1000)
            #expect(try blackPixels(folder + "/nodata") == 0)
        }
    }

    @Test func blocksStayFewEnoughToHoldInMemory() throws {
        let world = try RasterSource(path: raster("world.rgb.tif"))
        #expect(try Tiler(source: world, options: TilingOptions(zooms: 0...8)).blockZoom == 5)   // 32 × 32 blocks
        #expect(try Tiler(source: world, options: TilingOptions(zooms: 0...9)).blockZoom == 5)   // not 64 × 64
        #expect(try Tiler(source: world, options: TilingOptions(zooms: 2...3)).blockZoom == 2)
    }

    @Test func tmsFolderCountsRowsFromTheBottom() throws {
        try withTemporaryFolderPath { folder in
            try tile(raster("19347_2.KAP"), folder + "/tms", zooms: 14...14, scheme: .tms)
            #expect(tileSet(folder + "/tms") == ["14/1051/\((1 << 14) - 1 - 7226)", "14/1052/\((1 << 14) - 1 - 7226)"])
            #expect(FileManager.default.fileExists(atPath: folder + "/tms/tilemapresource.xml"))
        }
    }
}

/// Runs one of GDAL's command-line tools from /usr/bin and expects it to succeed.
func runTool(_ tool: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(tool)")
}
