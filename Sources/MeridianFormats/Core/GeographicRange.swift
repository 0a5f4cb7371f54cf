import MeridianCore
import MeridianGeometry

/// What a run does with a position outside ±90° latitude or ±180° longitude (a projected
/// CRS's metres in an old GeoJSON, a typo, Google's `<north>68201018719</north>`).
public enum CoordinateRule: Sendable, Hashable {
    /// The output needs places on the globe (GPX, KML, KMZ, MapKit Swift, pictures, tiles,
    /// coverage files): such a position is bad input (65), named with its file and line.
    case geographic(for: String)
    /// The output holds any numbers (GeoJSON, CSV, WKT, a GDAL dataset): the positions are kept,
    /// with one warning at the first of them.
    case warnOutsideRange
}

/// The checks every reader makes on each feature it hands out, where it knows the feature's
/// line: per-position arrays that do not fit their positions are dropped (with a warning), and
/// positions off the globe meet the run's ``CoordinateRule``. One instance serves one input.
public final class FeatureChecks {
    let rule: CoordinateRule
    let diagnostics: DiagnosticHandler?
    private var warnedOutsideRange = false

    /// The checks for an input read with `options`.
    public init(_ options: ReadOptions) {
        rule = options.coordinates
        diagnostics = options.diagnostics
    }

    /// Checks `feature`, found at `location`.
    /// - Throws: `MeridianError` (`badInput`) for a position off the globe when the output needs
    ///   geographic coordinates.
    public func check(_ feature: inout Feature, at location: SourceLocation?) throws {
        feature.dropMisalignedPositionData(at: location, diagnostics: diagnostics)
        guard let outside = feature.geometry.flatMap(Self.firstPositionOffTheGlobe) else { return }
        let what = "the position \(outside) lies outside ±90° latitude and ±180° longitude"
        switch rule {
        case .geographic(let output):
            throw MeridianError(.badInput, "\(what), which \(output) cannot hold", at: location,
                                hint: "fix the coordinates, or reproject the input to WGS 84 first (ogr2ogr -t_srs EPSG:4326)")
        case .warnOutsideRange:
            guard !warnedOutsideRange else { return }
            warnedOutsideRange = true
            diagnostics?(Diagnostic(.warning, "\(what) (and any others like it): they are kept as they are, but GPX, KML, KMZ, MapKit Swift, pictures, tiles and coverage files refuse them",
                                    at: location))
        }
    }

    /// The first position whose latitude is beyond ±90° or longitude beyond ±180° (or not a number).
    public static func firstPositionOffTheGlobe(_ geometry: Geometry) -> Position? {
        var found: Position?
        geometry.forEachPosition { p in
            if found == nil, !(abs(p.latitude) <= 90 && abs(p.longitude) <= 180) { found = p }
        }
        return found
    }
}
