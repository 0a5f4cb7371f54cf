import CGDAL
import GDALSupport
import MeridianCore
import MeridianFormats
import MeridianGeometry

/// Reads any vector dataset GDAL opens (GeoPackage, Shapefile, FlatGeobuf, GML, File
/// Geodatabase, …), one feature at a time: geometry through ISO WKB, reprojected to WGS 84
/// longitude/latitude when the layer has another CRS; fields as typed properties (integers,
/// reals, booleans; dates and the rest as text). With several layers, each feature gets a
/// `layer` property, unless `layer` picks one. GDAL's warnings go to `diagnostics`.
public final class OGRReader: FeatureReader {
    private let dataset: GDALDataset
    /// The input's name in messages.
    private let name: String
    private var layers: [OGRLayerH] = []
    private var layerIndex = 0
    private var transform: OGRCoordinateTransformationH?
    private let wgs84 = SpatialReference.wgs84LongitudeLatitude()
    private let messages: GDALMessages

    /// `name` stands for `path` in messages (`<stdin>` for standard input's copy); `driver`,
    /// when given, is the only driver tried (a format the caller named), else GDAL recognises the content.
    /// `layer` keeps one layer; a name the dataset has no layer of is a usage error that lists them.
    public init(path: String, name displayName: String? = nil, layer: String? = nil, driver: String? = nil,
                diagnostics: DiagnosticHandler? = nil) throws {
        let name = displayName ?? path
        self.name = name
        messages = GDALMessages(file: name, diagnostics: diagnostics)
        // Nothing outside the input's folder is read: what opening reads, checked before (a VRT's
        // sources, a GML file's schemas), and then every file GDAL lists for the dataset; and
        // nothing GDAL could open there (a shapefile's companions) is a named pipe or a device.
        try DatasetFiles.checkRegularFiles(opening: path, name: name)
        try VRTSources.check(path, name: name)
        try DatasetFiles.checkSchemaIncludes(ofGML: path, name: name)
        SQLiteConnectionRules.apply(toFileAt: path)
        guard let dataset = messages.capturing({ GDALDataset(opening: path, for: .vector, drivers: driver.map { [$0] } ?? []) }) else {
            // A file that is there and readable holds data GDAL does not understand.
            // (A file in GDAL's memory, standard input's copy, is there and readable: `MappedInputFile`.)
            let readable = access(path, R_OK) == 0 || path.hasPrefix("/vsimem/")
            throw MeridianError(readable ? .badInput : .inputUnavailable,
                                GDAL.lastError ?? "GDAL cannot open it as vector data", at: SourceLocation(file: name))
        }
        self.dataset = dataset
        try DatasetFiles.checkStayInFolder(dataset, openPath: path, name: name,
                                           hint: "keep a dataset's files in its folder (a shapefile's companions, a GML file's schema beside it)")
        let all = (0..<GDALDatasetGetLayerCount(dataset.handle)).compactMap { GDALDatasetGetLayer(dataset.handle, $0) }
        layers = all.filter { handle in layer.map { String(cString: OGR_L_GetName(handle)) == $0 } ?? true }
        guard !layers.isEmpty else {
            guard let layer, !all.isEmpty else { throw MeridianError(.badInput, "no vector layer", at: SourceLocation(file: name)) }
            throw LayerSelection.unknown(layer, among: all.map { String(cString: OGR_L_GetName($0)) }, in: name)
        }
        startLayer()
    }

    deinit {
        if let transform { OCTDestroyCoordinateTransformation(transform) }
    }

    private func startLayer() {
        if let transform { OCTDestroyCoordinateTransformation(transform) }
        transform = nil
        let layer = layers[layerIndex]
        OGR_L_ResetReading(layer)
        if let source = OGR_L_GetSpatialRef(layer), OSRIsSame(source, wgs84.handle) == 0 {
            transform = OCTNewCoordinateTransformation(source, wgs84.handle)
        }
    }

    /// The layer's name as the collection's `name` when the reader reads one layer; empty otherwise.
    public func readMetadata() throws -> CollectionMetadata {
        guard layers.count == 1 else { return .init() }
        return CollectionMetadata(members: ["name": .string(String(cString: OGR_L_GetName(layers[0])))])
    }

    /// Always empty: GDAL datasets have nothing after their features.
    public var trailingMetadata: CollectionMetadata { .init() }

    /// The next feature, layer after layer, in WGS 84 longitude/latitude; nil at the end of the last layer.
    /// - Throws: A `MeridianError` when GDAL cannot read a feature or its geometry.
    public func next() throws -> Feature? {
        while layerIndex < layers.count {
            let layer = layers[layerIndex]
            CPLErrorReset()
            if let feature = messages.capturing({ OGR_L_GetNextFeature(layer) }) {
                defer { OGR_F_Destroy(feature) }
                return try convert(feature, layer: layer)
            }
            // No feature, and a failure: the layer could not be read on (a query the file's
            // view makes, a damaged record), which is not its end.
            guard !GDAL.lastErrorIsFailure else {
                throw MeridianError.gdal(.badInput, "cannot read the layer \"\(String(cString: OGR_L_GetName(layer)))\" to its end", path: name)
            }
            layerIndex += 1
            if layerIndex < layers.count { startLayer() }
        }
        messages.finish()
        return nil
    }

    private func convert(_ feature: OGRFeatureH, layer: OGRLayerH) throws -> Feature {
        var properties = JSONObject()
        if layers.count > 1 { properties["layer"] = .string(String(cString: OGR_L_GetName(layer))) }
        let definition = OGR_F_GetDefnRef(feature)
        for i in 0..<OGR_F_GetFieldCount(feature) {
            guard let field = OGR_FD_GetFieldDefn(definition, i) else { continue }
            let name = String(cString: OGR_Fld_GetNameRef(field))
            guard OGR_F_IsFieldSetAndNotNull(feature, i) != 0 else {
                properties[name] = .null
                continue
            }
            switch (OGR_Fld_GetType(field), OGR_Fld_GetSubType(field)) {
            case (OFTInteger, OFSTBoolean): properties[name] = .bool(OGR_F_GetFieldAsInteger(feature, i) != 0)
            case (OFTInteger, _), (OFTInteger64, _): properties[name] = .integer(Int64(OGR_F_GetFieldAsInteger64(feature, i)))
            case (OFTReal, _): properties[name] = .double(OGR_F_GetFieldAsDouble(feature, i))
            default: properties[name] = .string(String(cString: OGR_F_GetFieldAsString(feature, i)))
            }
        }
        var geometry: Geometry?
        if let ogrGeometry = OGR_F_GetGeometryRef(feature) {
            if let transform, OGR_G_Transform(ogrGeometry, transform) != OGRERR_NONE {
                throw MeridianError(.badInput, "feature \(OGR_F_GetFID(feature)): cannot reproject it to WGS 84", at: SourceLocation(file: name))
            }
            var bytes = [UInt8](repeating: 0, count: Int(OGR_G_WkbSizeEx(ogrGeometry)))
            guard OGR_G_ExportToIsoWkb(ogrGeometry, wkbNDR, &bytes) == OGRERR_NONE else {
                throw MeridianError(.badInput, "feature \(OGR_F_GetFID(feature)): GDAL cannot export its geometry", at: SourceLocation(file: name))
            }
            geometry = try WKB.decode(bytes, location: SourceLocation(file: name))
        }
        return Feature(geometry: geometry, properties: properties)
    }
}
