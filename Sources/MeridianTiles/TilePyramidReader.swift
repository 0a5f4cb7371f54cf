import Foundation
import MeridianFormats
import MeridianGeometry

/// What a tile pyramid says about itself, whichever container holds it: what its tiles are,
/// its name, bounds and zooms, and for vector tiles the layers (TileJSON's `vector_layers`).
public struct TilePyramidMetadata: Sendable, Equatable {
    /// What the tiles are.
    public var tileType: TileType
    /// The tile set's name.
    public var name: String
    /// A line about it.
    public var description: String
    /// The area the tiles cover, in degrees.
    public var bounds: BoundingBox
    /// The zoom levels the tile set states.
    public var zooms: ClosedRange<Int>
    /// For vector tiles: `vector_layers` as JSON text (an array of `{"id", "fields", "minzoom",
    /// "maxzoom"}`); nil when the container does not say.
    public var vectorLayersJSON: String?

    /// The metadata of a tile pyramid.
    public init(tileType: TileType, name: String, description: String, bounds: BoundingBox, zooms: ClosedRange<Int>,
                vectorLayersJSON: String? = nil) {
        self.tileType = tileType
        self.name = name
        self.description = description
        self.bounds = bounds
        self.zooms = zooms
        self.vectorLayersJSON = vectorLayersJSON
    }
}

/// A tile pyramid opened for reading: a folder of `z/x/y.ext` tiles with its `metadata.json`
/// (``TileFolderReader``), an MBTiles file (``MBTilesFile``) or a PMTiles archive
/// (``PMTilesFile``), read the same way. ``TilePyramids/open(_:)`` picks the container.
public protocol TilePyramidReader: AnyObject {
    /// The folder's or file's path, as messages name it.
    var path: String { get }
    /// The pyramid's metadata.
    func pyramidMetadata() throws -> TilePyramidMetadata
    /// The addresses of the tiles it holds (XYZ rows), optionally of the zoom levels `zooms` only.
    func tileAddresses(zooms: ClosedRange<Int>?) throws -> [MapTile]
    /// One tile's bytes as stored (vector tiles gzipped in MBTiles and PMTiles), or nil when
    /// the pyramid does not have it.
    func tile(_ tile: MapTile) throws -> [UInt8]?
}

extension TilePyramidReader {
    /// One tile's bytes, gunzipped when stored gzipped (vector tiles in MBTiles and PMTiles),
    /// or nil when the pyramid does not have it.
    /// - Throws: `MeridianError` (bad input) naming the tile when its gzip data is damaged.
    public func uncompressedTile(_ tile: MapTile) throws -> [UInt8]? {
        guard let bytes = try self.tile(tile) else { return nil }
        guard bytes.count >= 2, bytes[0] == 0x1f, bytes[1] == 0x8b else { return bytes }
        do {
            return try Gzip.decompress(bytes)
        } catch {
            throw MeridianError(.badInput, "tile \(tile) is damaged (its gzip data does not inflate)", at: SourceLocation(file: path))
        }
    }
}

/// Opening a tile pyramid by its path.
public enum TilePyramids {
    /// Whether `path` names a tile pyramid: an `.mbtiles` or `.pmtiles` file, or a folder with
    /// a `metadata.json`.
    public static func isPyramid(_ path: String) -> Bool {
        let lower = path.lowercased()
        if lower.hasSuffix(".mbtiles") || lower.hasSuffix(".pmtiles") { return true }
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
            && FileManager.default.fileExists(atPath: path + "/metadata.json")
    }

    /// Opens the pyramid at `path`: by extension an MBTiles file or a PMTiles archive, else a
    /// tile folder.
    /// - Throws: `MeridianError` (input unavailable) when there is nothing at `path`, (bad input)
    ///   when it is not a tile pyramid.
    public static func open(_ path: String) throws -> any TilePyramidReader {
        guard FileManager.default.fileExists(atPath: path) else {
            throw MeridianError(.inputUnavailable, "no such file or folder", at: SourceLocation(file: path))
        }
        let lower = path.lowercased()
        if lower.hasSuffix(".mbtiles") { return try MBTilesFile(path: path) }
        if lower.hasSuffix(".pmtiles") { return try PMTilesFile(path: path) }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
            throw MeridianError(.badInput, "not a tile pyramid", at: SourceLocation(file: path),
                                hint: "give a tile folder with metadata.json, an .mbtiles file or a .pmtiles archive")
        }
        return try TileFolderReader(path: path)
    }
}

