import Foundation
import MeridianFormats
import MeridianGeometry
import MeridianCore

/// A table of attributes to join onto features by a key: the rows of a CSV file, each found by
/// its key column's text. A feature whose attribute of the key's name has a row's key as its
/// text (numbers in their shortest form, 12.0 as 12) takes that row's other columns as
/// attributes, replacing any of the same names; an empty cell adds nothing. A cell is typed as
/// `meridian convert` types CSV: a JSON number stays a number, `true` and `false` are booleans,
/// anything else is text. Features no row matches are left as they are.
public struct AttributeTable: Sendable {
    /// The key column's name, which is also the feature attribute matched.
    public let key: String
    /// The columns joined, in the file's order (the key column not among them).
    public let columns: [String]
    /// Each key's row: its attributes, empty cells left out. The first row of a key wins.
    private let rows: [String: [(key: String, value: VectorTile.Value)]]

    /// Reads the CSV file `path` (RFC 4180, or separated by semicolons or tabs, told by the
    /// header line).
    /// - Parameters:
    ///   - path: The CSV file.
    ///   - key: The key column's name; nil takes the first column.
    /// - Throws: `MeridianError` (input unavailable) when the file cannot be opened, (bad input)
    ///   when it is empty, not UTF-8, has a row longer than its header or two columns of one
    ///   name, (usage) when it has no column `key`.
    public init(csv path: String, key: String?) throws {
        let records = CSVRecords(input: try BufferedInput.open(path))
        guard let header = try records.next()?.fields.map({ String(decoding: $0, as: UTF8.self) }), !header.isEmpty else {
            throw MeridianError(.badInput, "the CSV file is empty", at: SourceLocation(file: path))
        }
        if let repeated = Dictionary(header.map { ($0, 1) }, uniquingKeysWith: +).first(where: { $0.value > 1 })?.key {
            throw MeridianError(.badInput, "the CSV header names the column \"\(repeated)\" twice", at: SourceLocation(file: path, line: 1))
        }
        let keyName = key ?? header[0]
        guard let keyColumn = header.firstIndex(of: keyName) else {
            throw MeridianError(.usage, "the CSV file has no column \"\(keyName)\" (its columns: \(header.joined(separator: ", ")))",
                                at: SourceLocation(file: path, line: 1))
        }
        var rows: [String: [(key: String, value: VectorTile.Value)]] = [:]
        while let record = try records.next() {
            guard record.fields.count <= header.count else {
                throw MeridianError(.badInput, "a row has \(record.fields.count) fields but the header names \(header.count)", at: record.location)
            }
            guard keyColumn < record.fields.count, !record.fields[keyColumn].isEmpty else { continue }
            let rowKey = String(decoding: record.fields[keyColumn], as: UTF8.self)
            guard rows[rowKey] == nil else { continue }
            rows[rowKey] = record.fields.indices.compactMap { i in
                guard i != keyColumn, let value = VectorTile.Value(JSONValue.inferred(fromText: record.fields[i])) else { return nil }
                return (header[i], value)
            }
        }
        self.key = keyName
        self.columns = header.indices.filter { $0 != keyColumn }.map { header[$0] }
        self.rows = rows
    }

    /// The number of keys the table holds.
    public var rowCount: Int { rows.count }

    /// The row whose key is `value`'s text, if any.
    func row(for value: VectorTile.Value) -> [(key: String, value: VectorTile.Value)]? {
        rows[Self.keyText(value)]
    }

    /// A value's text as a key: numbers in their shortest form, whole doubles without a fraction.
    static func keyText(_ value: VectorTile.Value) -> String {
        if case .double(let d) = value, d.rounded() == d, abs(d) < 9.007_199_254_740_992e15 { return String(Int64(d)) }
        return value.json.plainText()
    }
}

/// What a tile join changes in each feature: attributes joined from a table, then the
/// attributes selected.
public struct TileJoinOptions: Sendable {
    /// The attributes kept (the table's columns included).
    public var attributes: AttributeFilter
    /// A table to join onto features by its key, if any.
    public var table: AttributeTable?
    /// The most bytes a joined tile may take gzipped, as MBTiles and PMTiles store it
    /// (tippecanoe's tile-join limit, 500,000): a tile over it is left out and counted in
    /// ``TileJoinSummary/tilesOverSize``. Nil writes every tile whatever its size.
    public var maximumTileBytes: Int?
    /// Whether an MBTiles or PMTiles file already at the output is replaced (a folder never is);
    /// false refuses it.
    public var replacesExistingFile = false

