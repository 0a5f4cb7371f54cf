import MeridianCore

/// Folders and files of an input read without following symbolic links: a link inside a
/// folder Meridian walks (a tile that is a link to /etc/passwd, a zoom folder that is a link
/// elsewhere) is never read through, so nothing outside the input reaches an output.
public enum LinkFreeReading {
    /// What a path is, as lstat(2) sees it (a link is a link, whatever it points to).
    public enum Kind: Sendable, Equatable {
        case file, folder, symbolicLink, other
    }

    /// What `path` is; nil when there is nothing there.
    public static func kind(of path: String) -> Kind? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .folder
        case S_IFLNK: return .symbolicLink
        default: return .other
        }
    }

    /// The names in `folder` (not `.` and `..`) with what each is; empty when it cannot be
    /// listed. `folder` itself is opened as named (the caller checks its kind first).
    public static func entries(of folder: String) -> [(name: String, kind: Kind)] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var entries: [(name: String, kind: Kind)] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name != ".", name != "..", let kind = kind(of: folder + "/" + name) else { continue }
            entries.append((name, kind))
        }
        return entries
    }

    /// The bytes of the regular file at `path`, opened without following a link (O_NOFOLLOW);
    /// nil when there is no file there.
    /// - Throws: `MeridianError` (bad input) naming the file when it is a symbolic link, not a
    ///   regular file, or larger than `maximum` bytes; (I/O) when it cannot be read.
    public static func contents(ofFile path: String, maximum: Int) throws -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            if errno == ELOOP { throw MeridianError(.badInput, "a symbolic link inside the input: it is not followed", at: SourceLocation(file: path)) }
            throw MeridianError(.io, "cannot open \(path): \(String(cString: strerror(errno)))", at: SourceLocation(file: path))
        }
        var status = stat()
        guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw MeridianError(.badInput, "not a regular file", at: SourceLocation(file: path))
        }
        guard status.st_size <= maximum else {
            close(fd)
            throw MeridianError(.badInput, "the file is larger than \(maximum >> 20) MiB", at: SourceLocation(file: path))
        }
        return try BufferedInput(fileDescriptor: fd, name: path, path: path, ownsDescriptor: true).readAll(maximum: maximum)
    }
}
