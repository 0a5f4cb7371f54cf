import MeridianCore
import MeridianGeometry

/// A streaming GeoJSON reader (RFC 7946, with the 2008 spec's `crs` read tolerantly) that also
/// reads GeoJSON text sequences (RFC 8142, with or without the RS byte).
///
/// A FeatureCollection's features arrive one at a time from `next()`, so memory holds one
/// feature, whatever the file's size. A bare Feature or geometry arrives as one feature.
/// Members may come in any order: `type` after `coordinates`, `name` after `features`.
public final class GeoJSONReader: FeatureReader {
    /// How records are laid out in the text.
    public enum Layout: Sendable {
        /// One GeoJSON object; but a Feature or geometry followed, on later lines, by more of
        /// them is read as a text sequence (newline-delimited GeoJSON).
        case automatic
        /// Exactly one GeoJSON object; anything after it is an error.
        case document
        /// A GeoJSON text sequence: Features or geometries separated by newlines or RS bytes.
        case sequence
    }

    private enum State {
        case start
        /// Inside the `features` array; `first` until an element has been read.
        case features(first: Bool)
        /// A lone Feature or geometry was read and is waiting to be returned.
        case single(Feature)
        /// Between records of a text sequence.
        case sequence
        case done
    }

    private let scanner: JSONScanner
    private var layout: Layout
    private var state = State.start
    private var metadata = CollectionMetadata()
    /// Collection members that came after `features` in the text; complete once ``next()`` has
    /// returned nil.
    public private(set) var trailingMetadata = CollectionMetadata()
    /// The top-level object being read, kept while its `features` stream.
    private var topLevel: ObjectParts?
    private var warnedAboutExtraDimensions = false
    /// Where each list of positions is gathered before it becomes an array.
    private let positionScratch = PositionScratch()
    /// Each feature's checks (per-position arrays, coordinates off the globe).
    let checks: FeatureChecks

    /// A reader over the GeoJSON that `input` holds; nothing is read until ``readMetadata()`` or
    /// ``next()``.
    /// - Parameters:
    ///   - input: The GeoJSON text.
    ///   - layout: One document, a text sequence, or (the default) either, told from the text.
    ///   - options: Where warnings go (extra dimensions dropped, say).
    public init(input: BufferedInput, layout: Layout = .automatic, options: ReadOptions = .init()) {
        scanner = JSONScanner(input: input, diagnostics: options.diagnostics)
        checks = FeatureChecks(options)
        self.layout = layout
    }

    /// Reads as far as the first feature and returns the collection's members before it (`name`,
    /// `crs`, foreign members); empty for a bare Feature, geometry or text sequence.
    /// - Throws: `MeridianError` (`badInput`) for malformed JSON or GeoJSON, with the file, line and
    ///   column.
    public func readMetadata() throws -> CollectionMetadata {
        if case .start = state { try start() }
        return metadata
    }

    /// The next feature (a bare geometry becomes a feature without properties), or nil at the end.
    /// - Throws: `MeridianError` (`badInput`) for malformed JSON or GeoJSON, with the file, line and
    ///   column, or ``GeoJSONTrailingData`` when a document is followed by more data.
    public func next() throws -> Feature? {
        if case .start = state { try start() }
        while true {
            switch state {
            case .start:
                preconditionFailure("start() leaves the start state")
            case .single(let feature):
                try afterTopLevelValue(wasCollection: false)
                return feature
            case .features(let first):
                let c = try scanner.peek()
                if c == UInt8(ascii: "]") || (!first && c != UInt8(ascii: ",")) {
                    guard c == UInt8(ascii: "]") else {
                        throw try scanner.unexpected(expected: "',' or ']' after a feature")
                    }
                    scanner.advance()
                    try finishTopLevel()
                    return nil
                }
                if !first { scanner.advance() }
                state = .features(first: false)
                return try readFeature()
            case .sequence:
                while try scanner.peek() == 0x1E { scanner.advance() }
                guard try scanner.peek() != nil else {
                    state = .done
                    return nil
                }
                var parts = try readObject(.record)
                guard parts.type != "FeatureCollection" else {
                    throw scanner.error("a GeoJSON text sequence holds Features or geometries, not a FeatureCollection",
                                        at: parts.start)
                }
                return try parts.feature(in: self)
            case .done:
                return nil
            }
        }
    }

