import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry

extension TileSetMetadata {
    /// The zoom levels a tile set's metadata states (`minzoom`, `maxzoom`), checked: each a
    /// whole number Meridian can address (0-30). Nil when either is not stated; a minimum above
    /// the maximum is read as the minimum alone.
    /// - Throws: `MeridianError` (bad input) naming `file` when a stated level is not one.
    static func statedZooms(minimum: Double?, maximum: Double?, in file: String) throws -> ClosedRange<Int>? {
        func level(_ value: Double?, _ field: String) throws -> Int? {
            guard let value else { return nil }
            guard let level = Int(exactly: value), MapTile.zoomLevels.contains(level) else {
                let stated = value.rounded() == value && abs(value) < 1e15 ? "\(Int64(value))" : "\(value)"
                throw MeridianError(.badInput, "the metadata's \(field) is \(stated); zoom levels are whole numbers from \(MapTile.zoomLevels.lowerBound) to \(MapTile.zoomLevels.upperBound)",
                                    at: SourceLocation(file: file))
            }
            return level
        }
        guard let low = try level(minimum, "minzoom"), let high = try level(maximum, "maxzoom") else { return nil }
        return low...max(low, high)
    }

    /// The bounds a tile set's metadata states as `[west, south, east, north]` in degrees,
    /// checked: finite, longitudes within ±180, latitudes within ±90, south not above north
    /// (west may exceed east: bounds across the antimeridian). The whole Web Mercator world
    /// when not stated as four numbers.
    /// - Throws: `MeridianError` (bad input) naming `file` when the numbers are not such bounds.
    static func statedBounds(_ numbers: [Double]?, in file: String) throws -> BoundingBox {
        guard let n = numbers, n.count == 4 else {
            return BoundingBox(west: -180, south: -MapWorld.maximumLatitude, east: 180, north: MapWorld.maximumLatitude)
        }
        guard n.allSatisfy(\.isFinite), [n[0], n[2]].allSatisfy({ (-180...180).contains($0) }),
              [n[1], n[3]].allSatisfy({ (-90...90).contains($0) }), n[1] <= n[3] else {
            throw MeridianError(.badInput, "the metadata's bounds (\(n.map { "\($0)" }.joined(separator: ","))) are not west,south,east,north in degrees",
                                at: SourceLocation(file: file))
        }
        return BoundingBox(west: n[0], south: n[1], east: n[2], north: n[3])
    }
}

extension TileSetMetadata {
    /// The center a tile set's metadata states as `[longitude, latitude, zoom]`, checked:
    /// finite degrees within ±180 and ±90, and a whole zoom level Meridian addresses (0-30).
    /// Nil when not stated as three numbers.
    /// - Throws: `MeridianError` (bad input) naming `file` when the numbers are not such a center.
    static func statedCenter(_ numbers: [Double]?, in file: String) throws -> TileSetCenter? {
        guard let n = numbers, n.count == 3 else { return nil }
        guard n[0].isFinite, n[1].isFinite, (-180...180).contains(n[0]), (-90...90).contains(n[1]),
              let zoom = Int(exactly: n[2]), MapTile.zoomLevels.contains(zoom) else {
            let stated = n.map { $0.isFinite && $0.rounded() == $0 && abs($0) < 1e15 ? "\(Int64($0))" : "\($0)" }.joined(separator: ",")
            throw MeridianError(.badInput, "the metadata's center (\(stated)) is not longitude,latitude,zoom in degrees and a zoom level from 0 to 30",
                                at: SourceLocation(file: file))
        }
        return TileSetCenter(longitude: n[0], latitude: n[1], zoom: zoom)
    }
}

/// What a pyramid's tiles say of themselves: the zoom levels that hold them (lowest to
/// deepest) and, in degrees, the extent of the tiles at the deepest. Every container reader
/// finds it from its own index (``TilePyramidReader/tileExtent()``), and the metadata any of
/// them states gives way to it (``TileSetMetadata/agreeing(with:boundsStated:)``): the tiles are
/// the truth, a header or metadata table only a claim.
public struct TileExtent: Sendable, Equatable {
    /// The lowest and deepest zoom levels holding a tile.
    public var zooms: ClosedRange<Int>
    /// The extent of the deepest level's tiles, in degrees.
    public var bounds: BoundingBox

