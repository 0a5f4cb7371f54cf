import MeridianCommandLine
import MeridianCore
import MeridianRaster
import MeridianTiles
import MeridianTiling
import MeridianTilingCommandLine
import Testing

/// The tiling errors in the words of `meridian tile`: each names the option that asked for
/// what failed, and a run's notes say what its output holds.
@Suite struct TilingWordingTests {
    @Test func eachTileOutputErrorThatAnOptionCausesNamesIt() {
        let named: [(TileOutputError, String)] = [
            (.nothingToResume(path: "out"), "--resume"),
            (.resumeMismatch(path: "out", differences: []), "--resume"),
            (.shardStarted(path: "out"), "--shard"),
            (.leafletMissing(folder: "out", leaflet: "/usr/share/javascript/leaflet"), "--viewer"),
            (.mapLibreMissing(folder: "out", searched: ["/nowhere"]), "--viewer"),
        ]
        for (error, option) in named {
            #expect(error.commandLineMessage.contains(option), "\(error)")
            // The library's own words name no option.
            #expect(!error.message.contains(option), "\(error)")
        }
        #expect(TileOutputError.noShardsStarted(output: "out", workspace: "out.shards").commandLineHint?.contains("--shard") == true)
    }

    @Test func shardErrorsNameTheirOption() {
        let errors: [TileShardError] = [.notANumber(variable: "SLURM_ARRAY_TASK_ID", value: "x"), .outOfRange, .noArrayJob,
                                        .countDisagrees(given: 3, engine: 4), .noCount(variable: "JOB_COMPLETION_INDEX"),
                                        .tooManyShards(100_000), .indexOutside(variable: "SLURM_ARRAY_TASK_ID", index: 9, count: 4)]
        for error in errors {
            #expect(error.commandLineMessage.hasPrefix("--shard"), "\(error)")
        }
        #expect(TileShardError.noCount(variable: "X").commandLineHint?.contains("--shards N") == true)
    }

    @Test func aPyramidOfManyLevelsAsksForZoom() {
        let error = TilePyramidLevelError(path: "tiles.mbtiles", levels: 0...5)
        #expect(error.commandLineMessage.contains("--zoom"))
        #expect(error.commandLineMessage.contains("0-5"))
    }

    @Test func eachRefusedChoiceNamesItsFlag() {
        let choices: [TilingChoice] = [.tmsRows, .tileSize, .background, .quilt, .overzoom, .resampling, .noData, .bands, .excludedValues, .kml,
                                       .controlPoints, .controlPointMethod, .collarKept, .gdalWarperOnly, .stageTimes, .gdalCacheSize, .layerNames,
                                       .maximumTileBytes, .maximumTileFeatures, .dropRate, .baseZoom, .overLimit(.dropDensest), .extendedZooms,
                                       .clusterDistance, .accumulations, .tinyPolygonsLeftOut, .includedAttributes, .excludedAttributes,
                                       .allAttributesExcluded]
        var refused = 0
        for choice in choices {
            for kind in TilingJobKind.allCases where !choice.appliesTo.contains(kind) {
                let error = TilingJobError.choiceNotApplying(choice, kind)
                #expect(error.commandLineMessage.hasPrefix("--"), "\(choice) in \(kind.name)")
                #expect(error.commandLineMessage.contains(choice.optionName), "\(choice) in \(kind.name)")
                #expect(error.commandLineHint?.contains(choice.optionName) == true, "\(choice) in \(kind.name)")
                refused += 1
            }
        }
        #expect(refused >= choices.count)
        #expect(TilingJobError.layerNameCount(given: 3, inputs: 2).commandLineMessage.contains("--layer-name"))
        #expect(TilingJobError.kmlNeedsFolderOfImages.commandLineMessage.contains("--kml"))
        #expect(TilingJobError.notVectorData("a.tif").commandLineHint?.contains("--tile-format") == true)
    }

    func wording(output: String, arguments: [String], resume: Bool = false) -> TilingRunWording {
        var job = TilingJobRequest(inputs: ["countries.geojson"], output: output, jobs: 1)
        job.resume = resume
        var request = TileRequest(job: job)
        request.command = arguments
        return TilingRunWording(request: request)
    }

    @Test func aLevelRunStoppedBeforeItsFirstLevelSaysNothingWasKept() {
        let words = wording(output: "tiles", arguments: ["countries.geojson", "-o", "tiles"])
        let before = words.levelRunNote(started: false)
        #expect(!before.contains("--resume"))
        #expect(!before.contains("written so far"))
        #expect(before.contains("nothing was kept"))
        #expect(before.contains("meridian tile countries.geojson -o tiles\n"))
        let after = words.levelRunNote(started: true)
        #expect(after == words.resumeNote)
        #expect(after.contains("written so far are kept"))
        #expect(after.contains("meridian tile countries.geojson -o tiles --resume\n"))
    }

    @Test func aResumedOrPMTilesRunSaysTheSameBeforeAndAfter() {
        let resumed = wording(output: "tiles", arguments: ["countries.geojson", "-o", "tiles", "--resume"], resume: true)
        #expect(resumed.levelRunNote(started: false) == resumed.resumeNote)
        let archive = wording(output: "tiles.pmtiles", arguments: ["countries.geojson", "-o", "tiles.pmtiles"])
        #expect(archive.levelRunNote(started: false) == archive.resumeNote)
        #expect(!archive.resumeNote.contains("--resume"))
    }

    @Test func nothingToDoIsSaidUnlessQuiet() {
        let words = wording(output: "tiles", arguments: [])
        #expect(words.report(.alreadyJoined(count: 3), seconds: 1).messages == ["tiles: the 3 shards were joined already; nothing to do"])
        let unchanged = words.report(.unchanged, seconds: 1)
        #expect(unchanged.profile.isEmpty && unchanged.messages.isEmpty)
        var request = words.request
        request.quiet = true
        #expect(TilingRunWording(request: request).report(.alreadyJoined(count: 3), seconds: 1).messages.isEmpty)
    }
}