    /// The tippecanoe tile-join limit on tile size.
    public static let defaultMaximumTileBytes = 500_000

    /// Options keeping every attribute, joining no table and leaving out tiles over 500,000
    /// bytes gzipped unless given.
    public init(attributes: AttributeFilter = .all, table: AttributeTable? = nil,
                maximumTileBytes: Int? = TileJoinOptions.defaultMaximumTileBytes) {
        self.attributes = attributes
        self.table = table
        self.maximumTileBytes = maximumTileBytes
    }
}

/// What a tile join wrote.
public struct TileJoinSummary: Sendable {
    /// Tiles written.
    public var tiles = 0
    /// Features written, across tiles and layers.
    public var features = 0
    /// Layers in the joined tile set.
    public var layers = 0
    /// Features that took a row of the table.
    public var featuresJoined = 0
    /// Joined tiles left out for being over ``TileJoinOptions/maximumTileBytes``, in the order met.
    public var tilesOverSize: [MapTile] = []
}

/// Vector tile sets merged tile by tile, as tippecanoe's `tile-join` merges them: every tile
/// of every input, the inputs' tiles at one address made into one tile whose layers are the
/// inputs' side by side, a layer name the inputs share holding the features of each (in input
/// order). Features keep their ids and geometry; their attributes may be joined from a table
/// and selected (``TileJoinOptions``). The joined set's metadata: the bounds around every
/// input's, the zoom levels from the lowest input's to the highest's, and the layers
/// (`vector_layers`) with the fields and zooms their tiles hold, summed up in `tilestats`.
/// Tiles are not cut down: a joined tile over ``TileJoinOptions/maximumTileBytes`` (measured
/// gzipped, as tippecanoe's tile-join measures it) is left out whole and reported, not thinned.
///
/// Inputs are read through ``TilePyramidReader`` (any container) with every tile checked
/// (``TileInputLimits``); a layer's coordinates are rescaled when two inputs' layers of one
/// name use different extents. Image tiles are not joined.
public enum TileJoin {
    /// Joins the tile sets `inputs` into a new one at `output` (the container by its path, as
    /// `TileContainer.openSink(at:format:scheme:for:replacing:)` opens it for a new tile set).
    /// - Parameters:
    ///   - inputs: The tile sets, open for reading, in the order their layers go.
    ///   - output: A new or empty folder, an `.mbtiles` file or a `.pmtiles` archive.
    ///   - options: The attributes joined and kept.
    /// - Returns: What was written.
    /// - Throws: `MeridianError` (usage) when `output` is one of the inputs, a folder that
    ///   holds one or a path inside an input folder, or the inputs are image tiles; (bad input) naming the input when one holds
    ///   image tiles among vector ones, holds no tiles, or a tile is damaged; the reader's and
    ///   writer's errors (an existing output is refused, and nothing is left of a failed run).
    @discardableResult
    public static func join(_ inputs: [any TilePyramidReader], into output: String, options: TileJoinOptions = .init()) throws -> TileJoinSummary {
        try RunInputs.refuseInput(at: output, alsoInputs: inputs.map(\.path))
        let metadata = try inputs.map { try $0.pyramidMetadata() }
        try checkTileTypes(inputs, metadata)
        // Every input's addresses, merged into one ordered list; each input asked only for its own.
        var holders: [MapTile: [Int]] = [:]
        for (index, input) in inputs.enumerated() {
            let addresses = try input.tileAddresses(zooms: nil)
            guard !addresses.isEmpty else {
                throw MeridianError(.badInput, "the tile set holds no tiles", at: SourceLocation(file: input.path))
            }
            // An address listed twice (a container that lists it so) is still one tile.
            for tile in addresses where holders[tile]?.last != index { holders[tile, default: []].append(index) }
            try TileInputLimits.checkAddressCount(holders.count, in: input.path)
        }
        let addresses = holders.keys.sorted { ($0.zoom, $0.x, $0.y) < ($1.zoom, $1.x, $1.y) }
        var layers = LayerCatalog()
        var summary = TileJoinSummary()
        var written: ClosedRange<Int>?
        try TileSinks.writeNew(output, format: .mvt, replacing: options.replacesExistingFile) { write in
            for address in addresses {
                var joined = VectorTile()
                for index in holders[address] ?? [] {
                    guard let tile = try tile(address, of: inputs[index]) else { continue }
                    try merge(tile, into: &joined, options: options, summary: &summary, at: address, of: inputs[index])
                }
                joined.layers.removeAll { $0.features.isEmpty }
                guard !joined.layers.isEmpty else { continue }
                let bytes = joined.encoded()
                if let limit = options.maximumTileBytes, TileLimits.gzippedSize(of: bytes, exceeds: limit) {
                    summary.tilesOverSize.append(address)
                    continue
                }
                layers.add(joined, at: address.zoom)
                written = written.map { min($0.lowerBound, address.zoom)...max($0.upperBound, address.zoom) } ?? address.zoom...address.zoom
                try write(address, bytes)
                summary.tiles += 1
                summary.features += joined.layers.reduce(0) { $0 + $1.features.count }
            }
            guard let written else {
                if let limit = options.maximumTileBytes, !summary.tilesOverSize.isEmpty {
                    throw MeridianError(.badInput, "every joined tile is over \(limit) bytes gzipped (\(summary.tilesOverSize.count) tiles): nothing to write",
                                        at: SourceLocation(file: inputs[0].path), hint: "lift the tile size limit, or join fewer layers or attributes")
                }
                throw MeridianError(.badInput, "the tile sets hold no features", at: SourceLocation(file: inputs[0].path))
            }
            summary.layers = layers.names.count
            return joinedMetadata(metadata, inputs: inputs, layers: layers, written: written)
        }
        return summary
    }

