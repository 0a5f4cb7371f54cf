import MeridianCore
import MeridianFormats
import MeridianGeometry

/// One Mapbox Vector Tile (specification 2.1): named layers of features in integer tile
/// coordinates, encoded as the specification's protocol buffer.
///
/// The encoder is written by hand rather than generated with swift-protobuf: the message has
/// five fields a level, its schema is frozen (version 2.1, 2016), and the generator would add
/// minutes to every clean build for what is a few dozen lines of varints.
public struct VectorTile: Sendable, Equatable {
    /// The layers, in the order they are written.
    public var layers: [Layer]

    /// A tile of `layers`.
    public init(layers: [Layer] = []) { self.layers = layers }

    /// A layer: its name, the grid its coordinates count (`extent` units across the tile), and
    /// its features, whose property keys and values the layer stores once each.
    public struct Layer: Sendable, Equatable {
        /// The layer's name (one per input: MapLibre styles select layers by it).
        public var name: String
        /// Units across the tile (4096 unless asked otherwise).
        public var extent: Int
        /// The features.
        public var features: [Feature]

        /// A layer named `name`, `extent` units across.
        public init(name: String, extent: Int = 4096, features: [Feature] = []) {
            self.name = name
            self.extent = extent
            self.features = features
        }
    }

    /// What a feature's geometry is.
    public enum GeometryType: Int, Sendable, Equatable {
        /// One point, or several (a multipoint).
        case point = 1
        /// Lines.
        case lineString = 2
        /// Polygons: each outer ring with positive area, followed by its holes, with negative area.
        case polygon = 3
    }

    /// One feature: an optional id, its type, its parts in tile units (points, lines or rings;
    /// rings not closed: the encoding closes them) and its properties.
    public struct Feature: Sendable, Equatable {
        /// The feature's id (vector tiles hold only unsigned integers).
        public var id: UInt64?
        /// Point, lines or polygons.
        public var type: GeometryType
        /// The parts in tile units: for points one part of every point; for lines each line; for
        /// polygons each ring, outer rings wound with positive area (clockwise on screen).
        public var parts: [[SIMD2<Int32>]]
        /// The properties, in order (decoded from their table entries when the feature was
        /// made from those, as a tiler makes its features).
        public var properties: [(key: String, value: Value)] {
            get { encodedProperties?.decoded ?? decodedProperties }
            set {
                decodedProperties = newValue
                encodedProperties = nil
            }
        }
        /// The properties as given (none when the feature was made from table entries).
        private var decodedProperties: [(key: String, value: Value)]
        /// The properties as a layer's tables store them, when the feature was made from those:
        /// the encoder takes their bytes as they are.
        private(set) var encodedProperties: EncodedProperties?

        /// A feature of `type` made of `parts`.
        public init(id: UInt64? = nil, type: GeometryType, parts: [[SIMD2<Int32>]], properties: [(key: String, value: Value)] = []) {
            self.id = id
            self.type = type
            self.parts = parts
            decodedProperties = properties
        }

        /// A feature of `type` made of `parts`, with properties already encoded (shared by
        /// every tile feature of one input feature).
        init(id: UInt64?, type: GeometryType, parts: [[SIMD2<Int32>]], encodedProperties: EncodedProperties) {
            self.id = id
            self.type = type
            self.parts = parts
            decodedProperties = []
            self.encodedProperties = encodedProperties
        }

        /// Whether two features have the same id, type, parts and properties (in order).
        public static func == (a: Feature, b: Feature) -> Bool {
            a.id == b.id && a.type == b.type && a.parts == b.parts
                && a.properties.map(\.key) == b.properties.map(\.key) && a.properties.map(\.value) == b.properties.map(\.value)
        }
    }

    /// A property value, in the type the tile stores it as.
    public enum Value: Hashable, Sendable {
        /// Text.
        case string(String)
        /// A floating-point number.
        case double(Double)
        /// A whole number at or above zero.
        case uint(UInt64)
        /// A negative whole number (stored zigzag-encoded).
        case sint(Int64)
        /// True or false.
        case bool(Bool)

        /// A property of a GeoJSON feature as a tile stores it: numbers keep their kind, arrays
        /// and objects become their JSON text (as tippecanoe does), null is left out (nil).
        public init?(_ json: JSONValue) {
            switch json {
            case .null: return nil
            case .bool(let b): self = .bool(b)
            case .integer(let i): self = i >= 0 ? .uint(UInt64(i)) : .sint(i)
            case .double(let d): self = .double(d)
            case .string(let s): self = .string(s)
            case .array, .object: self = .string(json.jsonText)
            }
        }