    // MARK: - The top level

    private func start() throws {
        try scanner.skipByteOrderMark()
        guard let c = try scanner.peek() else {
            throw scanner.error("the input is empty", hint: "expected a GeoJSON object")
        }
        if c == 0x1E || layout == .sequence {
            state = .sequence
            return
        }
        guard c == UInt8(ascii: "{") else {
            throw try scanner.unexpected(expected: "a GeoJSON object starting with '{'")
        }
        var parts = ObjectParts(start: scanner.mark)
        scanner.advance()
        if try readTopLevelMembers(&parts, resuming: false) {
            topLevel = parts
            metadata = CollectionMetadata(members: parts.foreignMembers)
            state = .features(first: true)
        } else {
            guard parts.type != "FeatureCollection" else {
                throw scanner.error("this FeatureCollection has no \"features\" member", at: parts.start,
                                    hint: "add \"features\": []")
            }
            state = .single(try parts.feature(in: self))
        }
    }

    /// Reads top-level members until `features` opens (true) or the object closes (false).
    /// `resuming` is true after the `features` array, when a ',' or '}' comes first.
    private func readTopLevelMembers(_ parts: inout ObjectParts, resuming: Bool) throws -> Bool {
        var first = !resuming
        while true {
            let c = try scanner.peek()
            if c == UInt8(ascii: "}") {
                scanner.advance()
                return false
            }
            if !first {
                guard c == UInt8(ascii: ",") else { throw try scanner.unexpected(expected: "',' or '}' after an object member") }
                scanner.advance()
            }
            first = false
            guard try scanner.peek() == UInt8(ascii: "\"") else {
                throw try scanner.unexpected(expected: "a member name in double quotes")
            }
            let keyMark = scanner.mark
            let key = try scanner.parseString()
            try scanner.expect(UInt8(ascii: ":"))
            if key == "features", parts.type == nil || parts.type == "FeatureCollection", !parts.sawFeatures {
                parts.sawFeatures = true
                guard try scanner.peek() == UInt8(ascii: "[") else {
                    throw try scanner.unexpected(expected: "an array of features after \"features\"")
                }
                scanner.advance()
                return true
            }
            try readMember(key, keyMark, into: &parts, .topLevel)
        }
    }

    /// After the `features` array: the rest of the top-level object, then the end of input.
    private func finishTopLevel() throws {
        guard var parts = topLevel else { return }
        let leading = parts.foreignMembers.count
        _ = try readTopLevelMembers(&parts, resuming: true)
        if let type = parts.type, type != "FeatureCollection" {
            throw scanner.error("an object with \"features\" must be a FeatureCollection, not \"\(type)\"",
                                at: parts.typeMark ?? parts.start)
        }
        trailingMetadata = CollectionMetadata(members: JSONObject(uniqueKeysWithValues: parts.foreignMembers.elements.dropFirst(leading)))
        topLevel = nil
        checkCoordinateReferenceSystem(parts.foreignMembers["crs"])
        try afterTopLevelValue(wasCollection: true)
    }

    /// What may follow the top-level value: nothing, or (for a lone Feature or geometry, when the
    /// layout allows) more records on later lines, which makes the input a text sequence.
    private func afterTopLevelValue(wasCollection: Bool) throws {
        let endLine = scanner.line
        guard let c = try scanner.peek() else {
            state = .done
            return
        }
        let startsRecord = c == UInt8(ascii: "{") || c == 0x1E
        if !wasCollection, layout == .automatic, startsRecord, scanner.line > endLine || c == 0x1E {
            layout = .sequence
            state = .sequence
            return
        }
        throw GeoJSONTrailingData(location: scanner.location, afterCollection: wasCollection, nextStartsObject: startsRecord)
    }

