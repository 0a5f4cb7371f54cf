import CGDAL
import Foundation
import MeridianFormats
import MeridianGeometry

/// Writes features through an OGR driver (GeoPackage, Shapefile, FlatGeobuf, GML, …), with
/// properties as typed fields and geometry passed as WKB (bit-exact coordinates).
///
/// Field types need every feature first (a property that is 1 here and 1.5 there is a Real),
/// so features are spilled and written at `finish`. The file (or a Shapefile's .shp, .shx,
/// .dbf and .prj) is made in a hidden folder beside the output and moved into place by
/// `commit()`; `abandon()`, or an error, leaves nothing behind.
public final class OGRWriter: PathFeatureWriter {
    public let driver: OGRFormats.Driver
    public let path: String
    private let staging: String
    private let stagedPath: String
    private let spill: FeatureSpill
    private var layerName: String

    public init(driver: OGRFormats.Driver, path: String) throws {
        guard driver.canWrite else {
            throw MeridianError(.usage, "GDAL's \(driver.name) driver reads but does not write")
        }
        self.driver = driver
        self.path = path
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        var template = Array("\(folder)/.meridian-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw MeridianError(.cannotCreateOutput, "cannot create a folder beside the output: \(String(cString: strerror(errno)))",
                                at: SourceLocation(file: path))
        }
        staging = String(cString: made)
        stagedPath = staging + "/" + url.lastPathComponent
        layerName = url.deletingPathExtension().lastPathComponent
        spill = try FeatureSpill("ogr")
    }

    deinit { abandon() }

    public func begin(_ metadata: CollectionMetadata) throws {
        if let name = metadata.name, !name.isEmpty { layerName = name }
    }

    public func write(_ feature: Feature) throws { try spill.append(feature) }

    public func finish(_ trailingMetadata: CollectionMetadata) throws {
        _ = OGRFormats.registered
        // First pass over the spill: the fields and their types, the geometry type.
        var schema = FieldSchema()
        var geometryTypes = Set<GeometryType>()
        var hasZ = false
        try spill.forEach { feature in
            schema.add(feature.properties ?? [:])
            if let geometry = feature.geometry {
                geometryTypes.insert(geometry.type)
                if geometry.hasAltitude { hasZ = true }
            }
        }
        guard let handle = GDALGetDriverByName(driver.name),
              let dataset = GDALCreate(handle, stagedPath, 0, 0, 0, GDT_Unknown, nil) else {
            throw MeridianError(.cannotCreateOutput, gdalError("GDAL cannot create the file"), at: SourceLocation(file: path))
        }
        var closed = false
        defer { if !closed { GDALClose(dataset) } }
        let wgs84 = OSRNewSpatialReference(nil)
        defer { OSRDestroySpatialReference(wgs84) }
        OSRImportFromEPSG(wgs84, 4326)
        OSRSetAxisMappingStrategy(wgs84, OAMS_TRADITIONAL_GIS_ORDER)
        var layerType = Self.layerType(geometryTypes)
        if hasZ { layerType = OGR_GT_SetZ(layerType) }
        // Shapefiles default to ISO-8859-1 text; names from anywhere need UTF-8.
        let encoding = driver.name == "ESRI Shapefile" ? CSLSetNameValue(nil, "ENCODING", "UTF-8") : nil
        defer { CSLDestroy(encoding) }
        guard let layer = GDALDatasetCreateLayer(dataset, layerName, wgs84, layerType, CSLConstList(encoding)) else {
            throw MeridianError(.cannotCreateOutput, gdalError("GDAL cannot create the layer"), at: SourceLocation(file: path))
        }
        for field in schema.fields {
            let definition = OGR_Fld_Create(field.name, field.type.ogrType)
            OGR_Fld_SetSubType(definition, field.type.ogrSubType)
            defer { OGR_Fld_Destroy(definition) }
            guard OGR_L_CreateField(layer, definition, 1) == OGRERR_NONE else {
                throw MeridianError(.cannotCreateOutput, gdalError("GDAL cannot add the field \(field.name)"), at: SourceLocation(file: path))
            }
        }
        let transaction = GDALDatasetStartTransaction(dataset, 0) == OGRERR_NONE
        let definition = OGR_L_GetLayerDefn(layer)
        // The driver may rename fields (a Shapefile's ten characters): look them up by position.
        let fieldIndex = Dictionary(uniqueKeysWithValues: schema.fields.enumerated().map { ($1.name, Int32($0)) })
        var number = 0
        try spill.forEach { feature in
            number += 1
            guard let ogrFeature = OGR_F_Create(definition) else { throw MeridianError(.io, "GDAL cannot make a feature") }
            defer { OGR_F_Destroy(ogrFeature) }
            for (key, value) in feature.properties ?? [:] {
                guard let index = fieldIndex[key], let field = schema.field(key) else { continue }
                Self.set(value, as: field.type, in: ogrFeature, at: index)
            }
            if let geometry = feature.geometry {
                let wkb = WKB.encode(geometry)
                var ogrGeometry: OGRGeometryH?
                let status = wkb.withUnsafeBytes { OGR_G_CreateFromWkbEx($0.baseAddress, wgs84, &ogrGeometry, wkb.count) }
                guard status == OGRERR_NONE, var ogrGeometry else {
                    throw MeridianError(.badInput, "feature \(number): GDAL cannot take its geometry")
                }
                if layerType != wkbUnknown && OGR_GT_Flatten(OGR_G_GetGeometryType(ogrGeometry)) != OGR_GT_Flatten(layerType) {
                    ogrGeometry = OGR_G_ForceTo(ogrGeometry, layerType, nil)  // a Polygon into a MultiPolygon layer
                }
                OGR_F_SetGeometryDirectly(ogrFeature, ogrGeometry)
            }
            guard OGR_L_CreateFeature(layer, ogrFeature) == OGRERR_NONE else {
                throw MeridianError(.badInput, "feature \(number): " + gdalError("GDAL's \(driver.name) driver refused it"),
                                    at: SourceLocation(file: path))
            }
        }
        if transaction { _ = GDALDatasetCommitTransaction(dataset) }
        closed = true
        GDALClose(dataset)
        if CPLGetLastErrorType() == CE_Failure || CPLGetLastErrorType() == CE_Fatal {
            throw MeridianError(.io, gdalError("GDAL failed to write the file"), at: SourceLocation(file: path))
        }
    }

    /// Moves the written file(s) into place.
    public func commit() throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let files = (try? FileManager.default.contentsOfDirectory(atPath: staging)) ?? []
        for file in files {
            guard rename(staging + "/" + file, folder + "/" + file) == 0 else {
                throw MeridianError(.cannotCreateOutput, "cannot move \(file) into place: \(String(cString: strerror(errno)))",
                                    at: SourceLocation(file: path))
            }
        }
        rmdir(staging)
    }

    /// Removes whatever was written; nothing is left at the output path.
    public func abandon() {
        try? FileManager.default.removeItem(atPath: staging)
    }

    static func layerType(_ types: Set<GeometryType>) -> OGRwkbGeometryType {
        switch types {
        case [.point]: return wkbPoint
        case [.multiPoint], [.point, .multiPoint]: return wkbMultiPoint
        case [.lineString]: return wkbLineString
        case [.multiLineString], [.lineString, .multiLineString]: return wkbMultiLineString
        case [.polygon]: return wkbPolygon
        case [.multiPolygon], [.polygon, .multiPolygon]: return wkbMultiPolygon
        case [.geometryCollection]: return wkbGeometryCollection
        case []: return wkbNone
        default: return wkbUnknown
        }
    }

    static func set(_ value: JSONValue, as type: FieldSchema.FieldType, in feature: OGRFeatureH, at index: Int32) {
        switch (value.unwrappingHTML, type) {
        case (.null, _): OGR_F_SetFieldNull(feature, index)
        case (.integer(let i), .integer): OGR_F_SetFieldInteger64(feature, index, GIntBig(i))
        case (.integer(let i), .real): OGR_F_SetFieldDouble(feature, index, Double(i))
        case (.double(let d), .real): OGR_F_SetFieldDouble(feature, index, d)
        case (.bool(let b), .boolean): OGR_F_SetFieldInteger(feature, index, b ? 1 : 0)
        case (let value, _): OGR_F_SetFieldString(feature, index, value.plainText())
        }
    }
}

