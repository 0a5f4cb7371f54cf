import Foundation
import MeridianFormats
import MeridianGeometry
@testable import MeridianTiles
import MeridianTestSupport
import Testing

/// Features read back from vector tiles: pieces cut to their tiles' own squares, then joined by
/// id (polygons dissolved along tile edges, lines end to end, points once).
@Suite struct TiledFeatureJoinerTests {
    /// The features tiled at `zoom` (with the usual buffer), read back and joined.
    static func roundTrip(_ features: [Feature], zoom: Int) throws -> [Feature] {
        var joiner = TiledFeatureJoiner(zoom: zoom)
        _ = try VectorTiler(features: try VectorFeatureSpill(layers: [("things", features)]), options: VectorTilingOptions(zooms: zoom...zoom))
            .run { tile, bytes in joiner.add(try VectorTile(decoding: bytes), of: tile) }
        return joiner.features()
    }

    /// A square over the four tiles of zoom 1, a line across them and a point: one polygon of
    /// four corners, one line of its three points, one point, each within a tile unit.
    @Test func piecesAcrossTilesBecomeOneFeature() throws {
        let square = Geometry.polygon(Polygon([[Position(longitude: -10, latitude: -10), Position(longitude: 10, latitude: -10),
                                                Position(longitude: 10, latitude: 10), Position(longitude: -10, latitude: 10),
                                                Position(longitude: -10, latitude: -10)]]))
        let line = Geometry.lineString(LineString([Position(longitude: -20, latitude: 5), Position(longitude: 20, latitude: 6), Position(longitude: 25, latitude: -30)]))
        let point = Geometry.point(Point(Position(longitude: 0.001, latitude: 0.001)))
        let features = [square, line, point].enumerated().map { Feature(id: .integer(Int64($0)), geometry: $1, properties: ["n": .integer(Int64($0))]) }
        let joined = try Self.roundTrip(features, zoom: 1)
        #expect(joined.count == 3)
        let unit = 360.0 / 2 / 4096
        guard joined.count == 3, case .polygon(let p) = joined[0].geometry, case .lineString(let l) = joined[1].geometry, case .point = joined[2].geometry else {
            Issue.record("\(joined)")
            return
        }
        #expect(p.rings.count == 1 && p.rings[0].count == 5, "\(p.rings)")
        for corner in p.rings[0] { #expect(abs(abs(corner.longitude) - 10) <= unit && abs(abs(corner.latitude) - 10) <= unit * 1.1) }
        // Counterclockwise, as RFC 7946 asks.
        #expect(zip(p.rings[0], p.rings[0].dropFirst()).reduce(0) { $0 + ($1.0.longitude * $1.1.latitude - $1.1.longitude * $1.0.latitude) } > 0)
        #expect(l.coordinates.count == 3 && abs(l.coordinates[1].longitude - 20) <= unit)
        #expect(joined[0].id == .integer(0) && joined[0].properties?["n"] == .integer(0) && joined[0].properties?["layer"] == .string("things"))
    }

    /// A square with a square hole, both over the four tiles of zoom 1, comes back as one polygon
    /// with one hole; the same square without an id stays four pieces, one a tile.
    @Test func holesAcrossTilesAndFeaturesWithoutIDs() throws {
        func ring(_ r: Double) -> [Position] {
            [Position(longitude: -r, latitude: -r), Position(longitude: r, latitude: -r), Position(longitude: r, latitude: r),
             Position(longitude: -r, latitude: r), Position(longitude: -r, latitude: -r)]
        }
        let framed = Geometry.polygon(Polygon([ring(20), ring(10).reversed()]))
        let joined = try Self.roundTrip([Feature(id: .integer(7), geometry: framed, properties: [:])], zoom: 1)
        guard joined.count == 1, case .polygon(let p) = joined[0].geometry else {
            Issue.record("\(joined)")
            return
        }
        #expect(p.rings.count == 2 && p.rings.allSatisfy { $0.count == 5 }, "\(p.rings)")
        let pieces = try Self.roundTrip([Feature(id: nil, geometry: framed, properties: [:])], zoom: 1)
        #expect(pieces.count == 4 && pieces.allSatisfy { $0.id == nil })
    }

    /// Issue 17's check: every Natural Earth sample country tiled at zooms 2, 4 and 6 comes
    /// back as one feature with its properties, in about as many polygons as its simplified
    /// shape (the tile edges dissolved), with about its area.
    @Test(arguments: [2, 4, 6])
    func countriesComeBackWhole(zoom: Int) throws {
        let reader = GeoJSONReader(input: try BufferedInput.open(fixture("geojson/ne_10m_countries_sample.geojson")))
        var features: [Feature] = []
        while var feature = try reader.next() {
            feature.id = .integer(Int64(features.count))
            features.append(feature)
        }
        let joined = try Self.roundTrip(features, zoom: zoom)
        let byID = Dictionary(joined.map { ($0.id!, $0) }, uniquingKeysWith: { a, _ in Issue.record("two features of id \(a.id!)"); return a })
        let unit = MapWorld.size / Double(1 << zoom) / 4096
        var simplifier = GeometrySimplifier(tolerance: unit, method: .douglasPeucker)
        var compared = 0
        for feature in features {
            guard let simplified = feature.geometry.flatMap({ simplifier.simplify($0) }) else { continue }
            guard let back = byID[feature.id!], let geometry = back.geometry else {
                Issue.record("\(feature.properties?["NAME"] ?? "?") missing at zoom \(zoom)")
                continue
            }
            #expect(back.properties?["NAME"] == feature.properties?["NAME"] && back.properties?["POP_EST"] == feature.properties?["POP_EST"])
            let area = VectorTileAreaTests.mapArea(simplified) / (unit * unit), perimeter = VectorTileAreaTests.mapPerimeter(simplified) / unit
            let got = VectorTileAreaTests.mapArea(geometry) / (unit * unit)
            #expect(abs(got - area) <= perimeter / 2 + 64, "\(feature.properties?["NAME"] ?? "?") at zoom \(zoom): \(got) against \(area)")
            #expect(polygonCount(geometry) <= polygonCount(simplified) + 1, "\(feature.properties?["NAME"] ?? "?") at zoom \(zoom): \(polygonCount(geometry)) polygons against \(polygonCount(simplified))")
            compared += 1
        }
        #expect(compared > 20)
    }

    /// The rings of the joined polygons of `tiles` of zoom 1 (each tile's one feature, id 1,
    /// given in whole units of the zoom level, `extent` to a tile), back in whole units.
    static func joinedRings(_ tiles: [(MapTile, [[SIMD2<Int32>]])], extent: Int32 = 4096) throws -> [[SIMD2<Int64>]] {
        var joiner = TiledFeatureJoiner(zoom: 1)
        for (tile, rings) in tiles {
            let local = rings.map { $0.map { $0 &- SIMD2(Int32(tile.x) * extent, Int32(tile.y) * extent) } }
            joiner.add(VectorTile(layers: [.init(name: "shapes", extent: Int(extent), features: [.init(id: 1, type: .polygon, parts: local)])]), of: tile)
        }
        let unit = MapWorld.size / 2 / Double(extent)
        return joiner.features().flatMap { feature -> [[SIMD2<Int64>]] in
            let polygons: [Polygon] = switch feature.geometry {
            case .polygon(let p): [p]
            case .multiPolygon(let m): m.polygons
            default: []
            }
            return polygons.flatMap(\.rings).map { ring in
                ring.dropLast().map { let p = MapPoint($0); return SIMD2(Int64((p.x / unit).rounded()), Int64((p.y / unit).rounded())) }
            }
        }
    }

    /// Issue 30: a rectangle with a side on a tile edge, however short (one unit), comes back
    /// with its four corners, never eroded to a triangle by the removal of cut points; on a
    /// column edge and a row edge, inside either tile.
    @Test(arguments: [(1, 1), (1, 6), (5, 1), (2, 3), (40, 1)])
    func rectanglesOnTileEdgesKeepTheirCorners(across: Int, along: Int) throws {
        let (w, h) = (Int32(across), Int32(along))
        // Clockwise on screen (y down), as vector tiles wind outer rings.
        func rectangle(_ x0: Int32, _ y0: Int32, _ x1: Int32, _ y1: Int32) -> [SIMD2<Int32>] {
            [SIMD2(x0, y0), SIMD2(x1, y0), SIMD2(x1, y1), SIMD2(x0, y1)]
        }
        let shapes: [(MapTile, [SIMD2<Int32>])] = [
            (MapTile(zoom: 1, x: 1, y: 0), rectangle(4096, 1000, 4096 + w, 1000 + h)),  // right of the column edge
            (MapTile(zoom: 1, x: 0, y: 0), rectangle(4096 - w, 1000, 4096, 1000 + h)),  // left of it
            (MapTile(zoom: 1, x: 0, y: 1), rectangle(1000, 4096, 1000 + h, 4096 + w)),  // below the row edge
            (MapTile(zoom: 1, x: 0, y: 0), rectangle(1000, 4096 - w, 1000 + h, 4096)),  // above it
        ]
        for (tile, ring) in shapes {
            let rings = try Self.joinedRings([(tile, [ring])])
            #expect(rings.count == 1 && Set(rings.first ?? []) == Set(ring.map { SIMD2<Int64>(Int64($0.x), Int64($0.y)) }),
                    "\(across)x\(along) in \(tile): \(rings)")
        }
    }

