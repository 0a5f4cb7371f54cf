import MeridianFormats
import MeridianGeometry

/// A coverage file as features to draw (`coverage validate --preview`): each polygon filled
/// by its worst issue (red for an error, orange for a warning, blue when clean) and named
/// "Polygon N", and a pin at each position an issue points to, named by its rule.
public enum CoveragePreview {
    static let clean = "#2f7dd1", warning = "#f0a020", error = "#d0342c"

    public static func features(_ area: CoverageArea, report: CoverageReport) -> [Feature] {
        var features: [Feature] = []
        for (index, ring) in area.polygons.enumerated() {
            let issues = report.issues.filter { $0.polygon == index }
            let colour = issues.contains { $0.severity == .error } ? error : issues.isEmpty ? clean : warning
            features.append(Feature(geometry: .polygon(Polygon([ring])), properties: [
                "name": .string("Polygon \(index + 1)"),
                "fill": .string(colour), "fill-opacity": .double(0.35), "stroke": .string(colour), "stroke-width": .double(2),
            ]))
        }
        for issue in report.issues {
            guard let p = issue.polygon, let q = issue.position, area.polygons.indices.contains(p), area.polygons[p].indices.contains(q),
                  issue.ring == nil || issue.ring == 0 else { continue }
            features.append(Feature(geometry: .point(Point(area.polygons[p][q])), properties: [
                "name": .string(issue.rule.id), "marker-color": .string(issue.severity == .error ? error : warning),
                "marker-size": .string("small"),
            ]))
        }
        return features
    }
}
