import MeridianCore
import MeridianFormats
import MeridianGeometry

/// Repairs what can be repaired in a coverage file without changing the area it covers, and
/// says what it changed; refuses (bad input) what cannot be (holes, too many polygons, broken
/// positions), pointing to `coverage make`.
public struct CoverageFixer: Sendable {
    /// Decimals coordinates are rounded to.
    public var decimals = 6
    /// Polygons allowed after repair (Apple allows 20); more is refused.
    public var maximumPolygons = 20

    /// Creates a fixer with Apple's limits.
    public init() {}

    /// The repaired coverage, the list of changes in the order made, and what the repaired file
    /// still breaks.
    public struct Result: Sendable {
        /// The repaired coverage, to write with `CoverageFile.write(_:to:)`.
        public var coverage: MultiPolygon
        /// What was changed: see ``CoverageChange`` for the order.
        public var changes: [CoverageChange]
        /// What `validate --strict` still finds in the file as written: rules whose repair would
        /// change the covered area (a ring that crosses itself, overlapping polygons, more than
        /// 20 points), which `coverage make` satisfies instead. Places are the written file's.
        public var remaining: [CoverageIssue]

        /// The written file passes `validate --strict`.
        public var passes: Bool { remaining.isEmpty }
    }

    /// Repairs the coverage file at a path.
    /// - Parameter path: The file, or nil or `"-"` for standard input.
    /// - Returns: The repaired coverage, the changes made and what still does not pass.
    /// - Throws: `MeridianError` when the file cannot be read or parsed, or when a repair would
    ///   change the area covered (holes, too many polygons, broken positions).
    public func fix(path: String?) throws -> Result {
        let input = try BufferedInput.open(path == "-" ? nil : path)
        return try fix(bytes: try input.readAll(maximum: 64 << 20), name: input.name)
    }

    /// Repairs a coverage file's bytes.
    /// - Parameters:
    ///   - bytes: The file's contents.
    ///   - name: The file's name, for messages.
    /// - Returns: The repaired coverage, the changes made and what still does not pass.
    /// - Throws: `MeridianError` when the JSON cannot be parsed or when a repair would change the
    ///   area covered (holes, too many polygons, broken positions).
    public func fix(bytes: [UInt8], name: String) throws -> Result {
        var fixing = Fixing(name: name)
        var text = bytes
        if let place = CoverageValidator.stripComments(&text) { fixing.changes.append(.removedComments(firstLine: place.line)) }
        let document = try LocatedJSON.parse(BufferedInput(bytes: text, name: name))
        let geometry = try fixing.unwrapGeometry(of: document)
        var polygons: [Polygon] = []
        for (p, polygonValue) in try fixing.polygonValues(of: geometry).enumerated() {
            let (ring, place) = try fixing.outerRing(of: polygonValue, polygon: p)
            for part in repair(ring, repairs: &fixing.ringRepairs) {
                guard part.count >= 4 else { throw fixing.refusal("polygon \(p + 1) has fewer than 3 distinct positions", at: place) }
                polygons.append(Polygon([part]))
            }
        }
        if polygons.isEmpty { throw fixing.refusal("the file has no polygons", at: geometry.place) }
        if polygons.count > maximumPolygons {
            throw fixing.refusal("the coverage needs \(polygons.count) polygons; Apple allows \(maximumPolygons)",
                                 hint: "merge regions with meridian coverage make")
        }
        let coverage = MultiPolygon(polygons)
        return Result(coverage: coverage, changes: fixing.changes + fixing.ringRepairs.sorted(), remaining: try CoverageFile.issues(in: coverage))
    }

    /// One file being fixed: what was changed so far, and the refusals, placed in the file.
    struct Fixing {
        let name: String
        var changes: [CoverageChange] = []
        var ringRepairs = Set<CoverageChange>()

        func refusal(_ message: String, at place: LocatedJSON.Place? = nil, hint: String? = nil) -> MeridianError {
            MeridianError(.badInput, message, at: SourceLocation(file: name, line: place?.line, column: place?.column), hint: hint)
        }

