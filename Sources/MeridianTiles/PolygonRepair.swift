import CGEOS

/// Makes a tile's polygons valid after snapping. Snapping to the tile's integer grid moves every
/// vertex by up to half a unit, which can make a narrow polygon's edges cross or touch, or two
/// of a feature's islands overlap; renderers then fill wrongly and GEOS-based readers refuse the
/// feature. A polygon that is valid is kept as it is (most are: see ``SnappedPolygonCheck``,
/// else GEOS's check); an invalid one is repaired in the tile's integers where it can be
/// (``SnappedPolygonCleanup``, ``SnappedRingNoding``, ``SnappedPolygonUnion``: tippecanoe does
/// the same job with its own polygon cleaner, wagyu), else made valid by GEOS
/// (`GEOSMakeValidWithParams`, by its "structure" method) and put back on the grid by GEOS's
/// snap-rounding (`GEOSGeom_setPrecision` with a grid of one unit), which keeps it valid.
///
/// The structure method unions the outer rings and takes the holes out of them, each ring made
/// valid on its own: where snapping made two islands overlap, their union is kept, as a map
/// draws it. GEOS's default, the linework method, nodes every ring of the feature together and
/// rebuilds polygons from the pieces (where two islands overlapped, the overlap became a hole),
/// at many times the cost: on Natural Earth's countries at zoom 0-5 it was 62% of the run's
/// instructions, for 613 polygons.
///
/// One repair per thread: it holds a GEOS context, which is not shared.
final class PolygonRepair {
    private let context: GEOSContextHandle_t
    /// Polygons that had to be repaired so far.
    private(set) var repaired = 0

    private let makeValidParameters: OpaquePointer?

    init() {
        context = GEOS_init_r()
        makeValidParameters = GEOSMakeValidParams_create_r(context)
        if let makeValidParameters {
            GEOSMakeValidParams_setMethod_r(context, makeValidParameters, GEOS_MAKE_VALID_STRUCTURE)
            GEOSMakeValidParams_setKeepCollapsed_r(context, makeValidParameters, 0)
        }
    }
    deinit {
        if let makeValidParameters { GEOSMakeValidParams_destroy_r(context, makeValidParameters) }
        GEOS_finish_r(context)
    }

    /// A tile feature's rings (each outer ring with positive area followed by its holes,
    /// unclosed, in tile units) as they are when they are valid, else repaired; empty when
    /// nothing with an area is left.
    ///
    /// The check and the repair are as local as they can be shown to be enough. Validity is told
    /// in integers (``SnappedPolygonCheck/isValid(_:)``, OGC's rules with rings touching at
    /// points), and GEOS asked only where that is unsure. Polygons that ``SnappedPolygonCheck``
    /// finds apart from everything and plainly valid are valid whatever the others are: only
    /// those at fault are checked again, and what a repair makes is checked against only the
    /// others near it (``KeptPolygons``). The repair: first the spikes,
    /// pinches and collapsed rings ``SnappedPolygonCleanup`` mends in integers; then, on only
    /// the polygons at fault (the others are kept as they are, when what is made stays apart
    /// from them), a ring's own crossings noded and taken apart there (``SnappedRingNoding``),
    /// else every ring noded with every other and the area they cover rebuilt
    /// (``SnappedPolygonUnion``), in integers; then the same union, and then GEOS's MakeValid,
    /// on the polygons at fault with those whose boxes reach theirs; then, when that is not
    /// valid either, MakeValid on the whole feature. Each result is kept only when
    /// ``SnappedPolygonCheck`` or GEOS finds it valid.
    func valid(_ rings: [[SIMD2<Int32>]]) -> [[SIMD2<Int32>]] {
        // Most tile polygons are valid, which is quick to see in integers.
        if SnappedPolygonCheck.isValid(rings) { return rings }
        let cleaned = SnappedPolygonCleanup.cleaned(rings)
        let mended = cleaned.map { $0 != rings } ?? false
        if let cleaned, mended {
            // Spikes and pinches are invalid: the feature needs a repair, and this may be all of it.
            repaired += 1
            if cleaned.isEmpty || SnappedPolygonCheck.isValid(cleaned) {
                repairedLocally += 1
                return cleaned
            }
        }
        let broken = cleaned ?? rings
        let polygons = SnappedPolygonCheck.polygons(of: broken)
        let marked = SnappedPolygonCheck.polygonsNotPlainlyValid(broken)
        // Valid as it is when the polygons at fault are: the others are apart and plainly valid.
        if isValid(broken, marked: marked) {
            if mended { repairedLocally += 1 }
            return broken
        }
        if !mended { repaired += 1 }
        // The polygons at fault are repaired on their own, and what is made of them kept when it
        // is valid and apart from the others. Rounding a crossing to the grid can move an edge
        // onto one of the others: then the polygons whose boxes reach theirs are repaired too.
        let faulty = SnappedPolygonCheck.rings(of: broken, polygons, where: marked)
        let others = KeptPolygons(SnappedPolygonCheck.rings(of: broken, polygons, where: marked.map { !$0 }))
        // What is made must be valid and apart from the others: only the others near it are looked at.
        func fits(_ made: [[SIMD2<Int32>]]) -> Bool {
            if made.isEmpty { return !others.rings.isEmpty }
            return others.areApart(from: made) && isValid(made)
        }
        // In integers first: a ring's own crossings noded, and the ring taken apart there.
        if let noded = SnappedRingNoding.noded(faulty), noded != faulty, let mended = SnappedPolygonCleanup.cleaned(noded), fits(mended) {
            repairedByNoding += 1
            return others.rings + mended
        }
        // Rings of different polygons crossing: the area they cover, rebuilt in integers.
        if let united = SnappedPolygonUnion.union(faulty), fits(united) {
            repairedByUnion += 1
            return others.rings + united
        }
        // The polygons at fault and those whose boxes reach theirs: what is made of them stays in
        // their boxes, so it cannot meet the others, which are kept as they are.
        let grouped = SnappedPolygonCheck.reaching(marked, broken, polygons)
        let kept = SnappedPolygonCheck.rings(of: broken, polygons, where: grouped.map { !$0 })
        let group = SnappedPolygonCheck.rings(of: broken, polygons, where: grouped)
        func acceptable(_ made: [[SIMD2<Int32>]]) -> Bool {
            made.isEmpty ? !kept.isEmpty : isValid(made)
        }
        if grouped != marked, let united = SnappedPolygonUnion.union(group), acceptable(united) {
            repairedByUnion += 1
            return kept + united
        }
        if !kept.isEmpty, let fixed = madeValid(group), acceptable(fixed) {
            repairedInPart += 1
            return kept + fixed
        }
        return madeValid(broken) ?? []
    }

