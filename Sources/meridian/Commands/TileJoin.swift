import ArgumentParser
import MeridianFormats

extension Commands {
    /// `meridian tile-join`.
    struct TileJoin: ForwardedToGDAL {
        static let configuration = CommandConfiguration(
            commandName: "tile-join",
            abstract: "Merge vector tile sets tile by tile, their layers side by side, joining attributes from a CSV table.",
            discussion: "Runs meridian-gdal tile-join with the same arguments; `meridian tile-join --help` shows all options."
        )

        @Argument(parsing: .captureForPassthrough, help: "The input tile sets, -o and the output, and options.")
        var arguments: [String] = []
    }
}
