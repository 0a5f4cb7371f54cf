import ArgumentParser
import MeridianFormats
import MeridianGeometry

extension Commands {
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info",
            abstract: "Summarise a file: features, geometry types, vertices, bounds, property keys.",
            discussion: """
                Reads the whole input, one feature at a time, and prints what it holds. \
                --format json prints the same as one JSON object, for scripts.

                A tile pyramid (an .mbtiles file, a .pmtiles archive or a tile folder with \
                metadata.json) is described as tiles: its container, row scheme, tile format, \
                zoom levels and tiles per level, bounds, center, vector layers with their fields \
                (as its metadata lists them) and size.

                Examples:
                  meridian info countries.geojson --format json
                  meridian info countries.mbtiles
                """
        )

        enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
            case text, json
        }

        @OptionGroup var input: InputOptions
        @Option(help: "How to print the summary.") var format: ReportFormat = .text
        @OptionGroup var reporting: ReportingOptions

        func validate() throws {
            try input.refuseFolderTree()
            try input.refuseFeatureFileOptionsForPyramid()
            guard let path = input.input, TilePyramidInput.isPyramid(path) else { return }
            if input.layer != nil {
                throw ValidationError("--layer keeps one layer's features; info describes the whole tile pyramid, every layer listed")
            }
        }

        func run() throws {
            let reporter = reporting.reporter
            if let path = input.input, TilePyramidInput.isPyramid(path) {
                try reporter.run {
                    try TilePyramidInput.describe(path, json: format == .json, reporter: reporter)
                }
                return
            }
            try reporter.run {
                let source = try input.open(reporter: reporter)
                let metadata = try source.reader.readMetadata()
                var summary = DatasetSummary()
                while let feature = try source.reader.next() { summary.add(feature) }
                let report = SummaryReport(file: source.input.name, format: source.format, metadata: metadata,
                                           trailing: source.reader.trailingMetadata, summary: summary,
                                           kml: (source.reader as? any KMLDocumentReader)?.statistics)
                let out = OutputSink.standardOutput()
                switch format {
                case .text: out.write(report.text)
                case .json: writeJSON(report.jsonValue, to: out)
                }
                try out.flush()
            }
        }
    }
}
