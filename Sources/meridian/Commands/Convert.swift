import ArgumentParser
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

                Examples:
                  meridian convert countries.geojson -o countries.geojsons
                  cat route.geojson | meridian convert --to geojsonseq > route.geojsonl
                """
        )

        @OptionGroup var input: InputOptions
        @OptionGroup var output: OutputOptions
        @Flag(help: "Cut lines and polygons that cross ±180° into parts (RFC 7946 §3.1.9).") var cutAntimeridian = false
        @OptionGroup var reporting: ReportingOptions

        func run() throws {
            try runPipeline(input: input, output: output, reporting: reporting) { source, destination, progress in
                if input.folders == .tree {
                    try writeFolderTree(from: source, to: destination)
                } else {
                    try copyFeatures(from: source.reader, to: destination.writer, progress: progress.update, transform: { feature in
                        guard cutAntimeridian, let geometry = feature.geometry else { return feature }
                        var cut = feature
                        cut.geometry = Antimeridian.cut(geometry)
                        return cut
                    })
                }
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
        try tree.write(to: target.sink, options: WriteOptions(precision: output.precision, pretty: output.pretty))
    }
}
