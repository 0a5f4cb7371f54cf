import ArgumentParser
import MeridianFormats
import MeridianGeometry

extension Commands {
    struct Render: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "render",
            abstract: "Draw features as a PNG (or SVG) picture, MKMapSnapshotter's idea offline.",
            discussion: """
                Draws every input's features, in order, into one picture in Web Mercator: polygons \
                and lines styled by their simplestyle properties (stroke, fill, widths, opacities), \
                points as pins with their names beside, where a label covers no other label or pin. \
                The picture fits the data unless --view or --view-tile says what to show; --heading \
                turns the map and fits the turned data (or shows the whole stated view); --basemap \
                draws a tile folder, MBTiles file or PMTiles archive made by `meridian tile` (PNG, JPEG or \
                WebP tiles) underneath; --scale 2 or 3 renders for Retina screens.

                Examples:
                  meridian render route.kml -o route.png --size 600x400 --scale 2
                  meridian render coverage.geojson stops.geojson -o coverage.svg
                  meridian render route.gpx --basemap chart-tiles/ -o route-on-chart.png
                """
        )

        @Argument(help: ArgumentHelp("The input files ('-' reads standard input).", valueName: "input")) var inputs: [String] = ["-"]
        @Option(name: .customLong("from"), help: ArgumentHelp("The inputs' format, when extensions and first bytes do not tell.", valueName: "format"))
        var format: String?
        @OptionGroup var output: OutputOptions
        @OptionGroup var reporting: ReportingOptions

        func run() throws {
            let reporter = reporting.reporter
            try reporter.run {
                RunInputs.record(inputs + [output.file.picture.basemap].compactMap { $0 })
                let kind = try PictureKind.chosen(path: output.file.output, format: output.format, by: "render")
                let destination = try output.file.open(format: kind.rawValue, reporter: reporter)
                try destination.commit {
                    let writer = destination.writer
                    try writer.begin(.init())
                    for path in inputs {
                        let source = try FeatureInput(path: path, format: format, options: ReadOptions(
                            diagnostics: reporter.report, coordinates: .geographic(for: destination.format.displayName)), registry: .commandLine)
                        _ = try source.reader.readMetadata()
                        while let feature = try source.reader.next() { try writer.write(feature) }
                    }
                    try writer.finish(.init())
                }
            }
        }
    }
}