    /// Polygons repaired by ``SnappedPolygonCleanup`` alone, without GEOS.
    private(set) var repairedLocally = 0
    /// Polygons repaired by noding their rings' own crossings in integers (``SnappedRingNoding``), without GEOS.
    private(set) var repairedByNoding = 0
    /// Polygons repaired by rebuilding the area their faulty rings cover in integers (``SnappedPolygonUnion``), without GEOS.
    private(set) var repairedByUnion = 0
    /// Polygons repaired by GEOS's MakeValid on only their faulty members.
    private(set) var repairedInPart = 0

    /// Whether the rings are valid, `marked` being ``SnappedPolygonCheck/polygonsNotPlainlyValid(_:)``'s
    /// answer for them: the polygons it leaves unmarked are plainly valid and apart from
    /// everything, so only the marked ones are checked, in integers where
    /// ``SnappedPolygonCheck/isValid(_:)`` is sure, else by GEOS.
    private func isValid(_ rings: [[SIMD2<Int32>]], marked: [Bool]) -> Bool {
        guard marked.contains(true) else { return true }
        let checked = SnappedPolygonCheck.rings(of: rings, SnappedPolygonCheck.polygons(of: rings), where: marked)
        return SnappedPolygonCheck.isValid(checked) || isValidByGEOS(checked)
    }

    /// Whether the rings (as ``valid(_:)`` takes them) are valid: told in integers where
    /// ``SnappedPolygonCheck/isValid(_:)`` is sure, else by GEOS on the polygons not plainly valid.
    private func isValid(_ rings: [[SIMD2<Int32>]]) -> Bool {
        SnappedPolygonCheck.isValid(rings) || isValid(rings, marked: SnappedPolygonCheck.polygonsNotPlainlyValid(rings))
    }

    /// Whether GEOS finds the rings (as ``valid(_:)`` takes them) valid.
    private func isValidByGEOS(_ rings: [[SIMD2<Int32>]]) -> Bool {
        guard let geometry = multiPolygon(rings) else { return false }
        defer { GEOSGeom_destroy_r(context, geometry) }
        return GEOSisValid_r(context, geometry) == 1
    }

