import Foundation
import MeridianFormats
import MeridianGeometry

/// The vector layers to tile, set aside on disk as they are read, so that inputs larger than
/// memory can be tiled: each zoom level streams them back one batch at a time.
///
/// A feature is kept as its tiles need it, in a binary record: its layer; its id and properties
/// already typed as a tile holds them (the bytes every piece of it carries to its tiles); its
/// positions as longitude and latitude only (tiles are flat). What the tile set's metadata needs
/// of all the features (each layer's fields, ids a tile cannot hold, the zooms the data's detail
/// calls for) is gathered as they go by, except the zooms the data's detail calls for
/// (``ZoomGuess``), which are not needed when zooms are asked for.
public final class VectorFeatureSpill {
    /// The layers' names, in the order they go into each tile.
    public private(set) var layerNames: [String] = []
    /// Per layer: its fields with their kinds (`String`, `Number`, `Boolean`, or `Mixed`).
    public private(set) var fields: [[String: String]] = []
    /// Feature ids that a vector tile cannot hold (strings, negative or fractional numbers), left out.
    public private(set) var idsLeftOut = 0
    /// The number of features set aside.
    public private(set) var count = 0
    /// Which properties are kept (all, unless set before the first feature is appended).
    public var attributeFilter = AttributeFilter.all
    /// The layer features go into unless their `tippecanoe` member names another.
    private var currentLayer = 0
    private let file: ScratchFile

    /// An empty spill in a new scratch file (removed when the spill goes).
    /// - Throws: `MeridianError` (`io`) when the scratch file cannot be created.
    public init() throws {
        file = try ScratchFile(unlinked: "vector-features")
    }

    /// A spill of `layers`, each a name and its features, in order (for tiling what is in memory already).
    /// - Parameter layers: Each layer's name and features (in WGS 84).
    /// - Throws: `MeridianError` (`io`) when the scratch file cannot be written.
    public convenience init(layers: [(name: String, features: [Feature])]) throws {
        try self.init()
        for layer in layers {
            startLayer(named: layer.name)
            for feature in layer.features { try append(feature) }
        }
    }

    /// Starts a new layer: the features appended next go into it.
    /// - Parameter name: The layer's name in the tiles.
    public func startLayer(named name: String) {
        currentLayer = layerIndex(named: name)
    }

    /// The index of the layer named `name`, added when there is none: inputs and features
    /// naming the same layer share it.
    private func layerIndex(named name: String) -> Int {
        if let index = layerNames.firstIndex(of: name) { return index }
        layerNames.append(name)
        fields.append([:])
        return layerNames.count - 1
    }

    /// Sets `feature` aside in the current layer (a layer named `features` is started if none was).
    /// A `tippecanoe` foreign member (``FeatureTilingRequest``) puts the feature in the layer it
    /// names and limits the zooms it shows at; it is never a property.
    /// - Parameter feature: A feature in WGS 84; null properties are left out, arrays and objects
    ///   become their JSON text, and those ``attributeFilter`` leaves out are not kept.
    /// - Throws: `MeridianError` (`io`) when the scratch file cannot be written (a full disk).
    public func append(_ feature: Feature) throws {
        if layerNames.isEmpty { startLayer(named: "features") }
        let request = feature.foreignMembers[FeatureTilingRequest.memberName].map(FeatureTilingRequest.init)
        let layer = request?.layer.map(layerIndex(named:)) ?? currentLayer
        let id = feature.id.flatMap(Self.tileID)
        if feature.id != nil && id == nil { idsLeftOut += 1 }
        var properties: [(key: String, value: VectorTile.Value)] = []
        for (key, json) in feature.properties ?? [:] where attributeFilter.keeps(key) {
            guard let value = VectorTile.Value(json) else { continue }
            let kind = Self.fieldKind(value)
            fields[layer][key] = fields[layer][key].map { $0 == kind ? $0 : "Mixed" } ?? kind
            properties.append((key, value))
        }
        var record = RecordWriter()
        record.putRecord { record in
            record.put(UInt32(layer))
            record.put(UInt8(request?.minimumZoom ?? 0))
            record.put(UInt8(request?.maximumZoom ?? 255))
            TileAttributes.write(id: id, properties: properties, to: &record)
            SpilledGeometry.write(feature.geometry, to: &record)
        }
        record.bytes.withUnsafeBytes { file.sink.write($0) }
        try file.sink.checkForErrors()
        count += 1
    }

    /// The features from the first, in batches of whole records (``SpilledFeature``).
    func batches() throws -> RecordBatches {
        try file.sink.flush()
        return RecordBatches(file, length: file.sink.bytesWritten)
    }

    static func fieldKind(_ value: VectorTile.Value) -> String {
        switch value {
        case .string: "String"
        case .double, .uint, .sint: "Number"
        case .bool: "Boolean"
        }
    }

    /// A feature id as a tile holds it: non-negative integers only.
    static func tileID(_ id: FeatureID) -> UInt64? {
        switch id {
        case .integer(let i): i >= 0 ? UInt64(i) : nil
        case .double(let d): d >= 0 && d == d.rounded() && d < 1.8e19 ? UInt64(d) : nil
        case .string: nil
        }
    }
}

