import CGDAL
import Foundation
import GDALSupport
import MeridianCore
import MeridianFormats
import MeridianGeometry

/// Writes features through an OGR driver (GeoPackage, Shapefile, FlatGeobuf, GML, …), with
/// properties as typed fields and geometry passed as WKB (bit-exact coordinates).
///
/// Field types need every feature first (a property that is 1 here and 1.5 there is a Real),
/// so features are spilled and written at `finish`. The file (or a Shapefile's .shp, .shx,
/// .dbf and .prj) is made in a hidden folder beside the output, `.NAME.meridian-XXXXXX`, and
/// moved into place by `commit()`; `abandon()`, or an error, leaves nothing behind. The output
/// is claimed first (`OutputClaim`: one run at a time), and the claim removes such a folder
/// that a killed run (SIGKILL) left. Run inside `TemporaryFiles.stoppingInOrder`, a signal
/// stops the writing between two features (a signal handler cannot remove a folder), and the
/// error it throws abandons the output like any other.
///
/// Every property gets a field of its own, whatever the format does to names: two names that
/// differ only in case (which SQLite, and so GeoPackage, refuses) get ogr2ogr's treatment (the
/// second `name` becomes `name2`), and a name the driver changes (a Shapefile's ten characters)
/// is kept apart from the others; each renaming is a warning. GDAL's own warnings come as
/// warnings too, never on standard error.
public final class OGRWriter: PathFeatureWriter {
    /// The GDAL driver that writes the file.
    public let driver: OGRFormats.Driver
    /// The output file (for a Shapefile, its `.shp`; the `.shx`, `.dbf` and `.prj` go beside it).
    public let path: String
    private let staging: String
    private let stagedPath: String
    /// The output's claim, let go once it is committed or abandoned.
    private let claim: OutputClaim
    private let spill: FeatureSpill
    private var layerName: String
    private let diagnostics: DiagnosticHandler?

    /// Prepares to write `path` with `driver`; nothing appears at `path` until ``commit()``.
    /// - Parameters:
    ///   - driver: A driver that can write (``OGRFormats/Driver/canWrite``), usually from ``OGRFormats/driver(named:path:)``.
    ///   - path: The output file. Its name without extension names the layer, unless the collection's metadata names it.
    ///   - diagnostics: Receives warnings (renamed fields, GDAL's own warnings); nil drops them.
    ///   - replacing: Whether regular files already at `path` and at the files written beside
    ///     it (a Shapefile's `.dbf`) are replaced; false refuses them (`ExistingOutput`).
    /// - Throws: A usage `MeridianError` when the driver cannot write; cannot-create-output when
    ///   another run is writing `path`, a file is there and not `replacing`, or no staging
    ///   folder can be made beside it.
    public init(driver: OGRFormats.Driver, path: String, diagnostics: DiagnosticHandler? = nil, replacing: Bool = false) throws {
        guard driver.canWrite else {
            throw MeridianError(.usage, "GDAL's \(driver.name) driver reads but does not write")
        }
        self.driver = driver
        self.path = path
        self.diagnostics = diagnostics
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        layerName = url.deletingPathExtension().lastPathComponent
        // Before the staging folder, which nothing would remove were this to fail after it.
        spill = try FeatureSpill("ogr")
        // Claimed (the lock held), what a killed run staged beside the output is gone; the
        // staging folder is named so that the next claim recognises it as this output's.
        claim = try OutputClaim(path, container: .file, replacing: replacing)
        var template = Array("\(folder)/.\(url.lastPathComponent).meridian-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            let reason = String(cString: strerror(errno))
            claim.release()
            throw MeridianError(.cannotCreateOutput, "cannot create a folder beside the output: \(reason)", at: SourceLocation(file: path))
        }
        staging = String(cString: made)
        stagedPath = staging + "/" + url.lastPathComponent
    }

    deinit { abandon() }

    /// Takes the layer's name from the collection's `name`, when it has one.
    public func begin(_ metadata: CollectionMetadata) throws {
        if let name = metadata.name, !name.isEmpty { layerName = name }
    }

    /// Keeps the feature (spilled to a temporary file) until ``finish(_:)`` writes them all.
    public func write(_ feature: Feature) throws {
        try TemporaryFiles.checkForStop()
        try spill.append(feature)
    }

