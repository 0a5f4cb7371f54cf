import Foundation
import MeridianCore
import MeridianFormats
import Synchronization

/// Tile files under a folder (`z/x/y.ext`), for raster and vector tile sets alike, each folder
/// made the first time a tile goes into it. Tiles may come from several threads at once.
///
/// A tile goes into a folder this writer made (its `mkdir` succeeded: nothing was in it) under
/// its own name, created exclusively: nothing else can be there, and a run killed part-way
/// leaves at most one partial tile, in a block its state does not record as done, which
/// a resumed run writes again. In a folder the writer found (a resumed or shared run's), a tile is
/// written under a temporary name and renamed into place whole, after its place is checked for
/// a link and for an input of the run. A folder out of sight until it is finished (`inPlace`)
/// takes every tile straight into place.
///
/// The parent of a tile's folder (a level, for `z/x/y` tiles) is opened once and kept open (a
/// bounded number at a time), and tiles are made relative to it (`x/y.pbf`), so the kernel does
/// not walk the whole path for each tile.
///
/// Nothing under the root is followed when it is a symbolic link (a folder resumed or shared
/// may hold anything): a link where a tile folder or a tile goes is refused, never written
/// through or replaced.
public final class TileFolderWriter: Sendable {
    /// A folder kept open, and how many tiles are being written under it now (it is closed only
    /// when none is).
    private struct OpenFolder {
        var fd: Int32
        var users: Int
        var lastUse: UInt64
    }

    /// The folders kept open, and every folder made or found so far with whether this writer
    /// created it.
    private struct Folders {
        var open: [String: OpenFolder] = [:]
        /// Whether this writer created each folder (mkdir made it: nothing was in it before
        /// this run's tiles).
        var created: [String: Bool] = [:]
        /// Counts uses, for closing the folder used longest ago.
        var clock: UInt64 = 0
    }

    private let folders = Mutex(Folders())
    /// How many folders are kept open at most (while no tile is being written under them): the
    /// levels of a pyramid, and each descriptor counts against the process's limit.
    static let openFolderLimit = 64
    /// This process's id, in the temporary names.
    private let processID = getpid()
    /// Whether tiles are written straight into place (their folder is a staging folder).
    public let inPlace: Bool
    /// The output folder the tiles go under (made, or checked, by its owner).
    public let root: String

    /// A writer of tiles under `root` that has made no folder yet, writing tiles into the
    /// folders it makes under their own names, into folders it finds atomically or, into a
    /// folder no one sees before it is finished, straight into place.
    public init(root: String, inPlace: Bool = false) {
        // Spelled as the folders of tile paths are (`out/` gives `out/14/3/5.png`'s folders as `out/14/3`).
        self.root = ((root + "/x") as NSString).deletingLastPathComponent
        self.inPlace = inPlace
    }

    deinit {
        folders.withLock { state in
            for folder in state.open.values { close(folder.fd) }
            state.open = [:]
        }
    }

    /// Writes `bytes` as the file `path` (under ``root``), making its folder if this writer has not.
    /// - Throws: `MeridianError` (cannot create output) when the folder cannot be made or a
    ///   symbolic link stands where a folder or the tile goes; the output target's error when
    ///   the file cannot be written; (usage) when the tile's place is an input of the run.
    public func write(_ bytes: [UInt8], to path: String) throws {
        // `out//9/1/2.png` (an output named with a trailing slash) is `out/9/1/2.png`: its
        // folders are named as ``root`` is.
        let path = Self.hasDoubledSlash(path) ? (path.hasPrefix("/") ? "/" : "") + path.split(separator: "/").joined(separator: "/") : path
        let (folderPath, name) = Self.split(path)
        // The tile is opened relative to its folder's parent (a level, for `z/x/y` tiles), kept
        // open: a level's columns are too many to keep open, and a column is visited a few
        // tiles at a time.
        let inRoot = folderPath == root || !folderPath.hasPrefix(root + "/")
        let (anchorPath, folderName) = inRoot ? (folderPath, "") : Self.split(folderPath)
        let anchor = try openFolder(anchorPath)
        defer { release(anchorPath) }
        let created = inRoot ? anchor.created : try madeFolder(folderPath, in: anchor.fd, named: folderName)
        let relative = inRoot ? name : folderName + "/" + name
        if inPlace {
            // 0666 less the umask, as every output Meridian creates; O_NOFOLLOW: a link at the
            // tile's place fails the open (ELOOP).
            let fd = openat(anchor.fd, relative, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o666)
            if fd < 0 && errno == ELOOP { throw Self.linkFound(path) }
            return try writeWhole(bytes, to: fd, path: path)
        }
        if created {
            // Nothing stood in a folder this writer's mkdir made: the tile is made under its
            // own name (three system calls: no temporary name, rename or signal registration).
            let fd = openat(anchor.fd, relative, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o666)
            if fd >= 0 {
                do {
                    return try writeWhole(bytes, to: fd, path: path)
                } catch {
                    unlinkat(anchor.fd, relative, 0)  // this writer's own partial file
                    throw error
                }
            }
            // A tile written a second time (or another shard's, in a shared folder): replaced
            // atomically below, after the same checks as in a folder that was found.
            guard errno == EEXIST else { throw Self.cannotCreate(path, errno) }
        }
        try Self.refuseLink(in: anchor.fd, name: relative, path: path)  // rename(2) would replace the link
        try RunInputs.refuseInput(at: path, insideCheckedFolder: true)
        try writeRenamed(bytes, in: anchor.fd, folder: inRoot ? "" : folderName + "/", name: name, path: path)
    }

