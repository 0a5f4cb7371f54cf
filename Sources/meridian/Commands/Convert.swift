import ArgumentParser
import MeridianCore
import MeridianFormats
import MeridianGeometry

extension Commands {
    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "convert",
            abstract: "Convert features from one format to another, streaming.",
            discussion: """
                Reads any supported format and writes any other, one feature at a time, so memory \
                stays flat whatever the input's size. Coordinates are copied bit for bit unless \
                --precision rounds them; properties, ids, foreign members and collection members are kept.

                Vector tiles read back as features: an .mbtiles file, a .pmtiles archive or a tile \
                folder with metadata.json, at one zoom level (--zoom). A feature cut by tile edges \
                comes back whole where its pieces share an id (polygons dissolved along the edges, \
                lines joined end to end, points once); features without an id stay one piece per \
                tile. Each feature gets its vector tile layer's name as the property `layer`; \
                --layer keeps one layer.

                Examples:
                  meridian convert countries.geojson -o countries.geojsons
                  cat route.geojson | meridian convert --to geojsonseq > route.geojsonl
                  meridian convert countries.mbtiles --zoom 5 -o countries-z5.geojson
                """
        )

        @OptionGroup var input: InputOptions
        @OptionGroup var output: OutputOptions
        @Flag(help: "Cut lines and polygons that cross ±180° into parts (RFC 7946 §3.1.9).") var cutAntimeridian = false
        @Option(help: ArgumentHelp("Vector tiles (.mbtiles, .pmtiles, a tile folder): the zoom level to read; needed when there are several.", valueName: "level"))
        var zoom: Int?
        @OptionGroup var reporting: ReportingOptions

        func run() throws {
            if let path = input.input, TilePyramidInput.isPyramid(path) {
                try convertTiles(path)
                return
            }
            try runPipeline(input: input, output: output, reporting: reporting) { source, destination, progress in
                if input.folders == .tree {
                    try writeFolderTree(from: source, to: destination)
                } else {
                    try copyFeatures(from: source.reader, to: destination.writer, progress: progress.update, transform: antimeridianCut)
                }
            }
        }

        func validate() throws {
            try input.refuseFeatureFileOptionsForPyramid()
            if let zoom { try checkZoomLevel(Double(zoom), option: "--zoom") }
            if zoom != nil && !(input.input.map(TilePyramidInput.isPyramid) ?? false) {
                throw ValidationError("--zoom reads vector tiles: give an .mbtiles file, a .pmtiles archive or a tile folder")
            }
        }

        /// The feature, cut at ±180° with --cut-antimeridian.
        func antimeridianCut(_ feature: Feature) -> Feature {
            guard cutAntimeridian, let geometry = feature.geometry else { return feature }
            var cut = feature
            cut.replaceGeometry(with: Antimeridian.cut(geometry), at: nil, diagnostics: reporting.reporter.report)
            return cut
        }

        /// A vector tile pyramid's features at --zoom, read by meridian-gdal.
        func convertTiles(_ path: String) throws {
            let reporter = reporting.reporter
            try reporter.run {
                let reader = try TilePyramidInput.reader(path, zoom: zoom, layer: input.layer, reporter: reporter)
                let destination = try output.open(protecting: path, reporter: reporter)
                try destination.commit { _ = try copyFeatures(from: reader, to: destination.writer, transform: antimeridianCut) }
            }
        }
    }
}

extension Commands.Convert {
    /// `--folders tree`: the KML document's folders and features as one nested JSON tree.
    func writeFolderTree(from source: FeatureInput, to destination: FeatureOutput) throws {
        guard let reader = source.reader as? any KMLDocumentReader, let tree = reader.folderTree else {
            throw MeridianError(.usage, "--folders tree needs KML or KMZ input")
        }
        guard destination.format == .geoJSON, let target = destination.target else {
            throw MeridianError(.usage, "--folders tree writes JSON: use a .json or .geojson output, or --to geojson")
        }
        while try reader.next() != nil {}
        try tree.write(to: target.sink, options: WriteOptions(precision: output.precision, formatOptions: GeoJSONWriteOptions(pretty: output.pretty)))
    }
}