    /// Issue 30: a polygon zigzagging across a tile edge thousands of times (its side on one
    /// tile, its teeth on the next) is dissolved whole in about linear time; splitting the
    /// edges on the tile edge at every stop on it was quadratic (minutes, gigabytes).
    @Test func ringZigzaggingAlongATileEdgeIsJoinedInLinearTime() throws {
        // Tiles of 2^20 units, room for the teeth along one edge (at x = 2^20).
        let teeth: Int32 = 20_000, edge: Int32 = 1 << 20
        var ring: [SIMD2<Int32>] = [SIMD2(edge - 100, 100)]
        for i in 0..<teeth {
            ring += [SIMD2(edge - 6, 100 + 8 * i), SIMD2(edge + 6, 104 + 8 * i)]
        }
        ring += [SIMD2(edge - 6, 100 + 8 * teeth), SIMD2(edge - 100, 100 + 8 * teeth)]
        let started = ContinuousClock.now
        // Each tile is given the whole ring (the joiner cuts each piece to its tile's square).
        let rings = try Self.joinedRings([(MapTile(zoom: 1, x: 0, y: 0), [ring]), (MapTile(zoom: 1, x: 1, y: 0), [ring])], extent: edge)
        let elapsed = ContinuousClock.now - started
        #expect(rings.count == 1 && rings.first?.count == ring.count, "\(rings.count) rings")
        #expect(elapsed < .seconds(20), "\(elapsed)")
    }

    func polygonCount(_ geometry: Geometry) -> Int {
        switch geometry {
        case .polygon: 1
        case .multiPolygon(let m): m.polygons.count
        default: 0
        }
    }
}
