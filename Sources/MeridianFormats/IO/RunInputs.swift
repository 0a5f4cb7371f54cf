import MeridianCore
import Synchronization

/// What this run reads, by device and inode, so that no output is written over one of its
/// inputs, or made a folder that holds one, however the path is spelled and through any link
/// (DESIGN.md §3).
///
/// A command records the inputs its arguments name (`record(_:)`, for one path or several) before it opens an output;
/// every output is checked by ``refuseInput(at:named:holdsFiles:alsoInputs:)``: ``OutputTarget`` when it
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

    /// The inputs, and the folders that hold them (an output folder may not be one).
    private static let recorded = Mutex<(files: Set<Identity>, folders: Set<Identity>)>(([], []))

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
                recorded.withLock { _ = $0.files.insert(Identity(status)) }
            }
            return
        }
        guard stat(path, &status) == 0 else { return }
        var folders: [Identity] = []
        if let real = realpath(path, nil) {
            var folder = String(cString: real)
            free(real)
            // Every folder from the input's up to the root.
            while let slash = folder.lastIndex(of: "/") {
                folder = slash == folder.startIndex ? "/" : String(folder[..<slash])
                var folderStatus = stat()
                if stat(folder, &folderStatus) == 0 { folders.append(Identity(folderStatus)) }
                if folder == "/" { break }
            }
        }
        recorded.withLock {
            $0.files.insert(Identity(status))
            $0.folders.formUnion(folders)
        }
    }

    /// The recorded input files as `device:inode` words, for a helper process that writes this
    /// run's output (`meridian-gdal ogr-write`, whose driver may write files beside it) to
    /// record in turn with ``record(identities:)``.
    public static var recordedIdentities: [String] {
        recorded.withLock { $0.files.map { "\($0.device):\($0.inode)" }.sorted() }
    }

    /// Records input files given as ``recordedIdentities`` words (by another process of the same
    /// run); a word that is not two numbers is passed over.
    public static func record(identities: [String]) {
        let parsed = identities.compactMap { word -> Identity? in
            let numbers = word.split(separator: ":")
            guard numbers.count == 2, let device = UInt64(numbers[0]), let inode = UInt64(numbers[1]) else { return nil }
            return Identity(device: device, inode: inode)
        }
        recorded.withLock { $0.files.formUnion(parsed) }
    }

    /// Throws when `path`, an output (`named` in the message), is one of the recorded inputs or
    /// of `alsoInputs` (a library caller's, not recorded) or, for an output that is a folder
    /// (`holdsFiles`), a folder that holds a recorded one.
    /// - Throws: `MeridianError` (usage) naming `path`.
    public static func refuseInput(at path: String, named: String = "the output", holdsFiles: Bool = false,
                                   alsoInputs: [String] = []) throws {
        var status = stat()
        guard stat(path, &status) == 0 else { return }
        let identity = Identity(status)
        var (isInput, holdsInput) = recorded.withLock { ($0.files.contains(identity), holdsFiles && $0.folders.contains(identity)) }
        for input in alsoInputs where !isInput {
            var inputStatus = stat()
            isInput = stat(input, &inputStatus) == 0 && Identity(inputStatus) == identity
        }
        if isInput {
            throw MeridianError(.usage, "\(named) is an input of this run: Meridian never overwrites its input",
                                at: SourceLocation(file: path), hint: "write to another path")
        }
        if holdsInput {
            throw MeridianError(.usage, "\(named) is a folder that holds an input of this run: Meridian never writes over its input",
                                at: SourceLocation(file: path), hint: "write to a folder outside the inputs' folders")
        }
    }
}
