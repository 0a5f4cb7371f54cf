import Foundation
import GDALSupport
import MeridianTestSupport
import Testing

/// Text from inside a file reaches nothing outside: a CRS is only an EPSG code, WKT or a PROJ
/// string, and GDAL, whatever path it is given, sends no request (a listener on 127.0.0.1 counts).
@Suite struct NothingExternalTests {
    @Test(arguments: [
        ("EPSG:32618", CoordinateReferenceSystemText.epsg(32618)),
        ("  epsg:4326 ", .epsg(4326)),
        ("+proj=utm +zone=18 +datum=WGS84 +units=m +no_defs", .proj("+proj=utm +zone=18 +datum=WGS84 +units=m +no_defs")),
        ("+proj=merc +a=6378137 +b=6378137 +nadgrids=@null +no_defs", .proj("+proj=merc +a=6378137 +b=6378137 +nadgrids=@null +no_defs")),
        (#"GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]]"#,
         .wkt(#"GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]]"#)),
    ] as [(String, CoordinateReferenceSystemText)])
    func crsTextIsRecognised(_ text: String, _ expected: CoordinateReferenceSystemText) {
        #expect(CoordinateReferenceSystemText(text) == expected)
        #expect(SpatialReference(text)?.wkt != nil, "\(text)")
    }

    /// What OSRSetFromUserInput would fetch or read: URLs, file names, PROJ strings naming a file
    /// by path, other naming schemes.
    @Test(arguments: [
        "http://127.0.0.1:9/x", "https://example.com/crs.wkt", "file:///etc/passwd", "/etc/passwd", "crs.wkt", "../crs.prj",
        "+proj=longlat +init=/etc/passwd:x", "+proj=utm +zone=18 +nadgrids=/etc/passwd", "+proj=utm +geoidgrids=http://127.0.0.1:9/g.tif",
        "+init=epsg:4326", "urn:ogc:def:crs:EPSG::4326", "EPSG:", "EPSG:12a", "EPSG:99999999999", "ESRI::/etc/passwd", "WGS84",
        "/vsicurl/http://127.0.0.1:9/x", "",
    ])
    func otherTextIsNotACRS(_ text: String) {
        #expect(CoordinateReferenceSystemText(text) == nil, "\(text)")
        #expect(SpatialReference(text) == nil, "\(text)")
    }

    /// Neither a CRS given as a URL nor an open of a /vsicurl/ path (however spelled) reaches a
    /// server: GDAL's network access is off for the process.
    @Test func noRequestLeavesTheProcess() throws {
        let listener = try LoopbackListener()
        defer { listener.stop() }
        let url = "http://127.0.0.1:\(listener.port)/x.tif"
        #expect(SpatialReference(url) == nil)
        for path in ["/vsicurl/\(url)", "/vsicurl?url=\(url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                     "/vsicurl_streaming/\(url)", url] {
            #expect(GDALDataset(opening: path, for: .raster) == nil, "\(path)")
            #expect(GDALDataset(opening: path, for: .vector) == nil, "\(path)")
            usleep(100_000)
            #expect(listener.connections == 0, "\(path)")
        }
        usleep(200_000)
        #expect(listener.connections == 0)
        #expect(Set(GDAL.driverNames).isDisjoint(with: ["HTTP", "WMS", "WMTS", "WCS", "WFS", "OAPIF"]))
    }

    /// A database's connection string (as a VRT may name one) connects to no server: the
    /// drivers with clients of their own (libpq, MySQL's, ODBC) are not registered, nor
    /// GPSBabel, which runs another program.
    @Test func noDatabaseServerIsReached() throws {
        let listener = try LoopbackListener()
        defer { listener.stop() }
        for name in ["PG:host=127.0.0.1 port=\(listener.port) dbname=x", "PG:host=127.0.0.1 port=\(listener.port) dbname=x table=t mode=2",
                     "MYSQL:x,host=127.0.0.1,port=\(listener.port)", "GPSBABEL:gpx:/dev/null"] {
            #expect(GDALDataset(opening: name, for: .raster) == nil, "\(name)")
            #expect(GDALDataset(opening: name, for: .vector) == nil, "\(name)")
        }
        usleep(200_000)
        #expect(listener.connections == 0)
        #expect(Set(GDAL.driverNames).isDisjoint(with: ["PostgreSQL", "PostGISRaster", "MySQL", "MSSQLSpatial", "ODBC", "GPSBabel"]))
    }

    @Test(arguments: [
        ("/vsicurl/http://x/y.tif", true), ("/vsicurl?url=http%253A%252F%252Fx", true), ("%2Fvsicurl%2Fhttp://x", true),
        ("%252FVSIS3%252Fbucket/key", true), ("/VSIZIP/a.zip/b.tif", true), ("\\vsimem\\x", true), ("dir//vsigzip/x.gz", true),
        ("/vsizip{/a.zip}/b", true), ("/vsistdin/", true), ("image.jpg", false), ("files/vsimap.png", false), ("vsi.png", false),
        ("/data/charts/19347_2.KAP", false),
    ])
    func virtualFileSystemPathsAreRecognised(_ path: String, _ names: Bool) {
        #expect(GDAL.namesVirtualFileSystem(path) == names, "\(path)")
    }
}
