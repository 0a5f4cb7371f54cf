import Foundation
import GDALSupport
import MeridianCore
import MeridianFormats
import Testing
@testable import MeridianRaster
import MeridianTestSupport
@testable import MeridianTiles

/// The Gemini IV photo's three control points (white-gemini-iv.vrt) as QGIS's Georeferencer
/// saves them: in UTM 18N, the image row negated, and one disabled point QGIS would skip.
func geminiPointsFile(_ path: String, eastBy metres: Double = 0) throws {
    let utm = try #require(SpatialReference.wkt("EPSG:32618"))
    let text = """
        #CRS: \(utm)
        mapX,mapY,sourceX,sourceY,enable,dX,dY,residual
        \(157168.0 + metres),2818194.0,0,-0,1,0,0,0
        \(338615.0 + metres),2786088.0,1024,-0,1,0,0,0
        0,0,512,-384,0,0,0,0
        \(116792.0 + metres),2651340.0,0,-768,1,0,0,0

        """
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
}

@Suite struct ControlPointFileTests {
    /// The points come out in WGS 84, where the CLI test types them (`--gcp 0,0,25.441266,…`).
    @Test func readsQGISPointsInTheirCRS() throws {
        try withTemporaryFolderPath { folder in
            try geminiPointsFile(folder + "/scan.jpg.points")
            let file = try ControlPointFile(path: ControlPointFile.sidecarPath(of: folder + "/scan.jpg"))
            let typed = [(0.0, 0.0, 25.441266, -78.408414), (1024, 0, 25.182248, -76.601538), (0, 768, 23.927775, -78.763685)]
            #expect(file.points.count == 3)
            for (point, (pixel, line, latitude, longitude)) in zip(file.points, typed) {
                #expect(point.pixel == pixel && point.line == line)
                #expect(abs(point.latitude - latitude) < 1e-5 && abs(point.longitude - longitude) < 1e-5, "\(point)")
            }
        }
    }

