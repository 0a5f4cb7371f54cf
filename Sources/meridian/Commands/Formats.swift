import ArgumentParser
import MeridianCommandLine

extension Commands {
    /// `meridian formats`: what Meridian reads and writes itself, and what the installed GDAL
    /// adds. Parsed here, run by `meridian-gdal formats` (which links GDAL) as a typed
    /// `FormatsRequest`, in this process's place (exec).
    struct Formats: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "formats",
            abstract: "List the formats Meridian reads and writes, its own and GDAL's.",
            discussion: """
                Meridian's own formats stream and keep everything (styles, folders, exact numbers). \
                Any other vector format the installed GDAL offers works too, by name (--from, --to) \
                or extension: `meridian convert countries.geojson -o countries.gpkg`.
                """
        )

        /// Replaces this process with `meridian-gdal formats` and the request; returns only
        /// when the helper cannot be run (69).
        func run() throws {
            throw ExitCode(HelperExecutable.gdal.exec(FormatsRequest.subcommand, FormatsRequest().words))
        }
    }
}