/// One feature read back from a ``VectorFeatureSpill``: its layer, the zooms it shows at, where
/// in its batch the bytes of its attributes lie (which its pieces carry as they are), and its geometry.
struct SpilledFeature {
    let layer: Int
    let minimumZoom: Int, maximumZoom: Int
    let attributes: Range<Int>
    let geometry: Geometry?

    /// Reads the record at `record`.
    init(_ record: inout RecordReader) {
        layer = record.count()
        minimumZoom = Int(record.byte())
        maximumZoom = Int(record.byte())
        attributes = TileAttributes.skip(&record)
        geometry = SpilledGeometry.read(&record)
    }
}

/// What every tile piece of a feature carries: its id, if a tile can hold it, and its properties,
/// as a block's reader takes them (``TileItem/read(_:thinnedKeptBy:)``): encoded once as a
/// layer's tables store them, for all the tiles the piece reaches.
struct TileAttributes: Sendable {
    let id: UInt64?
    let properties: EncodedProperties
    /// The most bytes they take in a tile: an id's varint, and per property its key's and
    /// value's bytes (a text's with its length, a number's widest varint or double) and
    /// `VectorTiler`'s allowance for tags and table entries beyond them.
    let mostBytes: Int

    /// Writes `id` and `properties` after a count of their bytes, so a reader can pass them on
    /// without reading them (the spill's own form: `PointThinning` ranks a point by these bytes).
    static func write(id: UInt64?, properties: [(key: String, value: VectorTile.Value)], to record: inout RecordWriter) {
        record.putRecord { body in
            if let id {
                body.put(UInt8(1))
                body.put(id)
            } else {
                body.put(UInt8(0))
            }
            body.put(count: properties.count)
            for (key, value) in properties {
                body.put(key)
                switch value {
                case .string(let s): body.put(UInt8(0)); body.put(s)
                case .double(let d): body.put(UInt8(1)); body.put(d)
                case .uint(let u): body.put(UInt8(2)); body.put(u)
                case .sint(let i): body.put(UInt8(3)); body.put(UInt64(bitPattern: i))
                case .bool(let b): body.put(UInt8(4)); body.put(UInt8(b ? 1 : 0))
                }
            }
        }
    }

    /// Passes over written attributes: where their bytes, with their count, lie.
    static func skip(_ record: inout RecordReader) -> Range<Int> {
        let start = record.offset
        let length = record.count()
        _ = record.raw(length)
        return start..<record.offset
    }

    /// Reads attributes that ``write(id:properties:to:)`` wrote, the properties encoded as they
    /// are read (a text's bytes copied, never made a `String`).
    init(_ record: inout RecordReader) {
        _ = record.count()
        id = record.byte() == 1 ? record.uint64() : nil
        var mostBytes = id == nil ? 0 : 10
        var entries = PropertyEntries()
        for _ in 0..<record.count() {
            let key = record.raw(record.count())
            let kind = record.byte()
            var text = UnsafeRawBufferPointer(start: nil, count: 0)
            var value = VectorTile.Value.bool(false)
            switch kind {
            case 0: text = record.raw(record.count())
            case 1: value = .double(record.double())
            case 2: value = .uint(record.uint64())
            case 3: value = .sint(Int64(bitPattern: record.uint64()))
            default: value = .bool(record.byte() == 1)
            }
            entries.add(key: key) { entry in
                if kind == 0 { entry.bytesField(1, text) } else { value.writeTableEntry(to: &entry) }
            }
            let valueBytes = switch kind {
            case 0: text.count + 5
            case 1: 9
            case 2, 3: 11
            default: 2
            }
            mostBytes += key.count + 5 + valueBytes + VectorTiler.bytesPerPropertyBeyondItsText
        }
        properties = EncodedProperties(entries)
        self.mostBytes = mostBytes
    }
}

/// A geometry in a spill record: a kind byte, then counts and (longitude, latitude) pairs.
enum SpilledGeometry {
    static func write(_ geometry: Geometry?, to record: inout RecordWriter) {
        func put(_ positions: [Position]) { record.put(positions) { ($0.longitude, $0.latitude) } }
        func put(_ rings: [[Position]]) {
            record.put(count: rings.count)
            rings.forEach(put)
        }
        switch geometry {
        case nil: record.put(UInt8(0))
        case .point(let p): record.put(UInt8(1)); put([p.coordinates])
        case .multiPoint(let m): record.put(UInt8(2)); put(m.coordinates)
        case .lineString(let l): record.put(UInt8(3)); put(l.coordinates)
        case .multiLineString(let m): record.put(UInt8(4)); put(m.lines)
        case .polygon(let p): record.put(UInt8(5)); put(p.rings)
        case .multiPolygon(let m):
            record.put(UInt8(6))
            record.put(count: m.polygons.count)
            for polygon in m.polygons { put(polygon.rings) }
        case .geometryCollection(let c):
            record.put(UInt8(7))
            record.put(count: c.geometries.count)
            for member in c.geometries { write(member, to: &record) }
        }
    }