    /// Writes the spilled features into the staged file: the fields and geometry type from a
    /// first pass, the file and its fields (renamed where they must be, with a warning each),
    /// the features, then the file closed.
    public func finish(_ trailingMetadata: CollectionMetadata) throws {
        let messages = GDALMessages(file: path, diagnostics: diagnostics)
        defer { messages.finish() }
        try messages.capturing {
            let collection = try scanSpill()
            let wgs84 = SpatialReference.wgs84LongitudeLatitude()
            let staged = try createLayerWithDistinctFields(collection, srs: wgs84, messages: messages)
            reportRenamedFields(staged.names)
            reportIntegersAsReals(collection.schema)
            try writeFeatures(collection, into: staged, srs: wgs84)
            staged.dataset.close()  // writes what the driver still holds: its errors count
            if GDAL.lastErrorIsFailure {
                throw MeridianError(.io, GDAL.lastError ?? "GDAL failed to write the file", at: SourceLocation(file: path))
            }
        }
    }

    /// What the first pass over the spill finds: the fields and their types, the layer's
    /// geometry type (with Z when any geometry has altitudes).
    private struct SpilledCollection {
        var schema = FieldSchema()
        var layerType = wkbNone
    }

    private func scanSpill() throws -> SpilledCollection {
        var collection = SpilledCollection()
        var geometryTypes = Set<GeometryType>()
        var hasZ = false
        try spill.forEach { feature in
            try TemporaryFiles.checkForStop()
            collection.schema.add(feature.properties ?? [:])
            if let geometry = feature.geometry {
                geometryTypes.insert(geometry.type)
                if geometry.hasAltitude { hasZ = true }
            }
        }
        collection.layerType = Self.layerType(geometryTypes)
        if hasZ { collection.layerType = OGR_GT_SetZ(collection.layerType) }
        return collection
    }

    /// The staged file's layer, and what its fields are called.
    private struct StagedLayer {
        let dataset: GDALDataset
        let layer: OGRLayerH
        let names: FieldNames
    }

    /// A property's name on its way to a field's: as given, made distinct whatever the case,
    /// asked of the driver, and given by it (in the schema's order).
    private struct FieldNames {
        var original: [String]
        var distinct: [String]
        var requested: [String]
        var created: [String] = []
    }

    /// The file, its layer and fields. Names that differ only in case get a number first
    /// (ogr2ogr's rule: SQLite, and so GeoPackage, refuses them, as do other formats' readers);
    /// the driver may change names further (a Shapefile's ten characters, SQLite's laundering).
    /// Where it makes two alike, the later one is asked for with a number and the file made
    /// again: some drivers rename no field once made.
    private func createLayerWithDistinctFields(_ collection: SpilledCollection, srs: SpatialReference,
                                               messages: GDALMessages) throws -> StagedLayer {
        let original = collection.schema.fields.map(\.name)
        let distinct = FieldSchema.distinctNames(original)
        var names = FieldNames(original: original, distinct: distinct, requested: distinct)
        for _ in 1...50 {
            let (dataset, layer) = try createLayer(type: collection.layerType, srs: srs)
            names.created = try createFields(collection.schema, names: names.requested, in: layer, messages: messages)
            guard let clash = FieldSchema.firstRepeatedName(names.created) else {
                return StagedLayer(dataset: dataset, layer: layer, names: names)
            }
            dataset.close()
            discardStagedFiles()
            guard let next = FieldSchema.nextName(for: names.created[clash], avoiding: names.requested + names.created) else { break }
            names.requested[clash] = next
        }
        let clash = FieldSchema.firstRepeatedName(names.created)!
        let first = names.created.firstIndex { FieldSchema.sameName($0, names.created[clash]) }!
        throw MeridianError(.cannotCreateOutput,
                            "the properties \"\(original[first])\" and \"\(original[clash])\" would share the field \"\(names.created[clash])\" in \(driver.longName)",
                            at: SourceLocation(file: path), hint: "rename one of them (Meridian would lose the other's values)")
    }

