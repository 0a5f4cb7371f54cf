import CGDAL
import Foundation
import GDALSupport
import MeridianCore
import MeridianFormats
import MeridianGeometry
import MeridianOGR
import MeridianRaster
import MeridianTiles

/// The inputs of a run of vector data: each read once, in order, one layer each, through the
/// format registry (Meridian's own formats) or GDAL (every other vector format).
struct VectorInputs {
    let request: TilingJobRequest

    /// Whether `path` is vector data to tile (not a raster, a GroundOverlay or a folder of them).
    static func isVector(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else { return false }
        // Any format the registry reads, as `read` reads it; KML and KMZ unless they hold a GroundOverlay.
        if let format = FormatRegistry.standard.knownFormat(forPath: path), format.canRead {
            return format == .kml || format == .kmz ? !RasterSource.holdsGroundOverlay(path) : true
        }
        GDAL.setUp()
        guard GDALIdentifyDriverEx(path, UInt32(GDAL_OF_VECTOR), nil, nil) != nil else { return false }
        guard let rasterDriver = GDALIdentifyDriverEx(path, UInt32(GDAL_OF_RASTER), nil, nil) else { return true }
        // A GeoPackage is told as raster and vector alike, whatever it holds: it is vector data
        // when it holds no raster (GDAL then cannot open it as one). Opened as the raster path
        // opens it: under the SQLite rules, and not at all when the file has views of its own.
        guard String(cString: GDALGetDriverShortName(rasterDriver)) == "GPKG" else { return false }
        SQLiteConnectionRules.apply(toFileAt: path)
        guard SQLiteConnectionRules.views(inFileAt: path).isEmpty else { return false }
        let holdsRaster = GDALDataset(opening: path, for: .raster, drivers: ["GPKG"]) != nil
        CPLErrorReset()
        return !holdsRaster
    }

    /// What reading every input found.
    struct Layers {
        /// Each input's layer name.
        var names: [String]
        /// The bounds of all the features.
        var bounds: BoundingBox
        /// The zooms asked for, or those the features' detail calls for.
        var zooms: ClosedRange<Int>
    }

    /// Reads every input once, in order, one layer each: `startLayer` is called with each
    /// input's layer name before `each` sees its features.
    func read(diagnostics: @escaping DiagnosticHandler, startLayer: (String) -> Void,
              each: (MeridianGeometry.Feature) throws -> Void) throws -> Layers {
        let inputs = request.inputs, layerNames = request.layerNames
        guard layerNames.isEmpty || layerNames.count == inputs.count else {
            throw TilingJobError.layerNameCount(given: layerNames.count, inputs: inputs.count)
        }
        var names: [String] = []
        var bounds = BoundingBox.Accumulator()
        var zoomGuess = ZoomGuess()
        for (index, path) in inputs.enumerated() {
            let reader: any FeatureReader = FormatRegistry.standard.knownFormat(forPath: path) != nil
                ? try FeatureInput(path: path, options: ReadOptions(coordinates: .geographic(for: "tiles"))).reader
                : try OGRReader(path: path, diagnostics: diagnostics)
            _ = try reader.readMetadata()
            let name = layerNames.isEmpty ? ((path as NSString).lastPathComponent as NSString).deletingPathExtension : layerNames[index]
            names.append(name)
            startLayer(name)
            var droppedPositionData: Set<String> = []
            defer {
                // A tile holds each feature cut and simplified its own way: arrays per position would not fit.
                if !droppedPositionData.isEmpty {
                    diagnostics(.positionDataDropped(droppedPositionData.sorted(), "have no place in vector tiles", at: SourceLocation(file: path)))
                }
            }
            while var feature = try reader.next() {
                droppedPositionData.formUnion(feature.removePositionData())
                if let geometry = feature.geometry {
                    geometry.forEachPosition { bounds.add($0) }
                    if request.zooms == nil { zoomGuess.add(geometry) }
                }
                try each(feature)
            }
        }
        return Layers(names: names, bounds: bounds.result ?? BoundingBox(west: -180, south: -85, east: 180, north: 85), zooms: request.zooms ?? zoomGuess.zooms)
    }

    /// The inputs' file names, for a tile set's description.
    var fileNames: String { request.inputs.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ") }
}