    static func read(_ record: inout RecordReader) -> Geometry? {
        func rings() -> [[Position]] { (0..<record.count()).map { _ in record.positions() } }
        switch record.byte() {
        case 1: return .point(Point(record.positions()[0]))
        case 2: return .multiPoint(MultiPoint(record.positions()))
        case 3: return .lineString(LineString(record.positions()))
        case 4: return .multiLineString(MultiLineString(rings()))
        case 5: return .polygon(Polygon(rings()))
        case 6: return .multiPolygon(MultiPolygon((0..<record.count()).map { _ in Polygon(rings()) }))
        case 7: return .geometryCollection(GeometryCollection((0..<record.count()).compactMap { _ in read(&record) }))
        default: return nil
        }
    }
}

/// The zoom levels to tile when none are asked for, guessed from the data as it goes by (in the
/// spirit of tippecanoe's `-zg`, which guesses from the data's precision and the spacing of its
/// features): from 0 to the deeper of
/// - for points, the level where a pixel (1/256 of a tile) is no wider than the finest step of
///   their coordinates (4 decimals, about 11 m: zoom 14; 2 decimals: zoom 8; whole degrees:
///   zoom 1), so a map shows each point within a pixel of where the data puts it at the top
///   zoom however few and far apart the points are;
/// - for lines and polygons, the level where their typical detail, the median distance between
///   neighbouring positions, spans about 16 tile units;
///
/// at most ``deepest`` (14, tippecanoe's default maximum zoom).
public struct ZoomGuess: Sendable {
    /// The deepest zoom guessed: 14, where a tile unit is about 2.4 m at the equator.
    public static let deepest = 14
    /// Distances between neighbouring positions of lines and rings in map points: the first
    /// million, enough for a median (and as `Float`s, precise enough for a zoom level that is rounded).
    private var distances: [Float] = []
    /// The most decimals a point's coordinate has (nil: no points yet), up to ``decimalsLimit``.
    private var pointDecimals: Int?
    /// Decimals past which a coordinate counts as exact: 7 (about a centimetre) is past what zoom 14 shows.
    static let decimalsLimit = 7

    /// No data yet: zooms 0-14.
    public init() {}

    /// Counts `geometry`'s detail: its points' precision, the spacing along its lines and rings.
    /// - Parameter geometry: A feature's geometry, in WGS 84.
    public mutating func add(_ geometry: Geometry) {
        func add(point: Position) {
            var decimals = pointDecimals ?? 0
            while decimals < Self.decimalsLimit && !(Self.hasAtMost(decimals, point.longitude) && Self.hasAtMost(decimals, point.latitude)) {
                decimals += 1
            }
            pointDecimals = decimals
        }
        func add(path: [Position]) {
            guard path.count >= 2, distances.count < 1_000_000 else { return }
            var previous = MapPoint(path[0])
            for position in path.dropFirst() where distances.count < 1_000_000 {
                let point = MapPoint(position)
                distances.append(Float(hypot(point.x - previous.x, point.y - previous.y)))
                previous = point
            }
        }
        switch geometry {
        case .point(let p): add(point: p.coordinates)
        case .multiPoint(let m): m.coordinates.forEach(add(point:))
        case .lineString(let l): add(path: l.coordinates)
        case .multiLineString(let m): m.lines.forEach(add)
        case .polygon(let p): p.rings.forEach(add)
        case .multiPolygon(let m): for polygon in m.polygons { polygon.rings.forEach(add) }
        case .geometryCollection(let c): for member in c.geometries { self.add(member) }
        }
    }

    /// Whether `value` is written with at most `decimals` decimals (to within the rounding of a
    /// double read from text, a few parts in 10^16).
    static func hasAtMost(_ decimals: Int, _ value: Double) -> Bool {
        let scaled = value * pow(10, Double(decimals))
        return abs(scaled - scaled.rounded()) <= max(1e-9, abs(scaled) * 1e-12)
    }

    /// The guessed zooms.
    public var zooms: ClosedRange<Int> {
        var deepest: Int?
        if let pointDecimals {
            // A pixel at zoom z is 360 / 256 / 2^z degrees of longitude (and no more of
            // latitude, in Web Mercator): no wider than one step of the last decimal.
            let step = pow(10, -Double(pointDecimals))
            deepest = Int(log2(360 / 256 / step).rounded(.up))
        }
        let spacing = distances.filter { $0 > 0 }.sorted()
        if !spacing.isEmpty {
            let median = Double(spacing[spacing.count / 2])
            // One tile unit at zoom z is 2^28 / 2^z / 4096 = 2^(16 - z) map points: 16 units is median at z = 20 - log2(median).
            deepest = max(deepest ?? 0, Int((20 - log2(median)).rounded()))
        }
        return 0...min(Self.deepest, max(0, deepest ?? Self.deepest))
    }
}
