import MeridianCore
import MeridianFormats
import MeridianGeometry

/// What one Meridian process asks of a helper's hidden subcommand (`meridian-gdal ogr-read`,
/// `ogr-write`, `meridian-draw picture`), as one type that both sides share: the asking side
/// makes the request and runs its ``arguments``; the helper's subcommand reads it back with
/// ``init(words:)``. The request travels as words `name=value`, one per field that has a
/// value: no word starts with a dash, so none is ever taken for an option (a heading of -30, a
/// path starting with `-`), and every value comes back exactly (doubles in their shortest
/// exact form).
public protocol HelperRequest: Sendable, Equatable {
    /// The helper's subcommand that serves the request.
    static var subcommand: String { get }
    /// The request's fields, in order, nil for a field without a value.
    var fields: [(name: String, value: String?)] { get }
    /// The request from its fields, as ``HelperRequestFields`` read them.
    init(fields: HelperRequestFields) throws
}

extension HelperRequest {
    /// The words after the subcommand: `name=value` for each field with a value.
    public var words: [String] { fields.compactMap { field in field.value.map { "\(field.name)=\($0)" } } }

    /// The helper's arguments: the subcommand, then ``words``.
    public var arguments: [String] { [Self.subcommand] + words }

    /// The request that `words` (the arguments after the subcommand) carry.
    /// - Throws: `MeridianError` (`usage`) for a word that is not `name=value`, a field the
    ///   request does not have or has once only, a missing field or a value that does not read.
    public init(words: [String]) throws {
        try self.init(fields: HelperRequestFields(words, subcommand: Self.subcommand))
    }
}

extension HelperRequest {
    /// Serves the request `words` carry, in the helper's subcommand: a request that does not
    /// read is the caller's mistake, thrown in Meridian's own voice; then `body` runs with the
    /// request and the reporter that sends its warnings and error to the parent process.
    /// - Parameters:
    ///   - words: The subcommand's arguments.
    ///   - body: The subcommand's work.
    public static func serve(_ words: [String], _ body: (Self, Reporter) throws -> Void) throws {
        let request = try Self(words: words)
        let reporter = Reporter.toParentProcess
        try reporter.run { try body(request, reporter) }
    }
}

/// A request's fields read back from its words, for ``HelperRequest/init(fields:)``: each is
/// taken once, and a field left over (one the request does not know) is an error.
public struct HelperRequestFields {
    private var values: [String: String]
    private let subcommand: String

    init(_ words: [String], subcommand: String) throws {
        self.subcommand = subcommand
        values = [:]
        for word in words {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else { throw malformed("\"\(word)\" is not name=value") }
            let name = String(word[..<equals])
            guard values[name] == nil else { throw malformed("\(name) is given twice") }
            values[name] = String(word[word.index(after: equals)...])
        }
    }

    private func malformed(_ what: String) -> MeridianError {
        MeridianError(.usage, "\(subcommand) request: \(what)", hint: "\(subcommand) is run by meridian, not by people")
    }

    /// The field's text, taken; nil when the request does not give it.
    public mutating func text(_ name: String) -> String? { values.removeValue(forKey: name) }

    /// The field's text, taken; it must be given.
    public mutating func required(_ name: String) throws -> String {
        guard let value = text(name) else { throw malformed("\(name) is missing") }
        return value
    }

    /// The field's whole number, taken; nil when not given.
    public mutating func integer(_ name: String) throws -> Int? {
        try text(name).map { text in
            guard let value = Int(text) else { throw malformed("\(name) is not a whole number: \(text)") }
            return value
        }
    }

    /// The field's number, taken; nil when not given.
    public mutating func number(_ name: String) throws -> Double? {
        try text(name).map { text in
            guard let value = Double(text), value.isFinite else { throw malformed("\(name) is not a finite number: \(text)") }
            return value
        }
    }

    /// The field's numbers (written comma-separated), taken; nil when not given.
    public mutating func numbers(_ name: String, count: Int) throws -> [Double]? {
        try text(name).map { text in
            let values = text.split(separator: ",", omittingEmptySubsequences: false).compactMap { Double($0) }.filter(\.isFinite)
            guard values.count == count, text.split(separator: ",", omittingEmptySubsequences: false).count == count else {
                throw malformed("\(name) is not \(count) finite numbers: \(text)")
            }
            return values
        }
    }

