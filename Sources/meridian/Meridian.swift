import ArgumentParser
import MeridianCommandLine
import MeridianFormats

@main
struct Meridian: ParsableCommand {
    static let version = MeridianVersion.current

    static let configuration = CommandConfiguration(
        commandName: "meridian",
        abstract: "Convert, check and tile geospatial data for maps.",
        discussion: """
            Every subcommand reads a file or standard input and writes a file or standard output, \
            so subcommands compose in pipelines. Formats follow the file extension, else the \
            input's first bytes; --from and --to override.

            Exit codes: 0 ok, 1 a check said no, 64 usage, 65 bad input data, \
            66 input missing or unreadable, 69 a helper (meridian-gdal, meridian-draw) missing, \
            73 cannot create output, 74 I/O error.
            """,
        version: "meridian \(version) (expat \(LibraryVersions.expatDescription))",
        subcommands: [Commands.Convert.self, Commands.Info.self, Commands.Coverage.self, Commands.MapKit.self, Commands.Simplify.self,
                      Commands.Clip.self, Commands.Geodesic.self, Commands.Circle.self, Commands.Render.self, Commands.Tile.self,
                      Commands.TileCopy.self, Commands.TileJoin.self, Commands.Formats.self]
    )
}

extension Meridian {
    /// The entry point: arguments parsed with negative numbers taken as values, and a mistyped
    /// word gets a suggestion.
    static func main() {
        mainSuggestingCorrections(NegativeNumbers.protect(Array(CommandLine.arguments.dropFirst()), for: Meridian.self))
    }
}

/// Every subcommand of `meridian`, one file each in Commands/: a namespace of their own, so a
/// command is named for what it does (`Commands.Simplify`, `Commands.Formats`) without taking
/// the name of the library type that does it.
enum Commands {}

extension Meridian {
    /// The command line being run, as typed (`meridian convert flights.kml -o Flight.swift`),
    /// for the headers of generated files: `meridian` (not the executable's path) and the
    /// arguments as given, relative paths left relative, each quoted for a shell where it needs
    /// it (`shellQuoted`: a line break in an argument as `$'…\n…'`), so the line runs again
    /// from the same folder and stays one line.
    static var invokedCommand: String {
        (["meridian"] + CommandLine.arguments.dropFirst().map(shellQuoted)).joined(separator: " ")
    }
}