    /// Without a #CRS line the map coordinates are WGS 84 degrees; older QGIS names the image
    /// columns pixelX and pixelY, and a positive row is read as it is.
    @Test func readsOlderFilesInDegrees() throws {
        try withTemporaryFolderPath { folder in
            let path = folder + "/old.points"
            try Data("mapX,mapY,pixelX,pixelY,enable\n-78.4,25.4,0,0,1\n-76.6,25.2,1024,0,1\n-78.8,23.9,0,768,1\n".utf8)
                .write(to: URL(fileURLWithPath: path))
            let points = try ControlPointFile(path: path).points
            #expect(points == [ControlPoint(pixel: 0, line: 0, latitude: 25.4, longitude: -78.4),
                               ControlPoint(pixel: 1024, line: 0, latitude: 25.2, longitude: -76.6),
                               ControlPoint(pixel: 0, line: 768, latitude: 23.9, longitude: -78.8)])
        }
    }

    /// Mistakes name the file and, where there is one, the line: exit 65, or 66 for no file.
    @Test(arguments: [
        ("mapX,mapY,sourceX,sourceY\n1,2,3,4\n1,2,x,4\n", 3),   // not a number
        ("x,y,a,b\n1,2,3,4\n", 1),                              // no mapX column
        ("mapX,mapY,sourceX,sourceY\n1,2,3,4\n1,2,3,5\n", nil), // two points
        ("mapX,mapY,sourceX,sourceY\n1,2,3,4\n1,200,3,5\n2,2,4,4\n", 3),   // off the Earth
    ] as [(String, Int?)])
    func mistakesNameTheLine(text: String, line: Int?) throws {
        try withTemporaryFolderPath { folder in
            let path = folder + "/bad.points"
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            let error = try #require(throws: MeridianError.self) { try ControlPointFile(path: path) }
            #expect(error.kind == .badInput && error.location == SourceLocation(file: path, line: line))
            let missing = try #require(throws: MeridianError.self) { try ControlPointFile(path: folder + "/none.points") }
            #expect(missing.kind == .inputUnavailable)
        }
    }

    /// Two copies of a plain photo, each placed by its own sidecar (the second 400 km east): one
    /// pyramid in which each is where its own points put it, as each is tiled alone; a changed
    /// sidecar changes the resume identity.
    @Test func eachImageOfACatalogTakesItsOwnPoints() throws {
        try withTemporaryFolderPath { folder in
            for (name, east) in [("west", 0.0), ("east", 400_000.0)] {
                try FileManager.default.copyItem(atPath: raster("389225main_sw_1965_1024.jpg"), toPath: "\(folder)/\(name).jpg")
                try geminiPointsFile("\(folder)/\(name).jpg.points", eastBy: east)
            }
            let west = folder + "/west.jpg", east = folder + "/east.jpg"
            #expect(try RasterSource(path: west).controlPointFile == west + ".points")
            try tile(west, folder + "/west", zooms: 6...7)
            try tile(east, folder + "/east", zooms: 6...7)
            try tileCatalog([west, east], folder + "/both", zooms: 6...7)
            let check = try quiltCheck(folder + "/both", over: [folder + "/west", folder + "/east"])
            #expect(check.misplaced == 0 && check.seams == 0 && check.showingThrough > 10_000, "\(check)")
            #expect(tileSet(folder + "/both") == tileSet(folder + "/west").union(tileSet(folder + "/east")))

            let catalog = TileCatalog(sources: [try RasterSource(path: west), try RasterSource(path: east)])
            let before = try TilingRunIdentity(catalog: catalog, options: TilingOptions(), zooms: 6...7)
            try geminiPointsFile(east + ".points", eastBy: 401_000)
            let moved = TileCatalog(sources: [try RasterSource(path: west), try RasterSource(path: east)])
            let after = try TilingRunIdentity(catalog: moved, options: TilingOptions(), zooms: 6...7)
            #expect(after.differences(from: before).map(\.name).contains("points-2-header"))
        }
    }

    /// The #CRS line is an EPSG code, WKT or a PROJ string, read as such: a file named there
    /// is not read (a WKT file beside it that would place the points is refused), a URL is not
    /// fetched (the listener on 127.0.0.1 sees no connection), and the error names the line.
    @Test func crsLineReachesNothingOutside() throws {
        try withTemporaryFolderPath { folder in
            let listener = try LoopbackListener()
            defer { listener.stop() }
            let utm = try #require(SpatialReference.wkt("EPSG:32618"))
            try Data(utm.utf8).write(to: URL(fileURLWithPath: folder + "/utm.wkt"))
            let points = "mapX,mapY,sourceX,sourceY,enable\n157168,2818194,0,0,1\n338615,2786088,1024,0,1\n116792,2651340,0,768,1\n"
            for crs in [folder + "/utm.wkt", "http://127.0.0.1:\(listener.port)/utm.wkt", "/vsicurl/http://127.0.0.1:\(listener.port)/utm.wkt",
                        "+proj=longlat +init=\(folder)/utm.wkt:x"] {
                let path = folder + "/scan.jpg.points"
                try Data("\n#CRS: \(crs)\n\(points)".utf8).write(to: URL(fileURLWithPath: path))
                let error = try #require(throws: MeridianError.self) { try ControlPointFile(path: path) }
                #expect(error.kind == .badInput && error.location == SourceLocation(file: path, line: 2), "\(crs): \(error)")
            }
            usleep(200_000)
            #expect(listener.connections == 0)
        }
    }

    /// An EPSG code and a PROJ string place the points as the WKT does; so does a file written
    /// with CRLF line ends (QGIS on Windows), line by line.
    @Test(arguments: ["EPSG:32618", "+proj=utm +zone=18 +datum=WGS84 +units=m +no_defs", "CRLF"])
    func crsAsCodeOrPROJString(_ crs: String) throws {
        try withTemporaryFolderPath { folder in
            let path = folder + "/scan.jpg.points"
            if crs == "CRLF" {
                try geminiPointsFile(path)
                let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "\n", with: "\r\n")
                try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            } else {
                try Data("#CRS: \(crs)\nmapX,mapY,sourceX,sourceY\n157168,2818194,0,0\n338615,2786088,1024,0\n116792,2651340,0,-768\n".utf8)
                    .write(to: URL(fileURLWithPath: path))
            }
            let file = try ControlPointFile(path: path)
            #expect(file.points.count == 3)
            #expect(abs(file.points[0].latitude - 25.441266) < 1e-5 && abs(file.points[0].longitude - -78.408414) < 1e-5, "\(file.points)")
        }
    }

    /// A control-point file is bounded: more than 1 MiB, or more enabled points than any method
    /// takes, is refused (65) before anything is warped; the error names the file (and the line
    /// of the point too many).
    @Test func sizeAndPointCountAreBounded() throws {
        try withTemporaryFolderPath { folder in
            let big = folder + "/big.points"
            #expect(FileManager.default.createFile(atPath: big, contents: Data("mapX,mapY,sourceX,sourceY\n".utf8)))
            #expect(truncate(big, off_t(ControlPointFile.maximumBytes + 1)) == 0)
            let tooBig = try #require(throws: MeridianError.self) { try ControlPointFile(path: big) }
            #expect(tooBig.kind == .badInput && tooBig.location?.file == big)

            let most = ControlPointMethod.polynomial.maximumPoints
            let many = folder + "/many.points"
            let lines = (0...most).map { "\(Double($0 % 360) - 180),\(Double($0 % 170) - 85),\($0),\($0)" }
            try Data((["mapX,mapY,sourceX,sourceY"] + lines).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: many))
            let tooMany = try #require(throws: MeridianError.self) { try ControlPointFile(path: many) }
            #expect(tooMany.kind == .badInput && tooMany.location == SourceLocation(file: many, line: most + 2))
        }
    }

    /// A thin-plate spline is cubic in its points: a sidecar with more than the method takes is
    /// refused (65, naming the sidecar) and so are as many points given by the user (64), at
    /// once rather than after minutes of solving.
    @Test func thinPlateSplinePointsAreBounded() throws {
        try withTemporaryFolderPath { folder in
            let image = folder + "/scan.jpg"
            try FileManager.default.copyItem(atPath: raster("389225main_sw_1965_1024.jpg"), toPath: image)
            let count = ControlPointMethod.tps.maximumPoints + 1
            let points = (0..<count).map { i -> ControlPoint in
                let column = Double(i % 40), row = Double(i / 40)
                return ControlPoint(pixel: column * 25, line: row * 25, latitude: 25 - row * 0.05, longitude: -78 + column * 0.05)
            }
            let text = (["mapX,mapY,sourceX,sourceY,enable"] + points.map { "\($0.longitude),\($0.latitude),\($0.pixel),-\($0.line),1" })
            try Data(text.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: ControlPointFile.sidecarPath(of: image)))
            let started = Date()
            let fromFile = try #require(throws: MeridianError.self) { try RasterSource(path: image, options: RasterSourceOptions(controlPointMethod: .tps)) }
            #expect(fromFile.kind == .badInput && fromFile.location == SourceLocation(file: ControlPointFile.sidecarPath(of: image)))
            try FileManager.default.removeItem(atPath: ControlPointFile.sidecarPath(of: image))
            let given = try #require(throws: RasterSourceError.self) {
                try RasterSource(path: image, options: RasterSourceOptions(controlPoints: points, controlPointMethod: .tps))
            }
            #expect(given == .tooManyControlPoints(count, method: .tps) && given.kind == .usage)
            #expect(Date().timeIntervalSince(started) < 10)
            // As many points by polynomial are within its bound.
            #expect(throws: Never.self) { try RasterSource(path: image, options: RasterSourceOptions(controlPoints: points)) }
        }
    }
}
