import MeridianCore
import MeridianFormats
import MeridianGeometry
import Synchronization
import MeridianTiles

/// Image tiles drawn elsewhere, as RGBA pixels (vector data drawn by `meridian-draw`), encoded
/// the way a raster's tiles are: over the background when there is one, without alpha when
/// opaque. Tiles where every pixel is transparent are not encoded. Tiles may come from several
/// threads at once.
public final class DrawnTileEncoder: Sendable {
    private let format: TileFormat
    private let background: RGB?
    private let tileSize: Int
    /// Codecs not in use (a codec encodes one tile at a time; a thread takes one, or makes one).
    private let idleCodecs = Mutex<[TileCodec]>([])

    /// An encoder of `format` tiles, `tileSize` pixels square, laid over `background`, or
    /// transparent without one (JPEG's over white, as a raster's: ``TilingOptions/tileBackground``).
    public init(format: TileFormat, tileSize: Int, background: RGB?) {
        self.tileSize = tileSize
        self.format = format
        self.background = TilingOptions(tileSize: tileSize, format: format, background: background).tileBackground
    }

    /// One tile encoded, or nil when every pixel of it is transparent.
    /// - Parameters:
    ///   - tile: The tile's address (for an error about it).
    ///   - rgba: Its pixels, row by row: red, green, blue and alpha (not premultiplied), `tileSize` square.
    /// - Throws: A `MeridianError` when the pixels are not a tile's, or the tile cannot be encoded.
    public func encoded(_ tile: MapTile, rgba: [UInt8]) throws -> [UInt8]? {
        guard rgba.count == tileSize * tileSize * 4 else {
            throw MeridianError(.io, "tile \(tile) has \(rgba.count) bytes of pixels, not \(tileSize * tileSize * 4)")
        }
        let image = TileImage(size: tileSize, colorChannels: 3, pixels: rgba)
        guard !image.isEmpty else { return nil }
        let codec = idleCodecs.withLock { $0.popLast() } ?? TileCodec(format: format, size: tileSize, background: background)
        defer { idleCodecs.withLock { $0.append(codec) } }
        return try codec.encode(image)
    }
}

// A codec goes from thread to thread through `DrawnTileEncoder`'s pool, used by one at a time.
extension TileCodec: @unchecked Sendable {}