    /// A warning for each property written under another name, saying why.
    private func reportRenamedFields(_ names: FieldNames) {
        for (index, name) in names.created.enumerated() where name != names.original[index] {
            let why = name != names.requested[index] ? "GDAL's \(driver.name) driver changed the name to one the format takes"
                : names.requested[index] == names.distinct[index] ? "another property's name differs from it only in case"
                : "GDAL's \(driver.name) driver would have given it another property's field"
            diagnostics?(Diagnostic(.warning, "the property \"\(names.original[index])\" is written as the field \"\(name)\": \(why)",
                                    at: SourceLocation(file: path)))
        }
    }

    /// The second pass over the spill: each feature's fields and geometry into the layer, in
    /// one transaction where the driver has them.
    private func writeFeatures(_ collection: SpilledCollection, into staged: StagedLayer, srs: SpatialReference) throws {
        let transaction = GDALDatasetStartTransaction(staged.dataset.handle, 0) == OGRERR_NONE
        let definition = OGR_L_GetLayerDefn(staged.layer)
        // Fields may be renamed (by Meridian or by the driver): look them up by position.
        let schema = collection.schema
        let fieldIndex = Dictionary(uniqueKeysWithValues: schema.fields.enumerated().map { ($1.name, Int32($0)) })
        var number = 0
        try spill.forEach { feature in
            number += 1
            // A signal stops the writing here (stopping in order), and the staged folder is removed.
            try TemporaryFiles.checkForStop()
            guard let ogrFeature = OGR_F_Create(definition) else { throw MeridianError(.io, "GDAL cannot make a feature") }
            defer { OGR_F_Destroy(ogrFeature) }
            for (key, value) in feature.properties ?? [:] {
                guard let index = fieldIndex[key], let field = schema.field(key) else { continue }
                Self.set(value, as: field.type, in: ogrFeature, at: index)
            }
            if let geometry = feature.geometry {
                OGR_F_SetGeometryDirectly(ogrFeature, try Self.ogrGeometry(geometry, srs: srs, layerType: collection.layerType, feature: number))
            }
            guard OGR_L_CreateFeature(staged.layer, ogrFeature) == OGRERR_NONE else {
                throw MeridianError(.badInput, "feature \(number): " + (GDAL.lastError ?? "GDAL's \(driver.name) driver refused it"),
                                    at: SourceLocation(file: path))
            }
        }
        if transaction { _ = GDALDatasetCommitTransaction(staged.dataset.handle) }
    }

    /// `geometry` as an OGR geometry, through WKB (bit-exact), of the layer's type where that
    /// is a collection of it (a Polygon into a MultiPolygon layer).
    private static func ogrGeometry(_ geometry: Geometry, srs: SpatialReference, layerType: OGRwkbGeometryType, feature number: Int) throws -> OGRGeometryH {
        let wkb = WKB.encode(geometry)
        var ogrGeometry: OGRGeometryH?
        let status = wkb.withUnsafeBytes { OGR_G_CreateFromWkbEx($0.baseAddress, srs.handle, &ogrGeometry, wkb.count) }
        guard status == OGRERR_NONE, let ogrGeometry else {
            throw MeridianError(.badInput, "feature \(number): GDAL cannot take its geometry")
        }
        if layerType != wkbUnknown && OGR_GT_Flatten(OGR_G_GetGeometryType(ogrGeometry)) != OGR_GT_Flatten(layerType) {
            return OGR_G_ForceTo(ogrGeometry, layerType, nil)
        }
        return ogrGeometry
    }

    /// The staged file and its one layer.
    private func createLayer(type: OGRwkbGeometryType, srs: SpatialReference) throws -> (dataset: GDALDataset, layer: OGRLayerH) {
        GDAL.setUp()
        guard let handle = GDALGetDriverByName(driver.name),
              let created = GDALCreate(handle, stagedPath, 0, 0, 0, GDT_Unknown, nil) else {
            throw MeridianError(.cannotCreateOutput, GDAL.lastError ?? "GDAL cannot create the file", at: SourceLocation(file: path))
        }
        let dataset = GDALDataset(created)
        // Shapefiles default to ISO-8859-1 text; names from anywhere need UTF-8.
        let options = driver.name == "ESRI Shapefile" ? ["ENCODING=UTF-8"] : []
        guard let layer = GDAL.withStringList(options, { GDALDatasetCreateLayer(dataset.handle, layerName, srs.handle, type, CSLConstList($0)) }) else {
            throw MeridianError(.cannotCreateOutput, GDAL.lastError ?? "GDAL cannot create the layer", at: SourceLocation(file: path))
        }
        return (dataset, layer)
    }