    /// Refuses image tiles: every input must hold vector tiles.
    private static func checkTileTypes(_ inputs: [any TilePyramidReader], _ metadata: [TileSetMetadata]) throws {
        guard let image = metadata.firstIndex(where: { $0.format != .mvt }) else { return }
        guard metadata.contains(where: { $0.format == .mvt }) else {
            throw MeridianError(.usage, "the tile sets hold \(metadata[image].format.displayName); only vector tiles are joined",
                                at: SourceLocation(file: inputs[image].path))
        }
        throw MeridianError(.badInput, "the tile set holds \(metadata[image].format.displayName) where the others hold vector tiles",
                            at: SourceLocation(file: inputs[image].path))
    }

    /// One input's tile decoded, or nil when it has none at the address (or an empty one).
    /// - Throws: `MeridianError` (bad input) naming the input and the tile when it is damaged.
    private static func tile(_ address: MapTile, of input: any TilePyramidReader) throws -> VectorTile? {
        try input.vectorTile(address)
    }

    /// The extents two layers of one name may be rescaled between (a tile states any number).
    static let rescalableExtents = 1...(1 << 30)

    /// Adds `tile` (of `input`, at `address`) to `joined`: a layer of a name already there takes
    /// the features (rescaled to its extent), a new name goes after the others.
    /// - Throws: `MeridianError` (bad input) when two layers of one name have different extents
    ///   and either is not in ``rescalableExtents``.
    private static func merge(_ tile: VectorTile, into joined: inout VectorTile, options: TileJoinOptions, summary: inout TileJoinSummary,
                              at address: MapTile, of input: any TilePyramidReader) throws {
        for var layer in tile.layers {
            for i in layer.features.indices { edit(&layer.features[i], options: options, summary: &summary) }
            if let existing = joined.layers.firstIndex(where: { $0.name == layer.name }) {
                let extent = joined.layers[existing].extent
                if layer.extent != extent {
                    guard rescalableExtents.contains(layer.extent), rescalableExtents.contains(extent) else {
                        throw MeridianError(.badInput, "tile \(address): the layer \"\(layer.name)\" is \(layer.extent) units across where another input's is \(extent)",
                                            at: SourceLocation(file: input.path))
                    }
                    for i in layer.features.indices { rescale(&layer.features[i], from: layer.extent, to: extent) }
                }
                joined.layers[existing].features += layer.features
            } else {
                joined.layers.append(layer)
            }
        }
    }