/// The fields a collection needs: every property key, in order of first appearance, typed by
/// every value it takes (integers only: Integer64; numbers: Real; booleans: Integer(Boolean);
/// arrays and objects only: String(JSON); anything mixed with text: String). KML's HTML
/// descriptions count as their text.
struct FieldSchema {
    enum FieldType {
        case integer, real, boolean, json, string, unknown

        var ogrType: OGRFieldType {
            switch self {
            case .integer: OFTInteger64
            case .real: OFTReal
            case .boolean: OFTInteger
            case .json, .string, .unknown: OFTString
            }
        }

        var ogrSubType: OGRFieldSubType {
            switch self {
            case .boolean: OFSTBoolean
            case .json: OFSTJSON
            default: OFSTNone
            }
        }

        func merged(with value: JSONValue) -> FieldType {
            let kind: FieldType = switch value {
            case .null: .unknown
            case .integer: .integer
            case .double: .real
            case .bool: .boolean
            case .array, .object: .json
            case .string: .string
            }
            switch (self, kind) {
            case (_, .unknown): return self
            case (.unknown, _): return kind
            case (let a, let b) where a == b: return a
            case (.integer, .real), (.real, .integer): return .real
            default: return .string
            }
        }
    }

    struct Field {
        var name: String
        var type: FieldType
    }

    private(set) var fields: [Field] = []
    private var index: [String: Int] = [:]

    mutating func add(_ properties: JSONObject) {
        for (key, value) in properties.mapValues(\.unwrappingHTML) {
            if let i = index[key] {
                fields[i].type = fields[i].type.merged(with: value)
            } else {
                index[key] = fields.count
                fields.append(Field(name: key, type: FieldType.unknown.merged(with: value)))
            }
        }
    }

    func field(_ name: String) -> Field? { index[name].map { fields[$0] } }
}
