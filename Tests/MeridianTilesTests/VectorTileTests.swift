import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
import MeridianTestSupport
import CGDAL
import Testing
@testable import MeridianTiles

@Suite struct VectorTileTests {
    /// The specification's own examples (Mapbox Vector Tile 2.1, §4.3.5).
    @Test func geometryCommandsAsTheSpecificationEncodesThem() throws {
        #expect(VectorTile.commands(.point, [[SIMD2(25, 17)]]) == [9, 50, 34])
        #expect(VectorTile.commands(.point, [[SIMD2(5, 7), SIMD2(3, 2)]]) == [17, 10, 14, 3, 9])
        #expect(VectorTile.commands(.lineString, [[SIMD2(2, 2), SIMD2(2, 10), SIMD2(10, 10)]]) == [9, 4, 4, 18, 0, 16, 16, 0])
        #expect(VectorTile.commands(.lineString, [[SIMD2(2, 2), SIMD2(2, 10), SIMD2(10, 10)], [SIMD2(1, 1), SIMD2(3, 5)]])
                == [9, 4, 4, 18, 0, 16, 16, 0, 9, 17, 17, 10, 4, 8])
        #expect(VectorTile.commands(.polygon, [[SIMD2(3, 6), SIMD2(8, 12), SIMD2(20, 34)]]) == [9, 6, 12, 18, 10, 12, 24, 44, 15])
        #expect(ProtobufWriter.zigzag(-1) == 1 && ProtobufWriter.zigzag(1) == 2 && ProtobufWriter.zigzag(-2) == 3)
    }

    /// A tile decodes to what was encoded: layers, ids, property types, parts.
    @Test func tilesRoundTrip() throws {
        let feature = VectorTile.Feature(id: 7, type: .polygon, parts: [[SIMD2(0, 0), SIMD2(10, 0), SIMD2(10, 10)]],
                                         properties: [("name", .string("Ö")), ("n", .uint(3)), ("d", .double(-1.5)), ("neg", .sint(-4)), ("ok", .bool(true))])
        let line = VectorTile.Feature(type: .lineString, parts: [[SIMD2(-5, 3), SIMD2(4100, 3)]], properties: [("name", .string("Ö"))])
        let tile = VectorTile(layers: [VectorTile.Layer(name: "a", features: [feature, line]), VectorTile.Layer(name: "b", extent: 512)])
        #expect(try VectorTile(decoding: tile.encoded()) == tile)
        #expect(throws: MeridianError.self) { try VectorTile(decoding: [0x1A, 0x05, 0x0A]) }
    }

    /// A square across the four tiles of zoom 1: four pieces, each an outer ring with positive
    /// area (clockwise on screen), snapped to the grid, whose areas add up to the square's.
    @Test func aPolygonIsCutAlongTileEdges() throws {
        let square = Polygon([[Position(longitude: -90, latitude: -40), Position(longitude: 90, latitude: -40),
                               Position(longitude: 90, latitude: 40), Position(longitude: -90, latitude: 40),
                               Position(longitude: -90, latitude: -40)]])
        let layer = try VectorFeatureSpill(layers: [("square", [Feature(id: .integer(1), geometry: .polygon(square), properties: ["k": .string("v")])])])
        var tiles: [MapTile: VectorTile] = [:]
        let summary = try VectorTiler(features: layer, options: VectorTilingOptions(zooms: 1...1, buffer: 0)).run {
            tiles[$0] = try VectorTile(decoding: $1)
        }
        #expect(summary.tiles == 4 && Set(tiles.keys) == Set([MapTile(zoom: 1, x: 0, y: 0), MapTile(zoom: 1, x: 1, y: 0), MapTile(zoom: 1, x: 0, y: 1), MapTile(zoom: 1, x: 1, y: 1)]))
        var area = 0.0
        for (_, tile) in tiles {
            let feature = try #require(tile.layers.first?.features.first)
            #expect(tile.layers[0].name == "square" && feature.id == 1 && feature.type == .polygon && feature.properties.first?.value == .string("v"))
            #expect(feature.parts.count == 1 && TileGrid.doubleArea(feature.parts[0]) > 0)
            area += Double(TileGrid.doubleArea(feature.parts[0])) / 2
        }
        // The square in tile units of zoom 1 (4096 a tile): half the world wide, from -40° to 40°.
        let north = MapPoint(Position(longitude: 0, latitude: 40)).y, south = MapPoint(Position(longitude: 0, latitude: -40)).y
        let unit = MapWorld.size / 2 / 4096
        let expected = (MapWorld.size / 2 / unit) * ((south - north) / unit)
        #expect(abs(area - expected) / expected < 1e-3, "\(area) against \(expected)")
    }

    /// A hole stays a hole (negative area) and a tile over the size limit (gzipped, as
    /// tippecanoe counts it) loses its smallest features first, keeping the large ones.
    @Test func holesAndTheSizeLimit() throws {
        let outer = [Position(longitude: 1, latitude: 1), Position(longitude: 9, latitude: 1), Position(longitude: 9, latitude: 9),
                     Position(longitude: 1, latitude: 9), Position(longitude: 1, latitude: 1)]
        let hole = [Position(longitude: 3, latitude: 3), Position(longitude: 3, latitude: 6), Position(longitude: 6, latitude: 6),
                    Position(longitude: 6, latitude: 3), Position(longitude: 3, latitude: 3)]
        var features = [Feature(geometry: .polygon(Polygon([outer, hole])), properties: ["size": .string("big")])]
        for i in 0..<400 {
            let x = 10 + Double(i % 20) * 0.4, y = 10 + Double(i / 20) * 0.4
            features.append(Feature(geometry: .lineString(LineString([Position(longitude: x, latitude: y), Position(longitude: x + 0.1, latitude: y + 0.05)])),
                                    properties: ["size": .string("small \(i)")]))
        }
        var tile: VectorTile?
        let options = VectorTilingOptions(zooms: 4...4, maximumTileBytes: 2_000)
        let summary = try VectorTiler(features: try VectorFeatureSpill(layers: [("l", features)]), options: options).run { tile = try VectorTile(decoding: $1) }
        let kept = try #require(tile).layers[0].features
        #expect(summary.tilesOverLimit == 1 && summary.featuresDroppedForSize > 0 && kept.count == 401 - summary.featuresDroppedForSize)
        let polygon = try #require(kept.first { $0.type == .polygon })
        #expect(polygon.parts.count == 2 && TileGrid.doubleArea(polygon.parts[0]) > 0 && TileGrid.doubleArea(polygon.parts[1]) < 0)
        let encoded = try #require(tile).encoded()
        #expect(try Gzip.compress(encoded).count <= 2_000 && encoded.count > 2_000, "\(encoded.count)")
    }

    @Test func zoomsAreGuessedFromTheDataSpacing() {
        // Positions about 1 km apart near the equator (about 6,700 map points): zoom 20 - log2(6700) ≈ 7.
        let line = LineString((0..<50).map { Position(longitude: Double($0) * 0.009, latitude: 0) })
        var guess = ZoomGuess()
        guess.add(.lineString(line))
        #expect(guess.zooms == 0...7)
        #expect(ZoomGuess().zooms == 0...14)
    }

    /// Issue 29: three points far apart were tiled at zoom 0 only, placing them to about 10 km;
    /// the top zoom is where a pixel is no wider than their coordinates' finest step, at most 14.
    @Test(arguments: [([(2.3522, 48.8566), (-0.1276, 51.5072), (13.405, 52.52)], 14), ([(2.35, 48.86), (-0.13, 51.51)], 8),
                      ([(2, 48), (-1, 51), (13, 52)], 1), ([(2.352219876543, 48.856613456789)], 14), ([(2.3, 48.9), (151.2, -33.9)], 4), ([(2.352, 48.857)], 11)] as [([(Double, Double)], Int)])
    func zoomsForPointsFollowTheirPrecision(points: [(Double, Double)], deepest: Int) {
        var guess = ZoomGuess()
        for (longitude, latitude) in points { guess.add(.point(Point(Position(longitude: longitude, latitude: latitude)))) }
        #expect(guess.zooms == 0...deepest)
        // A line's spacing and a point's precision: the deeper of the two.
        guess.add(.lineString(LineString([Position(longitude: 0, latitude: 0), Position(longitude: 0.009, latitude: 0)])))
        #expect(guess.zooms == 0...max(deepest, 7))
    }
}

