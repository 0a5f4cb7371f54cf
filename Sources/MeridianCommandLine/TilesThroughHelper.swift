import MeridianCore
import MeridianFormats
import MeridianGeometry
import Synchronization

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

    /// Runs `meridian-draw tiles` on the features at `spill` and hands each tile of level `zoom` it draws to
    /// `store`, on `jobs` threads (encoding a tile takes as long as drawing it).
    /// - Parameters:
    ///   - spill: The features, closed (the child reads its file as `InheritedScratch`).
    ///   - zoom: The zoom level to draw.
    ///   - tileSize: Tile width and height in pixels.
    ///   - jobs: The helper's drawing threads, and the threads calling `store`.
    ///   - shard: The shard whose tiles the helper draws (it draws no other); nil for every tile.
    ///   - warnings: Where the helper's warnings go.
    ///   - store: Takes each tile with its pixels (RGBA rows, not premultiplied), from several threads at once, in no set order.
    /// - Throws: The helper's error as a `MeridianError`, an I/O error when what it sends is cut short, or `store`'s first error.
    public static func draw(spill: FeatureSpill, zoom: Int, tileSize: Int, jobs: Int, shard: TileShardOwnership? = nil,
                            warnings: DiagnosticHandler?, store: @escaping @Sendable (MapTile, [UInt8]) throws -> Void) throws {
        let arguments = DrawTilesRequest(input: InheritedScratch.argument, zoom: zoom, tileSize: tileSize, jobs: jobs, shard: shard).arguments
        let (child, diagnostics) = try HelperExecutable.draw.start(arguments, for: "drawing image tiles of vector data", standardOutput: .pipe,
                                                                   inheriting: spill.descriptor)
        let tiles = FrameReader(BufferedInput(fileDescriptor: child.standardOutput!, name: "meridian-draw", ownsDescriptor: false),
                                pixelCount: tileSize * tileSize * 4)
        let failure = Mutex<(any Error)?>(nil)
        let worker: @Sendable () -> Void = {
            do {
                while failure.withLock({ $0 == nil }), let (tile, pixels) = try tiles.next() { try store(tile, pixels) }
            } catch {
                failure.withLock { if $0 == nil { $0 = error } }
            }
        }
        let threads: [WorkerThread]
        do {
            threads = try (1..<max(1, jobs)).map { _ in try WorkerThread(worker) }
        } catch {
            child.terminate()
            try? diagnostics.finish(warnings: warnings)
            throw error
        }
        worker()
        for thread in threads { thread.join() }
        if let error = failure.withLock({ $0 }) {
            // The tiles cannot be taken to the end: the child, drawing on, is stopped.
            child.terminate()
            try? diagnostics.finish(warnings: warnings)
            throw error
        }
        try diagnostics.finish(warnings: warnings)
        guard try tiles.isAtEnd else { throw MeridianError(.io, "meridian-draw tiles sent a tile cut short") }
    }
}

/// The tiles on the helper's standard output, one whole tile at a time to whichever thread asks.
private final class FrameReader: @unchecked Sendable {
    private let input: Mutex<BufferedInput>
    private let pixelCount: Int

    init(_ input: sending BufferedInput, pixelCount: Int) {
        self.input = Mutex(input)
        self.pixelCount = pixelCount
    }

    /// The next tile and its pixels; nil at the end, or where the helper stopped mid-tile (its error says why).
    func next() throws -> (MapTile, [UInt8])? {
        try input.withLock { input in
            let frameSize = TilesThroughHelper.headerSize + pixelCount
            guard try input.fill(atLeast: frameSize) >= frameSize else { return nil }
            let header = try input.peek(TilesThroughHelper.headerSize)
            func number(_ at: Int) -> Int { Int(UInt32(header[at]) | UInt32(header[at + 1]) << 8 | UInt32(header[at + 2]) << 16 | UInt32(header[at + 3]) << 24) }
            input.consume(TilesThroughHelper.headerSize)
            let pixels = try input.peek(pixelCount)
            input.consume(pixelCount)
            return (MapTile(zoom: number(0), x: number(4), y: number(8)), pixels)
        }
    }

    /// Whether every byte the helper sent was a whole tile.
    var isAtEnd: Bool {
        get throws { try input.withLock { try $0.peek(1).isEmpty } }
    }
}