    /// Tiles written under a temporary name so far: the next one's number.
    private let temporaryCount = Atomic<Int>(0)

    /// Writes `bytes` under a hidden temporary name beside `folder` + `name`, relative to the
    /// open folder `anchor` (`.y.pbf.meridian-PID-N`, this process's own, made exclusively and
    /// registered for the signal handler), renamed into place once whole: four system calls
    /// (open, write, close, rename).
    private func writeRenamed(_ bytes: [UInt8], in anchor: Int32, folder: String, name: String, path: String) throws {
        let stem = "." + name + ".meridian-\(processID)-"
        let folderPath = Self.split(path).folder
        var temporary = "", temporaryPath = "", fd: Int32 = -1
        for _ in 0..<100 {
            let temporaryName = stem + String(temporaryCount.wrappingAdd(1, ordering: .relaxed).oldValue)
            (temporary, temporaryPath) = (folder + temporaryName, folderPath + "/" + temporaryName)
            TemporaryFiles.removeOnSignal(temporaryPath)
            // 0666 less the umask, as every output Meridian creates.
            fd = openat(anchor, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o666)
            if fd >= 0 { break }
            let reason = errno
            TemporaryFiles.forget(temporaryPath)
            // A killed run of the same process id may have left that name: the next one.
            guard reason == EEXIST else { throw Self.cannotCreate(path, reason) }
        }
        defer { TemporaryFiles.forget(temporaryPath) }
        do {
            try writeWhole(bytes, to: fd, path: path)
        } catch {
            unlinkat(anchor, temporary, 0)
            throw error
        }
        guard renameat(anchor, temporary, anchor, folder + name) == 0 else {
            let reason = String(cString: strerror(errno))
            unlinkat(anchor, temporary, 0)
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
            let reason = errno
            if fd >= 0 && written < bytes.count { close(fd) }
            throw MeridianError(.cannotCreateOutput, "cannot write the tile: \(String(cString: strerror(reason)))", at: SourceLocation(file: path))
        }
    }