    private func checkCoordinateReferenceSystem(_ crs: JSONValue?) {
        // RFC 7946 dropped `crs`; the 2008 spec's named CRSs that mean WGS 84 longitude/latitude are fine.
        guard let crs, case .object(let object) = crs,
              let name = object["properties"]?.objectValue?["name"]?.stringValue else { return }
        let wgs84 = ["urn:ogc:def:crs:OGC:1.3:CRS84", "urn:ogc:def:crs:OGC::CRS84", "EPSG:4326",
                     "urn:ogc:def:crs:EPSG::4326", "urn:ogc:def:crs:EPSG:6.6:4326", "WGS84"]
        if !wgs84.contains(name) {
            scanner.diagnostics?(Diagnostic(.warning, "the crs member names \(name); coordinates are read as WGS 84 longitude, latitude",
                                            at: SourceLocation(file: scanner.input.name),
                                            hint: "reproject first, e.g. ogr2ogr -t_srs EPSG:4326"))
        }
    }

    // MARK: - Objects

    /// Where an object stands, which decides what its members mean.
    enum Context {
        /// The document's top-level object: a FeatureCollection, Feature or geometry.
        case topLevel
        /// An element of `features`.
        case feature
        /// A record of a text sequence: a Feature or geometry.
        case record
        /// A `geometry` member, or an element of `geometries`.
        case geometry

        var mayBeFeature: Bool { self != .geometry }
        var mayBeGeometry: Bool { self != .feature }
    }

    /// The members of one object as read, before its `type` decides what it is.
    struct ObjectParts {
        var start: JSONScanner.Mark
        var type: String?
        var typeMark: JSONScanner.Mark?
        var sawFeatures = false
        var sawGeometry = false
        var geometry: Geometry?
        var sawProperties = false
        var properties: JSONObject?
        var id: FeatureID?
        var coordinates: Coordinates?
        var coordinatesMark: JSONScanner.Mark?
        var geometries: [Geometry]?
        var foreignMembers = JSONObject()

        init(start: JSONScanner.Mark) { self.start = start }

        /// This object as a Feature: a Feature itself, or a geometry wrapped in one.
        mutating func feature(in reader: GeoJSONReader) throws -> Feature {
            guard type == "Feature" else {
                var feature = Feature(geometry: try geometry(in: reader), properties: [:])
                try reader.checks.check(&feature, at: reader.scanner.location(start))
                return feature
            }
            var bbox: BoundingBox?
            if let value = foreignMembers.removeValue(forKey: "bbox") {
                bbox = reader.boundingBox(value, at: start)
            }
            var feature = Feature(id: id, geometry: geometry, properties: sawProperties ? properties : nil,
                                  bbox: bbox, foreignMembers: foreignMembers)
            try reader.checks.check(&feature, at: reader.scanner.location(start))
            return feature
        }

        /// This object as a geometry.
        func geometry(in reader: GeoJSONReader) throws -> Geometry {
            let scanner = reader.scanner
            guard let type else {
                throw scanner.error("this object has no \"type\" member", at: start,
                                    hint: "a GeoJSON object needs \"type\": \"Feature\", \"FeatureCollection\" or a geometry type")
            }
            guard let geometryType = GeometryType(rawValue: type) else {
                throw reader.unknownType(type, at: typeMark ?? start)
            }
            if geometryType == .geometryCollection {
                guard let geometries else {
                    throw scanner.error("this GeometryCollection has no \"geometries\" member", at: start)
                }
                return .geometryCollection(GeometryCollection(geometries))
            }
            guard let coordinates else {
                throw scanner.error("this \(type) has no \"coordinates\" member", at: start)
            }
            return try reader.geometry(geometryType, from: coordinates, at: coordinatesMark ?? start)
        }
    }