    /// The extent of `zooms` whose deepest level's tiles span the columns `columns` and the
    /// XYZ rows `rows` (each within the level).
    public init(zooms: ClosedRange<Int>, columns: ClosedRange<Int>, rows: ClosedRange<Int>) {
        self.zooms = zooms
        let northWest = MapTile(zoom: zooms.upperBound, x: columns.lowerBound, y: rows.lowerBound).boundingBox
        let southEast = MapTile(zoom: zooms.upperBound, x: columns.upperBound, y: rows.upperBound).boundingBox
        bounds = BoundingBox(west: northWest.west, south: southEast.south, east: southEast.east, north: northWest.north)
    }

    /// The extent of `tiles` (valid ones), nil when there is none: their zoom levels, and the
    /// columns and rows of those at the deepest.
    init?(_ tiles: some Sequence<MapTile>) {
        var low = Int.max, deepest = -1, columns = (Int.max, Int.min), rows = (Int.max, Int.min)
        for tile in tiles where tile.isValid {
            low = min(low, tile.zoom)
            if tile.zoom > deepest { (deepest, columns, rows) = (tile.zoom, (Int.max, Int.min), (Int.max, Int.min)) }
            guard tile.zoom == deepest else { continue }
            columns = (min(columns.0, tile.x), max(columns.1, tile.x))
            rows = (min(rows.0, tile.y), max(rows.1, tile.y))
        }
        guard deepest >= 0 else { return nil }
        self.init(zooms: low...deepest, columns: columns.0...columns.1, rows: rows.0...rows.1)
    }
}

extension TileSetMetadata {
    /// This stated metadata once the tiles have had their say: the zoom levels are those
    /// holding tiles, and the bounds those stated within the tiles' extent at the deepest of
    /// them (the extent itself when none are stated, when they cross the antimeridian, or when
    /// they miss the tiles). Unchanged for a pyramid without tiles (`extent` nil). The one rule
    /// for an MBTiles metadata table, a PMTiles header and a folder's metadata.json.
    public func agreeing(with extent: TileExtent?, boundsStated: Bool) -> TileSetMetadata {
        guard let extent else { return self }
        var agreed = self
        (agreed.minZoom, agreed.maxZoom) = (extent.zooms.lowerBound, extent.zooms.upperBound)
        agreed.bounds = extent.bounds
        if boundsStated, bounds.west <= bounds.east {
            let inside = BoundingBox(west: max(bounds.west, extent.bounds.west), south: max(bounds.south, extent.bounds.south),
                                     east: min(bounds.east, extent.bounds.east), north: min(bounds.north, extent.bounds.north))
            if inside.west <= inside.east && inside.south <= inside.north { agreed.bounds = inside }
        }
        return agreed
    }

    /// A stated `center` when this metadata (as the tiles agreed it) has it: at one of its zoom
    /// levels and within its bounds; nil when not (the middle of the bounds then stands for it).
    public func agreeing(center: TileSetCenter?) -> TileSetCenter? {
        guard let center, (minZoom...maxZoom).contains(center.zoom), (bounds.south...bounds.north).contains(center.latitude),
              (bounds.west...bounds.east).contains(center.longitude) else { return nil }
        return center
    }
}

/// A tile pyramid opened for reading: a folder of `z/x/y.ext` tiles with its `metadata.json`
/// (``TileFolderReader``), an MBTiles file (``MBTilesFile``) or a PMTiles archive
/// (``PMTilesFile``), read the same way. ``TilePyramids/open(_:readingFolderWithoutMetadata:)`` picks the container.
public protocol TilePyramidReader: AnyObject {
    /// The folder's or file's path, as messages name it.
    var path: String { get }
    /// The pyramid's metadata.
    func pyramidMetadata() throws -> TileSetMetadata
    /// The addresses of the tiles it holds (XYZ rows), optionally of the zoom levels `zooms` only.
    func tileAddresses(zooms: ClosedRange<Int>?) throws -> [MapTile]
    /// One tile's bytes as stored (vector tiles gzipped in MBTiles and PMTiles), or nil when
    /// the pyramid does not have it.
    func tile(_ tile: MapTile) throws -> [UInt8]?
    /// The container it is.
    var container: TileContainer { get }
    /// How its rows are stored: TMS in an MBTiles file, XYZ in a PMTiles archive, as its
    /// metadata says in a folder.
    var scheme: TileScheme { get }
    /// How many tiles each zoom level holds (a level without tiles is left out).
    func tileCounts() throws -> [Int: Int]
    /// The zoom levels it holds tiles at, lowest first, found without listing every tile (a
    /// folder's may walk millions of files): an MBTiles file's distinct levels, a PMTiles
    /// archive's header levels, a folder's numbered level folders.
    func zoomLevels() throws -> [Int]
    /// The center its metadata states, or nil when it states none (or the tiles disagree: a
    /// center at a level without tiles, or outside ``pyramidMetadata()``'s bounds).
    func statedCenter() throws -> TileSetCenter?
    /// What its tiles say of themselves, found from its own index (nil when it holds none):
    /// ``pyramidMetadata()`` states what this agrees with.
    func tileExtent() throws -> TileExtent?
    /// The bytes it takes: the file's size, or a folder's tiles and metadata files added up.
    func storedBytes() throws -> Int
}

