import MeridianCore
import MeridianFormats

/// What a tile archive, tile folder or tile read from a file Meridian did not write may state
/// or ask for. Every size such a file states (counts, lengths, offsets, run lengths, image
/// dimensions, inflated sizes) is checked against what the file can hold and against these
/// before anything is allocated, read or walked; past them the file is refused as bad input
/// (exit 65) naming it. Each limit is far beyond what real tile sets hold (a Mapbox vector
/// tile is meant to stay under 500 KB; PMTiles' root directory takes 16 KiB).
public enum TileInputLimits {
    /// Most bytes one stored tile may take, in any container (a blob in MBTiles, a run in
    /// PMTiles, a file in a folder).
    public static let storedTileBytes = 32 << 20
    /// Most bytes a gzipped tile may inflate to.
    public static let inflatedTileBytes = 32 << 20
    /// Most bytes a PMTiles directory (root or leaf) may take, stored or inflated.
    public static let directoryBytes = 16 << 20
    /// Most bytes a tile set's metadata may take, stored or inflated (PMTiles' metadata JSON, a
    /// folder's metadata.json, MBTiles' metadata rows together).
    public static let metadataBytes = 16 << 20
    /// Most levels of PMTiles directories, the root's included (the specification sets none;
    /// writers use two or three).
    public static let directoryDepth = 8
    /// Most tile addresses one listing of an archive may give (a run of identical tiles counts
    /// each tile it stands for): 2^26, about 67 million.
    public static let tileAddresses = 1 << 26
    /// Most layers one vector tile may hold.
    public static let layersPerTile = 4_096
    /// Most features one vector tile may hold, across its layers (tippecanoe stops at 200,000),
    /// and most property keys and most property values.
    public static let featuresPerTile = 1 << 20
    /// Most geometry integers (commands and coordinates) one vector tile may hold.
    public static let geometryIntegersPerTile = 1 << 22
    /// Most pixels along either side of an image tile drawn under a picture.
    public static let imageSide = 4_096
    /// Most SQLite virtual machine steps one query may take before it returns its next row
    /// (2^28, a few seconds' work; an unindexed sort of some 15 million tiles): a query that
    /// runs longer is stopped.
    public static let sqliteStepsPerRow = 1 << 28

    /// Refuses a listing past ``tileAddresses``.
    static func checkAddressCount(_ count: Int, in path: String) throws {
        guard count <= tileAddresses else {
            throw MeridianError(.badInput, "the tile pyramid holds more than \(tileAddresses) tiles, more than Meridian reads from one pyramid",
                                at: SourceLocation(file: path))
        }
    }
}
