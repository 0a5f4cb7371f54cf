#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The C library's calls and fields that Linux and Darwin spell differently, or that a type's own
/// member of the same name hides (`BufferedInput.open`, `OutputSink.write`, `ExpatMemory.free`):
/// code elsewhere calls these rather than naming `Glibc` or `Darwin`, so it compiles on both.
package enum Platform {
    /// open(2) without a mode (to read, or files that exist).
    package static func open(_ path: String, _ flags: Int32) -> Int32 { systemOpen(path, flags) }

    /// write(2).
    package static func write(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        systemWrite(descriptor, bytes, count)
    }

    /// free(3).
    package static func free(_ pointer: UnsafeMutableRawPointer?) { systemFree(pointer) }

    /// The running executable's path (to find the helpers beside it): /proc/self/exe on Linux,
    /// `_NSGetExecutablePath` on Darwin.
    package static func executablePath() -> String? {
        #if canImport(Darwin)
        var size: UInt32 = 0
        _ = _NSGetExecutablePath(nil, &size)
        var buffer = [CChar](repeating: 0, count: Int(size) + 1)
        guard _NSGetExecutablePath(&buffer, &size) == 0 else { return nil }
        return String(cString: buffer)
        #else
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #endif
    }

    /// Makes what was written to the file durable before this returns: fsync(2), and on Darwin
    /// F_FULLFSYNC, since Darwin's fsync leaves the data in the drive's cache (falling back to
    /// fsync where the file system refuses F_FULLFSYNC). False, with errno set, when it failed.
    package static func synchronize(_ descriptor: Int32) -> Bool {
        #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return true }
        #endif
        return fsync(descriptor) == 0
    }

    /// Whether a symbol of that name is loaded in the process (dlsym's RTLD_DEFAULT, which is
    /// a null pointer on Linux and -2 on Darwin): how a feature of a shared library that its
    /// version number does not tell is found at run time.
    package static func hasLoadedSymbol(_ name: String) -> Bool {
        #if canImport(Darwin)
        let everyLibrary = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #else
        let everyLibrary: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        return dlsym(everyLibrary, name) != nil
    }

    /// A new file in `folder` that has no name (Linux's O_TMPFILE), open for reading and writing,
    /// made with `mode` less the umask: it vanishes with its last descriptor however the process
    /// ends, SIGKILL too, and can be given a name at once (``name(unnamed:at:)``). -1, with errno
    /// set, where the system or the folder's file system makes no such file: the caller then makes
    /// a named file and removes (or links) its name.
    package static func openUnnamedFile(in folder: String, mode: mode_t) -> Int32 {
        #if os(Linux)
        // O_TMPFILE is a macro Swift does not import: __O_TMPFILE (the same on every Linux) | O_DIRECTORY.
        let temporaryFile: Int32 = 0o20000000 | O_DIRECTORY
        return systemOpen(folder, temporaryFile | O_RDWR | O_CLOEXEC, mode)
        #else
        errno = ENOTSUP
        return -1
        #endif
    }

    /// Gives the file open at `descriptor`, made by ``openUnnamedFile(in:mode:)``, the name
    /// `path` (link(2): never replacing what is there, EEXIST). False, with errno set, when it
    /// cannot (on Linux without /proc too: the caller then makes a named file).
    package static func name(unnamed descriptor: Int32, at path: String) -> Bool {
        #if os(Linux)
        return linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0
        #else
        errno = ENOTSUP
        return false
        #endif
    }

    /// A path that opens the file open at `descriptor` again, as itself (named or not) with an
    /// offset of its own: /proc/self/fd/N on Linux when /proc is there; nil elsewhere (Darwin's
    /// /dev/fd/N shares the descriptor's offset).
    package static func pathReopening(_ descriptor: Int32) -> String? {
        #if os(Linux)
        let path = "/proc/self/fd/\(descriptor)"
        return access(path, F_OK) == 0 ? path : nil
        #else
        return nil
        #endif
    }

    /// A file's modification time: `st_mtim` on Linux, `st_mtimespec` on Darwin.
    package static func modificationTime(of status: stat) -> (seconds: Int, nanoseconds: Int) {
        #if canImport(Darwin)
        (Int(status.st_mtimespec.tv_sec), Int(status.st_mtimespec.tv_nsec))
        #else
        (Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec))
        #endif
    }
}

// At file scope nothing hides the C library's names.
private func systemOpen(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int { write(descriptor, bytes, count) }
private func systemFree(_ pointer: UnsafeMutableRawPointer?) { free(pointer) }