        /// The value's entry in a layer's value table (the specification's `Value` message):
        /// one field, of the type's number.
        func writeTableEntry(to entry: inout ProtobufWriter) {
            switch self {
            case .string(let s): entry.string(1, s)
            case .double(let d): entry.fixed64(3, d.bitPattern)
            case .uint(let u): entry.varintField(5, u)
            case .sint(let i): entry.varintField(6, ProtobufWriter.zigzag(i))
            case .bool(let b): entry.varintField(7, b ? 1 : 0)
            }
        }

        /// The value a table entry holds (any of the specification's seven types; a float
        /// becomes a double, an `int_value` a signed integer).
        /// - Throws: `MeridianError` (bad input) when the entry is damaged or holds no value.
        init(tableEntry bytes: ArraySlice<UInt8>) throws {
            var value = ProtobufReader(bytes)
            var decoded: VectorTile.Value?
            while let (f, w) = try value.key() {
                switch (f, w) {
                case (1, 2): decoded = .string(String(decoding: try value.bytes(), as: UTF8.self))
                case (2, 5): decoded = .double(Double(Float(bitPattern: UInt32(truncatingIfNeeded: try value.fixed(4)))))
                case (3, 1): decoded = .double(Double(bitPattern: try value.fixed(8)))
                case (4, 0): decoded = .sint(Int64(bitPattern: try value.varint()))
                case (5, 0): decoded = .uint(try value.varint())
                case (6, 0): let z = try value.varint(); decoded = .sint(Int64(bitPattern: z >> 1) ^ -Int64(bitPattern: z & 1))
                case (7, 0): decoded = .bool(try value.varint() != 0)
                default: try value.skip(w)
                }
            }
            guard let decoded else { throw ProtobufReader.damaged }
            self = decoded
        }

        /// The value as JSON, for reading tiles back into features.
        public var json: JSONValue {
            switch self {
            case .string(let s): .string(s)
            case .double(let d): .double(d)
            case .uint(let u): u <= UInt64(Int64.max) ? .integer(Int64(u)) : .double(Double(u))
            case .sint(let i): .integer(i)
            case .bool(let b): .bool(b)
            }
        }
    }

    /// The tile as the specification's protocol buffer.
    public func encoded() -> [UInt8] {
        var tile = ProtobufWriter()
        for layer in layers { tile.message(3, layer.encoded()) }
        return tile.bytes
    }
}

extension VectorTile.Layer {
    /// The layer as the specification's message: features, then the key and value tables.
    ///
    /// Written in one pass into reused buffers: per feature its property tags, geometry
    /// commands and message, with no array made per feature, property or position. Keys and
    /// values are stored once each, in the order first met, and told apart by their bytes (a
    /// value's as its table entry encodes it): a cheap hash of bytes where `Dictionary` hashed
    /// each `String` (Unicode-normalising the non-ASCII ones, such as the names in thirty
    /// languages every Natural Earth country carries) for every property of every tile's feature.
    /// A tiler's features bring their properties' bytes and hashes (``EncodedProperties``,
    /// made once per feature for all its tiles); others' are encoded here, into one reused buffer.
    func encoded() -> [UInt8] {
        var layer = ProtobufWriter()
        layer.varintField(15, 2)   // version 2
        layer.string(1, name)
        var keys = ByteTable(), values = ByteTable()
        var tags = ProtobufWriter(), commands = ProtobufWriter(), message = ProtobufWriter()
        var scratch = PropertyEntries()
        // A feature's properties as tags: each key's and value's number in the tables.
        func tag(_ properties: PropertyEntries) {
            properties.bytes.withUnsafeBytes { bytes in
                for index in 0..<properties.count {
                    let (key, value) = properties.ranges(index)
                    let (keyHash, valueHash) = properties.hashes[index]
                    // The features of a layer usually have the same keys in the same order: the
                    // key at the same place in the table is tried first.
                    tags.varint(UInt64(keys.intern(UnsafeRawBufferPointer(rebasing: bytes[key]), hash: keyHash, guess: index)))
                    tags.varint(UInt64(values.intern(UnsafeRawBufferPointer(rebasing: bytes[value]), hash: valueHash, guess: nil)))
                }
            }
        }
        for feature in features {
            tags.bytes.removeAll(keepingCapacity: true)
            if let encoded = feature.encodedProperties {
                tag(encoded.entries)
            } else {
                scratch.removeAll()
                scratch.add(feature.properties)
                tag(scratch)
            }
            message.bytes.removeAll(keepingCapacity: true)
            if let id = feature.id { message.varintField(1, id) }
            if !tags.bytes.isEmpty { message.message(2, tags.bytes) }  // packed varints
            message.varintField(3, UInt64(feature.type.rawValue))
            commands.bytes.removeAll(keepingCapacity: true)
            VectorTile.writeCommands(feature.type, feature.parts, to: &commands)
            message.message(4, commands.bytes)
            layer.message(2, message.bytes)
        }
        keys.forEach { layer.message(3, $0) }
        values.forEach { layer.message(4, $0) }
        layer.varintField(5, UInt64(extent))
        return layer.bytes
    }
}

