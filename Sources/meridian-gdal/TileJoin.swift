import ArgumentParser
import MeridianCommandLine
import MeridianCore
import MeridianFormats
import MeridianTiles

/// `meridian-gdal tile-join`, hidden: runs the `TileJoinRequest` that `meridian tile-join` parsed.
enum TileJoin: RequestRunInPlace {
    /// The attributes kept, as the options choose them.
    static func attributes(_ request: TileJoinRequest) -> AttributeFilter {
        AttributeFilter(include: request.included, exclude: request.excluded, excludeAll: request.excludesAll)
    }

    static func run(_ request: TileJoinRequest) throws {
        let (inputs, output, csv, quiet) = (request.inputs, request.output, request.csv, request.quiet)
        let reporter = Reporter(quiet: quiet)
        try reporter.run {
            RunInputs.record(inputs + (csv.map { [$0] } ?? []))
            var table: AttributeTable?
            if let csv {
                do {
                    table = try AttributeTable(csv: csv, key: request.csvKey)
                } catch let error as MeridianError where error.kind == .usage {
                    throw MeridianError(.usage, "--csv-key: \(error.message)", at: error.location, hint: "name one of its columns with --csv-key")
                }
            }
            let pyramids = try inputs.map { try TilePyramids.open($0) }
            var options = TileJoinOptions(attributes: attributes(request), table: table,
                                          maximumTileBytes: request.noTileSizeLimit ? nil : TileJoinOptions.defaultMaximumTileBytes)
            options.replacesExistingFile = request.replacing
            let summary = try MeridianTiles.TileJoin.join(pyramids, into: output, options: options)
            if !summary.tilesOverSize.isEmpty {
                let shown = summary.tilesOverSize.prefix(5).map { "\($0.zoom)/\($0.x)/\($0.y)" }.joined(separator: ", ")
                let more = summary.tilesOverSize.count > 5 ? ", …" : ""
                reporter.report(Diagnostic(.warning, "\(summary.tilesOverSize.count) joined tile\(summary.tilesOverSize.count == 1 ? " was" : "s were") over \(TileJoinOptions.defaultMaximumTileBytes) bytes gzipped and left out (\(shown)\(more))",
                                           at: SourceLocation(file: output), hint: "--no-tile-size-limit (-pk) writes them"))
            }
            if !quiet {
                let joined = table.map { _ in "; \(summary.featuresJoined) feature\(summary.featuresJoined == 1 ? "" : "s") took a row of \(csv == "-" ? "the table on standard input" : csv ?? "")" } ?? ""
                Reporter.printError("\(output): \(summary.tiles) tile\(summary.tiles == 1 ? "" : "s"), \(summary.features) feature\(summary.features == 1 ? "" : "s") in \(summary.layers) layer\(summary.layers == 1 ? "" : "s") joined from \(inputs.count) tile set\(inputs.count == 1 ? "" : "s")\(joined)")
            }
        }
    }
}
