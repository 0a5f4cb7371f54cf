// coverage-check COVERAGE.geojson FROM_LAT,FROM_LON TO_LAT,TO_LON
//
// Validates a routing-app coverage file as App Store Connect would, tests a route against it,
// and shows what MapKit would draw of the coverage's outline at zoom level 10: the things an
// app or a build step wants from Meridian at run time, through its public API only.
import Foundation  // exit(): an app's own choice; Meridian's libraries do not need Foundation
import MeridianCoverage
import MeridianGeometry

/// Parses "LAT,LON", people's order (and MapKit's), into a position.
func position(_ text: String) -> Position? {
    let parts = text.split(separator: ",")
    guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]),
          (-90...90).contains(latitude), (-180...180).contains(longitude) else { return nil }
    return Position(longitude: longitude, latitude: latitude)
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 3, let from = position(arguments[arguments.startIndex + 1]),
      let to = position(arguments[arguments.startIndex + 2]) else {
    print("usage: coverage-check COVERAGE.geojson FROM_LAT,FROM_LON TO_LAT,TO_LON")
    exit(64)
}
let path = arguments[arguments.startIndex]

do {
    let report = try CoverageValidator().validate(path: path)
    print(report.isValid ? "valid: \(path)" : "invalid: \(path) (\(report.errors.count) errors)")
    for issue in report.errors {
        print("  \(issue.rule.id) at line \(issue.line ?? 0): \(issue.message)")
    }

    let area = try CoverageArea(path: path)
    let route = area.check(from: from, to: to)
    print(route.isCovered ? "route covered" : "route not covered")

    // What Maps draws of the outline at zoom level 10: simplified to half a screen point.
    let scale = ZoomScale.scale(forLevel: 10)
    var simplifier = GeometrySimplifier(tolerance: 0.5 / scale, method: .douglasPeucker)
    let outline = Geometry.multiPolygon(MultiPolygon(area.polygons.map { Polygon([$0]) }))
    let drawn = simplifier.simplify(outline)
    print("outline at zoom 10: \(drawn?.positionCount ?? 0) of \(outline.positionCount) positions")
    exit(report.isValid && route.isCovered ? 0 : 1)
} catch {
    print("coverage-check: \(error)")
    exit(65)
}