/// A feature's properties as a layer's key and value tables store them (``PropertyEntries``),
/// made once per feature of a block by a tiler (``TileAttributes``) and shared by every tile
/// feature it makes: each tile interns these bytes as they are, where it decoded `String`s per
/// block and encoded them again per tile.
final class EncodedProperties: Sendable {
    /// The properties' entries.
    let entries: PropertyEntries

    /// Properties of `entries`.
    init(_ entries: PropertyEntries) { self.entries = entries }

    /// The properties decoded (for what reads them as values: clustering, tests).
    var decoded: [(key: String, value: VectorTile.Value)] {
        (0..<entries.count).compactMap { index in
            let (key, value) = entries.ranges(index)
            // Entries ``PropertyEntries/add(key:value:)`` wrote: they always decode.
            guard let decoded = try? VectorTile.Value(tableEntry: entries.bytes[value]) else { return nil }
            return (String(decoding: entries.bytes[key], as: UTF8.self), decoded)
        }
    }
}

/// Properties as a layer's tables store them: per property its key's UTF-8 and its value's table
/// entry (``VectorTile/Value/writeTableEntry(to:)``), end to end, with each one's hash
/// (``ByteTable/hash(_:)``), which the tables intern them by.
struct PropertyEntries: Sendable {
    /// Each property's key and value entry, end to end.
    private(set) var bytes: [UInt8] = []
    /// Where each property's key ends and its value entry ends in ``bytes`` (its key starts
    /// where the property before it ends).
    private var ends: [(key: Int, value: Int)] = []
    /// Each property's key's and value entry's hashes.
    private(set) var hashes: [(key: UInt64, value: UInt64)] = []

    /// No properties.
    init() {}

    /// The number of properties.
    var count: Int { ends.count }

    /// Where property `index`'s key and value entry lie in ``bytes``.
    func ranges(_ index: Int) -> (key: Range<Int>, value: Range<Int>) {
        let start = index == 0 ? 0 : ends[index - 1].value
        return (start..<ends[index].key, ends[index].key..<ends[index].value)
    }

    /// Appends a property: its key's UTF-8, and its value entry as `writeValue` writes it.
    mutating func add(key: UnsafeRawBufferPointer, value writeValue: (inout ProtobufWriter) -> Void) {
        let start = bytes.count
        bytes.append(contentsOf: key)
        let keyEnd = bytes.count
        // The entry written after the bytes so far (moved into the writer, not copied).
        var writer = ProtobufWriter()
        swap(&writer.bytes, &bytes)
        writeValue(&writer)
        swap(&writer.bytes, &bytes)
        ends.append((keyEnd, bytes.count))
        hashes.append(bytes.withUnsafeBytes { all in
            (ByteTable.hash(UnsafeRawBufferPointer(rebasing: all[start..<keyEnd])), ByteTable.hash(UnsafeRawBufferPointer(rebasing: all[keyEnd...])))
        })
    }

    /// Appends `properties`, in order.
    mutating func add(_ properties: [(key: String, value: VectorTile.Value)]) {
        for (key, value) in properties {
            var key = key
            key.withUTF8 { key in add(key: UnsafeRawBufferPointer(key)) { value.writeTableEntry(to: &$0) } }
        }
    }

    /// Takes every property out, keeping the memory for the next feature's.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        hashes.removeAll(keepingCapacity: true)
    }
}