@Suite struct PMTilesWriterTests {
    /// The Hilbert ids the specification's examples give.
    @Test func tileIDsFollowTheHilbertCurve() {
        #expect(PMTilesWriter.tileID(MapTile(zoom: 0, x: 0, y: 0)) == 0)
        #expect([(0, 0), (0, 1), (1, 1), (1, 0)].map { PMTilesWriter.tileID(MapTile(zoom: 1, x: $0.0, y: $0.1)) } == [1, 2, 3, 4])
        #expect(PMTilesWriter.tileID(MapTile(zoom: 2, x: 0, y: 0)) == 5 && PMTilesWriter.tileID(MapTile(zoom: 3, x: 0, y: 0)) == 21)
        #expect(PMTilesWriter.tileID(MapTile(zoom: 12, x: 3423, y: 1763)) == 19_078_479)
    }

    /// 3,000 tiles of different bytes at scattered places, with a root limit small enough to
    /// need leaf directories, read back whole by PyPI's pmtiles (Scripts/bootstrap --test).
    @Test func leafDirectoriesReadByThePMTilesPackage() throws {
        try withTemporaryFolderPath { folder in
            let path = folder + "/scattered.pmtiles"
            let writer = try PMTilesWriter(path: path, format: .png, tilesGzipped: false, rootLimit: 600)
            var expected: [String: [UInt8]] = [:]
            var seed: UInt64 = 42
            for i in 0..<3_000 {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let tile = MapTile(zoom: 10, x: Int(seed >> 40) % 1024, y: Int(seed >> 20) % 1024)
                guard expected["10/\(tile.x)/\(tile.y)"] == nil else { continue }
                let bytes = Array("tile \(i) \(seed)".utf8)
                try writer.write(tile, bytes)
                expected["10/\(tile.x)/\(tile.y)"] = bytes
            }
            try writer.finish(metadataJSON: "{\"name\":\"scattered\"}", bounds: BoundingBox(west: -180, south: -85, east: 180, north: 85), zooms: 10...10)
            let (header, tiles) = try Self.readByThePMTilesPackage(path)
            #expect((header["leaf_directory_length"] ?? 0) > 0)
            #expect(tiles == expected)
        }
    }
}