    /// Reads one object (at `{`) in the given context.
    private func readObject(_ context: Context) throws -> ObjectParts {
        guard try scanner.peek() == UInt8(ascii: "{") else {
            throw try scanner.unexpected(expected: context == .geometry ? "a geometry object or null" : "a Feature object")
        }
        var parts = ObjectParts(start: scanner.mark)
        try scanner.parseObject { key, keyMark in
            try readMember(key, keyMark, into: &parts, context)
        }
        return parts
    }

    private func readFeature() throws -> Feature {
        var parts = try readObject(.feature)
        guard parts.type == "Feature" else {
            if let type = parts.type, GeometryType(rawValue: type) != nil {
                throw scanner.error("an element of \"features\" must be a Feature, not a bare \(type)", at: parts.typeMark ?? parts.start,
                                    hint: "wrap it: {\"type\": \"Feature\", \"properties\": {}, \"geometry\": …}")
            }
            if let type = parts.type { throw unknownType(type, at: parts.typeMark ?? parts.start, expected: "Feature") }
            throw scanner.error("this feature has no \"type\" member", at: parts.start, hint: "add \"type\": \"Feature\"")
        }
        return try parts.feature(in: self)
    }

    /// Reads the value of one member into `parts`.
    private func readMember(_ key: String, _ keyMark: JSONScanner.Mark, into parts: inout ObjectParts, _ context: Context) throws {
        switch key {
        case "type":
            guard try scanner.peek() == UInt8(ascii: "\"") else {
                throw try scanner.unexpected(expected: "a string after \"type\"")
            }
            try checkDuplicate(parts.type != nil, key, keyMark)
            parts.typeMark = scanner.mark
            parts.type = try scanner.parseString()
        case "geometry" where context.mayBeFeature:
            try checkDuplicate(parts.sawGeometry, key, keyMark)
            parts.sawGeometry = true
            parts.geometry = try readGeometryOrNull()
        case "properties" where context.mayBeFeature:
            try checkDuplicate(parts.sawProperties, key, keyMark)
            parts.sawProperties = true
            switch try scanner.peek() {
            case UInt8(ascii: "{"): parts.properties = try scanner.parseValue().objectValue
            case UInt8(ascii: "n"): _ = try scanner.parseLiteral()
            default: throw try scanner.unexpected(expected: "an object or null after \"properties\"")
            }
        case "id" where context.mayBeFeature:
            try checkDuplicate(parts.id != nil, key, keyMark)
            switch try scanner.parseValue() {
            case .string(let s): parts.id = .string(s)
            case .integer(let i): parts.id = .integer(i)
            case .double(let d): parts.id = .double(d)
            case .null: parts.id = nil
            default:
                throw scanner.error("a feature id must be a string or a number", at: keyMark)
            }
        case "coordinates" where context.mayBeGeometry:
            try checkDuplicate(parts.coordinates != nil, key, keyMark)
            parts.coordinatesMark = scanner.mark
            if let type = parts.type, let depth = GeometryType(rawValue: type)?.coordinateDepth {
                parts.coordinates = try readCoordinates(depth: depth)
            } else {
                // `type` comes later (or is wrong): keep the tree and decide at the end.
                parts.coordinates = .deferred(try scanner.parseValue())
            }
        case "geometries" where context.mayBeGeometry:
            try checkDuplicate(parts.geometries != nil, key, keyMark)
            var geometries: [Geometry] = []
            try scanner.parseArray {
                guard let g = try readGeometryOrNull() else {
                    throw scanner.error("a GeometryCollection cannot hold null")
                }
                geometries.append(g)
            }
            parts.geometries = geometries
        default:
            let value = try scanner.parseValue()
            if parts.foreignMembers.updateValue(value, forKey: key) != nil {
                scanner.warn("duplicate key \"\(key)\": the last value is kept", at: keyMark)
            }
        }
    }