extension TilePyramidReader {
    /// How many tiles each zoom level holds, from ``tileAddresses(zooms:)``.
    public func tileCounts() throws -> [Int: Int] {
        try tileAddresses(zooms: nil).reduce(into: [:]) { $0[$1.zoom, default: 0] += 1 }
    }
}

extension TilePyramidReader {
    /// One tile's bytes, gunzipped when stored gzipped (vector tiles in MBTiles and PMTiles),
    /// or nil when the pyramid does not have it.
    /// - Throws: `MeridianError` (bad input) naming the tile when it is larger than
    ///   ``TileInputLimits/storedTileBytes``, or its gzip data is damaged or inflates past
    ///   ``TileInputLimits/inflatedTileBytes``.
    public func uncompressedTile(_ tile: MapTile) throws -> [UInt8]? {
        guard let bytes = try self.tile(tile) else { return nil }
        guard bytes.count <= TileInputLimits.storedTileBytes else {
            throw MeridianError(.badInput, "tile \(tile) is larger than \(TileInputLimits.storedTileBytes >> 20) MiB", at: SourceLocation(file: path))
        }
        guard bytes.count >= 2, bytes[0] == 0x1f, bytes[1] == 0x8b else { return bytes }
        do {
            return try Gzip.decompress(bytes, limit: TileInputLimits.inflatedTileBytes)
        } catch {
            throw MeridianError(.badInput, "tile \(tile) is damaged (its gzip data does not inflate to at most \(TileInputLimits.inflatedTileBytes >> 20) MiB)",
                                at: SourceLocation(file: path))
        }
    }

    /// One vector tile decoded, or nil when the pyramid does not have it (or it is empty):
    /// what `tile-join` and `convert --zoom` read of each tile.
    /// - Throws: `MeridianError` (bad input) naming the pyramid and the tile when its bytes are
    ///   damaged or past ``TileInputLimits`` (as ``uncompressedTile(_:)`` and `VectorTile(decoding:)` tell).
    public func vectorTile(_ tile: MapTile) throws -> VectorTile? {
        guard let bytes = try uncompressedTile(tile), !bytes.isEmpty else { return nil }
        do {
            return try VectorTile(decoding: bytes)
        } catch let error as MeridianError {
            throw MeridianError(error.kind, "tile \(tile): \(error.message)", at: SourceLocation(file: path), hint: error.hint)
        }
    }
}

/// Opening a tile pyramid by its path.
public enum TilePyramids {
    /// Whether `path` names a tile pyramid: an `.mbtiles` or `.pmtiles` file, or a folder with
    /// a `metadata.json`.
    public static func isPyramid(_ path: String) -> Bool {
        if TileContainer(path: path) != .folder { return true }
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
            && FileManager.default.fileExists(atPath: path + "/metadata.json")
    }

    /// Opens the pyramid at `path`: by extension an MBTiles file or a PMTiles archive, else a
    /// tile folder (the container's reader: `TileContainer.openReader(at:readingFolderWithoutMetadata:)`).
    /// - Parameters:
    ///   - path: The pyramid.
    ///   - readingFolderWithoutMetadata: Whether a folder without `metadata.json` is read too,
    ///     its format and scheme found from its files (basemaps come from other tools too).
    /// - Throws: `MeridianError` (input unavailable) when there is nothing at `path`, (bad input)
    ///   when it is not a tile pyramid.
    public static func open(_ path: String, readingFolderWithoutMetadata: Bool = false) throws -> any TilePyramidReader {
        guard FileManager.default.fileExists(atPath: path) else {
            throw MeridianError(.inputUnavailable, "no such file or folder", at: SourceLocation(file: path))
        }
        return try TileContainer(path: path).openReader(at: path, readingFolderWithoutMetadata: readingFolderWithoutMetadata)
    }
}

