import ArgumentParser
import MeridianFormats

/// The input every reading subcommand takes: a path or stdin, and an optional format override.
struct InputOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The input file; '-' or nothing reads standard input.", valueName: "input"))
    var input: String?

    @Option(name: .customLong("from"), help: ArgumentHelp(
        "The input format, when the extension and the first bytes do not tell (\(Formats.readable)).",
        valueName: "format"))
    var format: String?

    @Option(help: ArgumentHelp("KML folders: 'flat' (a folder property on each feature) or 'tree' (nested, like togeojson's kmlWithFolders; convert only).",
                               valueName: "flat|tree"))
    var folders: KMLReadOptions.Folders = .flat

    @Option(help: ArgumentHelp("KML: keep only the features inside the Folder or Document of this name.", valueName: "name"))
    var layer: String?

    /// Opens the input, sending the reader's warnings to stderr.
    func open(reporter: Reporter) throws -> FeatureInput {
        try FeatureInput(path: input, format: format,
                         options: ReadOptions(diagnostics: reporter.report, kml: KMLReadOptions(folders: folders, layer: layer)))
    }
}

/// The output every writing subcommand takes: a path or stdout, a format, and how to write it.
struct OutputOptions: ParsableArguments {
    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp(
        "The output file, written atomically; '-' or nothing writes standard output.", valueName: "path"))
    var output: String?

    @Option(name: .customLong("to"), help: ArgumentHelp(
        "The output format, when the extension does not tell (\(Formats.writable)); default geojson.",
        valueName: "format"))
    var format: String?

    @Option(help: ArgumentHelp("Round coordinates to this many decimal places (default: exact).", valueName: "digits"))
    var precision: Int?

    @Flag(help: "Indent the output instead of writing one feature per line.")
    var pretty = false

    func validate() throws {
        if let precision, !(0...17).contains(precision) {
            throw ValidationError("--precision must be between 0 and 17")
        }
    }

    func open(protecting input: String?) throws -> FeatureOutput {
        try FeatureOutput(path: output, format: format,
                          options: WriteOptions(precision: precision, pretty: pretty),
                          protectedInput: input)
    }
}

enum Formats {
    static var readable: String { FormatRegistry.standard.formats.filter(\.canRead).map(\.id).joined(separator: ", ") }
    static var writable: String { FormatRegistry.standard.formats.filter(\.canWrite).map(\.id).joined(separator: ", ") }
}

/// How a subcommand reports: warnings on stderr unless --quiet.
struct ReportingOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print no warnings (errors are still printed).")
    var quiet = false

    var reporter: Reporter { Reporter(quiet: quiet) }
}

extension KMLReadOptions.Folders: ExpressibleByArgument {}