/// Byte strings stored once each, numbered in the order first added: a layer's keys (their
/// UTF-8) or values (their table entries).
struct ByteTable {
    /// Every entry's bytes end to end.
    private(set) var bytes: [UInt8] = []
    /// Where each entry ends in ``bytes`` (entry `i` starts where `i - 1` ends).
    private var ends: [Int] = []
    /// Open addressing over the entries: index + 1, 0 for an empty slot; a power of two long.
    private var slots = [Int32](repeating: 0, count: 64)
    private var hashes: [UInt64] = []

    var count: Int { ends.count }

    private func range(_ entry: Int) -> Range<Int> { (entry == 0 ? 0 : ends[entry - 1])..<ends[entry] }

    private func equal(_ entry: Int, _ candidate: UnsafeRawBufferPointer) -> Bool {
        let stored = range(entry)
        guard stored.count == candidate.count else { return false }
        return bytes.withUnsafeBytes { b in
            for i in 0..<stored.count where b[stored.lowerBound + i] != candidate[i] { return false }
            return true
        }
    }

    /// FNV-1a over the bytes: cheap for the short strings of a tile's tables.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            h = (h ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return h
    }

    /// The number of the entry equal to `candidate`, whose ``hash(_:)`` is `hash` (`guess` is
    /// tried first); or, when there is none, the number it is added as.
    mutating func intern(_ candidate: UnsafeRawBufferPointer, hash h: UInt64, guess: Int?) -> Int {
        if let guess, guess < ends.count, equal(guess, candidate) { return guess }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: h) & mask
        while slots[slot] != 0 {
            let entry = Int(slots[slot]) - 1
            if hashes[entry] == h && equal(entry, candidate) { return entry }
            slot = (slot + 1) & mask
        }
        let entry = ends.count
        bytes.append(contentsOf: candidate)
        ends.append(bytes.count)
        hashes.append(h)
        slots[slot] = Int32(truncatingIfNeeded: entry + 1)
        if 2 * ends.count > slots.count { grow() }
        return entry
    }

    private mutating func grow() {
        slots = [Int32](repeating: 0, count: 2 * slots.count)
        let mask = slots.count - 1
        for (entry, h) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: h) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(truncatingIfNeeded: entry + 1)
        }
    }

    /// Each entry's bytes, in order.
    func forEach(_ body: (ArraySlice<UInt8>) -> Void) {
        for entry in ends.indices { body(bytes[range(entry)]) }
    }
}

extension VectorTile {
    /// The geometry's command integers: MoveTo, LineTo and ClosePath with zigzag deltas from
    /// the cursor, which carries over from part to part.
    static func commands(_ type: GeometryType, _ parts: [[SIMD2<Int32>]]) -> [UInt64] {
        var out: [UInt64] = []
        forEachCommand(type, parts) { out.append($0) }
        return out
    }

    /// The command integers of ``commands(_:_:)``, as packed varints, appended to `writer`.
    static func writeCommands(_ type: GeometryType, _ parts: [[SIMD2<Int32>]], to writer: inout ProtobufWriter) {
        forEachCommand(type, parts) { writer.varint($0) }
    }

    @inline(__always)
    static func forEachCommand(_ type: GeometryType, _ parts: [[SIMD2<Int32>]], _ emit: (UInt64) -> Void) {
        func command(_ id: UInt64, _ count: Int) -> UInt64 { (id & 7) | (UInt64(count) << 3) }
        var cursor = SIMD2<Int32>(0, 0)
        func moveTo(_ p: SIMD2<Int32>) {
            emit(ProtobufWriter.zigzag(Int64(p.x) - Int64(cursor.x)))
            emit(ProtobufWriter.zigzag(Int64(p.y) - Int64(cursor.y)))
            cursor = p
        }
        switch type {
        case .point:
            let count = parts.reduce(0) { $0 + $1.count }
            guard count > 0 else { return }
            emit(command(1, count))
            for part in parts { for p in part { moveTo(p) } }
        case .lineString, .polygon:
            for part in parts where !part.isEmpty {
                emit(command(1, 1))
                moveTo(part[0])
                emit(command(2, part.count - 1))
                for p in part.dropFirst() { moveTo(p) }
                if type == .polygon { emit(command(7, 1)) }
            }
        }
    }
}

/// Protocol buffer wire format, as far as vector tiles need it: varints, length-delimited
/// fields (strings, messages, packed varints) and 64-bit doubles.
struct ProtobufWriter {
    var bytes: [UInt8] = []

    static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func key(_ field: Int, _ wireType: UInt64) { varint(UInt64(field) << 3 | wireType) }

