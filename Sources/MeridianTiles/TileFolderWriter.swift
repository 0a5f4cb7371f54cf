import Foundation
import MeridianFormats
import Synchronization

/// Tile files under a folder (`z/x/y.ext`), for raster and vector tile sets alike, each folder
/// made the first time a tile goes into it. Tiles may come from several threads at once.
///
/// Each tile is written atomically (a temporary file renamed into place) unless the whole
/// folder is out of sight until it is finished (`inPlace`): creating, renaming and
/// unregistering a temporary name per tile is most of the time a run of small vector tiles takes.
public final class TileFolderWriter: Sendable {
    /// The folders made so far.
    private let madeFolders = Mutex<Set<String>>([])
    /// Whether tiles are written straight into place (their folder is a staging folder).
    public let inPlace: Bool

    /// A writer that has made no folder yet, writing tiles atomically or, into a folder no one
    /// sees before it is finished, straight into place.
    public init(inPlace: Bool = false) { self.inPlace = inPlace }

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
        guard inPlace else { return try OutputTarget.write(bytes, to: path, durable: false) }
        // 0666 less the umask, as every output Meridian creates.
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        var written = 0
        if fd >= 0 {
            while written < bytes.count {
                let n = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress! + written, bytes.count - written) }
                if n <= 0 { break }
                written += n
            }
        }
        if fd < 0 || written < bytes.count || close(fd) != 0 {
            throw MeridianError(.cannotCreateOutput, "cannot write the tile: \(String(cString: strerror(errno)))", at: SourceLocation(file: path))
        }
    }
}
