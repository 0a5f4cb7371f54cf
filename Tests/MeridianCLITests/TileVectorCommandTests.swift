import Foundation
import MeridianGeometry
import MeridianTiles
import Testing

/// `meridian tile` of vector data: Mapbox Vector Tiles, read back by GDAL's MVT and MBTiles
/// drivers and by PyPI's mapbox-vector-tile (Scripts/bootstrap --test installs it in
/// .build/python-checks), never by Meridian's own decoder alone.
@Suite struct TileVectorCommandTests {
    let countries = fixture("geojson/ne_10m_countries_sample.geojson")

    /// Every tile of `folder`, decoded by mapbox-vector-tile: per tile, its layers' names and feature counts.
    func decodedByPyPI(_ folder: URL) throws -> [String: [String: Int]] {
        let python = packageRoot.appendingPathComponent(".build/python-checks/bin/python").path
        let script = """
            import glob, json, os, sys, mapbox_vector_tile
            root = sys.argv[1]; out = {}
            for path in glob.glob(os.path.join(root, '*', '*', '*.pbf')):
                with open(path, 'rb') as f:
                    tile = mapbox_vector_tile.decode(f.read())
                out[os.path.relpath(path, root)] = {name: len(layer['features']) for name, layer in tile.items()}
            print(json.dumps(out))
            """
        let result = try run(python, ["-c", script, folder.path])
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode([String: [String: Int]].self, from: Data(result.stdout.utf8))
    }

    @Test func countriesIntoAFolderAndMBTilesReadByOtherTools() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("countries"), mbtiles = folder.appendingPathComponent("countries.mbtiles").path
            let tiled = try meridian(["tile", countries, out.path, "--zoom", "0-5"])
            #expect(tiled.status == 0, "\(tiled.stderr)")
            #expect(try meridian(["tile", countries, mbtiles, "--zoom", "0-5", "-q"]).status == 0)
            let metadata = try String(contentsOf: out.appendingPathComponent("metadata.json"), encoding: .utf8)
            #expect(metadata.contains("\"vector_layers\"") && metadata.contains("\"NAME\":\"String\"") && metadata.contains("\"POP_EST\":\"Number\""))

            // GDAL's MVT driver reads each zoom level of the folder, its MBTiles driver the file.
            for zoom in [0, 5] {
                let info = try run("ogrinfo", ["-ro", "-so", "-al", out.appendingPathComponent("\(zoom)").path])
                #expect(info.status == 0 && info.stdout.contains("ne_10m_countries_sample") && info.stdout.contains("Feature Count"), "\(info.stderr)")
            }
            let fromFile = try run("ogrinfo", ["-ro", "-so", "-al", "-oo", "ZOOM_LEVEL=5", mbtiles])
            #expect(fromFile.status == 0 && fromFile.stdout.contains("ne_10m_countries_sample") && fromFile.stdout.contains("format=pbf"), "\(fromFile.stderr)")

