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
    /// `run` is the same path for completeness), so `meridian formats --help` prints the real
    /// help. (`tile`, `tile-copy` and `tile-join` are parsed here and sent as typed requests.)
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
        "formats": ("List the formats Meridian reads and writes, its own and GDAL's.", "(none)"),
    ]

    enum Formats: GDALSubcommand { static let name = "formats" }

    /// Every subcommand `meridian-gdal` hosts, in `meridian --help`'s order.
    static let forwardedToGDAL: [any ParsableCommand.Type] = [
        ForwardedToGDAL<Formats>.self,
    ]
}