    private func checkDuplicate(_ seen: Bool, _ key: String, _ mark: JSONScanner.Mark) throws {
        if seen {
            throw scanner.error("duplicate \"\(key)\" member", at: mark, hint: "a GeoJSON object may have each member once")
        }
    }

    private func readGeometryOrNull() throws -> Geometry? {
        if try scanner.peek() == UInt8(ascii: "n") {
            guard try scanner.parseLiteral() == .null else { throw scanner.error("expected a geometry object or null") }
            return nil
        }
        return try readObject(.geometry).geometry(in: self)
    }

    fileprivate func unknownType(_ type: String, at mark: JSONScanner.Mark, expected: String? = nil) -> MeridianError {
        let known = ["Feature", "FeatureCollection"] + GeometryType.allCases.map(\.rawValue)
        if let match = known.first(where: { $0.lowercased() == type.lowercased() }) {
            return scanner.error("unknown GeoJSON type \"\(type)\"", at: mark,
                                 hint: "types are case-sensitive: write \"\(match)\"")
        }
        return scanner.error("unknown GeoJSON type \"\(type)\"", at: mark,
                             hint: expected.map { "expected \"\($0)\"" } ?? "expected one of \(known.joined(separator: ", "))")
    }

    fileprivate func boundingBox(_ value: JSONValue, at mark: JSONScanner.Mark) -> BoundingBox? {
        if let numbers = value.arrayValue?.compactMap(\.doubleValue), numbers.count == value.arrayValue?.count,
           let box = BoundingBox(values: numbers) {
            return box
        }
        scanner.warn("ignoring a bbox that is not an array of 4 or 6 numbers", at: mark)
        return nil
    }

    // MARK: - Coordinates

    /// Coordinates as read: straight into positions when `type` came first, else as a JSON tree.
    enum Coordinates {
        case position(Position)
        case positions([Position])
        case lists([[Position]])
        case polygons([[[Position]]])
        case deferred(JSONValue)
    }

    private func readCoordinates(depth: Int) throws -> Coordinates {
        switch depth {
        case 0: return .position(try readPosition())
        case 1: return .positions(try readPositions())
        case 2: return .lists(try readLists())
        default:
            var polygons: [[[Position]]] = []
            try scanner.parseArray { polygons.append(try readLists()) }
            return .polygons(polygons)
        }
    }

    private func readLists() throws -> [[Position]] {
        var lists: [[Position]] = []
        try scanner.parseArray { lists.append(try readPositions()) }
        return lists
    }

    private func readPositions() throws -> [Position] {
        positionScratch.clear()
        try scanner.parseArray { positionScratch.append(try readPosition()) }
        return positionScratch.take()
    }

    /// `[longitude, latitude]` or `[longitude, latitude, altitude]`; further numbers are dropped
    /// with one warning per file (RFC 7946 §3.1.1 asks parsers to accept, not keep, them).
    private func readPosition() throws -> Position {
        if let (x, y, z) = scanner.parsePlainPosition() { return Position(longitude: x, latitude: y, altitude: z) }
        guard try scanner.peek() == UInt8(ascii: "[") else {
            throw try scanner.unexpected(expected: "a position: an array of numbers")
        }
        let open = scanner.mark
        scanner.advance()
        let longitude = try scanner.parseDouble()
        guard try scanner.peek() == UInt8(ascii: ",") else {
            if try scanner.peek() == UInt8(ascii: "]") {
                throw scanner.error("a position needs at least two numbers: longitude and latitude", at: open)
            }
            throw try scanner.unexpected(expected: "',' between position numbers")
        }
        scanner.advance()
        let latitude = try scanner.parseDouble()
        var altitude: Double?
        while true {
            switch try scanner.peek() {
            case UInt8(ascii: "]"):
                scanner.advance()
                return Position(longitude: longitude, latitude: latitude, altitude: altitude)
            case UInt8(ascii: ","):
                scanner.advance()
                let value = try scanner.parseDouble()
                if altitude == nil {
                    altitude = value
                } else if !warnedAboutExtraDimensions {
                    warnedAboutExtraDimensions = true
                    scanner.warn("positions with more than three numbers: the extra numbers are dropped", at: open)
                }
            default:
                throw try scanner.unexpected(expected: "',' or ']' in a position")
            }
        }
    }