    mutating func varintField(_ field: Int, _ value: UInt64) {
        key(field, 0)
        varint(value)
    }

    mutating func fixed64(_ field: Int, _ value: UInt64) {
        key(field, 1)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8((value >> UInt64(shift)) & 0xFF)) }
    }

    mutating func message(_ field: Int, _ payload: [UInt8]) {
        message(field, payload[...])
    }

    mutating func message(_ field: Int, _ payload: ArraySlice<UInt8>) {
        key(field, 2)
        varint(UInt64(payload.count))
        bytes += payload
    }

    mutating func string(_ field: Int, _ text: String) {
        key(field, 2)
        varint(UInt64(text.utf8.count))
        bytes += text.utf8
    }

    /// A length-delimited field of `raw` (a text's UTF-8 as it is).
    mutating func bytesField(_ field: Int, _ raw: UnsafeRawBufferPointer) {
        key(field, 2)
        varint(UInt64(raw.count))
        bytes.append(contentsOf: raw)
    }

    mutating func packed(_ field: Int, _ values: [UInt64]) {
        var payload = ProtobufWriter()
        payload.bytes.reserveCapacity(2 * values.count)
        for value in values { payload.varint(value) }
        message(field, payload.bytes)
    }
}

extension VectorTile {
    /// Decodes a tile's protocol buffer (gunzipped): its layers, features, ids, properties and
    /// geometry in tile units.
    /// - Throws: `MeridianError` (bad input) when the bytes are not a vector tile, or hold more
    ///   than ``TileInputLimits`` allows (`layersPerTile` layers, `featuresPerTile` features,
    ///   keys or values, `geometryIntegersPerTile` geometry integers or property tags), however
    ///   few bytes each takes.
    public init(decoding bytes: [UInt8]) throws {
        var reader = ProtobufReader(bytes[...])
        var layers: [Layer] = []
        var budget = DecodingBudget()
        while let (field, wire) = try reader.key() {
            if field == 3, wire == 2 {
                try budget.take(1, of: \.layers, limit: TileInputLimits.layersPerTile, "layers")
                layers.append(try Layer(decoding: try reader.bytes(), budget: &budget))
            } else {
                try reader.skip(wire)
            }
        }
        self.init(layers: layers)
    }

    /// What one tile's decoding has taken so far, against ``TileInputLimits``: a tile of empty
    /// layers or features (two bytes each) would otherwise ask for far more memory than its bytes.
    struct DecodingBudget {
        var layers = 0, features = 0, keys = 0, values = 0, tags = 0, geometryIntegers = 0

        mutating func take(_ count: Int, of item: WritableKeyPath<DecodingBudget, Int>, limit: Int, _ name: String) throws {
            self[keyPath: item] += count
            guard self[keyPath: item] <= limit else {
                throw MeridianError(.badInput, "the vector tile holds more than \(limit) \(name), more than Meridian reads from one tile")
            }
        }
    }
}

extension VectorTile.Layer {
    init(decoding bytes: ArraySlice<UInt8>, budget: inout VectorTile.DecodingBudget) throws {
        var reader = ProtobufReader(bytes)
        var name = "", extent = 4096, keys: [String] = [], values: [VectorTile.Value] = []
        var raw: [(id: UInt64?, type: Int, tags: [UInt64], geometry: [UInt64])] = []
        while let (field, wire) = try reader.key() {
            switch (field, wire) {
            case (1, 2): name = String(decoding: try reader.bytes(), as: UTF8.self)
            case (2, 2):
                try budget.take(1, of: \.features, limit: TileInputLimits.featuresPerTile, "features")
                var feature = ProtobufReader(try reader.bytes())
                var id: UInt64?, type = 0, tags: [UInt64] = [], geometry: [UInt64] = []
                while let (f, w) = try feature.key() {
                    switch (f, w) {
                    case (1, 0): id = try feature.varint()
                    case (2, 2):
                        tags = try feature.packed()
                        try budget.take(tags.count, of: \.tags, limit: TileInputLimits.geometryIntegersPerTile, "property tags")
                    case (3, 0): type = Int(clamping: try feature.varint())
                    case (4, 2):
                        geometry = try feature.packed()
                        try budget.take(geometry.count, of: \.geometryIntegers, limit: TileInputLimits.geometryIntegersPerTile, "geometry integers")
                    default: try feature.skip(w)
                    }
                }
                raw.append((id, type, tags, geometry))
            case (3, 2):
                try budget.take(1, of: \.keys, limit: TileInputLimits.featuresPerTile, "keys")
                keys.append(String(decoding: try reader.bytes(), as: UTF8.self))
            case (4, 2):
                try budget.take(1, of: \.values, limit: TileInputLimits.featuresPerTile, "values")
                values.append(try VectorTile.Value(tableEntry: try reader.bytes()))
            case (5, 0): extent = Int(clamping: try reader.varint())
            default: try reader.skip(wire)
            }
        }
        let features = try raw.map { feature -> VectorTile.Feature in
            guard let type = VectorTile.GeometryType(rawValue: feature.type), feature.tags.count % 2 == 0 else { throw ProtobufReader.damaged }
            let properties = try stride(from: 0, to: feature.tags.count, by: 2).map { i -> (key: String, value: VectorTile.Value) in
                let k = Int(clamping: feature.tags[i]), v = Int(clamping: feature.tags[i + 1])
                guard k < keys.count, v < values.count else { throw ProtobufReader.damaged }
                return (keys[k], values[v])
            }
            return VectorTile.Feature(id: feature.id, type: type, parts: try VectorTile.parts(type, feature.geometry), properties: properties)
        }
        self.init(name: name, extent: extent, features: features)
    }
}

