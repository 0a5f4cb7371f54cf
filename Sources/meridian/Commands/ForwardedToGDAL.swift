import ArgumentParser
import MeridianCommandLine

/// One of `meridian`'s subcommands whose work happens in `meridian-gdal`, named as in both
/// executables; its texts are in `Commands.forwardedTexts`.
protocol GDALSubcommand {
    /// The subcommand's name, the same in both executables.
    static var name: String { get }
}

extension GDALSubcommand {
    /// Its line in `meridian --help` and what its passed-through arguments are.
    static var texts: (abstract: String, arguments: String) { Commands.forwardedTexts[name] ?? ("", "") }
}

extension Commands {
    /// A subcommand listed in `meridian --help` whose work happens in `meridian-gdal`: the
    /// arguments are handed over whole (`GDALForwarding.forwardIfNeeded` does it before parsing;
    /// `run` is the same path for completeness), so `meridian tile-copy --help` prints the real
    /// help. (`tile` is parsed here, in `Commands.Tile`, and sent as a typed `TileRequest`.)
    struct ForwardedToGDAL<Subcommand: GDALSubcommand>: ParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: Subcommand.name, abstract: Subcommand.texts.abstract,
                discussion: "Runs meridian-gdal \(Subcommand.name) with the same arguments; `meridian \(Subcommand.name) --help` shows all options.")
        }

        @Argument(parsing: .captureForPassthrough, help: ArgumentHelp(Subcommand.texts.arguments))
        var arguments: [String] = []

        func run() throws {
            throw ExitCode(HelperExecutable.gdal.exec(Subcommand.name, arguments))
        }
    }

    /// The line in `meridian --help` and the arguments' help of each subcommand `meridian-gdal` hosts.
    static let forwardedTexts: [String: (abstract: String, arguments: String)] = [
        "tile-copy": ("Copy a tile pyramid between a folder, an MBTiles file and a PMTiles archive.", "The source and destination pyramids, and options."),
        "tile-join": ("Merge vector tile sets tile by tile, their layers side by side, joining attributes from a CSV table.",
                      "The input tile sets, -o and the output, and options."),
        "formats": ("List the formats Meridian reads and writes, its own and GDAL's.", "(none)"),
    ]

    enum TileCopy: GDALSubcommand { static let name = "tile-copy" }
    enum TileJoin: GDALSubcommand { static let name = "tile-join" }
    enum Formats: GDALSubcommand { static let name = "formats" }

    /// Every subcommand `meridian-gdal` hosts, in `meridian --help`'s order.
    static let forwardedToGDAL: [any ParsableCommand.Type] = [
        ForwardedToGDAL<TileCopy>.self, ForwardedToGDAL<TileJoin>.self, ForwardedToGDAL<Formats>.self,
    ]
}