    /// Builds a geometry of `type` from coordinates, checking that their nesting fits the type.
    fileprivate func geometry(_ type: GeometryType, from coordinates: Coordinates, at mark: JSONScanner.Mark) throws -> Geometry {
        var coordinates = coordinates
        if case .deferred(let tree) = coordinates {
            coordinates = try self.coordinates(tree, depth: type.coordinateDepth ?? 0, type: type, at: mark)
        }
        switch (type, coordinates) {
        case (.point, .position(let p)): return .point(Point(p))
        case (.lineString, .positions(let l)): return .lineString(LineString(l))
        case (.multiPoint, .positions(let l)): return .multiPoint(MultiPoint(l))
        case (.polygon, .lists(let rings)): return .polygon(Polygon(rings))
        case (.multiLineString, .lists(let lines)): return .multiLineString(MultiLineString(lines))
        case (.multiPolygon, .polygons(let polygons)): return .multiPolygon(MultiPolygon(polygons.map(Polygon.init)))
        default:
            throw scanner.error("the coordinates do not fit a \(type.rawValue)", at: mark)
        }
    }

    /// Converts a JSON tree (read before `type` was known) into coordinates of the given depth.
    private func coordinates(_ tree: JSONValue, depth: Int, type: GeometryType, at mark: JSONScanner.Mark) throws -> Coordinates {
        func position(_ value: JSONValue) throws -> Position {
            guard let numbers = value.arrayValue, numbers.count >= 2,
                  let lon = numbers[0].doubleValue, let lat = numbers[1].doubleValue else {
                throw scanner.error("the coordinates of this \(type.rawValue) are not nested as its type needs", at: mark,
                                    hint: "a position is an array of two or three numbers")
            }
            let altitude = numbers.count > 2 ? numbers[2].doubleValue : nil
            if numbers.dropFirst(2).contains(where: { $0.doubleValue == nil }) {
                throw scanner.error("a position holds something other than numbers", at: mark)
            }
            return Position(longitude: lon, latitude: lat, altitude: altitude)
        }
        func list(_ value: JSONValue) throws -> [JSONValue] {
            guard let array = value.arrayValue else {
                throw scanner.error("the coordinates of this \(type.rawValue) are not nested as its type needs", at: mark)
            }
            return array
        }
        switch depth {
        case 0: return .position(try position(tree))
        case 1: return .positions(try list(tree).map(position))
        case 2: return .lists(try list(tree).map { try list($0).map(position) })
        default: return .polygons(try list(tree).map { try list($0).map { try list($0).map(position) } })
        }
    }
}

/// Data after the end of a GeoJSON document's one top-level object (bad input, 65).
public struct GeoJSONTrailingData: MeridianFailure, Hashable {
    /// Where the unexpected data starts.
    public var location: SourceLocation?
    /// The object that ended was a FeatureCollection (else a Feature or a geometry).
    public var afterCollection: Bool
    /// What follows starts another object: the file may be a GeoJSON text sequence.
    public var nextStartsObject: Bool

    /// Always `badInput`.
    public var kind: MeridianError.Kind { .badInput }
    /// Says what ended before the unexpected data.
    public var message: String { "unexpected data after the end of the GeoJSON \(afterCollection ? "FeatureCollection" : "object")" }
    /// Suggests reading the file as a text sequence when another object follows; nil otherwise.
    public var hint: String? {
        nextStartsObject ? "several objects in one file form a GeoJSON text sequence: one per line, or read it as geojsonseq" : nil
    }
}