    /// Throws when a field is left that the request did not take (one it does not know).
    public func requireAllTaken() throws {
        if let name = values.keys.sorted().first { throw malformed("it has no field \(name)") }
    }
}

/// `meridian-gdal ogr-read`: a GDAL vector dataset streamed back as a GeoJSON text sequence.
public struct OGRReadRequest: HelperRequest {
    /// `ogr-read`.
    public static let subcommand = "ogr-read"
    /// The file GDAL opens, or `InheritedScratch.argument` for standard input's copy (a file
    /// without a name, inherited).
    public var input: String
    /// What messages call the input (`<stdin>`), when not `input`.
    public var name: String?
    /// The only GDAL driver to try; nil lets GDAL recognise the content.
    public var driver: String?
    /// The one layer to read; nil reads every layer.
    public var layer: String?
    /// The extension the inherited copy is read under (some drivers go by it); nil for none.
    public var fileExtension: String?

    /// A request to read `input`.
    /// - Parameters:
    ///   - input: The file GDAL opens, or `InheritedScratch.argument`.
    ///   - name: What messages call it, when not its path.
    ///   - driver: The only driver to try, or nil.
    ///   - layer: The one layer to read, or nil for all.
    ///   - fileExtension: The extension an inherited copy is read under, or nil.
    public init(input: String, name: String? = nil, driver: String? = nil, layer: String? = nil, fileExtension: String? = nil) {
        self.input = input
        self.name = name
        self.driver = driver
        self.layer = layer
        self.fileExtension = fileExtension
    }

    /// Input, name, driver, layer and extension.
    public var fields: [(name: String, value: String?)] {
        [("input", input), ("name", name), ("driver", driver), ("layer", layer), ("extension", fileExtension)]
    }

    /// The request its fields carry.
    public init(fields: HelperRequestFields) throws {
        var fields = fields
        self.init(input: try fields.required("input"), name: fields.text("name"), driver: fields.text("driver"), layer: fields.text("layer"),
                  fileExtension: fields.text("extension"))
        try fields.requireAllTaken()
    }
}

/// `meridian-gdal ogr-write`: a GeoJSON text sequence written through a GDAL driver, staged
/// and moved into place at the output path.
public struct OGRWriteRequest: HelperRequest {
    /// `ogr-write`.
    public static let subcommand = "ogr-write"
    /// The GeoJSON text sequence to write.
    public var input: String
    /// The GDAL driver to write with; nil picks it by the output's extension.
    public var driver: String?
    /// Where the dataset goes.
    public var output: String
    /// Whether files already at `output` (and beside it) are replaced; else they are refused.
    public var replacing: Bool
    /// The asking run's inputs (`RunInputs.recordedIdentities`), which no file the driver writes
    /// beside the output may be (a Shapefile's `.dbf` when the input is that `.dbf`).
    public var inputs: [String]

    /// A request to write `input`'s features to `output`.
    /// - Parameters:
    ///   - input: The GeoJSON text sequence to write.
    ///   - driver: The GDAL driver, or nil for the output's extension's.
    ///   - output: Where the dataset goes.
    ///   - replacing: Whether existing files there are replaced.
    ///   - inputs: The run's inputs, as `RunInputs.recordedIdentities` words.
    public init(input: String, driver: String?, output: String, replacing: Bool = false, inputs: [String] = []) {
        self.input = input
        self.driver = driver
        self.output = output
        self.replacing = replacing
        self.inputs = inputs
    }

    /// Input, driver, output, replacing and the run's inputs.
    public var fields: [(name: String, value: String?)] {
        [("input", input), ("driver", driver), ("output", output), ("replace", replacing ? "yes" : nil),
         ("inputs", inputs.isEmpty ? nil : inputs.joined(separator: ","))]
    }

