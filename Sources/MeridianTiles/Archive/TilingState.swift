import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry

/// The files a run keeps its state in (a folder's `.meridian-tiling`, a shard's state, frontier
/// and marks), read and appended without following symbolic links: a link put where state
/// belongs would make a resumed run read, or append to, whatever it points at.
public enum TilingStateFile {
    /// The largest state file read (a folder's state is a few identity lines and one line per
    /// block, 1,024 blocks or so; a frontier holds the pixels of a few hundred tiles).
    public static let maximumBytes = 1 << 30

    /// The bytes of the state file at `path`, or nil when there is none.
    /// - Throws: `MeridianError` (bad input) naming the file when it is a symbolic link, not a
    ///   regular file, or larger than ``maximumBytes``; (I/O) when it cannot be read.
    public static func read(_ path: String) throws -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw symbolicLink(path) }
            throw MeridianError(.io, "cannot read the run's state: \(String(cString: strerror(errno)))", at: SourceLocation(file: path))
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw MeridianError(.badInput, "the run's state is not a regular file", at: SourceLocation(file: path),
                                hint: "remove it, or tile into a new output")
        }
        guard status.st_size <= maximumBytes else {
            throw MeridianError(.badInput, "the run's state is larger than \(maximumBytes >> 20) MiB: it is not one Meridian wrote",
                                at: SourceLocation(file: path), hint: "remove it, or tile into a new output")
        }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + count, $0.count - count, off_t(count)) }
            guard n > 0 else {
                if n < 0 && errno == EINTR { continue }
                if n == 0 { break }
                throw MeridianError(.io, "cannot read the run's state: \(String(cString: strerror(errno)))", at: SourceLocation(file: path))
            }
            count += n
        }
        return Array(bytes.prefix(count))
    }

    /// The state file at `path` opened to append lines: kept as it is when `keeping`, else
    /// made anew holding `first` (the run's identity). A new state appears whole, never empty or
    /// cut: a run stopped as it makes it leaves either no state or the run's (an empty one,
    /// as an open-then-write left it, made the folder neither resumable nor new).
    /// - Throws: `MeridianError` (cannot create output) when it is a symbolic link or cannot be
    ///   made or opened.
    package static func openForAppending(_ path: String, keeping: Bool, startingWith first: String = "") throws -> Int32 {
        if !keeping { try create(path, holding: first) }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o666)
        guard fd >= 0 else {
            if errno == ELOOP {
                throw MeridianError(.cannotCreateOutput, "the run's state file is a symbolic link: Meridian does not write through one",
                                    at: SourceLocation(file: path), hint: "remove the link, or tile into a new output")
            }
            throw MeridianError(.cannotCreateOutput, "cannot write the run's state: \(String(cString: strerror(errno)))", at: SourceLocation(file: path))
        }
        return fd
    }

    /// Writes `text` as the file `path` under a temporary name beside it, renamed over it once
    /// whole (removed by a signal meanwhile); a symbolic link at `path` is refused, not replaced.
    static func create(_ path: String, holding text: String) throws {
        func failed(_ reason: Int32) -> MeridianError {
            MeridianError(.cannotCreateOutput, "cannot write the run's state: \(String(cString: strerror(reason)))", at: SourceLocation(file: path))
        }
        var status = stat()
        if lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK {
            throw MeridianError(.cannotCreateOutput, "the run's state file is a symbolic link: Meridian does not write through one",
                                at: SourceLocation(file: path), hint: "remove the link, or tile into a new output")
        }
        let name = (path as NSString).lastPathComponent
        let temporary = (path as NSString).deletingLastPathComponent + "/." + name + ".meridian-\(getpid())"
        TemporaryFiles.removeOnSignal(temporary)
        defer { TemporaryFiles.forget(temporary) }
        unlink(temporary)  // a killed run of this process id
        // 0666 less the umask, as every output Meridian creates.
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o666)
        guard fd >= 0 else { throw failed(errno) }
        var written = 0
        let bytes = Array(text.utf8)
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            written += n
        }
        let reason = errno
        guard close(fd) == 0, written == bytes.count else {
            unlink(temporary)
            throw failed(written == bytes.count ? errno : reason)
        }
        guard rename(temporary, path) == 0 else {
            let reason = errno
            unlink(temporary)
            throw failed(reason)
        }
    }

    package static func symbolicLink(_ path: String) -> MeridianError {
        MeridianError(.badInput, "the run's state file is a symbolic link: Meridian does not read state through one",
                      at: SourceLocation(file: path), hint: "remove the link, or tile into a new output")
    }

    /// The completed blocks the text of a folder's state file records (`block Z/X/Y TILES`
    /// lines; the others are the run's identity, checked against `identity` first).
    /// - Throws: `TileOutputError` when the state is another run's; `MeridianError` (bad input)
    ///   naming the file and line of a block line that is not a valid tile and a count of 0 or more.
    public static func completedBlocks(_ text: String, identity: TilingRunIdentity, output: String,
                                       file: String) throws -> [MapTile: (tiles: Int, line: Int)] {
        // A last line without its newline is being appended by another attempt (or was cut
        // by a kill): it is not part of the state yet.
        var lines = Array(text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { ($0.offset + 1, String($0.element)) })
        lines.removeLast()
        lines.removeAll { $0.1.isEmpty }
        try identity.checkResuming(TilingRunIdentity(lines: lines.map(\.1).filter { !$0.hasPrefix("block ") }), output: output)
        var blocks: [MapTile: (tiles: Int, line: Int)] = [:]
        for (number, line) in lines where line.hasPrefix("block ") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 3, let block = MapTile(address: String(parts[1])), let tiles = Int(parts[2]), tiles >= 0 else {
                throw MeridianError(.badInput, "the run's state is damaged: not a block and its tile count: '\(line.prefix(80))'",
                                    at: SourceLocation(file: file, line: number), hint: "remove the output and tile again")
            }
            blocks[block] = (tiles, number)
        }
        return blocks
    }
}