extension VectorTile {
    /// A geometry's parts from its command integers (the inverse of `commands`).
    static func parts(_ type: GeometryType, _ commands: [UInt64]) throws -> [[SIMD2<Int32>]] {
        var parts: [[SIMD2<Int32>]] = [], current: [SIMD2<Int32>] = [], cursor = SIMD2<Int32>(0, 0), i = 0
        func unzigzag(_ z: UInt64) -> Int32 { Int32(truncatingIfNeeded: Int64(bitPattern: z >> 1) ^ -Int64(bitPattern: z & 1)) }
        while i < commands.count {
            let id = commands[i] & 7, count = Int(commands[i] >> 3)
            i += 1
            switch id {
            case 1, 2:
                guard i + 2 * count <= commands.count else { throw ProtobufReader.damaged }
                for _ in 0..<count {
                    cursor &+= SIMD2(unzigzag(commands[i]), unzigzag(commands[i + 1]))
                    i += 2
                    if id == 1 && type != .point && !current.isEmpty { parts.append(current); current = [] }
                    current.append(cursor)
                }
            case 7:
                break
            default:
                throw ProtobufReader.damaged
            }
        }
        if !current.isEmpty { parts.append(current) }
        return parts
    }
}

/// Reads the protocol buffer wire format: keys, varints, fixed-width numbers, length-delimited bytes.
struct ProtobufReader {
    static let damaged = MeridianError(.badInput, "the vector tile is damaged (not a valid protocol buffer)")
    private var remaining: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { remaining = bytes }

    mutating func varint() throws -> UInt64 {
        var value: UInt64 = 0, shift: UInt64 = 0
        while let byte = remaining.popFirst() {
            guard shift < 64 else { throw Self.damaged }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        throw Self.damaged
    }

    /// The next field's number and wire type; nil at the end.
    mutating func key() throws -> (Int, UInt64)? {
        guard !remaining.isEmpty else { return nil }
        let key = try varint()
        return (Int(key >> 3), key & 7)
    }

    mutating func bytes() throws -> ArraySlice<UInt8> {
        let length = try varint()
        guard length <= UInt64(remaining.count) else { throw Self.damaged }
        let count = Int(length)
        defer { remaining = remaining.dropFirst(count) }
        return remaining.prefix(count)
    }

    mutating func fixed(_ width: Int) throws -> UInt64 {
        guard remaining.count >= width else { throw Self.damaged }
        var value: UInt64 = 0
        for (shift, byte) in remaining.prefix(width).enumerated() { value |= UInt64(byte) << UInt64(8 * shift) }
        remaining = remaining.dropFirst(width)
        return value
    }

    mutating func packed() throws -> [UInt64] {
        var inner = ProtobufReader(try bytes())
        var values: [UInt64] = []
        while !inner.remaining.isEmpty { values.append(try inner.varint()) }
        return values
    }

    mutating func skip(_ wireType: UInt64) throws {
        switch wireType {
        case 0: _ = try varint()
        case 1: _ = try fixed(8)
        case 2: _ = try bytes()
        case 5: _ = try fixed(4)
        default: throw Self.damaged
        }
    }
}
