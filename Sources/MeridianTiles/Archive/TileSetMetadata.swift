import MeridianFormats
import MeridianGeometry

/// What a tile set's metadata says, whichever container holds it (TileJSON, MBTiles metadata,
/// PMTiles' metadata and header, tilemapresource.xml): what sinks write and readers read back.
public struct TileSetMetadata: Sendable, Equatable {
    /// The tile set's name (a raster's file name without its extension, the layers' names).
    public var name: String
    /// The tiles' format.
    public var format: TileFormat
    /// The bounds of the data in degrees (west, south, east, north).
    public var bounds: BoundingBox
    /// The lowest zoom level that holds tiles.
    public var minZoom: Int
    /// The highest zoom level that holds tiles.
    public var maxZoom: Int
    /// Tile width and height in pixels.
    public var tileSize: Int
    /// A line describing the tile set (the input's file name, and that Meridian tiled it).
    public var description: String
    /// For vector tiles: TileJSON's `vector_layers` (an array of each layer's `id`, `fields`,
    /// `minzoom` and `maxzoom`) as JSON text; nil for images, or when a container does not say.
    public var vectorLayersJSON: String?
    /// For vector tiles: `tilestats` as JSON text (Mapbox's summary of each layer's features and
    /// attributes, as tippecanoe writes it); nil when there is none.
    public var tileStatsJSON: String?

    /// The metadata of a tile set of `format` tiles, `tileSize` pixels square, holding tiles at
    /// zoom levels `minZoom` to `maxZoom` over `bounds` (degrees).
    /// For vector tiles, `vectorLayersJSON` lists the layers (TileJSON's `vector_layers`) and
    /// `tileStatsJSON` may summarize them.
    public init(name: String, format: TileFormat, bounds: BoundingBox, minZoom: Int, maxZoom: Int, tileSize: Int, description: String,
                vectorLayersJSON: String? = nil, tileStatsJSON: String? = nil) {
        (self.name, self.format, self.bounds, self.tileSize, self.description) = (name, format, bounds, tileSize, description)
        (self.minZoom, self.maxZoom) = (minZoom, maxZoom)
        (self.vectorLayersJSON, self.tileStatsJSON) = (vectorLayersJSON, tileStatsJSON)
    }

    /// The metadata of a tile set of `format` tiles at `zooms` (as a container read back states
    /// them; `tileSize` 256 unless it says otherwise).
    public init(format: TileFormat, name: String, description: String, bounds: BoundingBox, zooms: ClosedRange<Int>, tileSize: Int = 256,
                vectorLayersJSON: String? = nil, tileStatsJSON: String? = nil) {
        self.init(name: name, format: format, bounds: bounds, minZoom: zooms.lowerBound, maxZoom: zooms.upperBound, tileSize: tileSize,
                  description: description, vectorLayersJSON: vectorLayersJSON, tileStatsJSON: tileStatsJSON)
    }

    /// The metadata of vector tiles at `zooms` holding `layers`, in order, each with its fields
    /// and their kinds (`String`, `Number`, `Boolean`, `Mixed`): `vector_layers` lists them, and
    /// the bounds are kept within Web Mercator's latitudes (MBTiles readers refuse ±90).
    public static func vectorTiles(name: String, description: String, bounds: BoundingBox, zooms: ClosedRange<Int>,
                                   layers: [(name: String, fields: [String: String])]) -> TileSetMetadata {
        let json = layers.map { layer in
            let fields = layer.fields.sorted { $0.key < $1.key }.map { "\(JSONValue.string($0.key).jsonText):\(JSONValue.string($0.value).jsonText)" }
            return "{\"id\":\(JSONValue.string(layer.name).jsonText),\"fields\":{\(fields.joined(separator: ","))},"
                + "\"minzoom\":\(zooms.lowerBound),\"maxzoom\":\(zooms.upperBound)}"
        }
        let mercator = BoundingBox(west: bounds.west, south: max(bounds.south, -MapWorld.maximumLatitude),
                                   east: bounds.east, north: min(bounds.north, MapWorld.maximumLatitude))
        return TileSetMetadata(format: .mvt, name: name, description: description, bounds: mercator, zooms: zooms,
                               vectorLayersJSON: "[\(json.joined(separator: ","))]")
    }

    /// The zoom levels stated, `minZoom` to `maxZoom`.
    public var zooms: ClosedRange<Int> {
        get { minZoom...maxZoom }
        set { (minZoom, maxZoom) = (newValue.lowerBound, newValue.upperBound) }
    }

    /// The middle of the bounds, at the middle zoom level (TileJSON's and MBTiles' `center`).
    public var center: (longitude: Double, latitude: Double, zoom: Int) {
        ((bounds.west + bounds.east) / 2, (bounds.south + bounds.north) / 2, (minZoom + maxZoom + 1) / 2)
    }

}
