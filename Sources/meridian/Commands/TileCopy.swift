import ArgumentParser
import MeridianFormats

extension Commands {
    /// `meridian tile-copy`.
    struct TileCopy: ForwardedToGDAL {
        static let configuration = CommandConfiguration(
            commandName: "tile-copy",
            abstract: "Copy a tile pyramid between a folder, an MBTiles file and a PMTiles archive.",
            discussion: "Runs meridian-gdal tile-copy with the same arguments; `meridian tile-copy --help` shows all options."
        )

        @Argument(parsing: .captureForPassthrough, help: "The source and destination pyramids, and options.")
        var arguments: [String] = []
    }
}
