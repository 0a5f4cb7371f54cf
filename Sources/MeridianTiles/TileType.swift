/// What a tile pyramid's tiles are, with PMTiles' numbers for them (its header's tile type).
public enum TileType: UInt8, Sendable, CaseIterable {
    /// Mapbox Vector Tiles.
    case mvt = 1
    /// PNG images.
    case png = 2
    /// JPEG images.
    case jpeg = 3
    /// WebP images.
    case webp = 4

    /// The type MBTiles' and TileJSON's `format` names: `pbf`, `png`, `jpg` or `jpeg`, `webp`;
    /// nil for any other.
    public init?(formatName: String) {
        switch formatName.lowercased() {
        case "pbf", "mvt": self = .mvt
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        case "webp": self = .webp
        default: return nil
        }
    }

    /// The `format` MBTiles and TileJSON write, which is also a folder's file name extension:
    /// `pbf`, `png`, `jpg`, `webp`.
    public var formatName: String {
        switch self {
        case .mvt: "pbf"
        case .png: "png"
        case .jpeg: "jpg"
        case .webp: "webp"
        }
    }

    /// What messages call it.
    public var displayName: String {
        switch self {
        case .mvt: "vector tiles"
        case .png: "PNG tiles"
        case .jpeg: "JPEG tiles"
        case .webp: "WebP tiles"
        }
    }
}