/// A folder of `z/x/y.ext` tiles as `meridian tile` writes them: TileJSON in `metadata.json`
/// saying the format, the rows' scheme (`xyz`, or `tms` counted from the bottom) and the rest.
public final class TileFolderReader: TilePyramidReader {
    /// The folder's path.
    public let path: String
    private let metadata: TileSetMetadata
    private let countsRowsFromBottom: Bool
    /// The tile files' extension: the format's, or as found in a folder without metadata.json.
    private let fileExtension: String
    /// The numbers of TileJSON's `center`, as written (checked when asked for).
    private let centerNumbers: [Double]?
    /// Whether the metadata was read from the folder (and gives way to its tiles), not given by
    /// the run finishing it.
    private let readFromDisk: Bool
    /// Whether `metadata.json` states bounds (four numbers).
    private let boundsStated: Bool
    /// ``tileExtent()`` once found: `pyramidMetadata()` and `statedCenter()` each ask for it.
    private var foundExtent: TileExtent??

    /// Opens the folder and reads its `metadata.json`.
    /// - Parameters:
    ///   - path: The folder.
    ///   - readingFolderWithoutMetadata: Whether a folder without `metadata.json` (as other
    ///     tools write them) is read too: its format is the extension of its first tile file,
    ///     its rows TMS when it has a `tilemapresource.xml`, its zooms those of its level
    ///     folders, its bounds the world's.
    /// - Throws: `MeridianError` (bad input) when the folder has no readable `metadata.json` (or,
    ///   read without one, no tile file) or it does not say a tile format Meridian knows.
    public init(path: String, readingFolderWithoutMetadata: Bool = false) throws {
        self.path = path
        let file = path + "/metadata.json"
        guard let data = try LinkFreeReading.contents(ofFile: file, maximum: TileInputLimits.metadataBytes) else {
            guard readingFolderWithoutMetadata else {
                throw MeridianError(.badInput, "not a tile folder: it has no metadata.json", at: SourceLocation(file: path),
                                    hint: "tile folders written by `meridian tile` have one")
            }
            let levels = try Self.numberedFolders(path, below: MapTile.zoomLevels.upperBound + 1)
            guard let found = try Self.firstTileExtension(in: path, levels: levels) else {
                throw MeridianError(.badInput, "the tile folder holds no tiles", at: SourceLocation(file: path))
            }
            guard let type = TileFormat(metadataName: found) else {
                throw MeridianError(.badInput, "the folder's tiles are .\(found) files, a format Meridian does not read (pbf, png, jpg, webp)",
                                    at: SourceLocation(file: path))
            }
            fileExtension = found
            countsRowsFromBottom = LinkFreeReading.kind(of: path + "/tilemapresource.xml") == .file
            centerNumbers = nil
            (readFromDisk, boundsStated) = (true, false)
            metadata = TileSetMetadata(format: type, name: "", description: "", bounds: try TileSetMetadata.statedBounds(nil, in: path),
                                       zooms: levels.first!...levels.last!)
            return
        }
        let json = try LocatedJSON.parse(BufferedInput(bytes: data, name: file))
        let template = json["tiles"]?.elements?.first?.string
        let formatName = json["format"]?.string ?? template.map { ($0 as NSString).pathExtension } ?? ""
        guard let type = TileFormat(metadataName: formatName) else {
            throw MeridianError(.badInput, "metadata.json names no tile format Meridian knows (pbf, png, jpg, webp)", at: SourceLocation(file: file))
        }
        countsRowsFromBottom = json["scheme"]?.string?.lowercased() == "tms"
        fileExtension = type.fileExtension
        centerNumbers = json["center"]?.elements.map { $0.map { $0.number ?? .nan } }
        readFromDisk = true
        boundsStated = json["bounds"]?.elements?.count == 4
        var zooms = try TileSetMetadata.statedZooms(minimum: json["minzoom"]?.number, maximum: json["maxzoom"]?.number, in: file)
        if zooms == nil {
            let levels = try Self.numberedFolders(path, below: MapTile.zoomLevels.upperBound + 1)
            zooms = levels.first.map { $0...levels.last! }
        }
        metadata = TileSetMetadata(
            format: type, name: json["name"]?.string ?? "", description: json["description"]?.string ?? "",
            bounds: try TileSetMetadata.statedBounds(json["bounds"]?.elements?.compactMap(\.number), in: file), zooms: zooms ?? 0...0,
            tileSize: json["tileSize"]?.number.flatMap { Int(exactly: $0) }.flatMap { (1...4096).contains($0) ? $0 : nil } ?? 256,
            vectorLayersJSON: json["vector_layers"].map(jsonText), tileStatsJSON: json["tilestats"].map(jsonText))
    }

