// The reporter and progress line live in MeridianCommandLine, shared with `meridian-gdal`;
import MeridianFormats
// re-exported here so every file of this target sees them without its own import.
@_exported import MeridianCommandLine

extension ProgressLine {
    convenience init(reporting: ReportingOptions, input: BufferedInput? = nil) {
        self.init(quiet: reporting.quiet, input: input)
    }
}
