import MeridianCore
import Synchronization

/// What this run reads, by device and inode, so that no output is written over one of its
/// inputs, into an input folder, or made a folder that holds an input, however the path is
/// spelled and through any link (DESIGN.md §3).
///
/// A command records the inputs its arguments name (`record(_:)`, for one path or several) before it opens an output;
/// every output is checked by ``refuseInput(at:named:alsoInputs:insideCheckedFolder:)``: ``OutputTarget`` when it
/// opens and again before it renames its file into place, ``FeatureOutput`` for the files a
/// format writes itself, ``OutputClaim`` for tile pyramids. Only executables record: a library
/// user reading a file and later saving over it, as an editor does, is not refused.
public enum RunInputs {
    struct Identity: Hashable {
        let device: UInt64
        let inode: UInt64

        init(_ status: stat) {
            device = UInt64(truncatingIfNeeded: status.st_dev)
            inode = UInt64(truncatingIfNeeded: status.st_ino)
        }

        init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }
    }

    /// What was recorded: each input (a file or a folder) and each folder that holds one, with
    /// the input's path as it was given (empty for one another process recorded by identity).
    private struct Recorded {
        var inputs: [Identity: String] = [:]
        var holdingFolders: [Identity: String] = [:]
    }

    private static let recorded = Mutex(Recorded())

    /// Records the inputs at `paths`: files or folders, through links; `-` records standard
    /// input when it is a file. A path with nothing there is passed over (its reader reports it).
    public static func record(_ paths: [String]) {
        for path in paths { record(path) }
    }

    /// Records one input (see ``record(_:)-([String])``); nil is standard input.
    public static func record(_ path: String?) {
        var status = stat()
        guard let path, path != "-" else {
            // `meridian coverage fix < c.geojson -o c.geojson`: standard input is a file.
            if fstat(STDIN_FILENO, &status) == 0, status.st_mode & S_IFMT == S_IFREG {
                recorded.withLock { if $0.inputs[Identity(status)]?.isEmpty != false { $0.inputs[Identity(status)] = "-" } }
            }
            return
        }
        guard stat(path, &status) == 0 else { return }
        let folders = holdingFolders(of: path)
        recorded.withLock {
            if $0.inputs[Identity(status)]?.isEmpty != false { $0.inputs[Identity(status)] = path }
            for folder in folders where $0.holdingFolders[folder] == nil { $0.holdingFolders[folder] = path }
        }
    }

    /// Every folder from the one that holds `path` up to the root, through links.
    private static func holdingFolders(of path: String) -> [Identity] {
        guard var folder = resolved(path) else { return [] }
        var folders: [Identity] = []
        while let slash = folder.lastIndex(of: "/") {
            folder = slash == folder.startIndex ? "/" : String(folder[..<slash])
            var folderStatus = stat()
            if stat(folder, &folderStatus) == 0 { folders.append(Identity(folderStatus)) }
            if folder == "/" { break }
        }
        return folders
    }

    /// The recorded inputs as `device:inode` words, for a helper process that writes this
    /// run's output (`meridian-gdal ogr-write`, whose driver may write files beside it) to
    /// record in turn with ``record(identities:)``.
    public static var recordedIdentities: [String] {
        recorded.withLock { $0.inputs.keys.map { "\($0.device):\($0.inode)" }.sorted() }
    }

    /// Records inputs given as ``recordedIdentities`` words (by another process of the same
    /// run); a word that is not two numbers is passed over.
    public static func record(identities: [String]) {
        let parsed = identities.compactMap { word -> Identity? in
            let numbers = word.split(separator: ":")
            guard numbers.count == 2, let device = UInt64(numbers[0]), let inode = UInt64(numbers[1]) else { return nil }
            return Identity(device: device, inode: inode)
        }
        recorded.withLock { for identity in parsed where $0.inputs[identity] == nil { $0.inputs[identity] = "" } }
    }

    /// Throws when `path`, an output (`named` in the message), is one of the recorded inputs
    /// or of `alsoInputs` (a library caller's, not recorded), an existing folder that holds one,
    /// or a path inside an input that is a folder (a tile folder, a folder of charts), whose
    /// next reading would find the output in it. The folders above `path` are resolved through
    /// links as far as they exist. `insideCheckedFolder` leaves out that last check, for a file
    /// written under an output folder that was checked itself (a tile among thousands).
    /// - Throws: `MeridianError` (usage) naming `path` and the input.
    public static func refuseInput(at path: String, named: String = "the output", alsoInputs: [String] = [],
                                   insideCheckedFolder: Bool = false) throws {
        var inputs: [Identity: String] = [:], holding: [Identity: String] = [:]
        for input in alsoInputs {
            var inputStatus = stat()
            guard stat(input, &inputStatus) == 0 else { continue }
            inputs[Identity(inputStatus)] = input
        }
        var status = stat()
        if stat(path, &status) == 0 {
            let identity = Identity(status)
            if let input = inputs[identity] ?? recorded.withLock({ $0.inputs[identity] }) {
                throw MeridianError(.usage, "\(named) is \(phrase(input)): Meridian never overwrites its input",
                                    at: SourceLocation(file: path), hint: "write to another path")
            }
            if status.st_mode & S_IFMT == S_IFDIR {
                for input in alsoInputs { for folder in holdingFolders(of: input) where holding[folder] == nil { holding[folder] = input } }
                if let input = holding[identity] ?? recorded.withLock({ $0.holdingFolders[identity] }) {
                    throw MeridianError(.usage, "\(named) is a folder that holds the input \(input): Meridian never writes over its input",
                                        at: SourceLocation(file: path), hint: "write to a folder outside the inputs' folders")
                }
            }
        }
        guard !insideCheckedFolder else { return }
        for folder in foldersAbove(path) {
            guard let input = inputs[folder] ?? recorded.withLock({ $0.inputs[folder] }) else { continue }
            throw MeridianError(.usage, "\(named) is inside \(input.isEmpty ? "an input folder of this run" : "the input folder \(input)"): Meridian never writes into its input",
                                at: SourceLocation(file: path), hint: "write to a path outside the inputs' folders")
        }
    }

    /// Throws when the open `descriptor` (an output named `named`, such as `/dev/fd/3`) is one
    /// of the recorded inputs: a shell's `3<>input.kml` made writable.
    /// - Throws: `MeridianError` (usage) naming the output and the input.
    public static func refuseInput(descriptor: Int32, named: String) throws {
        var status = stat()
        guard fstat(descriptor, &status) == 0, let input = recorded.withLock({ $0.inputs[Identity(status)] }) else { return }
        throw MeridianError(.usage, "\(named) is \(phrase(input)): Meridian never overwrites its input",
                            at: SourceLocation(file: named), hint: "write to another path")
    }

    /// The folders above `path`, nearest first, from the nearest one that exists (an output's
    /// last parts do not yet) up to the root, through links.
    private static func foldersAbove(_ path: String) -> [Identity] {
        var folder = OutputTarget.splitPath(OutputClaim.trimmed(path)).folder
        while true {
            if let real = resolved(folder) {
                var status = stat()
                guard stat(real, &status) == 0 else { return [] }
                return [Identity(status)] + holdingFolders(of: real)
            }
            let parent = OutputTarget.splitPath(folder).folder
            guard parent != folder else { return [] }
            folder = parent
        }
    }

    /// `path` absolute with every link resolved (realpath(3)), or nil when it does not exist.
    private static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// An input as a message names it: its path, standard input, or (recorded by another
    /// process, by identity only) none.
    private static func phrase(_ input: String) -> String {
        input.isEmpty ? "an input of this run" : input == "-" ? "the input read from standard input" : "the input \(input)"
    }
}