/// A folder of `z/x/y.ext` tiles as `meridian tile` writes them: TileJSON in `metadata.json`
/// saying the format, the rows' scheme (`xyz`, or `tms` counted from the bottom) and the rest.
public final class TileFolderReader: TilePyramidReader {
    /// The folder's path.
    public let path: String
    private let metadata: TilePyramidMetadata
    private let countsRowsFromBottom: Bool

    /// Opens the folder and reads its `metadata.json`.
    /// - Throws: `MeridianError` (bad input) when the folder has no readable `metadata.json` or
    ///   it does not say a tile format Meridian knows.
    public init(path: String) throws {
        self.path = path
        let file = path + "/metadata.json"
        guard let data = FileManager.default.contents(atPath: file) else {
            throw MeridianError(.badInput, "not a tile folder: it has no metadata.json", at: SourceLocation(file: path),
                                hint: "tile folders written by `meridian tile` have one")
        }
        let json = try LocatedJSON.parse(BufferedInput(bytes: Array(data), name: file))
        let template = json["tiles"]?.elements?.first?.string
        let formatName = json["format"]?.string ?? template.map { ($0 as NSString).pathExtension } ?? ""
        guard let type = TileType(formatName: formatName) else {
            throw MeridianError(.badInput, "metadata.json names no tile format Meridian knows (pbf, png, jpg, webp)", at: SourceLocation(file: file))
        }
        countsRowsFromBottom = json["scheme"]?.string?.lowercased() == "tms"
        var zooms = (json["minzoom"]?.number).flatMap { min in (json["maxzoom"]?.number).map { Int(min)...Int(Swift.max(min, $0)) } }
        if zooms == nil {
            let levels = Self.numberedEntries(path)
            zooms = levels.first.map { $0...levels.last! }
        }
        metadata = TilePyramidMetadata(
            tileType: type, name: json["name"]?.string ?? "", description: json["description"]?.string ?? "",
            bounds: boundingBox(json["bounds"]?.elements?.compactMap(\.number)), zooms: zooms ?? 0...0,
            vectorLayersJSON: json["vector_layers"].map(jsonText))
    }

    /// The folder entries whose names are whole numbers, sorted.
    private static func numberedEntries(_ folder: String) -> [Int] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).compactMap { Int($0) }.filter { $0 >= 0 }.sorted()
    }

    /// What `metadata.json` says (zooms from the folder's levels when it does not).
    public func pyramidMetadata() throws -> TilePyramidMetadata { metadata }

    private func file(_ tile: MapTile) -> String {
        "\(path)/\(tile.zoom)/\(tile.x)/\(countsRowsFromBottom ? tile.tmsY : tile.y).\(metadata.tileType.formatName)"
    }

    /// The tiles found as `z/x/y.ext` files of the format's extension, optionally of the zoom
    /// levels `zooms` only, lowest zoom first.
    public func tileAddresses(zooms: ClosedRange<Int>?) throws -> [MapTile] {
        let suffix = "." + metadata.tileType.formatName
        var tiles: [MapTile] = []
        for zoom in Self.numberedEntries(path) where zoom <= MapTile.zoomLevels.upperBound && zooms?.contains(zoom) ?? true {
            for x in Self.numberedEntries("\(path)/\(zoom)") where x < 1 << zoom {
                let files = (try? FileManager.default.contentsOfDirectory(atPath: "\(path)/\(zoom)/\(x)")) ?? []
                for name in files where name.hasSuffix(suffix) {
                    guard let row = Int(name.dropLast(suffix.count)), row >= 0, row < 1 << zoom else { continue }
                    tiles.append(countsRowsFromBottom ? MapTile(zoom: zoom, x: x, tmsY: row) : MapTile(zoom: zoom, x: x, y: row))
                }
            }
        }
        return tiles.sorted { ($0.zoom, $0.x, $0.y) < ($1.zoom, $1.x, $1.y) }
    }

    /// One tile file's bytes, or nil when the folder does not have it.
    public func tile(_ tile: MapTile) throws -> [UInt8]? {
        FileManager.default.contents(atPath: file(tile)).map(Array.init)
    }
}

