import ArgumentParser
import MeridianCommandLine

extension Commands {
    /// `meridian tile-join`: vector tile sets merged tile by tile, layers side by side, with
    /// attributes joined from a CSV table and selected (tippecanoe's `tile-join`). Parsed here,
    /// run by `meridian-gdal tile-join` (which links SQLite) as a typed `TileJoinRequest`, in
    /// this process's place (exec).
    struct TileJoin: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tile-join",
            abstract: "Merge vector tile sets tile by tile, their layers side by side, joining attributes from a CSV table.",
            usage: "meridian tile-join <input>... -o <output> [--csv <file> [--csv-key <column>]] [--include <name>]... [--exclude <name>]... [--exclude-all] [--no-tile-size-limit]",
            discussion: """
                Each input is a folder with metadata.json, an .mbtiles file or a .pmtiles archive of \
                vector tiles, in any mix. Every tile of every input is written; where several inputs \
                have a tile at the same place, the output's tile holds all their layers, and a layer \
                name two inputs share holds the features of both (in input order), as tippecanoe's \
                tile-join does. A joined tile over 500000 bytes gzipped (as MBTiles and PMTiles \
                store it; tippecanoe's tile-join limit) is left out, not thinned: the run warns how \
                many and which, and --no-tile-size-limit (-pk) writes it anyway. The output's container follows \
                its path as for `meridian tile`; its metadata holds the bounds around every input's, \
                the zoom levels from the lowest to the highest, and the layers with the fields their \
                tiles hold (vector_layers, and tilestats as tippecanoe writes it). Image tiles are not joined (exit 64; among vector inputs, 65).

                --csv joins a table onto the features: a feature whose attribute named as the key \
                column (--csv-key, else the first column) has a row's key as its text takes that \
                row's other columns as attributes, replacing any of the same names. A cell that is a \
                number stays a number, true and false become booleans, an empty cell adds nothing; \
                features no row matches are left as they are, and the first row of a key wins. \
                --include, --exclude and --exclude-all then choose the attributes kept (the \
                table's columns too).

                The output is written out of sight and moved into place; one that is an input is \
                refused, and so is one that exists, unless it is an .mbtiles or .pmtiles file and \
                --force is given (a folder is never replaced).

                Examples:
                  meridian tile-join countries.pmtiles rivers/ -o map.mbtiles
                  meridian tile-join countries.pmtiles --csv population.csv --csv-key ISO_A3 -o joined.pmtiles
                  meridian tile-join roads.mbtiles --exclude-all --include name -o light.pmtiles
                """
        )

        @Argument(help: ArgumentHelp("The vector tile sets to join: folders with metadata.json, .mbtiles files or .pmtiles archives.", valueName: "input"))
        var inputs: [String] = []

        @Option(name: .shortAndLong, help: ArgumentHelp("The joined tile set: a new or empty folder, an .mbtiles file or a .pmtiles archive.", valueName: "output"))
        var output: String

        @Option(name: [.customShort("c"), .customLong("csv")], help: ArgumentHelp("A CSV table whose columns are joined onto the features by a key.", valueName: "file"))
        var csv: String?

        @Option(name: .customLong("csv-key"), help: ArgumentHelp("The CSV column (and feature attribute) the table is joined by (default: the first column).", valueName: "column"))
        var csvKey: String?

        @Option(name: [.customShort("y"), .customLong("include")], help: ArgumentHelp("Keep only this attribute (and the others given so); repeatable.", valueName: "name"))
        var included: [String] = []

        @Option(name: [.customShort("x"), .customLong("exclude")], help: ArgumentHelp("Leave out this attribute; repeatable.", valueName: "name"))
        var excluded: [String] = []

        @Flag(name: [.customShort("X"), .customLong("exclude-all")], help: "Leave out every attribute but those given with --include.")
        var excludeAll = false

        @Flag(name: [.customLong("no-tile-size-limit"), .customLong("pk", withSingleDash: true)],
              help: "Write joined tiles over 500000 bytes gzipped too, rather than leaving them out.")
        var noTileSizeLimit = false

        @Flag(name: .shortAndLong, help: "Print no summary (errors are still printed).")
        var quiet = false

        @OptionGroup var replacing: ReplaceOption

        func validate() throws {
            if inputs.isEmpty { throw ValidationError("give the tile sets to join, then -o and the output") }
            try TileRunInputs.refuseStandardInput(inputs, pyramids: true)
            try replacing.check(tileOutput: output)
            if csvKey != nil && csv == nil { throw ValidationError("--csv-key names the key column of the --csv table: give --csv too") }
            if !included.isEmpty && !excluded.isEmpty {
                throw ValidationError("--include keeps only the attributes it names, so --exclude has nothing to do: give one or the other")
            }
            if excludeAll && !excluded.isEmpty { throw ValidationError("--exclude-all leaves out every attribute already: give it without --exclude") }
        }

        /// Replaces this process with `meridian-gdal tile-join` and the request; returns only
        /// when the helper cannot be run (69).
        func run() throws {
            var request = TileJoinRequest(inputs: inputs, output: output)
            (request.csv, request.csvKey, request.included, request.excluded) = (csv, csvKey, included, excluded)
            (request.excludesAll, request.noTileSizeLimit, request.quiet) = (excludeAll, noTileSizeLimit, quiet)
            request.replacing = replacing.force
            throw ExitCode(HelperExecutable.gdal.exec(TileJoinRequest.subcommand, request.words))
        }
    }
}