extension PMTilesWriterTests {
    /// The archive at `path` as PyPI's pmtiles reads it: its header's numbers, and every tile's
    /// bytes by `z/x/y`.
    static func readByThePMTilesPackage(_ path: String) throws -> (header: [String: Int], tiles: [String: [UInt8]]) {
        let script = """
            import json, sys
            from pmtiles.reader import Reader, MmapSource, all_tiles
            with open(sys.argv[1], 'rb') as f:
                header = {k: v for k, v in Reader(MmapSource(f)).header().items() if isinstance(v, int)}
                tiles = {f'{z}/{x}/{y}': list(data) for (z, x, y), data in all_tiles(MmapSource(f))}
            print(json.dumps({'header': header, 'tiles': tiles}))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: packageRoot.appendingPathComponent(".build/python-checks/bin/python").path)
        process.arguments = ["-c", script, path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let report = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        let tiles = (report["tiles"] as? [String: [Int]] ?? [:]).mapValues { $0.map(UInt8.init) }
        return (report["header"] as? [String: Int] ?? [:], tiles)
    }

    /// Identical tiles are stored once, and runs of consecutive ids with the same bytes are one
    /// entry; tiles of the same length but other bytes are not mistaken for each other. Read back
    /// by PyPI's pmtiles: every tile's bytes, and the header's counts of tiles, entries and contents.
    @Test func identicalTilesStoredOnceReadByThePMTilesPackage() throws {
        try withTemporaryFolderPath { folder in
            let path = folder + "/repeated.pmtiles"
            let writer = try PMTilesWriter(path: path, format: .png, tilesGzipped: false, rootLimit: 600)
            var expected: [String: [UInt8]] = [:]
            // Seven contents of one length; ids 0-1364 (zooms 0-5) in Hilbert order make runs of
            // five of each, written here in reverse.
            for zoom in (0...5).reversed() {
                for x in 0..<(1 << zoom) {
                    for y in 0..<(1 << zoom) {
                        let tile = MapTile(zoom: zoom, x: x, y: y)
                        let bytes = Array("content \(PMTilesWriter.tileID(tile) / 5 % 7)".utf8)
                        try writer.write(tile, bytes)
                        expected["\(zoom)/\(x)/\(y)"] = bytes
                    }
                }
            }
            try writer.finish(metadataJSON: "{}", bounds: BoundingBox(west: -180, south: -85, east: 180, north: 85), zooms: 0...5)
            let (header, tiles) = try Self.readByThePMTilesPackage(path)
            #expect(header["addressed_tiles_count"] == 1365)
            #expect(header["tile_contents_count"] == 7)
            #expect(header["tile_entries_count"] == 273)  // 1365 / 5 runs
            #expect(tiles == expected)
        }
    }
}

/// Issue 17's check: at each zoom, a polygon's pieces over all the tiles it touches add up to the
/// simplified polygon's area (tiles cut without a buffer, so pieces do not overlap), for every
/// country of the Natural Earth sample at zooms 0-6, within what snapping to the grid can move.
@Suite struct VectorTileAreaTests {
    @Test func piecesAddUpToTheSimplifiedPolygon() throws {
        let reader = GeoJSONReader(input: try BufferedInput.open(fixture("geojson/ne_10m_countries_sample.geojson")))
        var features: [Feature] = []
        while let feature = try reader.next() { features.append(feature) }
        #expect(features.count == 31)
        for zoom in 0...6 {
            var pieces: [String: Double] = [:]
            let options = VectorTilingOptions(zooms: zoom...zoom, buffer: 0)
            _ = try VectorTiler(features: try VectorFeatureSpill(layers: [("countries", features)]), options: options).run { _, bytes in
                for feature in try VectorTile(decoding: bytes).layers[0].features where feature.type == .polygon {
                    guard case .string(let name) = feature.properties.first(where: { $0.key == "NAME" })?.value else { continue }
                    pieces[name, default: 0] += feature.parts.reduce(0) { $0 + Double(TileGrid.doubleArea($1)) / 2 }
                }
            }
            let unit = MapWorld.size / Double(1 << zoom) / 4096
            var simplifier = GeometrySimplifier(tolerance: unit, method: .douglasPeucker)
            var compared = 0
            for feature in features {
                guard let name = feature.properties?["NAME"]?.stringValue, let simplified = feature.geometry.flatMap({ simplifier.simplify($0) }) else { continue }
                let area = Self.mapArea(simplified) / (unit * unit)
                let perimeter = Self.mapPerimeter(simplified) / unit
                // Snapping moves each vertex by at most half a unit: the area by at most half the perimeter, plus a unit a vertex where tiles cut.
                #expect(abs((pieces[name] ?? 0) - area) <= perimeter / 2 + 64, "\(name) at zoom \(zoom): pieces \(pieces[name] ?? 0), polygon \(area)")
                compared += 1
            }
            #expect(compared > 20)
        }
    }

    /// Area in square map points: outer rings minus holes.
    static func mapArea(_ geometry: Geometry) -> Double {
        func ring(_ positions: [Position]) -> Double {
            let points = positions.map(MapPoint.init)
            return abs(zip(points, points.dropFirst()).reduce(0) { $0 + ($1.0.x * $1.1.y - $1.1.x * $1.0.y) }) / 2
        }
        func polygon(_ rings: [[Position]]) -> Double { ring(rings[0]) - rings.dropFirst().reduce(0) { $0 + ring($1) } }
        switch geometry {
        case .polygon(let p): return polygon(p.rings)
        case .multiPolygon(let m): return m.polygons.reduce(0) { $0 + polygon($1.rings) }
        default: return 0
        }
    }

    static func mapPerimeter(_ geometry: Geometry) -> Double {
        let rings: [[Position]]
        switch geometry {
        case .polygon(let p): rings = p.rings
        case .multiPolygon(let m): rings = m.polygons.flatMap(\.rings)
        default: rings = []
        }
        return rings.reduce(0) { total, ring in
            let points = ring.map(MapPoint.init)
            return total + zip(points, points.dropFirst()).reduce(0) { $0 + hypot($1.1.x - $1.0.x, $1.1.y - $1.0.y) }
        }
    }
}

/// Issue 17's check: no polygon in any tile is invalid by GEOS (through GDAL's OGR_G_IsValid,
/// so "valid" means what shapely, PostGIS and GDAL's MVT reader mean by it). Snapping to the
/// grid makes some invalid (a narrow inlet's two shores meet on one unit, two islands overlap):
/// without the repair this finds them at zooms 0-6 of the Natural Earth sample.
@Suite struct VectorTileValidityTests {
    @Test func everyPolygonIsValidByGEOS() throws {
        let reader = GeoJSONReader(input: try BufferedInput.open(fixture("geojson/ne_10m_countries_sample.geojson")))
        var features: [Feature] = []
        while let feature = try reader.next() { features.append(feature) }
        var checked = 0, invalid: [String] = []
        _ = try VectorTiler(features: try VectorFeatureSpill(layers: [("countries", features)]), options: VectorTilingOptions(zooms: 0...6))
            .run(jobs: 2) { tile, bytes in
                for feature in try VectorTile(decoding: bytes).layers[0].features where feature.type == .polygon {
                    checked += 1
                    if !Self.isValidByGEOS(feature.parts) { invalid.append("\(tile.zoom)/\(tile.x)/\(tile.y) \(feature.id ?? 0)") }
                }
            }
        #expect(checked > 200)
        #expect(invalid.isEmpty, "\(invalid.count) invalid: \(invalid.prefix(10))")
    }

    /// The rings (outer ones positive, each followed by its holes) as a WKT multipolygon, checked by GEOS.
    static func isValidByGEOS(_ rings: [[SIMD2<Int32>]]) -> Bool {
        var polygons: [[String]] = []
        for ring in rings {
            let text = "(" + (ring + [ring[0]]).map { "\($0.x) \($0.y)" }.joined(separator: ",") + ")"
            if TileGrid.doubleArea(ring) > 0 || polygons.isEmpty { polygons.append([text]) } else { polygons[polygons.count - 1].append(text) }
        }
        var wkt = "MULTIPOLYGON(" + polygons.map { "(" + $0.joined(separator: ",") + ")" }.joined(separator: ",") + ")"
        var geometry: OGRGeometryH?
        let made = wkt.withUTF8 { text in
            var pointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(mutating: text.baseAddress!).assumingMemoryBound(to: CChar.self)
            return OGR_G_CreateFromWkt(&pointer, nil, &geometry)
        }
        guard made == OGRERR_NONE, let geometry else { return false }
        defer { OGR_G_DestroyGeometry(geometry) }
        CPLPushErrorHandler(CPLQuietErrorHandler)
        defer { CPLPopErrorHandler() }
        return OGR_G_IsValid(geometry) != 0
    }
}

/// The repair's quick test (`SnappedPolygonCheck`) keeps a polygon without asking GEOS only
/// when GEOS would find it valid: checked on shapes drawn on a small grid, where rings cross,
/// touch, fold back and nest in every way, against GEOS through GDAL.
@Suite struct SnappedPolygonCheckTests {
    @Test func plainOnesAreValidAndTheRestAreLeftToGEOS() {
        let square: [SIMD2<Int32>] = [SIMD2(0, 0), SIMD2(10, 0), SIMD2(10, 10), SIMD2(0, 10)]
        let hole: [SIMD2<Int32>] = [SIMD2(2, 2), SIMD2(2, 4), SIMD2(4, 4), SIMD2(4, 2)]
        let holeTouching: [SIMD2<Int32>] = [SIMD2(0, 2), SIMD2(2, 4), SIMD2(4, 2)]
        let bowtie: [SIMD2<Int32>] = [SIMD2(0, 0), SIMD2(10, 10), SIMD2(10, 0), SIMD2(0, 10)]
        let wound = { (rings: [[SIMD2<Int32>]]) in TileGrid.wound(rings) }
        #expect(SnappedPolygonCheck.isPlainlyValid(wound([square])))
        #expect(SnappedPolygonCheck.isPlainlyValid(wound([square, hole])))
        #expect(!SnappedPolygonCheck.isPlainlyValid(wound([square, holeTouching])))  // valid, but GEOS decides
        #expect(VectorTileValidityTests.isValidByGEOS(wound([square, holeTouching])))
        #expect(!SnappedPolygonCheck.isPlainlyValid(wound([bowtie])))
        #expect(!SnappedPolygonCheck.isPlainlyValid(wound([square]) + wound([hole.reversed()])))  // an island inside another

        var random = SplitMix(seed: 32)
        var plain = 0, invalid = 0, wrong: [[[SIMD2<Int32>]]] = []
        for _ in 0..<4000 {
            let rings = Self.randomRings(&random, polygons: 2, extraPoints: 4, spread: false)
            guard !rings.isEmpty else { continue }
            let geos = VectorTileValidityTests.isValidByGEOS(rings)
            if !geos { invalid += 1 }
            if SnappedPolygonCheck.isPlainlyValid(rings) {
                plain += 1
                if !geos { wrong.append(rings) }
            }
        }
        #expect(wrong.isEmpty, "called plainly valid but invalid by GEOS: \(wrong.prefix(3))")
        #expect(plain > 200 && invalid > 400, "\(plain) plainly valid, \(invalid) invalid")
    }

    /// A small seeded generator, so the shapes are the same on every run.
    /// Random small polygons, wound as the tiler winds them: up to `polygons` polygons of an
    /// outer ring and up to two holes, each ring 3 to 2 + `extraPoints` points on a small grid
    /// (so that rings touch, cross and pinch often); `spread` moves each ring by 0 or 20 units.
    static func randomRings(_ random: inout SplitMix, polygons: Int, extraPoints: Int, spread: Bool) -> [[SIMD2<Int32>]] {
        var rings: [[SIMD2<Int32>]] = []
        for _ in 0..<(1 + random.next(below: polygons)) {
            let polygon = (0..<(1 + random.next(below: 3))).map { ringIndex in
                let span = ringIndex == 0 ? 12 : 6
                let inset = ringIndex == 0 ? 0 : 2 + random.next(below: 6)
                let offset = inset + (spread ? 20 * random.next(below: 2) : 0)
                return (0..<(3 + random.next(below: extraPoints))).map { _ in
                    SIMD2(Int32(offset + random.next(below: span)), Int32(offset + random.next(below: span)))
                }
            }
            rings += TileGrid.wound(polygon)
        }
        return rings
    }

    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next(below bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }
}

/// `PolygonRepair` mends spikes and pinches (`SnappedPolygonCleanup`), a ring's own crossings
/// (`SnappedRingNoding`) and rings of different polygons crossing (`SnappedPolygonUnion`,
/// whose tests hold the repair of only the polygons at fault) in integers, GEOS's MakeValid
/// being left for what they cannot do: what it returns is valid by GEOS (through GDAL)
/// whatever it is given, and a valid feature comes back unchanged.
@Suite struct PolygonRepairTests {
    typealias Ring = [SIMD2<Int32>]
    static let square: Ring = [SIMD2(0, 0), SIMD2(10, 0), SIMD2(10, 10), SIMD2(0, 10)]

    @Test func spikesAndPinchesAreMendedWithoutGEOS() {
        let repair = PolygonRepair()
        // A square with a spike out of its top edge and back: the spike goes, the square stays.
        let spiked = TileGrid.wound([[SIMD2(0, 0), SIMD2(10, 0), SIMD2(10, 10), SIMD2(5, 10), SIMD2(5, 15), SIMD2(5, 10), SIMD2(0, 10)]])
        #expect(!SnappedPolygonCheck.isPlainlyValid(spiked))
        let mended = repair.valid(spiked)
        #expect(TileGrid.doubleArea(mended[0]) == TileGrid.doubleArea(Self.square) && mended.count == 1 && mended[0].count == 5)
        // Two squares meeting at a corner in one ring (an isthmus snapped to a point): two outer rings.
        let pinched = TileGrid.wound([[SIMD2(0, 0), SIMD2(10, 0), SIMD2(10, 10), SIMD2(20, 10), SIMD2(20, 20), SIMD2(10, 20), SIMD2(10, 10), SIMD2(0, 10)]])
        let lobes = repair.valid(pinched)
        #expect(lobes.count == 2 && lobes.allSatisfy { TileGrid.doubleArea($0) > 0 })
        // A bay whose mouth snapped shut: the bay becomes a hole touching its outer ring at the mouth.
        let bay = TileGrid.wound([[SIMD2(0, 0), SIMD2(20, 0), SIMD2(20, 20), SIMD2(10, 20), SIMD2(14, 14), SIMD2(6, 14), SIMD2(10, 20), SIMD2(0, 20)]])
        let closed = repair.valid(bay)
        #expect(closed.count == 2 && TileGrid.doubleArea(closed[0]) > 0 && TileGrid.doubleArea(closed[1]) < 0)
        for rings in [mended, lobes, closed] { #expect(VectorTileValidityTests.isValidByGEOS(rings), "\(rings)") }
        #expect(repair.repaired == 3 && repair.repairedLocally == 3)
    }

    @Test func aRingsOwnCrossingsAreNodedWithoutGEOS() {
        let repair = PolygonRepair()
        // A bow tie of unequal lobes: two outer rings touching where the edges crossed.
        let bowtie = TileGrid.wound([[SIMD2(0, 0), SIMD2(10, 10), SIMD2(10, 4), SIMD2(0, 10)]])
        #expect(!VectorTileValidityTests.isValidByGEOS(bowtie))
        let lobes = repair.valid(bowtie)
        #expect(lobes.count == 2 && lobes.allSatisfy { TileGrid.doubleArea($0) > 0 }, "\(lobes)")
        // A bay whose mouth's shores crossed: the bay's body comes out wound as land inside the
        // land, which covers it (as GEOS's union does); the land keeps a notch down to the crossing.
        let bay = TileGrid.wound([[SIMD2(0, 0), SIMD2(20, 0), SIMD2(20, 20), SIMD2(12, 20), SIMD2(7, 12), SIMD2(8, 6),
                                   SIMD2(12, 6), SIMD2(13, 12), SIMD2(8, 20), SIMD2(0, 20)]])
        #expect(!VectorTileValidityTests.isValidByGEOS(bay))
        let closed = repair.valid(bay)
        #expect(closed.count == 1 && closed[0].contains(SIMD2(10, 17)), "\(closed)")
        for rings in [lobes, closed] { #expect(VectorTileValidityTests.isValidByGEOS(rings), "\(rings)") }
        #expect(repair.repairedByNoding == 2 && repair.repairedInPart == 0, "\(repair.repairedByNoding) noded")
    }

    @Test func whateverItIsGivenComesBackValid() {
        var random = SnappedPolygonCheckTests.SplitMix(seed: 41)
        let repair = PolygonRepair()
        var invalidIn = 0, wrong: [[Ring]] = [], changedValid: [[Ring]] = []
        for _ in 0..<3000 {
            let rings = SnappedPolygonCheckTests.randomRings(&random, polygons: 3, extraPoints: 6, spread: true)
            guard !rings.isEmpty else { continue }
            let validIn = VectorTileValidityTests.isValidByGEOS(rings)
            if !validIn { invalidIn += 1 }
            let out = repair.valid(rings)
            if !out.isEmpty && !VectorTileValidityTests.isValidByGEOS(out) { wrong.append(rings) }
            if validIn && out != rings { changedValid.append(rings) }
        }
        #expect(wrong.isEmpty, "repaired but invalid by GEOS: \(wrong.prefix(3))")
        #expect(changedValid.isEmpty, "valid but changed: \(changedValid.prefix(3))")
        #expect(invalidIn > 500 && repair.repairedLocally > 10 && repair.repairedByUnion > 50 && repair.repairedByNoding > 10,
                "\(invalidIn) invalid, \(repair.repairedLocally) mended locally, \(repair.repairedByNoding) noded, \(repair.repairedByUnion) united, \(repair.repairedInPart) in part by GEOS")
    }
}
