// In-library timings for Benchmarks/simplify: the simplification call alone, without reading
// or writing files, so it can stand beside shapely's own `simplify` call timed the same way.
// Usage: meridian-benchmarks simplify LINE.geojson TOLERANCE_MAP_POINTS [RUNS]
import Foundation
import MeridianFormats
import MeridianGeometry

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// Seconds per call of `body`, the median of `runs`.
func time(runs: Int, _ body: () -> Int) -> (seconds: Double, result: Int) {
    var seconds: [Double] = []
    var result = 0
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        result = body()
        seconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return (median(seconds), result)
}

let arguments = CommandLine.arguments
guard arguments.count >= 4, arguments[1] == "simplify", let tolerance = Double(arguments[3]) else {
    FileHandle.standardError.write("usage: meridian-benchmarks simplify LINE.geojson TOLERANCE [RUNS]\n".data(using: .utf8)!)
    exit(64)
}
let runs = arguments.count > 4 ? Int(arguments[4]) ?? 5 : 5
let input = try FeatureInput(path: arguments[2])
guard case .lineString(let line)? = try input.reader.next()?.geometry else {
    FileHandle.standardError.write("meridian-benchmarks: \(arguments[2]) holds no LineString\n".data(using: .utf8)!)
    exit(65)
}
let points = line.coordinates.map(MapPoint.init)
for method in [SimplifyMethod.douglasPeucker, .radial] {
    let (seconds, kept) = time(runs: runs) { Simplify.keptIndices(points, tolerance: tolerance, method: method).count }
    print(String(format: "%@ %.6f %d %.1f", method.rawValue, seconds, kept, Double(points.count) / seconds / 1e6))
}