        /// The geometry, out of any Feature or FeatureCollection wrapper.
        mutating func unwrapGeometry(of document: LocatedJSON) throws -> LocatedJSON {
            switch document["type"]?.string {
            case "Feature":
                guard let inner = document["geometry"], inner.members != nil else { throw refusal("the Feature has no geometry") }
                changes.append(.unwrappedFromFeature)
                return inner
            case "FeatureCollection":
                let features = document["features"]?.elements ?? []
                let geometries = features.compactMap { $0["geometry"] }.filter { $0.members != nil }
                guard geometries.count == 1 else {
                    throw refusal("the FeatureCollection holds \(geometries.count) geometries; only one can be unwrapped safely",
                                  at: document.place, hint: "merge them with meridian coverage make")
                }
                changes.append(.unwrappedFromFeatureCollection)
                return geometries[0]
            default:
                return document
            }
        }

        /// The polygons' coordinates of a MultiPolygon, or of a Polygon made one; members that
        /// do not belong in coverage are dropped.
        mutating func polygonValues(of geometry: LocatedJSON) throws -> [LocatedJSON] {
            let polygonValues: [LocatedJSON]
            switch geometry["type"]?.string?.lowercased() {
            case "multipolygon":
                if geometry["type"]?.string != "MultiPolygon" { changes.append(.spelledMultiPolygon) }
                polygonValues = geometry["coordinates"]?.elements ?? []
            case "polygon":
                polygonValues = geometry["coordinates"].map { [$0] } ?? []
                changes.append(.madePolygonMultiPolygon)
            default:
                throw refusal("the geometry is not a Polygon or MultiPolygon", at: geometry.place,
                              hint: "make coverage from any geometry with meridian coverage make")
            }
            if geometry["crs"] != nil { changes.append(.removedCRS) }
            if geometry["bbox"] != nil { changes.append(.removedBBox) }
            return polygonValues
        }

        /// Polygon `p`'s one ring as positions, and its place; a hole or a broken position is refused.
        mutating func outerRing(of polygonValue: LocatedJSON, polygon p: Int) throws -> ([Position], LocatedJSON.Place?) {
            guard let rings = polygonValue.elements, let exterior = rings.first else {
                throw refusal("polygon \(p + 1) has no ring", at: polygonValue.place)
            }
            if rings.count > 1 {
                throw refusal("polygon \(p + 1) has a hole; removing it would change the covered area", at: rings[1].place,
                              hint: "decide what to cover and run meridian coverage make")
            }
            var ring: [Position] = []
            for (i, element) in (exterior.elements ?? []).enumerated() {
                guard let values = element.elements, values.count >= 2, values.count <= 4,
                      let lon = values[0].number, let lat = values[1].number, lon.isFinite, lat.isFinite,
                      (-180...180).contains(lon), (-90...90).contains(lat) else {
                    throw refusal("position \(i + 1) of polygon \(p + 1) is not a valid longitude, latitude", at: element.place)
                }
                if values.count > 2 { ringRepairs.insert(.droppedAltitudes) }
                ring.append(Position(longitude: lon, latitude: lat))
            }
            return (ring, exterior.place)
        }
    }

    /// One ring made right: repeated points dropped, rounded, closed, cut at the antimeridian,
    /// counter-clockwise. Returns the ring, or its two halves.
    func repair(_ ring: [Position], repairs: inout Set<CoverageChange>) -> [[Position]] {
        var points: [Position] = []
        for position in ring {
            let rounded = position.rounded(toDecimals: decimals)
            if rounded != position { repairs.insert(.roundedCoordinates(decimals: decimals)) }
            if let last = points.last, last == rounded {
                repairs.insert(.droppedRepeatedPositions)
                continue
            }
            points.append(rounded)
        }
        if let first = points.first, let last = points.last, first != last {
            points.append(first)
            repairs.insert(.closedOpenRings)
        }
        var parts = [points]
        if Rings.crossesAntimeridian(points) {
            parts = Antimeridian.cut(points).map { $0.map { $0.rounded(toDecimals: decimals) } }
            repairs.insert(.cutAtAntimeridian)
        }
        return parts.map { part in
            if Rings.signedArea(Rings.unwrapped(part)) < 0 {
                repairs.insert(.madeOuterRingsCounterClockwise)
                return part.reversed()
            }
            return part
        }
    }
}
