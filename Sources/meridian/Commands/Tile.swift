import ArgumentParser
import MeridianFormats

extension Commands {
    /// `meridian tile`.
    struct Tile: ForwardedToGDAL {
        static let configuration = CommandConfiguration(
            commandName: "tile",
            abstract: "Warp a raster (GeoTIFF, BSB/KAP chart, image with control points) into Web Mercator tiles.",
            discussion: "Runs meridian-gdal tile with the same arguments; `meridian tile --help` shows all options."
        )

        @Argument(parsing: .captureForPassthrough, help: "The input, the output folder or .mbtiles file, and options.")
        var arguments: [String] = []
    }
}