    /// Whether `path` has two slashes in a row, told from its bytes (`String.contains` of a
    /// string goes through Foundation's locale-aware search, once per tile: it showed in
    /// samples of the thread writing a folder's tiles).
    static func hasDoubledSlash(_ path: String) -> Bool {
        var previous: UInt8 = 0
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") && previous == byte { return true }
            previous = byte
        }
        return false
    }

    /// `path`'s folder and last component.
    private static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return (".", path) }
        return (String(path[..<slash]), String(path[path.utf8.index(after: slash)...]))
    }

    /// The open descriptor of `folder`, made (with the folders between it and ``root``) if this
    /// writer has not made or found it yet, and whether this writer created it; counted as in
    /// use until `release(_:)`.
    private func openFolder(_ folder: String) throws -> (fd: Int32, created: Bool) {
        let kept = folders.withLock { state -> (fd: Int32, created: Bool)? in
            guard var entry = state.open[folder] else { return nil }
            state.clock += 1
            entry.users += 1
            entry.lastUse = state.clock
            state.open[folder] = entry
            return (entry.fd, state.created[folder] ?? false)
        }
        if let kept { return kept }
        let fd = try makeAndOpen(folder)
        return folders.withLock { state in
            state.clock += 1
            let created = state.created[folder] ?? false
            if var entry = state.open[folder] {
                // Another thread opened it meanwhile: its descriptor is kept, this one closed.
                close(fd)
                entry.users += 1
                entry.lastUse = state.clock
                state.open[folder] = entry
                return (entry.fd, created)
            }
            state.open[folder] = OpenFolder(fd: fd, users: 1, lastUse: state.clock)
            if state.open.count > Self.openFolderLimit {
                // Closes the folder used longest ago that no tile is being written into.
                if let oldest = state.open.filter({ $0.value.users == 0 }).min(by: { $0.value.lastUse < $1.value.lastUse }) {
                    close(oldest.value.fd)
                    state.open[oldest.key] = nil
                }
            }
            return (fd, created)
        }
    }

    /// Says that a tile is no longer being written into `folder` (opened by `openFolder(_:)`).
    private func release(_ folder: String) {
        folders.withLock { $0.open[folder]?.users -= 1 }
    }

    /// Makes `folder` if need be (and the folders between it and ``root``), one `mkdirat` each
    /// relative to its parent, and opens it, not following a link: a link, or a file, where a
    /// folder goes is refused. Records whether this writer created it.
    /// - Returns: A new descriptor of the folder.
    private func makeAndOpen(_ folder: String) throws -> Int32 {
        if folder == root || !folder.hasPrefix(root + "/") {
            // The root (made, or checked, by the writer's owner) is opened as named.
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw MeridianError(.cannotCreateOutput, "cannot create a tile folder", at: SourceLocation(file: folder))
            }
            let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { throw Self.cannotCreateFolder(folder, errno) }
            folders.withLock { state in if state.created[folder] == nil { state.created[folder] = false } }
            return fd
        }
        let (parentPath, name) = Self.split(folder)
        let parent = try openFolder(parentPath)
        defer { release(parentPath) }
        try madeFolder(folder, in: parent.fd, named: name)
        // O_NOFOLLOW and O_DIRECTORY: a link fails the open (ELOOP), and so does a file (ENOTDIR).
        let fd = openat(parent.fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            let reason = errno
            if reason == ELOOP || reason == ENOTDIR { throw Self.linkFound(folder) }
            throw Self.cannotCreateFolder(folder, reason)
        }
        return fd
    }

    /// Makes `folder`, `name` in the open folder `parent`, unless this writer has made or found
    /// it before, checking that one found there is a folder and not a link to one.
    /// - Returns: Whether this writer created it (it was not there).
    @discardableResult
    private func madeFolder(_ folder: String, in parent: Int32, named name: String) throws -> Bool {
        if let known = folders.withLock({ $0.created[folder] }) { return known }
        let created = mkdirat(parent, name, 0o777) == 0
        if !created {
            let reason = errno
            var status = stat()
            guard reason == EEXIST, fstatat(parent, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { throw Self.cannotCreateFolder(folder, reason) }
            guard status.st_mode & S_IFMT == S_IFDIR else { throw Self.linkFound(folder) }
        }
        // Two threads may make it at once: the one whose mkdir failed found it there.
        return folders.withLock { state in
            let made = (state.created[folder] ?? false) || created
            state.created[folder] = made
            return made
        }
    }

    /// Throws when a symbolic link stands at `path`, a file or folder about to be written in an
    /// output folder: it is not followed, nor replaced (it is not this run's).
    public static func refuseLink(at path: String) throws {
        if isLink(path) { throw linkFound(path) }
    }

    /// Throws when a symbolic link is `name` in the open folder `folder` (`path` names it).
    private static func refuseLink(in folder: Int32, name: String, path: String) throws {
        var status = stat()
        if fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0 && status.st_mode & S_IFMT == S_IFLNK { throw linkFound(path) }
    }

    static func isLink(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }

    static func linkFound(_ path: String) -> MeridianError {
        MeridianError(.cannotCreateOutput, "a symbolic link (or a file) stands where a tile goes: Meridian does not write through links",
                      at: SourceLocation(file: path), hint: "remove it from the output folder, or tile into a new one")
    }

    static func cannotCreate(_ path: String, _ reason: Int32) -> MeridianError {
        MeridianError(.cannotCreateOutput, "cannot create the tile: \(String(cString: strerror(reason)))", at: SourceLocation(file: path))
    }

    static func cannotCreateFolder(_ folder: String, _ reason: Int32) -> MeridianError {
        MeridianError(.cannotCreateOutput, "cannot create a tile folder: \(String(cString: strerror(reason)))", at: SourceLocation(file: folder))
    }
}