    /// A field for each of `schema`'s properties, in order, asked for as `names`; the names the
    /// layer gives them. (The driver's warnings about names it changes are dropped: Meridian
    /// reports each renaming itself.)
    private func createFields(_ schema: FieldSchema, names: [String], in layer: OGRLayerH, messages: GDALMessages) throws -> [String] {
        messages.muted = true
        defer { messages.muted = false }
        var created: [String] = []
        for (field, name) in zip(schema.fields, names) {
            let definition = OGR_Fld_Create(name, ogrType(of: field))
            OGR_Fld_SetSubType(definition, field.type.ogrSubType)
            defer { OGR_Fld_Destroy(definition) }
            guard OGR_L_CreateField(layer, definition, 1) == OGRERR_NONE,
                  let made = OGR_FD_GetFieldDefn(OGR_L_GetLayerDefn(layer), Int32(created.count)) else {
                throw MeridianError(.cannotCreateOutput, GDAL.lastError ?? "GDAL cannot add the field \(name)", at: SourceLocation(file: path))
            }
            created.append(String(cString: OGR_Fld_GetNameRef(made)))
        }
        return created
    }

    /// The OGR type of `field` in this driver's files. A driver without 64-bit integer fields
    /// (MapInfo's) refused an Integer64 field outright, so integers there are 32-bit fields
    /// when every value fits one, else reals (exact to 2^53), as ogr2ogr types them.
    private func ogrType(of field: FieldSchema.Field) -> OGRFieldType {
        guard field.type == .integer, !driverTakesInteger64 else { return field.type.ogrType }
        return field.fitsInInt32 ? OFTInteger : OFTReal
    }

    /// Whether the driver's fields may be 64-bit integers (its list of field types says so;
    /// a driver with no list is taken at its word when it creates the field).
    private var driverTakesInteger64: Bool {
        guard let handle = GDALGetDriverByName(driver.name),
              let types = GDALGetMetadataItem(handle, "DMD_CREATIONFIELDDATATYPES", nil) else { return true }
        return String(cString: types).split(separator: " ").contains("Integer64")
    }

    /// A warning for each integer property written as reals, as the driver has no field for it.
    private func reportIntegersAsReals(_ schema: FieldSchema) {
        guard !driverTakesInteger64 else { return }
        for field in schema.fields where field.type == .integer && !field.fitsInInt32 {
            diagnostics?(Diagnostic(.warning, "the property \"\(field.name)\" holds integers beyond 32 bits, which \(driver.longName) fields cannot: written as reals",
                                    at: SourceLocation(file: path)))
        }
    }

    /// Removes what a failed attempt left in the staging folder (and GDAL's record of its errors).
    private func discardStagedFiles() {
        for file in (try? FileManager.default.contentsOfDirectory(atPath: staging)) ?? [] {
            try? FileManager.default.removeItem(atPath: staging + "/" + file)
        }
        CPLErrorReset()
    }

