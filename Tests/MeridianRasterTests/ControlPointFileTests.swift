import Foundation
import GDALSupport
import MeridianFormats
import Testing
@testable import MeridianRaster
import MeridianTestSupport

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
}
