import Foundation
import MeridianCore
import MeridianFormats
import Synchronization

/// Tile files under a folder (`z/x/y.ext`), for raster and vector tile sets alike, each folder
/// made the first time a tile goes into it. Tiles may come from several threads at once.
///
/// Each tile is written atomically (a temporary file renamed into place) unless the whole
/// folder is out of sight until it is finished (`inPlace`): creating, renaming and
/// unregistering a temporary name per tile is most of the time a run of small vector tiles takes.
///
/// Nothing under the root is followed when it is a symbolic link (a folder resumed or shared
/// may hold anything): a link where a tile folder or a tile goes is refused, never written
/// through or replaced.
public final class TileFolderWriter: Sendable {
    /// The folders made or found so far, each with whether this writer created it (mkdir made
    /// it: nothing was in it before this run's tiles).
    private let madeFolders = Mutex<[String: Bool]>([:])
    /// This process's id, in the temporary names.
    private let processID = getpid()
    /// Whether tiles are written straight into place (their folder is a staging folder).
    public let inPlace: Bool
    /// The output folder the tiles go under (made, or checked, by its owner).
    public let root: String

    /// A writer of tiles under `root` that has made no folder yet, writing tiles atomically or,
    /// into a folder no one sees before it is finished, straight into place.
    public init(root: String, inPlace: Bool = false) {
        // Spelled as the folders of tile paths are (`out/` gives `out/14/3/5.png`'s folders as `out/14/3`).
        self.root = ((root + "/x") as NSString).deletingLastPathComponent
        self.inPlace = inPlace
    }

    /// Writes `bytes` as the file `path` (under ``root``), making its folder if this writer has not.
    /// - Throws: `MeridianError` (cannot create output) when the folder cannot be made or a
    ///   symbolic link stands where a folder or the tile goes; the output target's error when
    ///   the file cannot be written.
    public func write(_ bytes: [UInt8], to path: String) throws {
        let created = try makeFolder((path as NSString).deletingLastPathComponent)
        if !inPlace {
            // A folder this writer created held nothing before: no link, no input can stand in
            // it (two system calls a tile, of the five or so a tile costs, in a new run).
            if !created {
                try Self.refuseLink(at: path)  // rename(2) would replace the link
                try RunInputs.refuseInput(at: path, insideCheckedFolder: true)
            }
            return try writeRenamed(bytes, to: path)
        }
        // 0666 less the umask, as every output Meridian creates; O_NOFOLLOW: a link at the
        // tile's place fails the open (ELOOP).
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o666)
        if fd < 0 && errno == ELOOP { throw Self.linkFound(path) }
        try writeWhole(bytes, to: fd, path: path)
    }

    /// Tiles written under a temporary name so far: the next one's number.
    private let temporaryCount = Atomic<Int>(0)

    /// Writes `bytes` under a hidden temporary name beside `path` (`.y.pbf.meridian-PID-N`, this
    /// process's own, made exclusively and registered for the signal handler), renamed into
    /// place once whole. A tile is a few kilobytes written once: four system calls (open,
    /// write, close, rename), where a general output's random name, page-cache release and
    /// checks took ten more, most of a folder run's system time.
    private func writeRenamed(_ bytes: [UInt8], to path: String) throws {
        let stem = (path as NSString).deletingLastPathComponent + "/." + (path as NSString).lastPathComponent + ".meridian-\(processID)-"
        var temporary = "", fd: Int32 = -1
        for _ in 0..<100 {
            temporary = stem + String(temporaryCount.wrappingAdd(1, ordering: .relaxed).oldValue)
            TemporaryFiles.removeOnSignal(temporary)
            // 0666 less the umask, as every output Meridian creates.
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o666)
            if fd >= 0 { break }
            let reason = errno
            TemporaryFiles.forget(temporary)
            // A killed run of the same process id may have left that name: the next one.
            guard reason == EEXIST else {
                throw MeridianError(.cannotCreateOutput, "cannot create the tile: \(String(cString: strerror(reason)))", at: SourceLocation(file: path))
            }
        }
        defer { TemporaryFiles.forget(temporary) }
        do {
            try writeWhole(bytes, to: fd, path: path)
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw MeridianError(.cannotCreateOutput, "cannot move the tile into place: \(reason)", at: SourceLocation(file: path))
        }
    }

    /// Writes all of `bytes` to the new file `fd` (-1: it could not be made) and closes it.
    private func writeWhole(_ bytes: [UInt8], to fd: Int32, path: String) throws {
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

    /// Makes `folder` and the folders between it and ``root``, one `mkdir` each, checking
    /// with `lstat` that each one found there is a folder and not a link to one.
    /// - Returns: Whether this writer created `folder` (it was not there).
    @discardableResult
    private func makeFolder(_ folder: String) throws -> Bool {
        if let created = madeFolders.withLock({ $0[folder] }) { return created }
        var created = false
        if folder == root || !folder.hasPrefix(root + "/") {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw MeridianError(.cannotCreateOutput, "cannot create a tile folder", at: SourceLocation(file: folder))
            }
        } else {
            try makeFolder((folder as NSString).deletingLastPathComponent)
            created = mkdir(folder, 0o777) == 0
            if !created {
                let reason = errno
                var status = stat()
                guard reason == EEXIST, lstat(folder, &status) == 0 else {
                    throw MeridianError(.cannotCreateOutput, "cannot create a tile folder: \(String(cString: strerror(reason)))",
                                        at: SourceLocation(file: folder))
                }
                guard status.st_mode & S_IFMT == S_IFDIR else { throw Self.linkFound(folder) }
            }
        }
        // Two threads may make it at once: the one whose mkdir failed found it there.
        madeFolders.withLock { $0[folder] = ($0[folder] ?? false) || created }
        return created
    }

    /// Throws when a symbolic link stands at `path`, a file or folder about to be written in an
    /// output folder: it is not followed, nor replaced (it is not this run's).
    public static func refuseLink(at path: String) throws {
        if isLink(path) { throw linkFound(path) }
    }

    static func isLink(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }

    static func linkFound(_ path: String) -> MeridianError {
        MeridianError(.cannotCreateOutput, "a symbolic link (or a file) stands where a tile goes: Meridian does not write through links",
                      at: SourceLocation(file: path), hint: "remove it from the output folder, or tile into a new one")
    }
}
