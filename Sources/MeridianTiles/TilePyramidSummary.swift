import MeridianCore
import MeridianFormats
import MeridianGeometry

/// Where a tile set's map opens: a position and a zoom level (TileJSON's and MBTiles' `center`,
/// PMTiles' header center).
public struct TileSetCenter: Sendable, Equatable {
    /// Degrees east.
    public var longitude: Double
    /// Degrees north.
    public var latitude: Double
    /// The zoom level (0-30).
    public var zoom: Int

    /// A center at `longitude`, `latitude` (degrees) and level `zoom`.
    public init(longitude: Double, latitude: Double, zoom: Int) {
        (self.longitude, self.latitude, self.zoom) = (longitude, latitude, zoom)
    }
}

/// One layer of vector tiles as a tile set's metadata lists it (an entry of TileJSON's
/// `vector_layers`): its name, its fields and the levels it is in.
public struct VectorLayerDescription: Sendable, Equatable {
    /// One field (attribute) of the layer's features, and its kind as the metadata states it
    /// (`String`, `Number`, `Boolean`, `Mixed`, or a description).
    public struct Field: Sendable, Equatable {
        /// The field's name.
        public var name: String
        /// Its kind as stated.
        public var kind: String
    }

    /// The layer's name (`id`).
    public var id: String
    /// Its fields in the order the metadata lists them.
    public var fields: [Field]
    /// The lowest zoom level it is in, when stated.
    public var minZoom: Int?
    /// The highest zoom level it is in, when stated.
    public var maxZoom: Int?
    /// Its description, when stated and not empty.
    public var description: String?

    /// The layers a `vector_layers` JSON array lists; an entry that is not an object with a
    /// string `id` is left out, and a stated level that is not a whole number from 0 to 30 is
    /// left unstated (the metadata describes, it does not decide what the tiles hold).
    /// - Parameter json: `TileSetMetadata.vectorLayersJSON` (nil: no layers).
    static func layers(_ json: String?) -> [VectorLayerDescription] {
        guard let json, let array = (try? LocatedJSON.parse(BufferedInput(string: json)))?.elements else { return [] }
        func level(_ value: LocatedJSON?) -> Int? {
            value?.number.flatMap { Int(exactly: $0) }.flatMap { MapTile.zoomLevels.contains($0) ? $0 : nil }
        }
        return array.compactMap { entry in
            guard let id = entry["id"]?.string else { return nil }
            let fields = (entry["fields"]?.members ?? []).map { Field(name: $0.key, kind: $0.value.string ?? jsonText($0.value)) }
            let description = entry["description"]?.string
            return VectorLayerDescription(id: id, fields: fields, minZoom: level(entry["minzoom"]), maxZoom: level(entry["maxzoom"]),
                                          description: description?.isEmpty == false ? description : nil)
        }
    }
}

/// What a tile pyramid holds, for `meridian info`: its container and row scheme, what its
/// metadata states (format, name, description, zoom levels, bounds, tile size, vector layers),
/// its center, how many tiles each zoom level holds, and the bytes it takes. Read from any
/// container through its `TilePyramidReader`, with every count and size checked as the readers
/// check them (``TileInputLimits``).
public struct TilePyramidSummary: Sendable, Equatable {
    /// The pyramid's path, as messages name it.
    public var path: String
    /// What holds it.
    public var container: TileContainer
    /// How its rows are stored.
    public var scheme: TileScheme
    /// What its metadata states (the zoom levels are the stated ones).
    public var metadata: TileSetMetadata
    /// The center its metadata states, or else the middle of its bounds at the middle level.
    public var center: TileSetCenter
    /// Whether ``center`` is stated by the metadata (else it is worked out from the bounds).
    public var centerIsStated: Bool
    /// How many tiles each zoom level holds, lowest level first (levels without tiles left out).
    public var tilesPerZoom: [(zoom: Int, tiles: Int)]
    /// The vector layers its metadata lists (none for image tiles).
    public var vectorLayers: [VectorLayerDescription]
    /// The bytes it takes: the file's size, or a folder's tiles and metadata files added up.
    public var bytes: Int

    /// Every tile it holds.
    public var tileCount: Int { tilesPerZoom.reduce(0) { $0 + $1.tiles } }
    /// The lowest and highest levels that hold a tile; nil when none does.
    public var zoomsWithTiles: ClosedRange<Int>? {
        guard let low = tilesPerZoom.first?.zoom, let high = tilesPerZoom.last?.zoom else { return nil }
        return low...high
    }

    /// The summary of the pyramid `reader` has open.
    /// - Throws: The reader's errors: `MeridianError` (bad input) naming the file when its
    ///   metadata, directories or listing are damaged or past ``TileInputLimits``.
    public init(of reader: any TilePyramidReader) throws {
        path = reader.path
        container = reader.container
        scheme = reader.scheme
        metadata = try reader.pyramidMetadata()
        let stated = try reader.statedCenter()
        centerIsStated = stated != nil
        let middle = metadata.center
        center = stated ?? TileSetCenter(longitude: middle.longitude, latitude: middle.latitude, zoom: middle.zoom)
        tilesPerZoom = try reader.tileCounts().sorted { $0.key < $1.key }.map { (zoom: $0.key, tiles: $0.value) }
        vectorLayers = metadata.format == .mvt ? VectorLayerDescription.layers(metadata.vectorLayersJSON) : []
        bytes = try reader.storedBytes()
    }

    /// Whether two summaries say the same.
    public static func == (a: TilePyramidSummary, b: TilePyramidSummary) -> Bool {
        (a.path, a.container, a.scheme, a.metadata) == (b.path, b.container, b.scheme, b.metadata)
            && (a.center, a.centerIsStated, a.vectorLayers, a.bytes) == (b.center, b.centerIsStated, b.vectorLayers, b.bytes)
            && a.tilesPerZoom.elementsEqual(b.tilesPerZoom) { $0 == $1 }
    }
}

extension TilePyramids {
    /// The summary of the pyramid at `path` (``TilePyramidSummary``).
    /// - Throws: `MeridianError` (input unavailable) when there is nothing at `path`, (bad
    ///   input) naming the file when it is no tile pyramid, or a damaged one.
    public static func summary(_ path: String) throws -> TilePyramidSummary {
        try TilePyramidSummary(of: open(path))
    }
}
