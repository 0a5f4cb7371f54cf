import MeridianCoverage
import MeridianFormats
import MeridianGeometry
import MeridianRaster

/// The parsers a stranger's file reaches, each as a function from bytes to "read it all or
/// throw": a crash, a hang or a trap in any of them is a finding. Errors are expected (most
/// fuzz inputs are broken); only the way a parser fails is under test.
enum FuzzTargets {
    static let all: [String: @Sendable ([UInt8]) -> Void] = [
        "geojson": { read($0, format: "geojson") },
        "geojsonseq": { read($0, format: "geojsonseq") },
        "kml": { read($0, format: "kml") },
        "kmz": { read($0, format: "kmz") },
        "gpx": { read($0, format: "gpx") },
        "wkt": { read($0, format: "wkt") },
        "wkb": { read($0, format: "wkb") },
        "csv": { read($0, format: "csv") },
        "coverage": { bytes in _ = CoverageValidator().validate(bytes: bytes, name: "fuzz.geojson") },
        // A QGIS control-point file, its #CRS line through GDAL's spatial references.
        "points": { bytes in _ = try? ControlPointFile(bytes: bytes, path: "fuzz.points") },
    ]

    static func read(_ bytes: [UInt8], format: String) {
        do {
            let reader = try FormatRegistry.standard.format(named: format).reader(for: BufferedInput(bytes: bytes, name: "fuzz"))
            _ = try reader.readMetadata()
            while try reader.next() != nil {}
        } catch {}
    }
}