    /// The request its fields carry.
    public init(fields: HelperRequestFields) throws {
        var fields = fields
        self.init(input: try fields.required("input"), driver: fields.text("driver"), output: try fields.required("output"),
                  replacing: try fields.flag("replace"),
                  inputs: fields.text("inputs").map { $0.split(separator: ",").map(String.init) } ?? [])
        try fields.requireAllTaken()
    }
}

/// `meridian-draw picture`: features (a GeoJSON text sequence) drawn as an SVG or PNG picture
/// on standard output. The view is in map points, as `PictureOptions` holds it.
public struct PictureRequest: HelperRequest {
    /// `picture`.
    public static let subcommand = "picture"
    /// The picture to draw.
    public var kind: PictureKind
    /// Its size, scale, heading, view and basemap.
    public var options: PictureOptions
    /// The GeoJSON text sequence to draw (an empty file draws no features).
    public var input: String

    /// A request to draw `input` as a `kind` picture.
    /// - Parameters:
    ///   - kind: SVG or PNG.
    ///   - options: The picture's settings.
    ///   - input: The features to draw.
    public init(kind: PictureKind, options: PictureOptions, input: String) {
        self.kind = kind
        self.options = options
        self.input = input
    }

    /// Kind, size, scale, heading, view (`x,y,width,height`), basemap and input.
    public var fields: [(name: String, value: String?)] {
        let view = options.view.map { "\($0.minX),\($0.minY),\($0.size.width),\($0.size.height)" }
        return [("kind", kind.rawValue), ("width", "\(options.width)"), ("height", "\(options.height)"), ("scale", "\(options.scale)"),
                ("heading", "\(options.heading)"), ("view", view), ("basemap", options.basemap), ("input", input)]
    }

    /// The request its fields carry.
    public init(fields: HelperRequestFields) throws {
        var fields = fields
        let kindName = try fields.required("kind")
        guard let kind = PictureKind(rawValue: kindName) else {
            throw MeridianError(.usage, "\(Self.subcommand) request: no picture kind \(kindName)")
        }
        let defaults = PictureOptions()
        let view = try fields.numbers("view", count: 4).map { MapRect(x: $0[0], y: $0[1], width: $0[2], height: $0[3]) }
        let options = PictureOptions(width: try fields.integer("width") ?? defaults.width, height: try fields.integer("height") ?? defaults.height,
                                     scale: try fields.integer("scale") ?? defaults.scale, heading: try fields.number("heading") ?? defaults.heading,
                                     view: view, basemap: fields.text("basemap"))
        self.init(kind: kind, options: options, input: try fields.required("input"))
        try fields.requireAllTaken()
    }
}

/// `meridian-gdal tile-read`: one zoom level of a vector tile pyramid, its features joined
/// across tiles and streamed back as a GeoJSON text sequence.
public struct TileReadRequest: HelperRequest {
    /// `tile-read`.
    public static let subcommand = "tile-read"
    /// The pyramid: a folder with `metadata.json`, an MBTiles file or a PMTiles archive.
    public var input: String
    /// The zoom level to read; nil reads the pyramid's only level.
    public var zoom: Int?
    /// The one layer to read; nil reads every layer.
    public var layer: String?

    /// A request to read `input`'s features at `zoom`.
    /// - Parameters:
    ///   - input: The pyramid.
    ///   - zoom: The level, or nil for its only one.
    ///   - layer: The one layer, or nil for all.
    public init(input: String, zoom: Int? = nil, layer: String? = nil) {
        self.input = input
        self.zoom = zoom
        self.layer = layer
    }

    /// Input, zoom and layer.
    public var fields: [(name: String, value: String?)] { [("input", input), ("zoom", zoom.map { "\($0)" }), ("layer", layer)] }

    /// The request its fields carry.
    public init(fields: HelperRequestFields) throws {
        var fields = fields
        self.init(input: try fields.required("input"), zoom: try fields.integer("zoom"), layer: fields.text("layer"))
        try fields.requireAllTaken()
    }
}

