import MeridianCore

/// The modes new files get, so that everything Meridian leaves behind has exactly what the
/// user's umask allows: 0666 less the umask for a file, 0777 less the umask for a folder.
///
/// Meridian's own files get that from the kernel: they are created with open(…, 0666) and
/// mkdir(…, 0777), which apply the umask (`TemporaryFiles.create`). Some libraries choose a
/// mode of their own (SQLite makes every database 0644, so a GeoPackage ignores a umask of
/// 002 or 077); their files are given the right mode afterwards.
///
/// The umask itself is never read: umask(2) can only read it by setting it, and the mask is
/// shared by every thread, so setting it to 0 for an instant while another thread creates a
/// file makes that file world-writable. Instead the mode is learnt the way any file gets it, by
/// creating one.
public enum FileModes {
    /// The mode a new regular file gets in `folder` (0666 less the umask): a probe file is
    /// created there with 0666 and removed (one with no name where the system makes them, so
    /// that not even SIGKILL leaves it).
    public static func newFile(in folder: String) -> mode_t? {
        var fd = Platform.openUnnamedFile(in: folder, mode: 0o666), path: String?
        if fd < 0 {
            guard let made = TemporaryFiles.create("\(folder)/.meridian-mode-XXXXXX", mode: 0o666, removedOnSignal: true) else { return nil }
            (fd, path) = made
        }
        defer {
            close(fd)
            if let path {
                unlink(path)
                TemporaryFiles.forget(path)
            }
        }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        return status.st_mode & 0o7777
    }

    /// Gives every regular file under `folder` (written there by a library that picks its own
    /// modes) the mode a new file gets there.
    public static func applyNewFileMode(under folder: String) throws {
        guard let mode = newFile(in: folder) else {
            throw MeridianError(.cannotCreateOutput, "cannot write in \(folder): \(String(cString: strerror(errno)))")
        }
        try forEachFile(under: folder) { path in
            guard chmod(path, mode) == 0 else {
                throw MeridianError(.cannotCreateOutput, "cannot set the mode of \(path): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Calls `body` with the path of every regular file under `folder`, at any depth.
    static func forEachFile(under folder: String, _ body: (String) throws -> Void) throws {
        for (name, kind) in LinkFreeReading.entries(of: folder) {
            switch kind {
            case .file: try body(folder + "/" + name)
            case .folder: try forEachFile(under: folder + "/" + name, body)
            case .symbolicLink, .other: break
            }
        }
    }
}
