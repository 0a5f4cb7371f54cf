import Foundation
import MeridianFormats
import MeridianGeometry

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
    public var vectorLayersJSON: String {
        let layers = self.layers.map { layer in
            let fields = layer.fields.sorted { $0.key < $1.key }.map { "\(JSONValue.string($0.key).jsonText):\(JSONValue.string($0.value).jsonText)" }
            return "{\"id\":\(JSONValue.string(layer.name).jsonText),\"fields\":{\(fields.joined(separator: ","))},"
                + "\"minzoom\":\(zooms.lowerBound),\"maxzoom\":\(zooms.upperBound)}"
        }
        return "[\(layers.joined(separator: ","))]"
    }

    /// The same as any pyramid's metadata states it (``TilePyramidWriter/finish(_:)`` writes it
    /// into whichever container the path names).
    public var pyramidMetadata: TilePyramidMetadata {
        TilePyramidMetadata(tileType: .mvt, name: name, description: description, bounds: bounds, zooms: zooms,
                            vectorLayersJSON: vectorLayersJSON)
    }
}
