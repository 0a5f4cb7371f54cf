import MeridianFormats
import MeridianGeometry

/// What a tile set's tiles are, for every tile container Meridian reads and writes: images
/// (PNG, JPEG, WebP) or Mapbox Vector Tiles. The one tile type vocabulary of the tilers, the
/// sinks, the readers and `tile-copy`/`tile-join`.
public enum TileFormat: String, Sendable, CaseIterable {
    /// PNG images.
    case png
    /// JPEG images.
    case jpeg
    /// WebP images.
    case webp
    /// Mapbox Vector Tiles, given to a sink uncompressed (MBTiles and PMTiles store them gzipped).
    case mvt

    /// The format a tile set's metadata names (MBTiles' and TileJSON's `format`): `pbf` or
    /// `mvt`, `png`, `jpg` or `jpeg`, `webp`, in any case; nil for any other.
    public init?(metadataName: String) {
        switch metadataName.lowercased() {
        case "pbf", "mvt": self = .mvt
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        case "webp": self = .webp
        default: return nil
        }
    }

    /// The format a PMTiles header's tile type number stands for (1 MVT, 2 PNG, 3 JPEG, 4 WebP);
    /// nil for any other (0 is "unknown", 5 AVIF).
    public init?(pmtilesTileType: UInt8) {
        guard let format = Self.allCases.first(where: { $0.pmtilesTileType == pmtilesTileType }) else { return nil }
        self = format
    }

    /// The PMTiles header's tile type number of the format.
    public var pmtilesTileType: UInt8 {
        switch self {
        case .mvt: 1
        case .png: 2
        case .jpeg: 3
        case .webp: 4
        }
    }

    /// The file name extension of tiles in this format, without the dot (`jpg` for JPEG, `pbf`
    /// for vector tiles), which is also the `format` MBTiles and TileJSON write.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .mvt: "pbf"
        default: rawValue
        }
    }

    /// The format's MIME type, as tile set metadata states it.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .mvt: "application/vnd.mapbox-vector-tile"
        default: "image/\(rawValue)"
        }
    }

    /// What messages call the tiles: "vector tiles", "PNG tiles", …
    public var displayName: String { self == .mvt ? "vector tiles" : "\(self == .jpeg ? "JPEG" : self == .webp ? "WebP" : "PNG") tiles" }

    /// Whether the tiles are images (a raster's pixels can be encoded into them).
    public var isImage: Bool { self != .mvt }
    /// Whether a tile read back gives exactly the pixels written.
    public var isLossless: Bool { self == .png }
}

/// The container a tile set is written into, chosen from the output's path in this one place:
/// an MBTiles file (`.mbtiles`), a PMTiles archive (`.pmtiles`), or else a folder of `z/x/y.ext`
/// tiles. The sinks of `tile` and the pyramid writer of `tile-copy` and `tile-join` ask it.
public enum TileContainer: Sendable, Equatable {
    /// A folder of `z/x/y.ext` tiles (XYZ or TMS rows) with its TileJSON `metadata.json`.
    case folder
    /// An MBTiles 1.3 file (SQLite).
    case mbtiles
    /// A PMTiles version 3 archive.
    case pmtiles

    /// The container `path` names, by its extension (in any case).
    public init(path: String) {
        let lowercased = path.lowercased()
        self = lowercased.hasSuffix(".mbtiles") ? .mbtiles : lowercased.hasSuffix(".pmtiles") ? .pmtiles : .folder
    }
}

/// How tile rows are counted in a folder of tiles.
public enum TileScheme: String, Sendable, CaseIterable {
    /// Rows from the top (MapKit's MKTileOverlayPath, OpenStreetMap, Leaflet's default).
    case xyz
    /// Rows from the bottom (Tile Map Service).
    case tms
}

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