    /// Opens the folder a run is finishing, before it has its `metadata.json`: its tiles are
    /// what `metadata` and `scheme` say (what goes beside the tiles, a viewer page, is written
    /// before the metadata that marks the folder finished).
    public init(path: String, metadata: TileSetMetadata, scheme: TileScheme) {
        self.path = path
        self.metadata = metadata
        countsRowsFromBottom = scheme == .tms
        fileExtension = metadata.format.fileExtension
        centerNumbers = nil
        (readFromDisk, boundsStated) = (false, true)
    }

    /// The folders in `folder` whose names are whole numbers below `bound`, sorted.
    /// - Throws: `MeridianError` (bad input) when one is a symbolic link: links are not followed.
    private static func numberedFolders(_ folder: String, below bound: Int) throws -> [Int] {
        try LinkFreeReading.entries(of: folder).compactMap { entry -> Int? in
            guard let number = Int(entry.name), (0..<bound).contains(number) else { return nil }
            try refuseLink(entry.kind, at: folder + "/" + entry.name)
            return entry.kind == .folder ? number : nil
        }.sorted()
    }

    /// The extension of a folder's tiles: that of the first regular file with one in the first
    /// `z/x/` folder that has any (links are not read as tiles); nil when there is none.
    private static func firstTileExtension(in path: String, levels: [Int]) throws -> String? {
        for zoom in levels {
            // Any numbered column: a tile past the level's edge still says the folder's format.
            for x in try numberedFolders("\(path)/\(zoom)", below: Int.max) {
                let files = LinkFreeReading.entries(of: "\(path)/\(zoom)/\(x)").compactMap { $0.kind == .file ? $0.name : nil }
                if let name = files.sorted().first(where: { !$0.hasPrefix(".") && $0.contains(".") }), let dot = name.lastIndex(of: ".") {
                    return String(name[name.index(after: dot)...])
                }
            }
        }
        return nil
    }

    private static func refuseLink(_ kind: LinkFreeReading.Kind?, at path: String) throws {
        guard kind != .symbolicLink else {
            throw MeridianError(.badInput, "a symbolic link inside the tile folder: links are not followed", at: SourceLocation(file: path),
                                hint: "copy what it points to into the folder")
        }
    }

    /// What `metadata.json` says (zooms from the folder's levels when it does not), as the
    /// tiles agree (``TileExtent``): the zoom levels holding tiles, the stated bounds within
    /// theirs. A folder being finished by its run says what the run gives.
    public func pyramidMetadata() throws -> TileSetMetadata {
        guard readFromDisk else { return metadata }
        return metadata.agreeing(with: try tileExtent(), boundsStated: boundsStated)
    }

    /// The levels that hold tile files, and the extent of the deepest's (links refused, as
    /// ``tileAddresses(zooms:)`` does); nil when the folder holds no tile.
    public func tileExtent() throws -> TileExtent? {
        if let foundExtent { return foundExtent }
        let levels = try Self.numberedFolders(path, below: MapTile.zoomLevels.upperBound + 1)
        var extent: TileExtent?
        if let low = try levels.first(where: { try !tileAddresses(zooms: $0...$0).isEmpty }),
           let deepest = try levels.reversed().first(where: { try !tileAddresses(zooms: $0...$0).isEmpty }) {
            extent = TileExtent(try tileAddresses(zooms: deepest...deepest))
            extent?.zooms = low...deepest
        }
        foundExtent = .some(extent)
        return extent
    }

    /// A folder.
    public var container: TileContainer { .folder }
    /// TMS when `metadata.json` says `"scheme": "tms"`, else XYZ.
    public var scheme: TileScheme { countsRowsFromBottom ? .tms : .xyz }

    /// The numbered level folders (0-30), found without listing their tiles.
    /// - Throws: `MeridianError` (bad input) when one is a symbolic link.
    public func zoomLevels() throws -> [Int] { try Self.numberedFolders(path, below: MapTile.zoomLevels.upperBound + 1) }

    /// TileJSON's `center`, when it is three numbers.
    /// - Throws: `MeridianError` (bad input) naming `metadata.json` when they are no center.
    public func statedCenter() throws -> TileSetCenter? {
        guard let stated = try TileSetMetadata.statedCenter(centerNumbers, in: path + "/metadata.json") else { return nil }
        guard readFromDisk, try tileExtent() != nil else { return stated }
        return try pyramidMetadata().agreeing(center: stated)
    }

