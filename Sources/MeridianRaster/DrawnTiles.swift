import MeridianFormats
import MeridianGeometry

/// Image tiles drawn elsewhere, as RGBA pixels (vector data drawn by `meridian-draw`), encoded
/// and stored the way a raster's tiles are: over the background when there is one, without
/// alpha when opaque, into any `TileSink` (a folder, MBTiles or PMTiles). Tiles where every
/// pixel is transparent are not stored.
public final class DrawnTileWriter {
    /// Where the tiles go.
    public let sink: TileSink
    private let codec: TileCodec
    private let tileSize: Int
    /// How many tiles have been stored.
    public private(set) var tilesWritten = 0

    /// A writer of `format` tiles, `tileSize` pixels square, laid over `background`, or
    /// transparent without one (JPEG's over white, as a raster's: ``TilingOptions/tileBackground``).
    public init(sink: TileSink, format: TileFormat, tileSize: Int, background: RGB?) {
        self.sink = sink
        self.tileSize = tileSize
        let options = TilingOptions(tileSize: tileSize, format: format, background: background)
        codec = TileCodec(format: format, size: tileSize, background: options.tileBackground)
    }

    /// Encodes and stores one tile.
    /// - Parameters:
    ///   - tile: The tile's address.
    ///   - rgba: Its pixels, row by row: red, green, blue and alpha (not premultiplied), `tileSize` square.
    /// - Throws: A `MeridianError` when the pixels are not a tile's, or the tile cannot be encoded or stored.
    public func write(_ tile: MapTile, rgba: [UInt8]) throws {
        guard rgba.count == tileSize * tileSize * 4 else {
            throw MeridianError(.io, "tile \(tile) has \(rgba.count) bytes of pixels, not \(tileSize * tileSize * 4)")
        }
        let image = TileImage(size: tileSize, colorChannels: 3, pixels: rgba)
        guard !image.isEmpty else { return }
        try sink.write(tile, data: try codec.encode(image))
        tilesWritten += 1
    }
}