/// What a shard's or a joined run's mark holds: the run's identity, one `NAME VALUE` line a field,
/// then an `evidence DEVICE INODE SIZE MODIFIED PATH` line per file that proves what was done
/// is still there (a tile the shard wrote, the joined folder's metadata.json, the joined MBTiles
/// file): a mark whose files are gone or replaced (`rm -rf OUT`) no longer counts.
public enum WorkMark {
    /// The mark's text for `identity`, with the present state of each of `evidence`.
    package static func text(identity: TilingRunIdentity, evidence: [String]) throws -> [UInt8] {
        var lines = identity.lines
        for path in evidence {
            guard let state = fileState(path) else {
                throw MeridianError(.io, "cannot find what the run wrote", at: SourceLocation(file: path))
            }
            lines.append("evidence \(state) \(path)")
        }
        return Array(lines.map { $0 + "\n" }.joined().utf8)
    }

    /// Whether the mark at `path` is `identity`'s and every file it names is still as it was.
    package static func holds(_ path: String, identity: TilingRunIdentity) -> Bool {
        guard let bytes = try? TilingStateFile.read(path) else { return false }
        return holds(text: String(decoding: bytes, as: UTF8.self), identity: identity)
    }

    /// Whether a mark's text is `identity`'s and every file it names is still as it was.
    public static func holds(text: String, identity: TilingRunIdentity) -> Bool {
        let lines = text.split(separator: "\n").map(String.init)
        guard identity.differences(from: TilingRunIdentity(lines: lines.filter { !$0.hasPrefix("evidence ") })).isEmpty else { return false }
        return lines.filter { $0.hasPrefix("evidence ") }.allSatisfy { line in
            let parts = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: false)
            guard parts.count == 6 else { return false }
            return fileState(String(parts[5])) == parts[1...4].joined(separator: " ")
        }
    }

    /// `DEVICE INODE SIZE MODIFIED` of a file (a folder's size and time change as files come and
    /// go: `-`), not following a link; nil when there is none.
    package static func fileState(_ path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        if (status.st_mode & S_IFMT) == S_IFDIR { return "\(status.st_dev) \(status.st_ino) - -" }
        let time = Platform.modificationTime(of: status)
        return "\(status.st_dev) \(status.st_ino) \(status.st_size) \(time.seconds).\(time.nanoseconds)"
    }
}
