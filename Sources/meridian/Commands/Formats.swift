import ArgumentParser
import MeridianFormats

extension Commands {
    /// `meridian formats`.
    struct Formats: ForwardedToGDAL {
        static let configuration = CommandConfiguration(
            commandName: "formats",
            abstract: "List the formats Meridian reads and writes, its own and GDAL's.",
            discussion: "Runs meridian-gdal formats, which asks the installed GDAL."
        )

        @Argument(parsing: .captureForPassthrough, help: "(none)") var arguments: [String] = []
    }
}
