import Testing
@testable import MeridianTiles

/// `SnappedPolygonCheck.isValid`: OGC's validity told in integers, rings touching at points
/// included, so that `PolygonRepair` asks GEOS only where it is unsure. It must never call valid
/// what GEOS (through GDAL) calls invalid, and must accept the touching shapes it is for.
@Suite struct SnappedPolygonTouchTests {
    typealias Ring = [SIMD2<Int32>]

    static func box(_ x0: Int32, _ y0: Int32, _ x1: Int32, _ y1: Int32) -> Ring {
        [SIMD2(x0, y0), SIMD2(x1, y0), SIMD2(x1, y1), SIMD2(x0, y1)]
    }

    /// The integer check's answer, after checking it against GEOS's when it says valid.
    static func checked(_ rings: [Ring], sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let valid = SnappedPolygonCheck.isValid(rings)
        if valid { #expect(VectorTileValidityTests.isValidByGEOS(rings), "\(rings)", sourceLocation: sourceLocation) }
        return valid
    }

    @Test func ringsTouchingAtPointsAreValidWhenTheInteriorStaysConnected() {
        let wound = { (rings: [Ring]) in TileGrid.wound(rings) }
        let square = Self.box(0, 0, 10, 10)
        // A hole touching its outer ring at one point, a vertex of the hole on an edge of the ring.
        let notch: Ring = [SIMD2(0, 4), SIMD2(4, 2), SIMD2(4, 6)]
        #expect(Self.checked(wound([square, notch])))
        #expect(!SnappedPolygonCheck.isPlainlyValid(wound([square, notch])), "what the plain check leaves to GEOS")
        // At a vertex of each.
        #expect(Self.checked(wound([square, [SIMD2(0, 0), SIMD2(5, 3), SIMD2(3, 5)]])))
        // At two points: the hole cuts the interior in two.
        let across: Ring = [SIMD2(0, 4), SIMD2(5, 2), SIMD2(10, 4), SIMD2(5, 6)]
        #expect(!VectorTileValidityTests.isValidByGEOS(wound([square, across])))
        #expect(!Self.checked(wound([square, across])))
        // Two holes touching each other, one touching the outer ring: a chain, valid.
        let second: Ring = [SIMD2(4, 2), SIMD2(8, 2), SIMD2(6, 5)]
        #expect(Self.checked(wound([square, notch, second])))
        // The second touching the outer ring too closes a cycle round part of the interior.
        let closing: Ring = [SIMD2(4, 2), SIMD2(10, 3), SIMD2(6, 5)]
        #expect(!VectorTileValidityTests.isValidByGEOS(wound([square, notch, closing])))
        #expect(!Self.checked(wound([square, notch, closing])))
        // A hole poking out through a vertex (it crosses the outer ring there): invalid.
        let poking: Ring = [SIMD2(10, 5), SIMD2(8, 3), SIMD2(12, 4)]
        #expect(!VectorTileValidityTests.isValidByGEOS(wound([square, poking])))
        #expect(!Self.checked(wound([square, poking])))
        // A hole along part of an edge of its outer ring: invalid, and not told here.
        #expect(!Self.checked(wound([square, [SIMD2(0, 2), SIMD2(4, 4), SIMD2(0, 6)]])))
    }

    @Test func polygonsTouchingAtPointsAndIslandsInLakesAreValid() {
        let wound = { (rings: [Ring]) in TileGrid.wound(rings) }
        let lake = Self.box(5, 5, 25, 25)
        let land = wound([Self.box(0, 0, 30, 30), lake])
        // Two squares meeting at a corner, and a square's corner on another's edge.
        #expect(Self.checked(wound([Self.box(0, 0, 10, 10)]) + wound([Self.box(10, 10, 20, 20)])))
        #expect(Self.checked(wound([Self.box(0, 0, 10, 10)]) + wound([[SIMD2(10, 5), SIMD2(15, 0), SIMD2(15, 10)]])))
        // Touching at two points leaves a part of the exterior closed off, which is allowed.
        #expect(Self.checked(wound([[SIMD2(0, 0), SIMD2(10, 0), SIMD2(10, 2), SIMD2(2, 2), SIMD2(2, 8), SIMD2(10, 8), SIMD2(10, 10), SIMD2(0, 10)]])
                             + wound([[SIMD2(10, 2), SIMD2(14, 5), SIMD2(10, 8)]])))
        // An island in a lake, apart from its shore and touching it at a point.
        #expect(Self.checked(land + wound([Self.box(10, 10, 20, 20)])))
        #expect(!SnappedPolygonCheck.isPlainlyValid(land + wound([Self.box(10, 10, 20, 20)])))
        #expect(Self.checked(land + wound([[SIMD2(5, 15), SIMD2(15, 10), SIMD2(15, 20)]])))
        // An island on the land (not in the lake) overlaps it.
        #expect(!VectorTileValidityTests.isValidByGEOS(land + wound([Self.box(1, 1, 4, 4)])))
        #expect(!Self.checked(land + wound([Self.box(1, 1, 4, 4)])))
        // An island touching the lake from the land's side.
        #expect(!Self.checked(land + wound([[SIMD2(5, 15), SIMD2(2, 10), SIMD2(2, 20)]])))
        // Polygons crossing at a vertex, and sharing a stretch of edge.
        let throughVertices = wound([Self.box(0, 0, 10, 10)]) + wound([[SIMD2(8, 4), SIMD2(10, 5), SIMD2(12, 4), SIMD2(10, 1)]])
        #expect(!VectorTileValidityTests.isValidByGEOS(throughVertices))
        #expect(!Self.checked(throughVertices))
        #expect(!Self.checked(wound([Self.box(0, 0, 10, 10)]) + wound([Self.box(10, 2, 14, 8)])))
        // A ring touching itself is invalid by GEOS's rules.
        let pinched = wound([[SIMD2(0, 0), SIMD2(10, 0), SIMD2(5, 5), SIMD2(10, 10), SIMD2(0, 10), SIMD2(5, 5)]])
        #expect(!Self.checked(pinched))
    }

    /// Random ring sets on a small grid with vertices moved onto other rings' vertices and
    /// edges, so that rings cross, overlap and touch at points in every way (most are invalid),
    /// and shapes built to touch: holes with a corner on their outer ring or on another hole,
    /// islands in lakes, polygons meeting at a point (most are valid, some close cycles). The
    /// integer check never calls one valid that GEOS does not, and decides most of the valid ones.
    @Test func agreesWithGEOSOnRandomTouchingRings() {
        var random = SnappedPolygonCheckTests.SplitMix(seed: 3232)
        var wrong: [[Ring]] = []
        var validByGEOS = 0, told = 0, touchingValid = 0, touchingTold = 0, touchingInvalid = 0
        for n in 0..<8000 {
            let rings = n % 2 == 0 ? Self.movedRings(&random) : Self.touchingRings(&random)
            guard !rings.isEmpty else { continue }
            let geos = VectorTileValidityTests.isValidByGEOS(rings)
            let integer = SnappedPolygonCheck.isValid(rings)
            let plain = SnappedPolygonCheck.isPlainlyValid(rings)
            if integer && !geos { wrong.append(rings) }
            if geos {
                validByGEOS += 1
                if integer { told += 1 }
                if !plain {
                    touchingValid += 1
                    if integer { touchingTold += 1 }
                }
            } else if n % 2 == 1 {
                touchingInvalid += 1
            }
        }
        #expect(wrong.isEmpty, "valid in integers but not by GEOS: \(wrong.count), \(wrong.prefix(3))")
        #expect(validByGEOS > 1000 && touchingValid > 500 && touchingInvalid > 300,
                "\(validByGEOS) valid by GEOS, \(touchingValid) of them not plainly; \(touchingInvalid) built to touch but invalid")
        #expect(Double(told) > 0.9 * Double(validByGEOS) && Double(touchingTold) > 0.8 * Double(touchingValid),
                "told \(told) of \(validByGEOS) valid, \(touchingTold) of \(touchingValid) valid but not plainly")
    }

    /// Random rings (`SnappedPolygonCheckTests.randomRings`) with up to three vertices moved onto
    /// another ring's vertices or the grid points halfway along its edges.
    static func movedRings(_ random: inout SnappedPolygonCheckTests.SplitMix) -> [Ring] {
        var rings = SnappedPolygonCheckTests.randomRings(&random, polygons: 3, extraPoints: 4, spread: random.next(below: 2) == 0)
        guard rings.count >= 2 else { return rings }
        for _ in 0..<random.next(below: 4) {
            let to = random.next(below: rings.count), from = random.next(below: rings.count)
            guard to != from else { continue }
            let target = rings[from]
            let i = random.next(below: target.count)
            var point = target[i]
            let sum = target[i] &+ target[(i + 1) % target.count]
            if random.next(below: 2) == 0, sum.x % 2 == 0, sum.y % 2 == 0 { point = SIMD2(sum.x / 2, sum.y / 2) }
            rings[to][random.next(below: rings[to].count)] = point
        }
        return rings
    }

    /// A box-shaped polygon with triangular holes, some with a corner on the outer ring (at a
    /// corner or along an edge) or on an earlier hole's corner; sometimes a big lake with an
    /// island in it (touching the shore or not), and a polygon beside it touching it at a point.
    static func touchingRings(_ random: inout SnappedPolygonCheckTests.SplitMix) -> [Ring] {
        func next(_ bound: Int) -> Int32 { Int32(random.next(below: bound)) }
        let width = 8 + next(8), height = 8 + next(8)
        var shell = Self.box(0, 0, width, height)
        // Points on the edges are vertices too, so that holes can touch the ring at one.
        if next(2) == 0 { shell.insert(SIMD2(1 + next(Int(width) - 1), 0), at: 1) }
        if next(2) == 0 { shell.append(SIMD2(0, 1 + next(Int(height) - 1))) }
        var polygon = [shell]
        var corners: [SIMD2<Int32>] = []
        if next(4) == 0 {
            // A lake, and an island in it.
            let lake = Self.box(2, 2, width - 2, height - 2)
            polygon.append(lake)
            let touchesShore = next(2) == 0
            let a = touchesShore ? SIMD2(2, 3 + next(Int(height) - 6)) : SIMD2(3, 3 + next(Int(height) - 6))
            let island: Ring = [a, SIMD2(3 + next(Int(width) - 6), 3), SIMD2(3 + next(Int(width) - 6), height - 3)]
            return TileGrid.wound(polygon) + TileGrid.wound([island]) + beside(&random, width, height)
        }
        for _ in 0..<(1 + next(3)) {
            var triangle = (0..<3).map { _ in SIMD2(1 + next(Int(width) - 1), 1 + next(Int(height) - 1)) }
            switch next(4) {
            case 0, 1: triangle[0] = shell[random.next(below: shell.count)]
            case 2:
                let edge = next(4)
                triangle[0] = edge == 0 ? SIMD2(0, 1 + next(Int(height) - 1)) : edge == 1 ? SIMD2(width, 1 + next(Int(height) - 1))
                    : edge == 2 ? SIMD2(1 + next(Int(width) - 1), 0) : SIMD2(1 + next(Int(width) - 1), height)
            default: if !corners.isEmpty { triangle[0] = corners[random.next(below: corners.count)] }
            }
            corners += triangle
            polygon.append(triangle)
        }
        return TileGrid.wound(polygon) + beside(&random, width, height)
    }

    /// Sometimes a triangle to the right of a `width` by `height` box touching its right edge at a point.
    static func beside(_ random: inout SnappedPolygonCheckTests.SplitMix, _ width: Int32, _ height: Int32) -> [Ring] {
        guard random.next(below: 2) == 0 else { return [] }
        let y = Int32(random.next(below: Int(height) + 1))
        return TileGrid.wound([[SIMD2(width, y), SIMD2(width + 6, Int32(random.next(below: Int(height)))), SIMD2(width + 3 + Int32(random.next(below: 4)), height + 2)]])
    }
}
