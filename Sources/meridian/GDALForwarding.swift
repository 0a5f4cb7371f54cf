import ArgumentParser
import MeridianCommandLine
import MeridianCore

/// GDAL-backed subcommands run in `meridian-gdal`, so that libgdal (about 90 ms of start-up
/// and 35 MB resident, measured) never loads for the others. `meridian tile-copy ARGS…`
/// replaces itself (execv, git-style) with `meridian-gdal tile-copy ARGS…`: same arguments,
/// same standard streams, same exit code, and `meridian tile-copy --help` prints the real help.
/// (`meridian tile` is parsed here and execs `meridian-gdal tile` with a typed `TileRequest`.)
enum GDALForwarding {
    /// The subcommands `meridian-gdal` hosts.
    static let subcommands = Set(Commands.forwardedToGDAL.compactMap { $0.configuration.commandName })

    /// Called before argument parsing: forwards `meridian tile-copy …` whole, `--help` included.
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
