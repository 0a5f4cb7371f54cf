import MeridianCore
import MeridianFormats
import MeridianGeometry

/// The rules a routing-app coverage file is checked against, each with a stable id.
///
/// Errors are what makes App Store Connect reject the file or Maps misread it; warnings are
/// Apple's recommendations and RFC 7946's rules that Apple is silent about (DESIGN.md §4).
public enum CoverageRule: String, CaseIterable, Sendable, Codable {
    // Errors
    case syntax, comments, `extension`, type
    case polygonCount = "polygon-count"
    case ringLength = "ring-length"
    case ringClosure = "ring-closure"
    case holes, position, bbox
    // Warnings
    case pointCount = "point-count"
    case winding, antimeridian, precision
    case selfIntersection = "self-intersection"
    case duplicatePoint = "duplicate-point"
    case altitude, crs, overlap, area

    /// The rule's stable id (`ring-closure`, `point-count`, …), as reports and JSON output name it.
    public var id: String { rawValue }

    /// `.error` for the rules App Store Connect enforces, `.warning` for recommendations.
    public var severity: Severity {
        switch self {
        case .syntax, .comments, .extension, .type, .polygonCount, .ringLength, .ringClosure, .holes, .position, .bbox: .error
        default: .warning
        }
    }

    /// The fix, said once for every finding of the rule.
    public var hint: String {
        switch self {
        case .syntax: "the file must be complete, valid JSON; Maps only logs \"unexpected end of file while parsing object\""
        case .comments: "JSON has no comments: delete them (meridian coverage fix strips them)"
        case .extension: "name the file with the .geojson extension"
        case .type: "the file must be one bare MultiPolygon geometry: {\"type\": \"MultiPolygon\", \"coordinates\": [...]}"
        case .polygonCount: "use 1 to 20 polygons; merge or simplify regions (meridian coverage make does this)"
        case .ringLength: "a ring needs at least 4 positions, the last repeating the first"
        case .ringClosure: "repeat the first position at the end of the ring"
        case .holes: "coverage polygons cannot have holes: keep only the outer ring, or split the region"
        case .position: "a position is [longitude, latitude] (or with an altitude), numbers within ±180 and ±90"
        case .bbox: "the bbox member must be [west, south, east, north] and contain every position, or be left out"
        case .pointCount: "Apple recommends at most 20 points per polygon: simplify the outline (meridian coverage make)"
        case .winding: "reverse the ring's positions so the outline runs counter-clockwise (meridian coverage fix)"
        case .antimeridian: "cut the polygon in two at ±180° longitude; each half counts toward the 20 polygons"
        case .precision: "6 decimals (about 10 cm) are plenty; round the coordinates (meridian coverage fix)"
        case .selfIntersection: "the outline crosses itself: redraw it so edges only meet at their ends"
        case .duplicatePoint: "remove the repeated position"
        case .altitude: "coverage is two-dimensional: drop the third number"
        case .crs: "RFC 7946 removed crs; coordinates must be WGS 84 longitude, latitude: drop the member"
        case .overlap: "polygons overlap: merge them into one, which also saves a polygon"
        case .area: "Apple asks for as specific a region as possible, not the whole world"
        }
    }
}

extension CoverageRule {
    /// Why `coverage fix` (which repairs only what keeps the covered area) or `make` (which
    /// covers what it is given) leaves a finding of this rule as it is; nil for the rules they
    /// repair or refuse.
    public var whyLeftAsItIs: String? {
        switch self {
        case .selfIntersection: "untangling a ring that crosses itself changes the area it covers, and only you know which part was meant"
        case .pointCount: "dropping points changes the area covered"
        case .overlap: "merging overlapping polygons changes their outlines"
        case .area: "only you can say which smaller region to cover"
        default: nil
        }
    }
}

/// One finding: a rule broken at a place, with the polygon, ring and position involved
/// (0-based, as in the JSON arrays).
public struct CoverageIssue: Sendable, Hashable {
    /// The rule broken.
    public var rule: CoverageRule
    /// What is wrong, in a sentence, with the values found.
    public var message: String
    /// The line in the file (1-based), or nil for a finding about the whole file.
    public var line: Int?
    /// The column in the file (1-based), or nil for a finding about the whole file.
    public var column: Int?
    /// The polygon (0-based) in the MultiPolygon's coordinates, when the finding is about one.
    public var polygon: Int?
    /// The ring (0-based) in the polygon, 0 being the outer ring.
    public var ring: Int?
    /// The position (0-based) in the ring.
    public var position: Int?
    /// The place on the Earth the finding is about when it is not one of the file's positions:
    /// where edges cross (self-intersection, overlap), where a ring crosses ±180° (antimeridian).
    public var point: Position?

    /// Creates a finding.
    /// - Parameters:
    ///   - rule: The rule broken.
    ///   - message: What is wrong.
    ///   - place: The line and column in the file, or nil.
    ///   - polygon: The polygon (0-based), or nil.
    ///   - ring: The ring (0-based), or nil.
    ///   - position: The position (0-based), or nil.
    ///   - point: A place on the Earth that is not one of the file's positions, or nil.
    public init(_ rule: CoverageRule, _ message: String, at place: LocatedJSON.Place? = nil,
                polygon: Int? = nil, ring: Int? = nil, position: Int? = nil, point: Position? = nil) {
        self.rule = rule
        self.message = message
        line = place?.line
        column = place?.column
        self.polygon = polygon
        self.ring = ring
        self.position = position
        self.point = point
    }

    /// The rule's severity: errors fail validation, warnings only a strict check.
    public var severity: Severity { rule.severity }

    /// "polygon 2, ring 1, position 5" (1-based, for people).
    public var whereText: String? {
        var parts: [String] = []
        if let polygon { parts.append("polygon \(polygon + 1)") }
        if let ring { parts.append("ring \(ring + 1)") }
        if let position { parts.append("position \(position + 1)") }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}
