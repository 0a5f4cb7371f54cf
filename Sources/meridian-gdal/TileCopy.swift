import ArgumentParser
import MeridianCommandLine
import MeridianFormats
import MeridianTiles

/// `meridian-gdal tile-copy`, hidden: runs the `TileCopyRequest` that `meridian tile-copy` parsed.
struct TileCopy: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: TileCopyRequest.subcommand, abstract: "Run the request meridian tile-copy made (not for people).", shouldDisplay: false)

    @Argument(parsing: .captureForPassthrough, help: "The request's words, name=value.")
    var words: [String] = []

    func run() throws {
        var decoded: TileCopyRequest?
        try Reporter().run { decoded = try TileCopyRequest(words: words) }
        guard let request = decoded else { return }
        try Reporter(quiet: request.quiet).run {
            RunInputs.record(request.source)
            let pyramid = try TilePyramids.open(request.source)
            let copied = try TileSinks.copy(pyramid, to: request.destination, zooms: request.zooms)
            if !request.quiet { Reporter.printError("\(request.destination): \(copied) tiles copied from \(request.source)") }
        }
    }
}