    /// The sizes of the tile files and of `metadata.json` and `tilemapresource.xml` (those
    /// there are) added up; links are not followed (a tile that is one is refused).
    public func storedBytes() throws -> Int {
        let files = try tileAddresses(zooms: nil).map(file) + ["metadata.json", "tilemapresource.xml"].map { path + "/" + $0 }
        return files.reduce(0) { total, file in
            var status = stat()
            guard lstat(file, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return total }
            return total + Int(status.st_size)
        }
    }

    private func file(_ tile: MapTile) -> String {
        "\(path)/\(tile.zoom)/\(tile.x)/\(countsRowsFromBottom ? tile.tmsY : tile.y).\(fileExtension)"
    }

    /// The tiles found as `z/x/y.ext` files of the format's extension, optionally of the zoom
    /// levels `zooms` only, lowest zoom first.
    public func tileAddresses(zooms: ClosedRange<Int>?) throws -> [MapTile] {
        let suffix = "." + fileExtension
        var tiles: [MapTile] = []
        for zoom in try Self.numberedFolders(path, below: MapTile.zoomLevels.upperBound + 1) where zooms?.contains(zoom) ?? true {
            for x in try Self.numberedFolders("\(path)/\(zoom)", below: 1 << zoom) {
                for (name, kind) in LinkFreeReading.entries(of: "\(path)/\(zoom)/\(x)") where name.hasSuffix(suffix) {
                    try Self.refuseLink(kind, at: "\(path)/\(zoom)/\(x)/\(name)")
                    guard let row = Int(name.dropLast(suffix.count)), row >= 0, row < 1 << zoom else { continue }
                    tiles.append(countsRowsFromBottom ? MapTile(zoom: zoom, x: x, tmsY: row) : MapTile(zoom: zoom, x: x, y: row))
                    try TileInputLimits.checkAddressCount(tiles.count, in: path)
                }
            }
        }
        return tiles.sorted { ($0.zoom, $0.x, $0.y) < ($1.zoom, $1.x, $1.y) }
    }

    /// One tile file's bytes, or nil when the folder does not have it.
    /// - Throws: `MeridianError` (bad input) when the tile, or its zoom or column folder, is a
    ///   symbolic link, or the file is larger than ``TileInputLimits/storedTileBytes``.
    public func tile(_ tile: MapTile) throws -> [UInt8]? {
        for folder in ["\(path)/\(tile.zoom)", "\(path)/\(tile.zoom)/\(tile.x)"] { try Self.refuseLink(LinkFreeReading.kind(of: folder), at: folder) }
        return try LinkFreeReading.contents(ofFile: file(tile), maximum: TileInputLimits.storedTileBytes)
    }
}

