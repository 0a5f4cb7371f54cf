import Foundation
import MeridianFormats
import Synchronization

/// Tile files under a folder (`z/x/y.ext`), for raster and vector tile sets alike: each written
/// atomically (a temporary file renamed into place), its folder made the first time a tile
/// goes into it. Tiles may come from several threads at once.
public final class TileFolderWriter: Sendable {
    /// The folders made so far.
    private let madeFolders = Mutex<Set<String>>([])

    /// A writer that has made no folder yet.
    public init() {}

    /// Writes `bytes` as the file `path`, making its folder if this writer has not.
    /// - Throws: `MeridianError` (cannot create output) when the folder cannot be made; the
    ///   output target's error when the file cannot be written.
    public func write(_ bytes: [UInt8], to path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !madeFolders.withLock({ $0.contains(folder) }) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw MeridianError(.cannotCreateOutput, "cannot create a tile folder", at: SourceLocation(file: folder))
            }
            madeFolders.withLock { _ = $0.insert(folder) }
        }
        try OutputTarget.write(bytes, to: path, durable: false)
    }
}