    /// Moves the written file(s) into place, and lets the output's claim go.
    public func commit() throws {
        defer { claim.release() }
        try TemporaryFiles.checkForStop()
        // The output's folder as the path was given (`roads.shp`: ""), so that errors name the
        // files beside it as the user typed the output, not as absolute paths.
        let folder = (path as NSString).deletingLastPathComponent
        func beside(_ file: String) -> String { folder.isEmpty ? file : (folder as NSString).appendingPathComponent(file) }
        // GDAL's SQLite-based drivers (GeoPackage, SQLite) make 0644 files whatever the umask.
        try FileModes.applyNewFileMode(under: staging)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: staging)) ?? []
        // A shapefile's .dbf, .shx, .prj go beside it: none may be an input (`roads.dbf -o roads.shp`).
        for file in files { try RunInputs.refuseInput(at: beside(file), named: "the file written beside the output") }
        // Some drivers write a folder beside the file (PDS4's table, a VRT's data). A rename
        // cannot put a folder over a folder that holds anything, or a file over a folder: found
        // only part-way through the moves, that left the first files in place and the output
        // incomplete. So every place is checked before anything is moved.
        for file in files {
            let destination = beside(file)
            // attributesOfItem does not follow a link: a link is what would be replaced.
            guard let existing = try? FileManager.default.attributesOfItem(atPath: destination) else { continue }
            let existingIsFolder = existing[.type] as? FileAttributeType == .typeDirectory
            let isOutput = destination == path || file == URL(fileURLWithPath: path).lastPathComponent
            // A file there is replaced only when the run was asked to (an empty folder is no one's work).
            if !claim.replacing && existing[.type] as? FileAttributeType == .typeRegular {
                throw ExistingOutput(path: destination, companionOf: isOutput ? nil : path, appearedDuringRun: isOutput)
            }
            let stagedIsFolder = (try? FileManager.default.attributesOfItem(atPath: staging + "/" + file))?[.type] as? FileAttributeType == .typeDirectory
            let emptyFolder = existingIsFolder && ((try? FileManager.default.contentsOfDirectory(atPath: destination))?.isEmpty ?? false)
            let isFile = existing[.type] as? FileAttributeType == .typeRegular
            let replaceable = existingIsFolder ? (stagedIsFolder && emptyFolder) : (isFile && !stagedIsFolder)
            guard replaceable else {
                let what = isOutput ? "the output" : "\(file) beside the output"
                throw MeridianError(.cannotCreateOutput,
                                    "cannot put \(what) in place: \(existingIsFolder ? "a folder" : isFile ? "a file" : "something that is not a regular file") of that name is there already, which this run may not replace; nothing was written",
                                    at: SourceLocation(file: path))
            }
        }
        for file in files {
            guard rename(staging + "/" + file, beside(file)) == 0 else {
                throw MeridianError(.cannotCreateOutput, "cannot move \(file) into place: \(String(cString: strerror(errno)))",
                                    at: SourceLocation(file: path))
            }
        }
        rmdir(staging)
    }

    /// Removes whatever was written; nothing is left at the output path.
    public func abandon() {
        try? FileManager.default.removeItem(atPath: staging)
        claim.release()
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
        /// Whether every integer value fits in 32 bits (for drivers without 64-bit fields).
        var fitsInInt32 = true
    }

    private(set) var fields: [Field] = []
    private var index: [String: Int] = [:]

    mutating func add(_ properties: JSONObject) {
        for (key, value) in properties.mapValues(\.unwrappingHTML) {
            let i: Int
            if let known = index[key] {
                i = known
                fields[i].type = fields[i].type.merged(with: value)
            } else {
                i = fields.count
                index[key] = i
                fields.append(Field(name: key, type: FieldType.unknown.merged(with: value)))
            }
            if case .integer(let integer) = value, Int32(exactly: integer) == nil { fields[i].fitsInInt32 = false }
        }
    }

    func field(_ name: String) -> Field? { index[name].map { fields[$0] } }

    /// Whether two field names are the same to GDAL and SQLite: equal but for the case of
    /// ASCII letters.
    static func sameName(_ a: String, _ b: String) -> Bool {
        func folded(_ s: String) -> [UInt8] { s.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 } }
        return folded(a) == folded(b)
    }

    /// `names` made distinct whatever their case, as ogr2ogr does it: a name already taken gets
    /// 2, 3, … after it (`name` after `NAME` becomes `name2`).
    static func distinctNames(_ names: [String]) -> [String] {
        var taken: [String] = []
        for name in names { taken.append(nextName(for: name, avoiding: taken) ?? name) }
        return taken
    }

    /// `name` if it is not among `taken` (whatever the case), else it with the first number
    /// from 2 on after it that is not; nil when none up to 999 is free.
    static func nextName(for name: String, avoiding taken: [String]) -> String? {
        ([name] + (2...999).map { "\(name)\($0)" }).first { candidate in !taken.contains { sameName($0, candidate) } }
    }

    /// The index of the first name that repeats an earlier one (whatever the case).
    static func firstRepeatedName(_ names: [String]) -> Int? {
        names.indices.first { i in names[..<i].contains { sameName($0, names[i]) } }
    }
}