extension MBTilesFile: TilePyramidReader {
    /// The metadata table as a pyramid's: `format`, `name`, `description`, `bounds`, `minzoom`,
    /// `maxzoom`, and `vector_layers` from the `json` row. What the tiles say wins over what the
    /// table states (``tileExtent()``): the zoom levels are those holding tiles, and the bounds
    /// those stated within the tiles' extent at the deepest of them (the extent itself when the
    /// table states none, or bounds the tiles are not in). A file without tiles keeps what it states.
    /// - Throws: `MeridianError` (bad input) when `format` is missing or not one Meridian knows,
    ///   or a zoom level or the bounds stated are no such numbers.
    public func pyramidMetadata() throws -> TileSetMetadata {
        guard let format = metadata["format"], let type = TileFormat(metadataName: format) else {
            throw MeridianError(.badInput, "the MBTiles file's format is \(metadata["format"].map { "\"\($0)\"" } ?? "not stated"); Meridian reads pbf, png, jpg and webp",
                                at: SourceLocation(file: path))
        }
        let statedZooms = try TileSetMetadata.statedZooms(minimum: metadata["minzoom"].flatMap(Self.number), maximum: metadata["maxzoom"].flatMap(Self.number), in: path)
        let boundsNumbers = metadata["bounds"]?.split(separator: ",", omittingEmptySubsequences: false).map { Self.number(String($0)) ?? .nan }
        let json = metadata["json"].flatMap { try? LocatedJSON.parse(BufferedInput(string: $0)) }
        let stated = TileSetMetadata(
            format: type, name: metadata["name"] ?? "", description: metadata["description"] ?? "",
            bounds: try TileSetMetadata.statedBounds(boundsNumbers, in: path), zooms: statedZooms ?? 0...0,
            vectorLayersJSON: json?["vector_layers"].map(jsonText), tileStatsJSON: json?["tilestats"].map(jsonText))
        return stated.agreeing(with: try tileExtent(), boundsStated: boundsNumbers?.count == 4)
    }

    /// What the tiles say of themselves, counting only rows that address one of the world's
    /// tiles: the zoom levels that hold them (lowest to deepest) and, in degrees, the extent of
    /// the tiles at the deepest; nil when the file holds none. Every number SQLite gives back is
    /// checked again before it is used.
    /// - Throws: `MeridianError` (bad input) when the file cannot be read.
    public func tileExtent() throws -> TileExtent? {
        let levels = MapTile.zoomLevels
        let valid = "zoom_level BETWEEN \(levels.lowerBound) AND \(levels.upperBound) AND tile_column >= 0 AND tile_column < (1 << zoom_level) "
            + "AND tile_row >= 0 AND tile_row < (1 << zoom_level)"
        var zooms: ClosedRange<Int>?
        try rows("SELECT MIN(zoom_level), MAX(zoom_level) FROM \(tilesSource) WHERE \(valid)") { row in
            guard !row.isNull(0), !row.isNull(1) else { return }
            let (low, high) = (row.int(0), row.int(1))
            guard levels.contains(low), levels.contains(high), low <= high else { return }
            zooms = low...high
        }
        guard let zooms else { return nil }
        let deepest = zooms.upperBound
        var extent: TileExtent?
        try rows("SELECT MIN(tile_column), MAX(tile_column), MIN(tile_row), MAX(tile_row) FROM \(tilesSource) WHERE \(valid) AND zoom_level = \(deepest)") { row in
            guard (0..<4).allSatisfy({ !row.isNull(Int32($0)) }) else { return }
            let (west, east, bottom, top) = (row.int(0), row.int(1), row.int(2), row.int(3))
            let side = 0..<(1 << deepest)
            guard [west, east, bottom, top].allSatisfy(side.contains), west <= east, bottom <= top else { return }
            // TMS rows: the top row is the highest number.
            extent = TileExtent(zooms: zooms, columns: west...east, rows: ((1 << deepest) - 1 - top)...((1 << deepest) - 1 - bottom))
        }
        return extent
    }

    /// An MBTiles file.
    public var container: TileContainer { .mbtiles }
    /// TMS: MBTiles counts rows from the bottom.
    public var scheme: TileScheme { .tms }

    /// The tiles at each zoom level (0-30) whose column and row lie within it, counted by SQLite.
    /// - Throws: `MeridianError` (bad input) when the file holds more than
    ///   ``TileInputLimits/tileAddresses`` tiles, or cannot be read.
    public func tileCounts() throws -> [Int: Int] {
        var counts: [Int: Int] = [:], total = 0
        let levels = MapTile.zoomLevels
        try rows("""
            SELECT zoom_level, COUNT(*) FROM \(tilesSource) WHERE zoom_level BETWEEN \(levels.lowerBound) AND \(levels.upperBound) \
            AND tile_column >= 0 AND tile_column < (1 << zoom_level) AND tile_row >= 0 AND tile_row < (1 << zoom_level) GROUP BY zoom_level
            """) { row in
            let count = row.int(1)
            total += count
            try TileInputLimits.checkAddressCount(total, in: path)
            counts[row.int(0)] = count
        }
        return counts
    }

    /// The metadata's `center` (`longitude,latitude,zoom`), when it is three numbers and the
    /// tiles agree: a center outside the tiles' bounds or at a zoom level without tiles is not
    /// the file's center (nil: the middle of ``pyramidMetadata()``'s bounds stands for it).
    /// - Throws: `MeridianError` (bad input) naming the file when they are no center.
    public func statedCenter() throws -> TileSetCenter? {
        guard let stated = try TileSetMetadata.statedCenter(metadata["center"]?.split(separator: ",", omittingEmptySubsequences: false)
            .map { Self.number(String($0)) ?? .nan }, in: path) else { return nil }
        guard try tileExtent() != nil else { return stated }
        return try pyramidMetadata().agreeing(center: stated)
    }

    /// The file's size.
    public func storedBytes() throws -> Int { try fileSize(path) }

    /// A number as the metadata table stores it, as text (nil when it is not one).
    private static func number(_ text: String) -> Double? { Double(text.trimmingCharacters(in: .whitespaces)) }

    /// The addresses of the tiles the file holds, optionally of the zoom levels `zooms` only.
    public func tileAddresses(zooms: ClosedRange<Int>?) throws -> [MapTile] {
        var tiles: [MapTile] = []
        let filter = zooms.map { " WHERE zoom_level BETWEEN \($0.lowerBound) AND \($0.upperBound)" } ?? ""
        try rows("SELECT zoom_level, tile_column, tile_row FROM \(tilesSource)\(filter) ORDER BY zoom_level, tile_column, tile_row") { row in
            let zoom = row.int(0), x = row.int(1), tmsY = row.int(2)
            guard MapTile.zoomLevels.contains(zoom), (0..<(1 << zoom)).contains(x), (0..<(1 << zoom)).contains(tmsY) else { return }
            tiles.append(MapTile(zoom: zoom, x: x, tmsY: tmsY))
            try TileInputLimits.checkAddressCount(tiles.count, in: path)
        }
        return tiles
    }
}

