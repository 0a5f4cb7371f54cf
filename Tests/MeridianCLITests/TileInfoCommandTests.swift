import Foundation
import MeridianTestSupport
import Testing

/// `meridian info` of tile pyramids (a folder, an MBTiles file, a PMTiles archive; vector and
/// image tiles): what it says is checked against independent readers (sqlite3 for MBTiles,
/// PyPI's pmtiles for PMTiles, the files themselves for a folder).
@Suite struct TileInfoCommandTests {
    let countries = fixture("geojson/ne_10m_countries_sample.geojson")

    /// `meridian info PATH --format json`, parsed.
    func info(_ path: String) throws -> [String: Any] {
        let result = try meridian(["info", path, "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
    }

    /// The tiles per zoom level a JSON report states.
    func perZoom(_ report: [String: Any]) -> [Int: Int] {
        Dictionary(uniqueKeysWithValues: (report["tilesPerZoom"] as? [[String: Int]] ?? []).map { ($0["zoom"] ?? -1, $0["tiles"] ?? -1) })
    }

    /// Tiles per zoom level as an independent reader counts them: sqlite3 for MBTiles, PyPI's
    /// pmtiles for PMTiles, the `z/x/y.ext` files of a folder.
    func independentCounts(_ path: String, extension ext: String) throws -> [Int: Int] {
        var counts: [Int: Int] = [:]
        if path.hasSuffix(".mbtiles") {
            let result = try run("sqlite3", [path, "SELECT zoom_level, COUNT(*) FROM tiles GROUP BY zoom_level"])
            #expect(result.status == 0, "\(result.stderr)")
            for line in result.stdout.split(separator: "\n") {
                let parts = line.split(separator: "|").compactMap { Int($0) }
                if parts.count == 2 { counts[parts[0]] = parts[1] }
            }
        } else if path.hasSuffix(".pmtiles") {
            let python = packageRoot.appendingPathComponent(".build/python-checks/bin/python").path
            let script = """
                import collections, json, sys
                from pmtiles.reader import MmapSource, all_tiles
                with open(sys.argv[1], 'rb') as f:
                    print(json.dumps(collections.Counter(str(z) for (z, x, y), _ in all_tiles(MmapSource(f)))))
                """
            let result = try run(python, ["-c", script, path])
            #expect(result.status == 0, "\(result.stderr)")
            let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Int] ?? [:]
            for (zoom, count) in json { counts[Int(zoom) ?? -1] = count }
        } else {
            for file in try FileManager.default.subpathsOfDirectory(atPath: path) where file.hasSuffix("." + ext) {
                counts[Int(file.split(separator: "/")[0]) ?? -1, default: 0] += 1
            }
        }
        return counts
    }

    /// One pyramid made by `tile` (vector tiles, and PNG tiles drawn from the same data), copied
    /// into the other two containers: each container's report says what it is, counts what an
    /// independent reader counts, and lists the layer's fields from the metadata.
    @Test(arguments: ["pbf", "png"])
    func everyContainerIsDescribed(_ ext: String) throws {
        try withTemporaryFolder { folder in
            let mbtiles = folder.appendingPathComponent("t.mbtiles").path
            let made = try meridian(["tile", countries, mbtiles, "--zoom", "0-2", "-q"] + (ext == "png" ? ["--tile-format", "png"] : []))
            #expect(made.status == 0, "\(made.stderr)")
            let pmtiles = folder.appendingPathComponent("t.pmtiles").path, tiles = folder.appendingPathComponent("t").path
            for copy in [pmtiles, tiles] { #expect(try meridian(["tile-copy", mbtiles, copy, "-q"]).status == 0) }
            var counts: [[Int: Int]] = []
            for (path, container, scheme) in [(mbtiles, "mbtiles", "tms"), (pmtiles, "pmtiles", "xyz"), (tiles, "folder", "xyz")] {
                let report = try info(path)
                #expect(report["file"] as? String == path)
                #expect(report["container"] as? String == container && report["scheme"] as? String == scheme, "\(report)")
                #expect(report["format"] as? String == (ext == "png" ? "png" : "mvt"))
                #expect(report["zooms"] as? [Int] == [0, 2])
                let independent = try independentCounts(path, extension: ext)
                #expect(perZoom(report) == independent, "\(container): \(report) against \(independent)")
                #expect(report["tiles"] as? Int == independent.values.reduce(0, +) && independent.count == 3)
                let bounds = report["bounds"] as? [Double] ?? []
                #expect(bounds.count == 4 && bounds[0] < bounds[2] && bounds[1] < bounds[3])
                #expect((report["center"] as? [Double])?.count == 3)
                let layers = report["vectorLayers"] as? [[String: Any]] ?? []
                if ext == "pbf" {
                    #expect(layers.count == 1 && (layers.first?["fields"] as? [String: String])?["NAME"] == "String", "\(layers)")
                } else {
                    #expect(layers.isEmpty)
                }
                #expect((report["bytes"] as? Int ?? 0) > 0)
                counts.append(perZoom(report))

                let text = try meridian(["info", path])
                #expect(text.status == 0 && text.stderr.isEmpty, "\(text.stderr)")
                #expect(text.stdout.hasPrefix("file:") && text.stdout.contains("\nscheme:") && text.stdout.contains("\n  zoom 2:"), "\(text.stdout)")
                #expect(text.stdout.contains("\nlayer:") == (ext == "pbf"), "\(text.stdout)")
            }
            #expect(counts.allSatisfy { $0 == counts[0] })
        }
    }

    /// docs/info.md's example shows what `info` prints of the microstates tiled at zooms 0-2.
    @Test func pageShowsWhatInfoPrints() throws {
        try withTemporaryFolder { folder in
            let made = try meridian(["tile", packageRoot.appendingPathComponent("examples/data/microstates.geojson").path, "microstates.pmtiles",
                                     "--zoom", "0-2", "-q"], in: folder)
            #expect(made.status == 0, "\(made.stderr)")
            let printed = try meridian(["info", "microstates.pmtiles"], in: folder)
            #expect(printed.status == 0 && printed.stdout.hasPrefix("file:"), "\(printed.stderr)")
            let page = try String(contentsOf: packageRoot.appendingPathComponent("docs/info.md"), encoding: .utf8)
            #expect(page.contains("$ meridian info microstates.pmtiles\n" + printed.stdout + "\n"), "docs/info.md should show:\n\(printed.stdout)")
        }
    }

    /// One formatting of coordinates across info's outputs: a feature file's bbox and the bounds of
    /// the pyramid tiled from it, in text and in JSON, are the same numbers of at most 7 decimals
    /// (the feature file's came with 15 or more, the pyramid's with 7).
    @Test func coordinatesArePrintedAlikeEverywhere() throws {
        try withTemporaryFolder { folder in
            let input = packageRoot.appendingPathComponent("examples/data/microstates.geojson").path
            #expect(try meridian(["tile", input, "m.pmtiles", "--zoom", "0-1", "-q"], in: folder).status == 0)
            func value(_ name: String, in text: String) -> String? {
                text.split(separator: "\n").first { $0.hasPrefix(name + ":") }.map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
            }
            let features = try meridian(["info", input]), pyramid = try meridian(["info", "m.pmtiles"], in: folder)
            let bbox = try #require(value("bbox", in: features.stdout)), bounds = try #require(value("bounds", in: pyramid.stdout))
            #expect(bbox == bounds, "\(bbox) against \(bounds)")
            let center = try #require(value("center", in: pyramid.stdout))
            for number in (bbox + " " + center).split(whereSeparator: { " ,WSEN".contains($0) }) where number.contains(".") {
                #expect(number.split(separator: ".")[1].count <= 7, "\(number) in \(bbox) / \(center)")
            }
            let featuresJSON = try meridian(["info", input, "--format", "json"]), pyramidJSON = try meridian(["info", "m.pmtiles", "--format", "json"], in: folder)
            let box = try JSONSerialization.jsonObject(with: Data(featuresJSON.stdout.utf8)) as? [String: Any]
            let pyramidBox = try JSONSerialization.jsonObject(with: Data(pyramidJSON.stdout.utf8)) as? [String: Any]
            let numbers = try #require(box?["bbox"] as? [Double])
            #expect(numbers == pyramidBox?["bounds"] as? [Double], "\(featuresJSON.stdout)")
            // The text's numbers are the JSON's, digit for digit.
            #expect(numbers.map { "\($0)" } == bbox.split(separator: ",").map { String($0.split(separator: " ")[1]) }, "\(numbers) against \(bbox)")
        }
    }

    /// Options that do nothing for a pyramid are refused (64); a missing one is 66; an archive
    /// whose metadata states a center that is no place, or cut short, is bad input (65) naming
    /// it, with nothing on standard output.
    @Test func refusalsAndDamage() throws {
        try withTemporaryFolder { folder in
            let mbtiles = folder.appendingPathComponent("t.mbtiles").path
            #expect(try meridian(["tile", countries, mbtiles, "--zoom", "0-1", "-q"]).status == 0)
            for option in [["--layer", "countries"], ["--from", "geojson"]] {
                let refused = try meridian(["info", mbtiles] + option)
                #expect(refused.status == ExitStatus.usage && refused.stderr.contains(option[0]), "\(refused.stderr)")
            }
            let missing = try meridian(["info", folder.appendingPathComponent("none.pmtiles").path])
            #expect(missing.status == ExitStatus.inputUnavailable, "\(missing.stderr)")

            let damaged = folder.appendingPathComponent("damaged.mbtiles").path
            try FileManager.default.copyItem(atPath: mbtiles, toPath: damaged)
            #expect(try run("sqlite3", [damaged, "UPDATE metadata SET value = '500,0,3' WHERE name = 'center'"]).status == 0)
            let pmtiles = folder.appendingPathComponent("damaged.pmtiles").path
            #expect(try meridian(["tile-copy", mbtiles, pmtiles, "-q"]).status == 0)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: pmtiles))
            // Each file cut to half its length.
            var truncated: [String] = []
            for (source, name) in [(mbtiles, "cut.mbtiles"), (pmtiles, "cut.pmtiles")] {
                let whole = try Data(contentsOf: URL(fileURLWithPath: source))
                let cut = folder.appendingPathComponent(name)
                try whole.prefix(whole.count / 2).write(to: cut)
                truncated.append(cut.path)
            }
            bytes[118] = 200  // the header's center zoom
            try bytes.write(to: URL(fileURLWithPath: pmtiles))
            for path in [damaged, pmtiles] + truncated {
                let result = try meridian(["info", path])
                #expect(result.status == ExitStatus.badInput && result.stderr.hasPrefix("meridian: error: \(path)"), "\(result.stderr)")
                #expect(result.stdout.isEmpty)
            }
        }
    }
}
