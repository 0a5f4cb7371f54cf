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
    public var path: String { pyramid.path }
    private let pyramid: TilePyramidWriter

    /// Whether `path` names an MBTiles file.
    public static func isMBTiles(_ path: String) -> Bool { TilePyramidWriter.isMBTiles(path) }
    /// Whether `path` names a PMTiles archive.
    public static func isPMTiles(_ path: String) -> Bool { TilePyramidWriter.isPMTiles(path) }

    /// Opens `path` for a new tile set.
    /// - Throws: `MeridianError` (cannot create output) when the folder holds files or cannot be made.
    public init(path: String) throws {
        pyramid = try TilePyramidWriter(path: path, tileType: .mvt)
    }

    /// Stores one encoded tile.
    public func write(_ tile: MapTile, _ bytes: [UInt8]) throws {
        try pyramid.write(tile, bytes)
    }

    /// Writes the metadata (TileJSON 3.0.0 in a folder; the metadata table, with `json`, in
    /// MBTiles) and finishes the tile set.
    public func finish(_ metadata: VectorTileSetMetadata) throws {
        try pyramid.finish(TilePyramidMetadata(tileType: .mvt, name: metadata.name, description: metadata.description,
                                               bounds: metadata.bounds, zooms: metadata.zooms, vectorLayersJSON: metadata.vectorLayersJSON))
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
}