    /// The rings made valid by GEOS (MakeValid, then back on the grid), or nil when GEOS fails.
    private func madeValid(_ rings: [[SIMD2<Int32>]]) -> [[SIMD2<Int32>]]? {
        guard let geometry = multiPolygon(rings) else { return nil }
        defer { GEOSGeom_destroy_r(context, geometry) }
        guard let fixed = GEOSMakeValidWithParams_r(context, geometry, makeValidParameters) else { return nil }
        defer { GEOSGeom_destroy_r(context, fixed) }
        // The new vertices where edges crossed are rarely on the grid; rounded, the polygon is
        // usually still valid, and snap-rounding (far slower) is only for when it is not.
        var rounded: [[SIMD2<Int32>]] = []
        appendPolygons(of: fixed, to: &rounded)
        if isValid(rounded) { return rounded }
        guard let snapped = GEOSGeom_setPrecision_r(context, fixed, 1, 0) else { return nil }
        defer { GEOSGeom_destroy_r(context, snapped) }
        var out: [[SIMD2<Int32>]] = []
        appendPolygons(of: snapped, to: &out)
        return out
    }

    /// The rings as a GEOS multipolygon: a ring with positive area starts a polygon, the
    /// negative ones after it are its holes.
    private func multiPolygon(_ rings: [[SIMD2<Int32>]]) -> OpaquePointer? {
        guard !rings.isEmpty else { return nil }
        var polygons: [OpaquePointer] = []
        var index = 0
        while index < rings.count {
            var holes: [OpaquePointer?] = []
            let shell = ring(rings[index])
            index += 1
            while index < rings.count, TileGrid.doubleArea(rings[index]) < 0 {
                holes.append(ring(rings[index]))
                index += 1
            }
            if let polygon = holes.withUnsafeMutableBufferPointer({ GEOSGeom_createPolygon_r(context, shell, $0.baseAddress, UInt32($0.count)) }) {
                polygons.append(polygon)
            }
        }
        var members = polygons.map { Optional($0) }
        return members.withUnsafeMutableBufferPointer {
            GEOSGeom_createCollection_r(context, Int32(GEOS_MULTIPOLYGON.rawValue), $0.baseAddress, UInt32($0.count))
        }
    }

    /// A closed GEOS ring of an unclosed tile ring.
    private func ring(_ points: [SIMD2<Int32>]) -> OpaquePointer? {
        var coordinates: [Double] = []
        coordinates.reserveCapacity(2 * points.count + 2)
        for p in points + [points[0]] { coordinates += [Double(p.x), Double(p.y)] }
        let sequence = GEOSCoordSeq_copyFromBuffer_r(context, coordinates, UInt32(points.count + 1), 0, 0)
        return GEOSGeom_createLinearRing_r(context, sequence)
    }

    /// The polygons in `geometry` (a polygon, a multipolygon, or a collection in which lines
    /// and points left by collapsed parts are skipped), as tile rings wound as tiles want them.
    private func appendPolygons(of geometry: OpaquePointer, to out: inout [[SIMD2<Int32>]]) {
        switch Int(GEOSGeomTypeId_r(context, geometry)) {
        case Int(GEOS_POLYGON.rawValue):
            var rings: [[SIMD2<Int32>]] = []
            if let exterior = GEOSGetExteriorRing_r(context, geometry) { rings.append(points(of: exterior)) }
            for index in 0..<max(0, GEOSGetNumInteriorRings_r(context, geometry)) {
                if let hole = GEOSGetInteriorRingN_r(context, geometry, index) { rings.append(points(of: hole)) }
            }
            out += TileGrid.wound(rings)
        case Int(GEOS_MULTIPOLYGON.rawValue), Int(GEOS_GEOMETRYCOLLECTION.rawValue):
            for index in 0..<max(0, GEOSGetNumGeometries_r(context, geometry)) {
                if let member = GEOSGetGeometryN_r(context, geometry, index) { appendPolygons(of: member, to: &out) }
            }
        default:
            break
        }
    }

    private func points(of ring: OpaquePointer) -> [SIMD2<Int32>] {
        guard let sequence = GEOSGeom_getCoordSeq_r(context, ring) else { return [] }
        var count: UInt32 = 0
        GEOSCoordSeq_getSize_r(context, sequence, &count)
        var coordinates = [Double](repeating: 0, count: 2 * Int(count))
        GEOSCoordSeq_copyToBuffer_r(context, sequence, &coordinates, 0, 0)
        return (0..<Int(count)).map { SIMD2(Int32(coordinates[2 * $0].rounded()), Int32(coordinates[2 * $0 + 1].rounded())) }
    }
}
