import MeridianCore

/// Paths that name one of this process's own open descriptors: `/dev/stdout`, `/dev/stderr`,
/// `/dev/fd/N` (what a shell's process substitution `>(gzip > out.gz)` gives) and, on Linux,
/// `/proc/self/fd/N`. They are symbolic links, which an output never goes through, but a user
/// typing one asks for that descriptor, as `-` asks for standard output: an output at such a
/// path is written into the descriptor in place (``OutputTarget``), never staged and renamed
/// (a rename would put a file where the link is), and an output that must be a file at a path
/// (a tile pyramid, a GDAL format that writes files) is refused, saying so.
public enum DescriptorPaths {
    /// The descriptor `path` names, or nil when it names none of these. Only the spellings
    /// themselves count (repeated slashes aside), not a link elsewhere that leads to them.
    public static func descriptor(named path: String) -> Int32? {
        var collapsed = ""
        for character in path where !(character == "/" && collapsed.hasSuffix("/")) { collapsed.append(character) }
        switch collapsed {
        case "/dev/stdin": return STDIN_FILENO
        case "/dev/stdout": return STDOUT_FILENO
        case "/dev/stderr": return STDERR_FILENO
        default: break
        }
        for prefix in descriptorFolders where collapsed.hasPrefix(prefix) {
            let number = collapsed.dropFirst(prefix.count)
            guard !number.isEmpty, number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber), number.count <= 9 else { return nil }
            return Int32(number)
        }
        return nil
    }

    /// The folders whose entries are this process's descriptors by number.
    #if os(Linux)
    private static let descriptorFolders = ["/dev/fd/", "/proc/self/fd/"]
    #else
    private static let descriptorFolders = ["/dev/fd/"]
    #endif

    /// Whether an output at `path` goes to standard output: nil, `-`, or a path naming
    /// descriptor 1 (`/dev/stdout`, `/dev/fd/1`), each the same to every subcommand.
    public static func isStandardOutput(_ path: String?) -> Bool {
        guard let path, path != "-" else { return true }
        return descriptor(named: path) == STDOUT_FILENO
    }

    /// Whether `path` has no name to tell an output's format by (its extension): nil, `-`, or
    /// a path naming a descriptor (`/dev/stderr`, `/dev/fd/63`), whose format is chosen as
    /// standard output's is.
    public static func hasNoFileName(_ path: String?) -> Bool {
        guard let path, path != "-" else { return true }
        return descriptor(named: path) != nil
    }

    /// Throws when `path` names a descriptor, for an output that is a file at a path (a tile
    /// pyramid, a file GDAL writes): `what` names it in the message.
    /// - Throws: `MeridianError` (usage) naming `path`.
    public static func refuseDescriptor(_ path: String, for what: String) throws {
        guard let descriptor = descriptor(named: path) else { return }
        let stream = descriptor == STDOUT_FILENO ? "standard output" : descriptor == STDERR_FILENO ? "standard error" : "descriptor \(descriptor)"
        throw MeridianError(.usage, "\(path) is \(stream), and \(what) is written to a file at a path", at: SourceLocation(file: path),
                            hint: "give the file's path")
    }
}
