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
