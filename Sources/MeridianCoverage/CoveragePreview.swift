import MeridianFormats
import MeridianGeometry

/// A coverage file as features to draw (`coverage validate --preview`), made from the polygons
/// as the validator read them, so that every finding shows where it points:
///
/// - each polygon is filled by its worst issue (red for an error, orange for a warning, blue
///   when clean) and named "Polygon N", with its holes cut out and outlined;
/// - a ring too short to enclose anything is drawn as a line (a lone position has its pin);
/// - a ring across ±180° keeps its longitudes continuous (179 → 181), as MapKit draws such an
///   overlay, never a line round the world; polygons on the two sides of ±180° stay side by side;
/// - a pin named by its rule marks each finding that has a place: the position it names, where
///   edges cross (self-intersection, overlap) or where a ring crosses ±180° (antimeridian), else
///   the first position of its ring (a hole, a short ring, winding, point count). Findings at
///   the same spot share a pin. Findings about the whole file (type, polygon count, area, bbox,
///   crs) have no place on the map.
public enum CoveragePreview {
    static let clean = "#2f7dd1", warning = "#f0a020", error = "#d0342c"

    /// The report's polygons and findings as features to draw or write (GeoJSON, KML, a picture):
    /// polygons first, named and filled by their worst finding, then one pin per place of a finding.
    /// Each carries a `name` and simplestyle properties (`fill`, `stroke`, `marker-color`).
    /// - Parameter report: A report from ``CoverageValidator``, with its polygons.
    /// - Returns: The features, polygons before pins.
    public static func features(_ report: CoverageReport) -> [Feature] {
        var shapes = report.polygons.map(UnwrappedPolygon.init)
        // Side by side, as `render` lays out data: polygons cut at ±180° (Fiji's two halves) meet at 180°.
        var layout = LongitudeLayout()
        for middle in shapes.compactMap(\.middleLongitude) { layout.add(middle: middle) }
        let cut = layout.cut()
        for index in shapes.indices {
            if let middle = shapes[index].middleLongitude { shapes[index].shift(by: cut.shift(forMiddle: middle)) }
        }
        var features: [Feature] = []
        for (index, shape) in shapes.enumerated() {
            let issues = report.issues.filter { $0.polygon == index }
            let colour = issues.contains { $0.severity == .error } ? error : issues.isEmpty ? clean : warning
            features += shape.features(name: "Polygon \(index + 1)", colour: colour)
        }
        // One pin per spot, in the order of the findings.
        var pins: [(place: Position, issues: [CoverageIssue])] = []
        for issue in report.issues {
            guard let p = issue.polygon, shapes.indices.contains(p), let place = shapes[p].place(of: issue) else { continue }
            if let i = pins.firstIndex(where: { $0.place == place }) { pins[i].issues.append(issue) } else { pins.append((place, [issue])) }
        }
        for (place, issues) in pins {
            var rules: [String] = []
            for issue in issues where !rules.contains(issue.rule.id) { rules.append(issue.rule.id) }
            features.append(Feature(geometry: .point(Point(place)), properties: [
                "name": .string(rules.joined(separator: ", ")),
                "marker-color": .string(issues.contains { $0.severity == .error } ? error : warning),
                "marker-size": .string("small"),
            ]))
        }
        return features
    }
}

/// One polygon's rings as read, with continuous longitudes (each step less than 180°, holes
/// on the same turn as the outer ring); nil where a position was not readable, so positions
/// keep the numbers the findings give them.
struct UnwrappedPolygon {
    private(set) var rings: [[Position?]]

    init(_ rings: [[Position?]]) {
        var unwrapped: [[Position?]] = []
        var reference: Double?
        for ring in rings {
            var plane = Rings.unwrapped(ring.compactMap { $0 })
            if let reference, let first = plane.first {
                // A hole on the same turn as the outer ring.
                let turns = ((reference - first.x) / 360).rounded()
                plane = plane.map { PlanePoint($0.x + 360 * turns, $0.y) }
            }
            reference = reference ?? plane.first?.x
            var next = plane.makeIterator()
            unwrapped.append(ring.map { position in
                position.flatMap { p in next.next().map { Position(longitude: $0.x, latitude: $0.y, altitude: p.altitude) } }
            })
        }
        self.rings = unwrapped
    }

    /// The middle of the polygon's longitudes, or nil when it has no readable position.
    var middleLongitude: Double? {
        let longitudes = rings.flatMap { $0.compactMap { $0?.longitude } }
        guard let low = longitudes.min(), let high = longitudes.max() else { return nil }
        return (low + high) / 2
    }

    mutating func shift(by degrees: Double) {
        guard degrees != 0 else { return }
        rings = rings.map { $0.map { $0.map { Position(longitude: $0.longitude + degrees, latitude: $0.latitude, altitude: $0.altitude) } } }
    }

    /// A ring with at least 3 distinct positions encloses an area; one with fewer is a line.
    private static func enclosesArea(_ ring: [Position]) -> Bool {
        var distinct: [Position] = []
        for p in ring where !distinct.contains(where: { $0.longitude == p.longitude && $0.latitude == p.latitude }) {
            distinct.append(p)
            if distinct.count == 3 { return true }
        }
        return false
    }

    func features(name: String, colour: String) -> [Feature] {
        let readable = rings.map { $0.compactMap { $0 } }
        let areas = readable.indices.filter { Self.enclosesArea(readable[$0]) }
        let area: JSONObject = [
            "name": .string(name), "fill": .string(colour), "fill-opacity": .double(0.35),
            "stroke": .string(colour), "stroke-width": .double(2),
        ]
        var features: [Feature] = []
        if areas.first == 0 {
            // The outer ring with its holes: filled even-odd, the holes show, outlined too.
            features.append(Feature(geometry: .polygon(Polygon(areas.map { readable[$0] })), properties: area))
        } else {
            features += areas.map { Feature(geometry: .polygon(Polygon([readable[$0]])), properties: area) }
        }
        for r in readable.indices where !areas.contains(r) && readable[r].count >= 2 {
            features.append(Feature(geometry: .lineString(LineString(readable[r])), properties: [
                "name": .string("\(name), ring \(r + 1)"), "stroke": .string(colour), "stroke-width": .double(3),
            ]))
        }
        return features
    }

    /// Where a finding about this polygon points; nil when the polygon has no readable position.
    func place(of issue: CoverageIssue) -> Position? {
        if let point = issue.point {
            // On the polygon's turn of longitude.
            let middle = middleLongitude ?? point.longitude
            let turns = ((middle - point.longitude) / 360).rounded()
            return Position(longitude: point.longitude + 360 * turns, latitude: point.latitude)
        }
        let r = issue.ring ?? 0
        if rings.indices.contains(r) {
            let ring = rings[r]
            if let q = issue.position, ring.indices.contains(q) {
                // The position, or when it could not be read, the nearest one that could.
                for distance in 0..<ring.count {
                    if q - distance >= 0, let p = ring[q - distance] { return p }
                    if q + distance < ring.count, let p = ring[q + distance] { return p }
                }
            }
            if let first = ring.lazy.compactMap({ $0 }).first { return first }
        }
        return rings.lazy.compactMap { $0.lazy.compactMap { $0 }.first }.first
    }
}