            // mapbox-vector-tile decodes every tile, each with the one layer; the MBTiles file holds the same tiles, gzipped.
            let decoded = try decodedByPyPI(out)
            #expect(decoded.count > 20 && decoded.values.allSatisfy { $0.keys.sorted() == ["ne_10m_countries_sample"] && $0.values.allSatisfy { $0 > 0 } })
            let file = try MBTilesFile(path: mbtiles)
            #expect(try file.allTiles().count == decoded.count && file.metadata["format"] == "pbf" && (file.metadata["json"] ?? "").contains("vector_layers"))
        }
    }

    /// Points north, south, east and west land within one tile unit of where the exact Web
    /// Mercator projection puts them, as GDAL reads them back in degrees.
    @Test func pointsLandWithinOneTileUnit() throws {
        try withTemporaryFolder { folder in
            let places: [(Double, Double)] = [(-122.4194, 37.7749), (151.2093, -33.8688), (-58.3816, -34.6037), (0.0001, 0.0001),
                                              (-179.9, 84.9), (179.9, -84.9), (18.4241, -33.9249), (-70.6693, -33.4489)]
            let features = places.enumerated().map { i, p in
                "{\"type\":\"Feature\",\"properties\":{\"i\":\(i)},\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(p.0),\(p.1)]}}"
            }
            let input = folder.appendingPathComponent("places.geojson")
            try Data("{\"type\":\"FeatureCollection\",\"features\":[\(features.joined(separator: ","))]}".utf8).write(to: input)
            let zoom = 6
            let out = folder.appendingPathComponent("tiles"), mbtiles = folder.appendingPathComponent("tiles.mbtiles").path
            #expect(try meridian(["tile", input.path, out.path, "--zoom", "\(zoom)", "-q"]).status == 0)
            #expect(try meridian(["tile", input.path, mbtiles, "--zoom", "\(zoom)", "-q"]).status == 0)
            let unit = MapWorld.size / Double(1 << zoom) / 4096
            for (source, options) in [(out.appendingPathComponent("\(zoom)").path, [String]()), (mbtiles, ["-oo", "ZOOM_LEVEL=\(zoom)"])] {
                let read = folder.appendingPathComponent("read.geojson")
                try? FileManager.default.removeItem(at: read)
                let converted = try run("ogr2ogr", ["-f", "GeoJSON", "-t_srs", "EPSG:4326"] + options + [read.path, source])
                #expect(converted.status == 0, "\(converted.stderr)")
                let json = try JSONSerialization.jsonObject(with: Data(contentsOf: read)) as? [String: Any]
                var seen = Set<Int>()
                for feature in json?["features"] as? [[String: Any]] ?? [] {
                    guard let i = (feature["properties"] as? [String: Any])?["i"] as? Int,
                          let coordinates = (feature["geometry"] as? [String: Any])?["coordinates"] as? [Double] else { continue }
                    let got = MapPoint(Position(longitude: coordinates[0], latitude: coordinates[1]))
                    let exact = MapPoint(Position(longitude: places[i].0, latitude: places[i].1))
                    #expect(abs(got.x - exact.x) <= unit * 0.51 && abs(got.y - exact.y) <= unit * 0.51, "point \(i) from \(source)")
                    seen.insert(i)
                }
                #expect(seen == Set(places.indices), "\(source)")
            }
        }
    }

    /// Points at the middle of tiles, as a PMTiles archive, read by PyPI's pmtiles package
    /// (the format's reference reader): a 64 × 64 block of identical tiles is stored once, with
    /// run-length entries; 3,000 different tiles are 3,000 contents; every tile equals the
    /// folder's, gunzipped. (Leaf directories: MeridianTilesTests.)
    @Test(arguments: [(64 * 64, true), (3_000, false)])
    func pmtilesReadByThePMTilesPackage(count: Int, identical: Bool) throws {
        try withTemporaryFolder { folder in
            let zoom = 8
            let points = (0..<count).map { i -> String in
                let tile = MapTile(zoom: zoom, x: 64 + i % (identical ? 64 : 120), y: 64 + i / (identical ? 64 : 120))
                let middle = MapPoint(x: tile.mapRect.midX, y: tile.mapRect.midY).position
                return "{\"type\":\"Feature\",\"properties\":{\"i\":\(identical ? 0 : i)},\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(middle.longitude),\(middle.latitude)]}}"
            }
            let input = folder.appendingPathComponent("points.geojson")
            try Data("{\"type\":\"FeatureCollection\",\"features\":[\(points.joined(separator: ","))]}".utf8).write(to: input)
            let archive = folder.appendingPathComponent("points.pmtiles").path, tiles = folder.appendingPathComponent("tiles")
            // No buffer reaches a neighbour: each point is in its own tile only.
            #expect(try meridian(["tile", input.path, archive, "--zoom", "\(zoom)", "-q"]).status == 0)
            #expect(try meridian(["tile", input.path, tiles.path, "--zoom", "\(zoom)", "-q"]).status == 0)
            let report = try pmtilesAgainstFolder(archive, tiles.path, extension: "pbf")
            #expect(report["tiles"] as? Int == count && report["differ"] as? Int == 0 && report["addressed"] as? Int == count, "\(report)")
            #expect(report["layers"] as? [String] == ["points"])
            if identical {
                #expect(report["contents"] as? Int == 1 && (report["entries"] as? Int ?? count) < count / 8, "\(report)")
            } else {
                #expect(report["contents"] as? Int == count, "\(report)")
            }
        }
    }

    /// Issue 29: an option that does nothing for the kind of run is refused (64) naming it,
    /// nothing written, where it was ignored (`--shard 0/2` made every shard write the whole
    /// set): for vector tiles, for image tiles drawn from vector data, and for rasters. (Issue 31:
    /// --resume, --shard, --shards, --finish, --plan and --plan-format apply to every kind.)
    @Test(arguments: [
        ("mvt", ["--tms"]), ("mvt", ["--tile-size", "512"]),
        ("mvt", ["--background", "navy"]), ("mvt", ["--quilt", "order"]), ("mvt", ["--overzoom", "2"]),
        ("mvt", ["--resampling", "gdal2tiles"]), ("mvt", ["--nodata", "0"]), ("mvt", ["--bands", "1"]),
        ("mvt", ["--gcp-method", "tps"]), ("mvt", ["--no-cutline"]), ("mvt", ["--gdal-cache-mb", "8"]),
        ("png", ["--quilt", "detail"]),
        ("png", ["--overzoom", "1"]), ("png", ["--resampling", "average"]), ("png", ["--nodata", "0"]), ("png", ["--no-cutline"]),
        ("raster", ["--layer-name", "charts"]),
    ])
    func optionsThatDoNotApplyAreRefused(kind: String, option: [String]) throws {
        try withTemporaryFolder { folder throws in
            let out = folder.appendingPathComponent("out").path
            let arguments = kind == "raster" ? ["tile", fixture("raster/RGB.byte.half.tif"), out, "--zoom", "7"]
                : ["tile", countries, out, "--zoom", "0-1", "--tile-format", kind]
            let result = try meridian(arguments + option)
            #expect(result.status == ExitStatus.usage && result.stderr.contains("meridian: error: \(option[0]) applies to"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    @Test func mistakesAreUsageErrors() throws {
        try withTemporaryFolder { folder throws in
            let out = folder.appendingPathComponent("out").path
            #expect(try meridian(["tile", countries, fixture("raster/19347_2.KAP"), out]).status == ExitStatus.usage)
            #expect(try meridian(["tile", fixture("raster/19347_2.KAP"), out, "--tile-format", "mvt"]).status == ExitStatus.usage)
            #expect(try meridian(["tile", countries, out, "--layer-name", "a", "--layer-name", "b"]).status == ExitStatus.usage)
            #expect(try meridian(["tile", fixture("geojson/missing.geojson"), out]).status == ExitStatus.inputUnavailable)
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}
