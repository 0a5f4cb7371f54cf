import MeridianFormats
import MeridianGeometry

/// Image tiles of features drawn by `meridian-draw tiles` for `meridian-gdal tile`, which
/// encodes and stores them as it does a raster's (the one process links cairo, the other GDAL):
/// the features go to the helper in a GeoJSON text sequence (a `FeatureSpill`), the tiles come
/// back on its standard output, each as its zoom, column and row (32-bit little-endian
/// numbers) and then its pixels, `tileSize`² × RGBA. Tiles where nothing shows are not sent.
public enum TilesThroughHelper {
    /// The bytes in front of each tile's pixels.
    static let headerSize = 12

    /// One tile as the helper sends it.
    /// - Parameters:
    ///   - tile: The tile's address.
    ///   - rgba: Its pixels, row by row, red, green, blue and alpha.
    public static func frame(_ tile: MapTile, _ rgba: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerSize + rgba.count)
        for value in [tile.zoom, tile.x, tile.y] {
            withUnsafeBytes(of: UInt32(value).littleEndian) { bytes += $0 }
        }
        return bytes + rgba
    }

    /// Runs `meridian-draw tiles` on the features at `spill` and hands each tile it draws to `store`.
    /// - Parameters:
    ///   - spill: A GeoJSON text sequence of the features (a closed `FeatureSpill`'s path).
    ///   - zooms: The zoom levels to draw.
    ///   - tileSize: Tile width and height in pixels.
    ///   - jobs: The helper's drawing threads.
    ///   - warnings: Where the helper's warnings go.
    ///   - store: Takes each tile with its pixels (RGBA rows, not premultiplied), in no set order.
    /// - Throws: The helper's error as a `MeridianError`, a bad-input error when what it sends is cut short, or `store`'s error.
    public static func draw(spill: String, zooms: ClosedRange<Int>, tileSize: Int, jobs: Int, warnings: DiagnosticHandler?,
                            store: (MapTile, [UInt8]) throws -> Void) throws {
        let arguments = ["tiles", "--zoom=\(zooms.lowerBound)-\(zooms.upperBound)", "--tile-size=\(tileSize)", "--jobs=\(jobs)", spill]
        let (child, diagnostics) = try HelperExecutable.draw.start(arguments, for: "drawing image tiles of vector data", standardOutput: .pipe)
        let tiles = BufferedInput(fileDescriptor: child.standardOutput!, name: "meridian-draw", ownsDescriptor: false)
        let pixelCount = tileSize * tileSize * 4
        do {
            while true {
                let header = try tiles.peek(headerSize)
                if header.isEmpty { break }
                guard header.count == headerSize, try tiles.fill(atLeast: headerSize + pixelCount) >= headerSize + pixelCount else {
                    // The helper stopped mid-tile: its error (below) says why.
                    break
                }
                func number(_ at: Int) -> Int { Int(UInt32(header[at]) | UInt32(header[at + 1]) << 8 | UInt32(header[at + 2]) << 16 | UInt32(header[at + 3]) << 24) }
                tiles.consume(headerSize)
                let pixels = try tiles.peek(pixelCount)
                tiles.consume(pixelCount)
                try store(MapTile(zoom: number(0), x: number(4), y: number(8)), pixels)
            }
        } catch {
            // The tiles cannot be taken to the end: the child, drawing on, is stopped.
            child.terminate()
            try? diagnostics.finish(warnings: warnings)
            throw error
        }
        try diagnostics.finish(warnings: warnings)
        guard try tiles.peek(1).isEmpty else {
            throw MeridianError(.io, "meridian-draw tiles sent a tile cut short")
        }
    }
}
