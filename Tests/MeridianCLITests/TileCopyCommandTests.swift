import Foundation
import MeridianGeometry
import MeridianTestSupport
import MeridianTiles
import Testing

/// `meridian tile-copy` between a folder, MBTiles and PMTiles, and `meridian convert` of vector
/// tiles back into features (joined across tiles by id), checked by GDAL's ogrinfo and PyPI's
/// pmtiles besides Meridian's own readers.
@Suite struct TileCopyCommandTests {
    let countries = fixture("geojson/ne_10m_countries_sample.geojson")

    /// The Natural Earth sample with each country's index as its id, as `folder/countries.geojson`.
    func countriesWithIDs(in folder: URL) throws -> (path: String, features: [[String: Any]]) {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: countries))) as? [String: Any] ?? [:]
        var features = json["features"] as? [[String: Any]] ?? []
        for i in features.indices { features[i]["id"] = i }
        let path = folder.appendingPathComponent("countries.geojson")
        try JSONSerialization.data(withJSONObject: ["type": "FeatureCollection", "features": features]).write(to: path)
        return (path.path, features)
    }

    /// Every tile of a pyramid, uncompressed.
    func tiles(_ path: String) throws -> [MapTile: [UInt8]] {
        let reader = try TilePyramids.open(path)
        var tiles: [MapTile: [UInt8]] = [:]
        for tile in try reader.tileAddresses(zooms: nil) { tiles[tile] = try reader.uncompressedTile(tile) }
        return tiles
    }

    @Test func vectorPyramidSurvivesEveryContainer() throws {
        try withTemporaryFolder { folder in
            let original = folder.appendingPathComponent("original").path
            #expect(try meridian(["tile", countries, original, "--zoom", "0-4", "-q"]).status == 0)
            let mbtiles = folder.appendingPathComponent("a.mbtiles").path, pmtiles = folder.appendingPathComponent("b.pmtiles").path
            let back = folder.appendingPathComponent("back").path
            for (from, to) in [(original, mbtiles), (mbtiles, pmtiles), (pmtiles, back)] {
                let copied = try meridian(["tile-copy", from, to])
                #expect(copied.status == 0 && copied.stderr.contains("tiles copied"), "\(copied.stderr)")
            }
            let expected = try tiles(original)
            #expect(expected.count > 40)
            for copy in [mbtiles, pmtiles, back] { #expect(try tiles(copy) == expected, "\(copy)") }
            let before = try TilePyramids.open(original).pyramidMetadata()
            for copy in [mbtiles, pmtiles, back] {
                let after = try TilePyramids.open(copy).pyramidMetadata()
                #expect(after.format == .mvt && after.name == before.name && after.description == before.description && after.zooms == 0...4)
                #expect(after.vectorLayersJSON == before.vectorLayersJSON && (after.vectorLayersJSON ?? "").contains("\"NAME\":\"String\""))
                #expect(abs(after.bounds.west - before.bounds.west) < 1e-6 && abs(after.bounds.north - before.bounds.north) < 1e-6)
            }
            // The MBTiles copy stores its tiles gzipped, as GDAL's MBTiles driver expects.
            let info = try run("ogrinfo", ["-ro", "-so", "-al", "-oo", "ZOOM_LEVEL=4", mbtiles])
            #expect(info.status == 0 && info.stdout.contains("ne_10m_countries_sample"), "\(info.stderr)")

            // --zoom copies a subset, and the metadata says so.
            let subset = folder.appendingPathComponent("subset.pmtiles").path
            #expect(try meridian(["tile-copy", original, subset, "--zoom", "2-3", "-q"]).status == 0)
            #expect(try tiles(subset) == expected.filter { (2...3).contains($0.key.zoom) })
            #expect(try TilePyramids.open(subset).pyramidMetadata().zooms == 2...3)
        }
    }

    /// A raster pyramid copied into a PMTiles archive reads back, through PyPI's pmtiles, tile
    /// for tile as the folder's files.
    @Test func rasterPyramidIntoPMTilesReadByThePMTilesPackage() throws {
        try withTemporaryFolder { folder in
            let tiles = folder.appendingPathComponent("chart").path, archive = folder.appendingPathComponent("chart.pmtiles").path
            #expect(try meridian(["tile", fixture("raster/19347_2.KAP"), tiles, "-q"]).status == 0)
            #expect(try meridian(["tile-copy", tiles, archive, "-q"]).status == 0)
            let report = try pmtilesAgainstFolder(archive, tiles, extension: "png")
            #expect((report["tiles"] as? Int ?? 0) > 0 && report["differ"] as? Int == 0 && report["type"] as? Int == 2 && report["format"] as? String == "png", "\(report)")
        }
    }

    @Test func copyMistakes() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("out.pmtiles").path
            let missing = try meridian(["tile-copy", folder.appendingPathComponent("missing.mbtiles").path, out])
            #expect(missing.status == ExitStatus.inputUnavailable && missing.stderr.contains("missing.mbtiles"), "\(missing.stderr)")
            let notPyramid = try meridian(["tile-copy", countries, out])
            #expect(notPyramid.status == ExitStatus.badInput && notPyramid.stderr.contains("ne_10m_countries_sample.geojson"), "\(notPyramid.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
            let tiles = folder.appendingPathComponent("tiles").path
            #expect(try meridian(["tile", countries, tiles, "--zoom", "0-1", "-q"]).status == 0)
            // The folder holds the source: never written over.
            #expect(try meridian(["tile-copy", tiles, folder.path]).status == ExitStatus.usage)
            #expect(try meridian(["tile-copy", tiles, out, "--zoom", "7"]).status == ExitStatus.badInput)
            #expect(try meridian(["tile-copy", tiles]).status == ExitStatus.usage)
        }
    }

    /// An archive redirected in as `/dev/stdin` (a regular file, not a pipe) is refused (64,
    /// naming it) by `tile-copy` and `tile-join`, which tell a pyramid's container by its path:
    /// it was "not a tile pyramid" (65) for an MBTiles file that is one. Nothing is written.
    @Test func archiveRedirectedAsStandardInputIsAUsageError() throws {
        try withTemporaryFolder { folder in
            let archive = folder.appendingPathComponent("countries.mbtiles").path
            #expect(try meridian(["tile", countries, archive, "--zoom", "0-1", "-q"]).status == 0)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
            for arguments in [["tile-copy", "/dev/stdin", folder.appendingPathComponent("copy.pmtiles").path],
                              ["tile-join", "/dev/stdin", "-o", folder.appendingPathComponent("joined.pmtiles").path]] {
                let refused = try meridian(arguments, stdin: bytes)
                #expect(refused.status == ExitStatus.usage && refused.stderr.contains("/dev/stdin"), "\(arguments): \(refused.stderr)")
            }
            #expect(contents(of: folder) == ["countries.mbtiles"])
        }
    }

    /// Issue 17: the sample tiled at zooms 2-4, read back at 4 from each container: one feature
    /// per country with its properties, within a tile unit or two of its bounds, about its area.
    @Test func vectorTilesReadBackAsFeatures() throws {
        try withTemporaryFolder { folder in
            let (input, originals) = try countriesWithIDs(in: folder)
            let mbtiles = folder.appendingPathComponent("c.mbtiles").path
            let pmtiles = folder.appendingPathComponent("c.pmtiles").path, tiles = folder.appendingPathComponent("c").path
            #expect(try meridian(["tile", input, mbtiles, "--zoom", "2-4", "-q"]).status == 0)
            #expect(try meridian(["tile-copy", mbtiles, pmtiles, "-q"]).status == 0)
            #expect(try meridian(["tile-copy", mbtiles, tiles, "-q"]).status == 0)
            let zoom = 4, unit = 360.0 / Double(1 << zoom) / 4096
            // The countries the tiles hold at that zoom (the smallest, Vatican's 0.4 km², vanish).
            let pyramid = try TilePyramids.open(mbtiles)
            var ids = Set<UInt64>()
            for tile in try pyramid.tileAddresses(zooms: zoom...zoom) {
                for feature in try VectorTile(decoding: pyramid.uncompressedTile(tile) ?? []).layers.flatMap(\.features) { ids.insert(feature.id ?? .max) }
            }
            #expect(ids.count >= originals.count - 3 && !ids.contains(.max))
            for source in [mbtiles, pmtiles, tiles] {
                let output = folder.appendingPathComponent("z\(zoom)-\((source as NSString).lastPathComponent).geojson")
                let converted = try meridian(["convert", source, "--zoom", "\(zoom)", "--layer", "countries", "-o", output.path])
                #expect(converted.status == 0, "\(converted.stderr)")
                let json = try JSONSerialization.jsonObject(with: Data(contentsOf: output)) as? [String: Any] ?? [:]
                let features = json["features"] as? [[String: Any]] ?? []
                #expect(features.count == ids.count, "\(source)")
                for feature in features {
                    guard let id = feature["id"] as? Int, originals.indices.contains(id) else {
                        Issue.record("a feature without its id")
                        continue
                    }
                    let original = originals[id], properties = feature["properties"] as? [String: Any] ?? [:]
                    let name = (original["properties"] as? [String: Any])?["NAME"] as? String
                    #expect(properties["NAME"] as? String == name && properties["layer"] as? String == "countries")
                    let (got, want) = (Self.box(feature["geometry"]), Self.box(original["geometry"]))
                    // Simplifying at a tile unit and snapping move a point by at most about a unit and a half; islands
                    // too small for the zoom level vanish (Pitcairn's), so the bounds may shrink but never grow.
                    #expect(got.west >= want.west - 2 * unit && got.east <= want.east + 2 * unit, "\(name ?? "?"): \(got) against \(want)")
                    #expect(got.south >= want.south - 2 * unit && got.north <= want.north + 2 * unit, "\(name ?? "?"): \(got) against \(want)")
                    let types = [original, feature].map { ($0["geometry"] as? [String: Any])?["type"] as? String }
                    if types == ["Polygon", "Polygon"] {
                        #expect(abs(got.west - want.west) <= 2 * unit && abs(got.east - want.east) <= 2 * unit && abs(got.south - want.south) <= 2 * unit
                                && abs(got.north - want.north) <= 2 * unit, "\(name ?? "?"): \(got) against \(want)")
                    }
                    let (area, originalArea) = (Self.area(feature["geometry"]), Self.area(original["geometry"]))
                    #expect(abs(area - originalArea) <= 0.02 * originalArea + 100, "\(name ?? "?"): \(area) against \(originalArea)")
                }
            }
            let info = try run("ogrinfo", ["-ro", "-so", "-al", folder.appendingPathComponent("z4-c.mbtiles.geojson").path])
            #expect(info.status == 0 && info.stdout.contains("Feature Count: \(ids.count)"), "\(info.stdout)\(info.stderr)")
        }
    }

    @Test func convertMistakes() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("out.geojson").path
            let images = folder.appendingPathComponent("chart").path, mbtiles = folder.appendingPathComponent("c.mbtiles").path
            #expect(try meridian(["tile", fixture("raster/19347_2.KAP"), images, "-q"]).status == 0)
            let png = try meridian(["convert", images, "--zoom", "10", "-o", out])
            #expect(png.status == ExitStatus.badInput && png.stderr.contains("PNG tiles"), "\(png.stderr)")
            let missing = try meridian(["convert", folder.appendingPathComponent("missing.mbtiles").path, "-o", out])
            #expect(missing.status == ExitStatus.inputUnavailable && missing.stderr.contains("missing.mbtiles"), "\(missing.stderr)")
            #expect(try meridian(["tile", countries, mbtiles, "--zoom", "1-2", "-q"]).status == 0)
            let noZoom = try meridian(["convert", mbtiles, "-o", out])
            #expect(noZoom.status == ExitStatus.usage && noZoom.stderr.contains("--zoom"), "\(noZoom.stderr)")
            #expect(try meridian(["convert", mbtiles, "--zoom", "5", "-o", out]).status == ExitStatus.usage)
            let noLayer = try meridian(["convert", mbtiles, "--zoom", "1", "--layer", "rivers", "-o", out])
            #expect(noLayer.status == ExitStatus.usage && noLayer.stderr.contains("ne_10m_countries_sample"), "\(noLayer.stderr)")
            #expect(try meridian(["convert", countries, "--zoom", "5", "-o", out]).status == ExitStatus.usage)
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    /// A GeoJSON geometry's bounds in degrees.
    static func box(_ geometry: Any?) -> BoundingBox {
        var west = 180.0, south = 90.0, east = -180.0, north = -90.0
        func walk(_ value: Any) {
            if let pair = value as? [Double], pair.count >= 2 {
                west = min(west, pair[0]); east = max(east, pair[0]); south = min(south, pair[1]); north = max(north, pair[1])
            } else if let array = value as? [Any] {
                array.forEach(walk)
            }
        }
        walk((geometry as? [String: Any])?["coordinates"] ?? [])
        return BoundingBox(west: west, south: south, east: east, north: north)
    }

    /// A GeoJSON polygon's or multipolygon's area in square tile units of zoom 4 (Web Mercator map points).
    static func area(_ geometry: Any?) -> Double {
        let unit = MapWorld.size / 16 / 4096
        func ring(_ positions: [[Double]]) -> Double {
            let points = positions.map { MapPoint(Position(longitude: $0[0], latitude: $0[1])) }
            return abs(zip(points, points.dropFirst()).reduce(0) { $0 + ($1.0.x * $1.1.y - $1.1.x * $1.0.y) }) / 2 / (unit * unit)
        }
        func polygon(_ rings: [[[Double]]]) -> Double { rings.isEmpty ? 0 : ring(rings[0]) - rings.dropFirst().reduce(0) { $0 + ring($1) } }
        let object = geometry as? [String: Any] ?? [:]
        switch object["type"] as? String {
        case "Polygon": return polygon(object["coordinates"] as? [[[Double]]] ?? [])
        case "MultiPolygon": return (object["coordinates"] as? [[[[Double]]]] ?? []).reduce(0) { $0 + polygon($1) }
        default: return 0
        }
    }
}
