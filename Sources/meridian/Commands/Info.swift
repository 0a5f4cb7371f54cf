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

                Example:
                  meridian info countries.geojson --format json
                """
        )

        enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
            case text, json
        }

        @OptionGroup var input: InputOptions
        @Option(help: "How to print the summary.") var format: ReportFormat = .text
        @OptionGroup var reporting: ReportingOptions

        func run() throws {
            let reporter = reporting.reporter
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
