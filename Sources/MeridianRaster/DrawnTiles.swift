import MeridianCore
import MeridianFormats
import MeridianGeometry
import Synchronization

/// Image tiles drawn elsewhere, as RGBA pixels (vector data drawn by `meridian-draw`), encoded
/// and stored the way a raster's tiles are: over the background when there is one, without
/// alpha when opaque, into any `TileSink` (a folder, MBTiles or PMTiles). Tiles where every
/// pixel is transparent are not stored. Tiles may come from several threads at once.
public final class DrawnTileWriter: Sendable {
    /// Where the tiles go.
    public let sink: TileSink
    private let format: TileFormat
    private let background: RGB?
    private let tileSize: Int
    /// Codecs not in use (a codec encodes one tile at a time; a thread takes one, or makes one).
    private let idleCodecs = Mutex<[TileCodec]>([])
    private let written = Mutex(0)

    /// How many tiles have been stored.
    public var tilesWritten: Int { written.withLock { $0 } }

    /// A writer of `format` tiles, `tileSize` pixels square, laid over `background`, or
    /// transparent without one (JPEG's over white, as a raster's: ``TilingOptions/tileBackground``).
    public init(sink: TileSink, format: TileFormat, tileSize: Int, background: RGB?) {
        self.sink = sink
        self.tileSize = tileSize
        self.format = format
        self.background = TilingOptions(tileSize: tileSize, format: format, background: background).tileBackground
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
        let codec = idleCodecs.withLock { $0.popLast() } ?? TileCodec(format: format, size: tileSize, background: background)
        defer { idleCodecs.withLock { $0.append(codec) } }
        try sink.write(tile, data: try codec.encode(image))
        written.withLock { $0 += 1 }
    }
}

// A codec goes from thread to thread through `DrawnTileWriter`'s pool, used by one at a time.
extension TileCodec: @unchecked Sendable {}
