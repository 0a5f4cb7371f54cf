import ArgumentParser
import MeridianCore
import MeridianCoverage
import MeridianFormats
import MeridianGeometry

extension Commands {
    struct Coverage: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "coverage",
            abstract: "Check routing-app coverage files before App Store submission.",
            discussion: """
                A routing app's coverage file tells Maps where to suggest the app: one GeoJSON \
                MultiPolygon of at most 20 polygons. 'validate' checks every rule App Store Connect \
                and Maps apply (and RFC 7946's); 'test' says whether a route would be covered.
                """,
            subcommands: [CoverageValidate.self, CoverageTest.self, CoverageFix.self, CoverageMake.self]
        )
    }
}

/// Writes a coverage file (one bare MultiPolygon, 6 decimals) atomically, or to stdout.
func writeCoverage(_ coverage: MultiPolygon, to output: String?, replacing: ReplaceOption) throws {
    let target = try OutputTarget.open(output, replacing: replacing.force)
    try target.commit { try CoverageFile.write(coverage, to: target.sink) }
}

/// What `validate --strict` still finds in a file `fix` or `make` wrote, each issue with the
/// written file's place and why it was left, then that the file fails (the exit status is 1).
func reportRemaining(_ issues: [CoverageIssue], in output: String?, reporter: Reporter, hint: String) {
    guard !issues.isEmpty else { return }
    let written = output ?? "<stdout>"
    for issue in issues {
        let whereText = issue.whereText.map { "\($0): " } ?? ""
        let why = issue.rule.whyLeftAsItIs.map { ": \($0)" } ?? ""
        reporter.report(Diagnostic(.warning, "\(whereText)\(issue.message); left as it is\(why)",
                                   at: SourceLocation(file: written, line: issue.line, column: issue.column), hint: hint))
    }
    reporter.report(Diagnostic(.note, "\(written) still fails 'meridian coverage validate --strict' (exit status 1)"))
}
