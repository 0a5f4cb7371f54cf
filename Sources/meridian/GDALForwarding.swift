import ArgumentParser
import MeridianCommandLine
import MeridianCore

/// GDAL-backed subcommands run in `meridian-gdal`, so that libgdal (about 90 ms of start-up
/// and 35 MB resident, measured) never loads for the others. `meridian formats ARGS…`
/// replaces itself (execv, git-style) with `meridian-gdal formats ARGS…`: same arguments,
/// same standard streams, same exit code, and `meridian formats --help` prints the real help.
/// (`meridian tile`, `tile-copy` and `tile-join` are parsed here and exec `meridian-gdal` with
/// a typed request: `TileRequest`, `TileCopyRequest`, `TileJoinRequest`.)
enum GDALForwarding {
    /// The subcommands `meridian-gdal` hosts.
    static let subcommands = Set(Commands.forwardedToGDAL.compactMap { $0.configuration.commandName })

    /// Called before argument parsing: forwards `meridian formats …` whole, `--help` included.
    static func forwardIfNeeded(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) {
        guard let first = arguments.first, subcommands.contains(first) else { return }
        exit(HelperExecutable.gdal.exec(first, Array(arguments.dropFirst())))
    }
}

extension Meridian {
    /// The entry point: GDAL-backed subcommands go to `meridian-gdal` before parsing (which
    /// does the same itself); the others are parsed with negative numbers taken as values,
    /// and a mistyped word gets a suggestion.
    static func main() {
        GDALForwarding.forwardIfNeeded()
        mainSuggestingCorrections(NegativeNumbers.protect(Array(CommandLine.arguments.dropFirst()), for: Meridian.self))
    }
}
