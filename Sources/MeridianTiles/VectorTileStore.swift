import Foundation
import MeridianFormats
import MeridianGeometry

/// Where vector tiles go: a folder of `z/x/y.pbf` files (uncompressed, so a static web server
/// or a `file://` page serves them as they are) with a TileJSON `metadata.json`, an MBTiles
/// 1.3 file (tiles gzipped, as the specification stores them, with the `json` row listing the
/// layers), or a PMTiles 3 archive (`.pmtiles`: gzipped tiles, `vector_layers` in its metadata). Output is written out of sight: the folder must be new or empty, the MBTiles file
/// is built beside its place and renamed into it by `finish`.
public final class VectorTileStore {
    /// The folder or `.mbtiles` file.
    public let path: String
    private let mbtiles: MBTilesWriter?
    private let pmtiles: PMTilesWriter?
    private let files: TileFolderWriter

    /// Whether `path` names an MBTiles file.
    public static func isMBTiles(_ path: String) -> Bool { path.lowercased().hasSuffix(".mbtiles") }
    /// Whether `path` names a PMTiles archive.
    public static func isPMTiles(_ path: String) -> Bool { path.lowercased().hasSuffix(".pmtiles") }

    /// Opens `path` for a new tile set.
    /// - Throws: `MeridianError` (cannot create output) when the folder holds files or cannot be made.
    public init(path: String) throws {
        self.path = path
        files = TileFolderWriter()
        if Self.isPMTiles(path) {
            (mbtiles, pmtiles) = (nil, try PMTilesWriter(path: path, tileType: .mvt, tilesGzipped: true))
            return
        }
        pmtiles = nil
        if Self.isMBTiles(path) {
            mbtiles = try MBTilesWriter(path: path, resume: false, run: [("kind", "vector tiles")]) { _ in }
            return
        }
        mbtiles = nil
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        guard entries.isEmpty else {
            throw MeridianError(.cannotCreateOutput, "the output folder is not empty", at: SourceLocation(file: path),
                                hint: "remove the folder or choose another")
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw MeridianError(.cannotCreateOutput, "cannot create the output folder", at: SourceLocation(file: path))
        }
    }

    /// Stores one encoded tile.
    public func write(_ tile: MapTile, _ bytes: [UInt8]) throws {
        if let mbtiles {
            try mbtiles.write(tile, data: try Gzip.compress(bytes))
            return
        }
        if let pmtiles {
            try pmtiles.write(tile, try Gzip.compress(bytes))
            return
        }
        try files.write(bytes, to: "\(path)/\(tile.zoom)/\(tile.x)/\(tile.y).pbf")
    }

    /// Writes the metadata (TileJSON 3.0.0 in a folder; the metadata table, with `json`, in
    /// MBTiles) and finishes the tile set.
    public func finish(_ metadata: VectorTileSetMetadata) throws {
        if let mbtiles {
            let b = metadata.bounds
            try mbtiles.finish(metadata: MBTilesMetadata(
                name: metadata.name, description: metadata.description, format: "pbf", bounds: b,
                center: ((b.west + b.east) / 2, (b.south + b.north) / 2, metadata.zooms.lowerBound),
                minZoom: metadata.zooms.lowerBound, maxZoom: metadata.zooms.upperBound,
                json: "{\"vector_layers\":\(metadata.vectorLayersJSON)}"))
            return
        }
        if let pmtiles {
            try pmtiles.finish(metadataJSON: metadata.pmtilesJSON, bounds: metadata.bounds, zooms: metadata.zooms)
            return
        }
        try OutputTarget.write(Array(metadata.tileJSON.utf8), to: path + "/metadata.json", durable: false)
    }
}

/// What a vector tile set's metadata says: TileJSON's `vector_layers` (each layer's fields and
/// zooms) besides the name, bounds and zoom levels.
public struct VectorTileSetMetadata: Sendable {
    /// The tile set's name.
    public var name: String
    /// A line about it.
    public var description: String
    /// The data's bounds in degrees, within Web Mercator's latitudes (MBTiles readers refuse ±90).
    public var bounds: BoundingBox
    /// The zoom levels tiled.
    public var zooms: ClosedRange<Int>
    /// The layers in order, each with its fields and their kinds (`String`, `Number`, `Boolean`, `Mixed`).
    public var layers: [(name: String, fields: [String: String])]

    /// The metadata of a tile set.
    public init(name: String, description: String, bounds: BoundingBox, zooms: ClosedRange<Int>,
                layers: [(name: String, fields: [String: String])]) {
        self.name = name
        self.description = description
        self.bounds = BoundingBox(west: bounds.west, south: max(bounds.south, -MapWorld.maximumLatitude),
                                  east: bounds.east, north: min(bounds.north, MapWorld.maximumLatitude))
        self.zooms = zooms
        self.layers = layers
    }

    /// `vector_layers`: `[{"id": …, "fields": {…}, "minzoom": …, "maxzoom": …}, …]`.
    var vectorLayersJSON: String {
        let layers = self.layers.map { layer in
            let fields = layer.fields.sorted { $0.key < $1.key }.map { "\(JSONValue.string($0.key).jsonText):\(JSONValue.string($0.value).jsonText)" }
            return "{\"id\":\(JSONValue.string(layer.name).jsonText),\"fields\":{\(fields.joined(separator: ","))},"
                + "\"minzoom\":\(zooms.lowerBound),\"maxzoom\":\(zooms.upperBound)}"
        }
        return "[\(layers.joined(separator: ","))]"
    }

    /// A PMTiles archive's metadata: name, description and type as strings, and `vector_layers`.
    var pmtilesJSON: String {
        "{\"name\":\(JSONValue.string(name).jsonText),\"description\":\(JSONValue.string(description).jsonText),"
            + "\"type\":\"overlay\",\"format\":\"pbf\",\"vector_layers\":\(vectorLayersJSON)}"
    }

    /// TileJSON 3.0.0 for a folder of `z/x/y.pbf` tiles, with also the MBTiles-style `json`
    /// member that tippecanoe writes and GDAL's MVT driver reads for the layers' fields.
    var tileJSON: String {
        let b = bounds
        return """
            {
              "tilejson": "3.0.0",
              "name": \(JSONValue.string(name).jsonText),
              "description": \(JSONValue.string(description).jsonText),
              "scheme": "xyz",
              "tiles": ["{z}/{x}/{y}.pbf"],
              "format": "pbf",
              "minzoom": \(zooms.lowerBound),
              "maxzoom": \(zooms.upperBound),
              "bounds": [\(b.west), \(b.south), \(b.east), \(b.north)],
              "center": [\((b.west + b.east) / 2), \((b.south + b.north) / 2), \(zooms.lowerBound)],
              "vector_layers": \(vectorLayersJSON),
              "json": \(JSONValue.string("{\"vector_layers\":\(vectorLayersJSON)}").jsonText)
            }

            """
    }
}
