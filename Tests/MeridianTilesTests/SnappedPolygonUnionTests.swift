import Testing
@testable import MeridianTiles

/// `SnappedPolygonUnion` rebuilds, in integers, the area rings of different polygons cover
/// where snapping made them cross: what `PolygonRepair` gave GEOS's MakeValid before. GEOS
/// (through GDAL) is the independent judge of validity; areas are counted exactly.
@Suite struct SnappedPolygonUnionTests {
    typealias Ring = [SIMD2<Int32>]

    static func box(_ x0: Int32, _ y0: Int32, _ x1: Int32, _ y1: Int32) -> Ring {
        [SIMD2(x0, y0), SIMD2(x1, y0), SIMD2(x1, y1), SIMD2(x0, y1)]
    }

    /// Twice the area the rings cover (outer rings add, holes take away).
    static func doubleArea(_ rings: [Ring]) -> Int64 { rings.reduce(0) { $0 + TileGrid.doubleArea($1) } }

    @Test func crossingRingsOfTwoPolygonsOfOneFeatureAreUnited() {
        let repair = PolygonRepair()
        let far = TileGrid.wound([Self.box(100, 100, 110, 110)])
        // Two islands of one multipolygon that snapping made overlap by 5 x 5 units.
        let rings = far + TileGrid.wound([Self.box(0, 0, 10, 10)]) + TileGrid.wound([Self.box(5, 5, 15, 15)])
        #expect(!VectorTileValidityTests.isValidByGEOS(rings))
        let fixed = repair.valid(rings)
        #expect(VectorTileValidityTests.isValidByGEOS(fixed), "\(fixed)")
        #expect(fixed.first == far.first, "the polygon apart from the fault is kept as it was")
        #expect(fixed.count == 2 && Self.doubleArea(fixed) == 2 * (100 + 100 + 100 - 25), "\(fixed)")
        #expect(repair.repairedByUnion == 1 && repair.repairedInPart == 0)
    }

    @Test func aHoleCrossingItsShellAfterSnappingIsCutBackToIt() {
        let repair = PolygonRepair()
        // The hole pokes 5 units out of the right side of its outer ring: what is left is the
        // outer ring with a notch where the hole was inside it.
        let rings = TileGrid.wound([Self.box(0, 0, 10, 10), Self.box(5, 2, 15, 8)])
        #expect(!VectorTileValidityTests.isValidByGEOS(rings))
        let fixed = repair.valid(rings)
        #expect(VectorTileValidityTests.isValidByGEOS(fixed), "\(fixed)")
        #expect(fixed.count == 1 && Self.doubleArea(fixed) == 2 * (100 - 5 * 6), "\(fixed)")
        #expect(repair.repairedByUnion == 1 && repair.repairedInPart == 0)
        // A hole crossing its outer ring at a slant: the crossings fall between grid points and are rounded.
        let slanted = TileGrid.wound([Self.box(0, 0, 10, 10), [SIMD2(3, 3), SIMD2(13, 4), SIMD2(12, 9)]])
        let cut = repair.valid(slanted)
        #expect(VectorTileValidityTests.isValidByGEOS(cut), "\(cut)")
        #expect(cut.count == 1 && Self.doubleArea(cut) < 200 && Self.doubleArea(cut) > 150, "\(cut)")
    }

    @Test func groupsTouchingAtAVertexStayTwoPolygons() {
        let repair = PolygonRepair()
        // Two groups of crossing islands, the first's square touching the second's at (10, 10) only.
        let first = TileGrid.wound([Self.box(0, 0, 10, 10)]) + TileGrid.wound([Self.box(5, -5, 8, 5)])
        let second = TileGrid.wound([Self.box(10, 10, 20, 20)]) + TileGrid.wound([Self.box(12, 15, 25, 18)])
        let fixed = repair.valid(first + second)
        #expect(VectorTileValidityTests.isValidByGEOS(fixed), "\(fixed)")
        #expect(fixed.count == 2 && fixed.allSatisfy { TileGrid.doubleArea($0) > 0 }, "\(fixed)")
        #expect(Self.doubleArea(fixed) == 2 * (100 + 15 + 100 + 15), "\(fixed)")
        #expect(fixed.allSatisfy { $0.contains(SIMD2(10, 10)) }, "both keep the vertex they touch at")
        #expect(repair.repairedByUnion == 1 && repair.repairedInPart == 0)
    }

    @Test func anIslandInAHoleOfAnotherPolygonIsKept() throws {
        // A lake (a hole) that snapping made cross an island of another polygon: the island
        // stays whole, the lake around it loses what it overlapped.
        let rings = TileGrid.wound([Self.box(0, 0, 30, 30), Self.box(5, 5, 25, 25)]) + TileGrid.wound([Self.box(20, 10, 28, 14)])
        let united = try #require(SnappedPolygonUnion.union(rings))
        #expect(VectorTileValidityTests.isValidByGEOS(united), "\(united)")
        #expect(Self.doubleArea(united) == 2 * (900 - 400 + 5 * 4), "\(united)")
    }

    @Test func validRingsComeBackCoveringTheSameAreaAndInvalidOnesValid() {
        var random = SnappedPolygonCheckTests.SplitMix(seed: 7)
        var united = 0, unnoded = 0, wrong: [[Ring]] = [], areaChanged: [[Ring]] = []
        for _ in 0..<3000 {
            let rings = SnappedPolygonCheckTests.randomRings(&random, polygons: 3, extraPoints: 6, spread: true)
            guard !rings.isEmpty else { continue }
            guard let out = SnappedPolygonUnion.union(rings) else {
                unnoded += 1
                continue
            }
            united += 1
            if !out.isEmpty && !VectorTileValidityTests.isValidByGEOS(out) { wrong.append(rings) }
            // Valid rings enclose what they cover once: no crossing to round, the same area.
            if VectorTileValidityTests.isValidByGEOS(rings) && Self.doubleArea(out) != Self.doubleArea(rings) { areaChanged.append(rings) }
        }
        #expect(wrong.isEmpty, "united but invalid by GEOS: \(wrong.prefix(3))")
        #expect(areaChanged.isEmpty, "valid, but the area changed: \(areaChanged.prefix(3))")
        #expect(united > 2500 && unnoded < united / 100, "\(united) united, \(unnoded) not noded")
    }
}