    /// Joins the table's row onto a feature and keeps the selected attributes.
    private static func edit(_ feature: inout VectorTile.Feature, options: TileJoinOptions, summary: inout TileJoinSummary) {
        if let table = options.table, let value = feature.properties.first(where: { $0.key == table.key })?.value, let row = table.row(for: value) {
            let joinedKeys = Set(row.map(\.key))
            feature.properties.removeAll { joinedKeys.contains($0.key) }
            feature.properties += row
            summary.featuresJoined += 1
        }
        if options.attributes != .all { feature.properties.removeAll { !options.attributes.keeps($0.key) } }
    }

    /// Moves a feature's coordinates from a grid `from` units across to one `to` units across
    /// (never trapping: coordinates a tile states may be anything).
    private static func rescale(_ feature: inout VectorTile.Feature, from: Int, to: Int) {
        let scale = Double(to) / Double(from)
        func scaled(_ v: Int32) -> Int32 { Int32(min(max((Double(v) * scale).rounded(), Double(Int32.min)), Double(Int32.max))) }
        feature.parts = feature.parts.map { $0.map { SIMD2(scaled($0.x), scaled($0.y)) } }
    }

    /// The joined set's metadata: names and descriptions listed, bounds around all, zooms from
    /// the lowest to the highest stated or `written` (a folder may hold levels its metadata does
    /// not state), the layers as the joined tiles hold them.
    private static func joinedMetadata(_ metadata: [TileSetMetadata], inputs: [any TilePyramidReader], layers: LayerCatalog,
                                       written: ClosedRange<Int>) -> TileSetMetadata {
        let boxes = metadata.map(\.bounds)
        // Bounds across the antimeridian (west past east) make the union every longitude.
        let crosses = boxes.contains { $0.west > $0.east }
        let bounds = BoundingBox(west: crosses ? -180 : boxes.map(\.west).min()!, south: boxes.map(\.south).min()!,
                                 east: crosses ? 180 : boxes.map(\.east).max()!, north: boxes.map(\.north).max()!)
        let zooms = min(written.lowerBound, metadata.map(\.zooms.lowerBound).min()!)...max(written.upperBound, metadata.map(\.zooms.upperBound).max()!)
        let names = metadata.map(\.name).filter { !$0.isEmpty }
        let files = inputs.map { $0.path.split(separator: "/").last.map(String.init) ?? $0.path }
        return TileSetMetadata(format: .mvt, name: names.joined(separator: " + "),
                               description: "\(files.joined(separator: ", ")) joined by Meridian", bounds: bounds,
                               zooms: zooms, vectorLayersJSON: layers.vectorLayersJSON, tileStatsJSON: layers.tileStatsJSON)
    }
}

/// The layers of the tiles written: each layer's fields with their kinds and the zooms it
/// appears at, for `vector_layers`; and for `tilestats` (as tippecanoe writes it, counted over
/// the tiles: a feature in several tiles counts in each) its features' count and geometry, and
/// each attribute's distinct values (the first ``valuesKept``, in order), kinds and numeric
/// range, for the first ``attributesKept`` attributes by name.
struct LayerCatalog {
    private(set) var names: [String] = []
    private var fields: [String: [String: String]] = [:]
    private var zooms: [String: ClosedRange<Int>] = [:]
    private var stats: [String: LayerStats] = [:]

    /// Most distinct values `tilestats` lists of one attribute (tippecanoe lists 100, counts 1000).
    static let valuesKept = 100
    /// Most distinct values counted of one attribute.
    static let valuesCounted = 1000
    /// Most attributes `tilestats` lists of one layer, by name (tippecanoe lists 100; the
    /// count says how many there are).
    static let attributesKept = 100

    struct LayerStats {
        var features = 0
        var geometries: [VectorTile.GeometryType: Int] = [:]
        var attributes: [String: AttributeStats] = [:]
    }

    struct AttributeStats {
        var values: [VectorTile.Value] = []
        var seen: Set<VectorTile.Value> = []
        var kinds: Set<String> = []
        var minimum = Double.infinity, maximum = -Double.infinity
    }