extension MBTilesFile: TilePyramidReader {
    /// The metadata table as a pyramid's: `format`, `name`, `description`, `bounds`, `minzoom`,
    /// `maxzoom`, and `vector_layers` from the `json` row.
    /// - Throws: `MeridianError` (bad input) when `format` is missing or not one Meridian knows.
    public func pyramidMetadata() throws -> TilePyramidMetadata {
        guard let format = metadata["format"], let type = TileType(formatName: format) else {
            throw MeridianError(.badInput, "the MBTiles file's format is \(metadata["format"].map { "\"\($0)\"" } ?? "not stated"); Meridian reads pbf, png, jpg and webp",
                                at: SourceLocation(file: path))
        }
        var zooms = metadata["minzoom"].flatMap(Int.init).flatMap { min in metadata["maxzoom"].flatMap(Int.init).map { min...Swift.max(min, $0) } }
        if zooms == nil {
            let levels = try zoomLevels()
            zooms = levels.first.map { $0...levels.last! }
        }
        let json = metadata["json"].flatMap { try? LocatedJSON.parse(BufferedInput(string: $0)) }
        return TilePyramidMetadata(
            tileType: type, name: metadata["name"] ?? "", description: metadata["description"] ?? "",
            bounds: boundingBox(metadata["bounds"]?.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }),
            zooms: zooms ?? 0...0, vectorLayersJSON: json?["vector_layers"].map(jsonText))
    }

    /// The addresses of the tiles the file holds, optionally of the zoom levels `zooms` only.
    public func tileAddresses(zooms: ClosedRange<Int>?) throws -> [MapTile] {
        var tiles: [MapTile] = []
        let filter = zooms.map { " WHERE zoom_level BETWEEN \($0.lowerBound) AND \($0.upperBound)" } ?? ""
        try rows("SELECT zoom_level, tile_column, tile_row FROM tiles\(filter) ORDER BY zoom_level, tile_column, tile_row") { row in
            let zoom = row.int(0), x = row.int(1), tmsY = row.int(2)
            guard MapTile.zoomLevels.contains(zoom), (0..<(1 << zoom)).contains(x), (0..<(1 << zoom)).contains(tmsY) else { return }
            tiles.append(MapTile(zoom: zoom, x: x, tmsY: tmsY))
        }
        return tiles
    }
}

extension PMTilesFile: TilePyramidReader {
    /// The header's tile type, bounds and zooms, with the name, description and `vector_layers`
    /// of the metadata JSON.
    /// - Throws: `MeridianError` (bad input) when the tile type is not one Meridian knows, or the
    ///   tiles are compressed other than with gzip.
    public func pyramidMetadata() throws -> TilePyramidMetadata {
        guard let tileType else {
            throw MeridianError(.badInput, "the PMTiles archive's tiles are of a type Meridian does not read (it reads mvt, png, jpeg and webp)",
                                at: SourceLocation(file: path))
        }
        guard [.none, .gzip, .unknown].contains(tileCompression) else {
            throw MeridianError(.badInput, "the PMTiles archive's tiles are compressed with a method Meridian does not read (only gzip)",
                                at: SourceLocation(file: path))
        }
        let json = try? LocatedJSON.parse(BufferedInput(string: metadataJSON))
        return TilePyramidMetadata(
            tileType: tileType, name: json?["name"]?.string ?? "", description: json?["description"]?.string ?? "",
            bounds: bounds, zooms: zooms, vectorLayersJSON: json?["vector_layers"].map(jsonText))
    }
}

/// Bounds from `[west, south, east, north]`; the whole Web Mercator world when not four numbers.
private func boundingBox(_ numbers: [Double]?) -> BoundingBox {
    guard let n = numbers, n.count == 4 else {
        return BoundingBox(west: -180, south: -MapWorld.maximumLatitude, east: 180, north: MapWorld.maximumLatitude)
    }
    return BoundingBox(west: n[0], south: n[1], east: n[2], north: n[3])
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