/// `meridian-draw tiles`: features (a GeoJSON text sequence) drawn into the image tiles of one
/// zoom level, sent back on standard output as `TilesThroughHelper` frames them.
public struct DrawTilesRequest: HelperRequest {
    /// `tiles`.
    public static let subcommand = "tiles"
    /// The GeoJSON text sequence to draw (an empty file draws nothing).
    public var input: String
    /// The zoom level to draw.
    public var zoom: Int
    /// Tile width and height in pixels.
    public var tileSize: Int
    /// Threads drawing.
    public var jobs: Int
    /// The shard whose tiles to draw (no other is drawn); nil for every tile.
    public var shard: TileShardOwnership?

    /// A request to draw `input` into `tileSize` tiles at level `zoom`, on `jobs` threads.
    /// - Parameters:
    ///   - input: The features.
    ///   - zoom: The zoom level.
    ///   - tileSize: Tile width and height in pixels.
    ///   - jobs: Threads drawing.
    ///   - shard: The shard whose tiles to draw; nil for every tile.
    public init(input: String, zoom: Int, tileSize: Int, jobs: Int, shard: TileShardOwnership? = nil) {
        self.input = input
        self.zoom = zoom
        self.tileSize = tileSize
        self.jobs = jobs
        self.shard = shard
    }

    /// Input, zoom, tile size, jobs and the shard (`K/N`, when given).
    public var fields: [(name: String, value: String?)] {
        [("input", input), ("zoom", "\(zoom)"), ("tile-size", "\(tileSize)"), ("jobs", "\(jobs)"), ("shard", shard?.description)]
    }

    /// The request its fields carry.
    /// - Throws: `MeridianError` (`usage`) for a zoom level not from 0 to 30, a tile size not 256 or 512, no jobs, or a shard not `K/N`.
    public init(fields: HelperRequestFields) throws {
        var fields = fields
        guard let zoom = try fields.integer("zoom"), MapTile.zoomLevels.contains(zoom) else {
            throw MeridianError(.usage, "\(Self.subcommand) request: zoom must be given, from \(MapTile.zoomLevels.lowerBound) to \(MapTile.zoomLevels.upperBound)")
        }
        guard let tileSize = try fields.integer("tile-size"), tileSize == 256 || tileSize == 512 else {
            throw MeridianError(.usage, "\(Self.subcommand) request: tile-size must be given, 256 or 512")
        }
        let jobs = try fields.integer("jobs") ?? 1
        guard jobs >= 1 else { throw MeridianError(.usage, "\(Self.subcommand) request: jobs must be at least 1") }
        let shard = try fields.text("shard").map { text in
            guard let shard = TileShardOwnership(text) else { throw MeridianError(.usage, "\(Self.subcommand) request: shard is not K/N with 0 ≤ K < N: \(text)") }
            return shard
        }
        self.init(input: try fields.required("input"), zoom: zoom, tileSize: tileSize, jobs: jobs, shard: shard)
        try fields.requireAllTaken()
    }
}

/// `meridian-gdal tile-info`: what a tile pyramid holds (`meridian info PYRAMID`), printed on
/// standard output as `meridian info` prints it, as text or as one JSON object.
public struct TileInfoRequest: HelperRequest {
    /// `tile-info`.
    public static let subcommand = "tile-info"
    /// The pyramid: a folder with `metadata.json`, an MBTiles file or a PMTiles archive.
    public var input: String
    /// Whether the summary is printed as one JSON object (else as text for people).
    public var json: Bool

    /// A request to describe `input`, as JSON when `json`.
    /// - Parameters:
    ///   - input: The pyramid.
    ///   - json: Whether to print JSON.
    public init(input: String, json: Bool) {
        self.input = input
        self.json = json
    }

    /// Input and the format printed (`text` or `json`).
    public var fields: [(name: String, value: String?)] { [("input", input), ("format", json ? "json" : "text")] }

    /// The request its fields carry.
    /// - Throws: `MeridianError` (`usage`) for a missing input or a format not `text` or `json`.
    public init(fields: HelperRequestFields) throws {
        var fields = fields
        let format = try fields.required("format")
        guard format == "text" || format == "json" else { throw MeridianError(.usage, "\(Self.subcommand) request: format is not text or json: \(format)") }
        self.init(input: try fields.required("input"), json: format == "json")
        try fields.requireAllTaken()
    }
}