    mutating func add(_ tile: VectorTile, at zoom: Int) {
        for layer in tile.layers {
            if zooms[layer.name] == nil { names.append(layer.name) }
            zooms[layer.name] = zooms[layer.name].map { min($0.lowerBound, zoom)...max($0.upperBound, zoom) } ?? zoom...zoom
            var layerStats = stats[layer.name] ?? LayerStats()
            for feature in layer.features {
                layerStats.features += 1
                layerStats.geometries[feature.type, default: 0] += 1
                for (key, value) in feature.properties {
                    let kind = Self.kind(value)
                    fields[layer.name, default: [:]][key] = fields[layer.name]?[key].map { $0 == kind ? kind : "Mixed" } ?? kind
                    var attribute = layerStats.attributes[key] ?? AttributeStats()
                    attribute.kinds.insert(kind)
                    if attribute.seen.count < Self.valuesCounted, attribute.seen.insert(value).inserted, attribute.values.count < Self.valuesKept {
                        attribute.values.append(value)
                    }
                    if let number = Self.number(value) {
                        attribute.minimum = min(attribute.minimum, number)
                        attribute.maximum = max(attribute.maximum, number)
                    }
                    layerStats.attributes[key] = attribute
                }
            }
            stats[layer.name] = layerStats
        }
    }

    /// A number value as a double; nil for others.
    static func number(_ value: VectorTile.Value) -> Double? {
        switch value {
        case .double(let d): d.isFinite ? d : nil
        case .uint(let u): Double(u)
        case .sint(let i): Double(i)
        case .string, .bool: nil
        }
    }

    /// `tilestats`: `{"layerCount": …, "layers": [{"layer", "count", "geometry", "attributeCount",
    /// "attributes": [{"attribute", "count", "type", "values", "min", "max"}]}]}`.
    var tileStatsJSON: String {
        let layers = names.map { name -> String in
            let layer = stats[name] ?? LayerStats()
            let geometry = layer.geometries.max { ($0.value, $1.key.rawValue) < ($1.value, $0.key.rawValue) }.map {
                switch $0.key { case .point: "Point"; case .lineString: "LineString"; case .polygon: "Polygon" }
            } ?? "Unknown"
            let attributes = layer.attributes.sorted { $0.key < $1.key }.prefix(Self.attributesKept).map { key, attribute -> String in
                let type = attribute.kinds.count == 1 ? (attribute.kinds.first ?? "").lowercased() : "mixed"
                // Numbers in order, then the rest by their text (as tippecanoe lists them).
                let values = attribute.values.sorted { a, b in
                    switch (Self.number(a), Self.number(b)) {
                    case let (x?, y?): x < y
                    case (_?, nil): true
                    case (nil, _?): false
                    case (nil, nil): a.json.jsonText < b.json.jsonText
                    }
                }.map { $0.json.jsonText }.joined(separator: ",")
                let range = attribute.minimum <= attribute.maximum
                    ? ",\"min\":\(JSONValue.double(attribute.minimum).jsonText),\"max\":\(JSONValue.double(attribute.maximum).jsonText)" : ""
                return "{\"attribute\":\(JSONValue.string(key).jsonText),\"count\":\(attribute.seen.count),\"type\":\"\(type)\",\"values\":[\(values)]\(range)}"
            }
            return "{\"layer\":\(JSONValue.string(name).jsonText),\"count\":\(layer.features),\"geometry\":\"\(geometry)\","
                + "\"attributeCount\":\(layer.attributes.count),\"attributes\":[\(attributes.joined(separator: ","))]}"
        }
        return "{\"layerCount\":\(names.count),\"layers\":[\(layers.joined(separator: ","))]}"
    }

    /// TileJSON's name for a value's kind.
    static func kind(_ value: VectorTile.Value) -> String {
        switch value {
        case .string: "String"
        case .double, .uint, .sint: "Number"
        case .bool: "Boolean"
        }
    }

    /// `vector_layers`: `[{"id": …, "fields": {…}, "minzoom": …, "maxzoom": …}, …]`.
    var vectorLayersJSON: String {
        let layers = names.map { name in
            let fields = (fields[name] ?? [:]).sorted { $0.key < $1.key }
                .map { "\(JSONValue.string($0.key).jsonText):\(JSONValue.string($0.value).jsonText)" }
            let zooms = zooms[name] ?? 0...0
            return "{\"id\":\(JSONValue.string(name).jsonText),\"fields\":{\(fields.joined(separator: ","))},"
                + "\"minzoom\":\(zooms.lowerBound),\"maxzoom\":\(zooms.upperBound)}"
        }
        return "[\(layers.joined(separator: ","))]"
    }
}
