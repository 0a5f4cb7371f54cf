import ArgumentParser
import MeridianCore
import MeridianCoverage
import MeridianFormats
import MeridianGeometry

extension Commands {
    struct CoverageValidate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate",
            abstract: "Check coverage files against every rule, with the place and fix of each problem.",
            discussion: """
                Errors (App Store Connect rejects the file or Maps misreads it): \
                \(CoverageRule.allCases.filter { $0.severity == .error }.map(\.id).joined(separator: ", ")). \
                Warnings: \(CoverageRule.allCases.filter { $0.severity == .warning }.map(\.id).joined(separator: ", ")).
                Polygon, ring and position numbers count from 1 in the text report and from 0 in JSON.
                Exit status: 0 when every file is valid (warnings allowed), 1 when any has an error \
                (or, with --strict, a warning). The JSON report's "valid" is App Store Connect's \
                verdict and "passes" the check's as run (false on a warning with --strict), as the \
                exit status says.

                Example:
                  meridian coverage validate RoutingAppCoverage.geojson --format json
                """
        )

        enum ReportFormat: String, ExpressibleByArgument, CaseIterable { case text, json }

        @Argument(help: ArgumentHelp("Coverage files ('-' for standard input).", valueName: "file"))
        var files: [String] = ["-"]

        @Option(help: "How to print the reports.") var format: ReportFormat = .text
        @Flag(help: "Fail on warnings too.") var strict = false
        @Option(help: ArgumentHelp("Draw the file's polygons, coloured by their issues, with a pin where each finding points, as a picture (.png or .svg). An existing file is refused unless --force is given.", valueName: "path"))
        var preview: String?
        @OptionGroup(title: "Pictures (svg, png)") var picture: PictureArguments
        @OptionGroup var replacing: ReplaceOption

        func validate() throws {
            if preview != nil && (files.count != 1 || files == ["-"]) { throw ValidationError("--preview draws one named file at a time") }
            if replacing.force && preview == nil {
                throw ValidationError("--force replaces an existing --preview picture, and validate writes no other file: give --preview PATH, or leave --force out")
            }
        }

        func run() throws {
            let validator = CoverageValidator()
            var reports: [CoverageReport] = []
            try Reporter().run {
                RunInputs.record(files)
                if let preview { try picture.refusePNGOnlyOptions(for: PictureKind.chosen(path: preview, format: nil, by: "--preview")) }
                for file in files { reports.append(try validator.validate(path: file)) }
                if let preview, let report = reports.first {
                    try drawPreview(of: report, to: preview)
                }
            }
            let out = OutputSink.standardOutput()
            switch format {
            case .json:
                let values = reports.map { $0.jsonValue(strict: strict) }
                writeJSON(values.count == 1 ? values[0] : .array(values), to: out)
            case .text:
                let colour = isatty(STDOUT_FILENO) == 1
                for report in reports { out.write(report.text(colour: colour, strict: strict, strictCheck: "--strict")) }
            }
            try out.flush()
            if reports.contains(where: { !$0.passes(strict: strict) }) { throw ExitCode(1) }
        }
    }
}

extension Commands.CoverageValidate {
    func drawPreview(of report: CoverageReport, to path: String) throws {
        let features = CoveragePreview.features(report)
        guard !features.isEmpty else {
            Reporter().report(Diagnostic(.warning, "no preview: the file has no polygons to draw", at: SourceLocation(file: report.file)))
            return
        }
        var options = WriteOptions(formatOptions: picture.options)
        options.replacesExisting = replacing.force
        let kind = try PictureKind.chosen(path: path, format: nil, by: "--preview")
        let output = try FeatureOutput(path: path, format: kind.rawValue, options: options, registry: .commandLine)
        try output.commit { try copyFeatures(from: FeatureList(features), to: output.writer) }
    }
}
