import ArgumentParser
import MeridianCommandLine

extension Commands {
    /// `meridian tile-copy`: a tile pyramid from one container into another. Parsed here, run by
    /// `meridian-gdal tile-copy` (which links SQLite) as a typed `TileCopyRequest`, in this
    /// process's place (exec).
    struct TileCopy: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tile-copy",
            abstract: "Copy a tile pyramid between a folder, an MBTiles file and a PMTiles archive.",
            discussion: """
                Copies every tile (raster or vector) and the metadata: format, name, description, \
                bounds, zoom levels and, for vector tiles, the layers (vector_layers, tilestats). The container \
                follows the path: .mbtiles, .pmtiles, else a folder of z/x/y tiles with TileJSON \
                metadata.json (XYZ rows; a source folder's metadata.json says its scheme). Vector \
                tiles are stored gzipped in MBTiles and PMTiles, uncompressed in folders. The output \
                is written out of sight and moved into place; one that exists is refused (an empty \
                folder counts as new), unless it is an .mbtiles or .pmtiles file and --force is \
                given: then the finished copy replaces it. A folder is never replaced.

                Examples:
                  meridian tile-copy countries/ countries.pmtiles
                  meridian tile-copy chart.mbtiles chart-tiles --zoom 8-12
                """
        )

        @Argument(help: ArgumentHelp("The pyramid to copy: a folder with metadata.json, an .mbtiles file or a .pmtiles archive.", valueName: "source"))
        var source: String

        @Argument(help: ArgumentHelp("Where the copy goes: a new or empty folder, an .mbtiles file or a .pmtiles archive.", valueName: "destination"))
        var destination: String

        @Option(help: ArgumentHelp("Copy only these zoom levels, MIN-MAX or one level.", valueName: ZoomRange.syntax.valueName))
        var zoom: ZoomRange?

        @Flag(name: .shortAndLong, help: "Print no summary (errors are still printed).")
        var quiet = false

        @OptionGroup var replacing: ReplaceOption

        func validate() throws {
            try TileRunInputs.refuseStandardInput([source], pyramids: true)
            try replacing.check(tileOutput: destination)
        }

        /// Replaces this process with `meridian-gdal tile-copy` and the request; returns only
        /// when the helper cannot be run (69).
        func run() throws {
            var request = TileCopyRequest(source: source, destination: destination, zooms: zoom?.levels, quiet: quiet)
            request.replacing = replacing.force
            throw ExitCode(HelperExecutable.gdal.exec(TileCopyRequest.subcommand, request.words))
        }
    }
}