extension PMTilesFile: TilePyramidReader {
    /// The header's tile type, bounds and zooms, with the name, description and `vector_layers`
    /// of the metadata JSON.
    /// - Throws: `MeridianError` (bad input) when the tile type is not one Meridian knows, or the
    ///   tiles are compressed other than with gzip.
    public func pyramidMetadata() throws -> TileSetMetadata {
        guard let tileType else {
            throw MeridianError(.badInput, "the PMTiles archive's tiles are of a type Meridian does not read (it reads mvt, png, jpeg and webp)",
                                at: SourceLocation(file: path))
        }
        guard [.none, .gzip, .unknown].contains(tileCompression) else {
            throw MeridianError(.badInput, "the PMTiles archive's tiles are compressed with a method Meridian does not read (only gzip)",
                                at: SourceLocation(file: path))
        }
        let json = try? LocatedJSON.parse(BufferedInput(string: metadataJSON))
        let stated = TileSetMetadata(
            format: tileType, name: json?["name"]?.string ?? "", description: json?["description"]?.string ?? "",
            bounds: bounds, zooms: zooms, vectorLayersJSON: json?["vector_layers"].map(jsonText), tileStatsJSON: json?["tilestats"].map(jsonText))
        return stated.agreeing(with: try tileExtent(), boundsStated: true)
    }

    /// A PMTiles archive.
    public var container: TileContainer { .pmtiles }
    /// XYZ: a PMTiles archive addresses tiles by zoom, column and row from the top.
    public var scheme: TileScheme { .xyz }

    /// The header's center.
    /// - Throws: `MeridianError` (bad input) naming the archive when it is no center.
    public func statedCenter() throws -> TileSetCenter? {
        guard let stated = try TileSetMetadata.statedCenter([headerCenter.longitude, headerCenter.latitude, Double(headerCenter.zoom)], in: path)
        else { return nil }
        guard try tileExtent() != nil else { return stated }
        return try pyramidMetadata().agreeing(center: stated)
    }

    /// The archive's size.
    public func storedBytes() throws -> Int { try fileSize(path) }

    /// The levels its directories' runs hold tiles at (the header's minimum and maximum zoom
    /// are only what it states, and levels between may be empty). Runs are not counted out
    /// tile by tile, so an archive of the world is walked within its directories' size.
    /// - Throws: `MeridianError` (bad input) when the archive is damaged.
    public func zoomLevels() throws -> [Int] { try heldZoomLevels() }
}

/// The size of the file at `path`.
/// - Throws: `MeridianError` (input unavailable) naming it when it cannot be seen.
private func fileSize(_ path: String) throws -> Int {
    var status = stat()
    guard stat(path, &status) == 0 else {
        throw MeridianError(.inputUnavailable, "cannot read the file's size: \(String(cString: strerror(errno)))", at: SourceLocation(file: path))
    }
    return Int(status.st_size)
}

/// A JSON value written back as compact JSON text, numbers as they were written.
func jsonText(_ value: LocatedJSON) -> String {
    switch value {
    case .object(let members, _):
        return "{" + members.map { JSONValue.string($0.key).jsonText + ":" + jsonText($0.value) }.joined(separator: ",") + "}"
    case .array(let elements, _): return "[" + elements.map(jsonText).joined(separator: ",") + "]"
    case .number(_, let text, _): return text
    case .string(let s, _): return JSONValue.string(s).jsonText
    case .bool(let b, _): return b ? "true" : "false"
    case .null: return "null"
    }
}
