// The one place Meridian imports the C library. Every module that imports MeridianCore sees its
// names, as every Swift file on Linux that imports Foundation already does (Foundation re-exports
// Glibc there): so no other file imports Glibc, Musl or Darwin, and none names a C call by its
// module (`Glibc.open`), which compiles against one C library only.
//
// What is re-exported is what both C libraries spell alike (POSIX: open, read, write, fsync,
// rename, pthreads, errno, strerror, memchr…). What they spell differently (a member that hides
// a C call, the modification time, the executable's path, a symbol's presence) is `Platform`'s,
// beside this file, and Linux-only calls (sync_file_range, posix_fadvise, prctl, mallopt) stay
// inside `#if os(Linux)` where they are used. Scripts/check-portability.py fails on any
// `import Glibc`/`Darwin`/`Musl` or `Glibc.`/`Darwin.` outside this folder and on Linux-only
// calls outside `#if os(Linux)`.
#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Musl)
@_exported import Musl
#elseif canImport(Darwin)
@_exported import Darwin
#endif
