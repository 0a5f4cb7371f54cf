import Foundation
import GDALSupport
import MeridianCommandLine
import MeridianFormats
import MeridianOGR

// GDAL's format errors in the words of the formats' options (`--from`, `--to`); the tiling
// libraries' errors are worded in MeridianTilingCommandLine.

extension OGRFormatError: WordedForCommandLine {
    public var commandLineMessage: String { message }

    /// For a format name (`--from`, `--to`): the drivers that write it as an extension, else
    /// the nearest name Meridian or GDAL knows.
    public var commandLineHint: String? {
        switch self {
        case .unknownFormat(let name):
            let writers = OGRFormats.writers(forExtension: name).map(\.name)
            if !writers.isEmpty {
                return "GDAL writes .\(name.lowercased()) as \(listed(writers)): name one of them (`meridian formats` lists every format)"
            }
            let known = FormatRegistry.meridian.formats.flatMap { [$0.id] + $0.aliases } + CommonGDALFormat.names + OGRFormats.drivers.map(\.name)
            if let near = Suggestions.closest(to: name, among: known) {
                return "did you mean '\(near)'? (`meridian formats` lists every format)"
            }
            return "neither Meridian nor GDAL \(GDAL.version) knows it: `meridian formats` lists them all"
        case .formatNotImplied:
            return "name it with --to (`meridian formats` lists them)"
        }
    }
}
