import ArgumentParser
import GDALSupport
import MeridianCommandLine

/// The GDAL-backed subcommands of `meridian`, in their own executable so that libgdal's
/// start-up cost never touches the others. `meridian tile …` runs `meridian-gdal tile …`.
@main
struct MeridianGDAL: ParsableCommand {
    static let configuration = CommandConfiguration(
        // Help and usage read as the user typed them: `meridian tile …`.
        commandName: "meridian",
        abstract: "Meridian's GDAL-backed subcommands (run through `meridian`).",
        discussion: """
            Exit codes: 0 ok, 64 usage, 65 bad input data, 66 input missing or unreadable, \
            69 a helper (meridian-draw) missing, 73 cannot create output, 74 I/O error.
            """,
        version: "meridian-gdal \(MeridianVersion.current) (GDAL \(GDAL.version))",
        subcommands: [RunInPlace<Tile>.self, RunInPlace<TileCopy>.self, RunInPlace<TileJoin>.self, ServedToParent<TileRead>.self, ServedToParent<TileInfo>.self, RunInPlace<Formats>.self, ServedToParent<OGRRead>.self, ServedToParent<OGRWrite>.self, RunInPlace<OGRDriverLookup>.self]
    )

    /// The entry point: arguments parsed with negative numbers taken as values (`--gcp`,
    /// boxes), and a mistyped word gets a suggestion.
    static func main() {
        mainSuggestingCorrections(NegativeNumbers.protect(Array(CommandLine.arguments.dropFirst()), for: MeridianGDAL.self))
    }
}
