import Foundation
import MeridianCommandLine
import MeridianRaster
import MeridianTiling
import MeridianTiles

// The tiling libraries' typed errors, and the notes a raster source gives, in the words of
// `meridian tile`'s options: the library says "the raster has no band 7", the command line
// says which option asked for it. Here rather than in MeridianCommandLine because these
// types live in modules that `meridian` (which links no GDAL) does not link.

extension RasterSourceError: WordedForCommandLine {
    /// The message, naming the option of `meridian tile` that asked for what failed.
    public var commandLineMessage: String {
        switch self {
        case .unsupportedBandCount(let count): "--bands takes one band (gray) or three (red, green, blue), not \(count)"
        case .noSuchBand: "--bands: \(message)"
        case .tooFewControlPoints(let count): "give at least three control points (--gcp PIXEL,LINE,LAT,LON), not \(count)"
        case .tooManyControlPoints: "--gcp: \(message)"
        case .noGeoreferencing: message
        }
    }

    /// What to do about it, in terms of `meridian tile`'s options.
    public var commandLineHint: String? {
        switch self {
        case .noGeoreferencing(let path): "give control points: --gcp PIXEL,LINE,LAT,LON three times or more, or save them beside it in \(ControlPointFile.sidecarPath(of: (path as NSString).lastPathComponent)) (QGIS Georeferencer's format)"
        case .unsupportedBandCount, .noSuchBand, .tooFewControlPoints, .tooManyControlPoints: hint
        }
    }
}

extension RasterSourceNote {
    /// The note as `meridian tile` prints it, naming the option that changes what it says.
    public var commandLineText: String {
        switch self {
        case .firstThreeBandsTiled: "\(description) (choose with --bands)"
        case .scaledToBytes: description
        }
    }
}

extension TileOutputError: WordedForCommandLine {
    /// The message, naming the option of `meridian tile` that asked for what failed.
    public var commandLineMessage: String {
        switch self {
        case .folderNotEmpty: message
        case .nothingToResume, .resumeMismatch: "--resume: \(message)"
        case .shardStarted: "--shard: \(message)"
        case .leafletMissing(_, let leaflet): "--viewer needs Leaflet at \(leaflet) (Debian package libjs-leaflet)"
        case .mapLibreMissing: "--viewer: \(message)"
        case .noShardsStarted, .shardCountMissing, .interruptedRunLeftover: message
        }
    }

    /// What to do about it, in terms of `meridian tile`'s options.
    public var commandLineHint: String? {
        switch self {
        // --resume only where it can continue: a folder holding an interrupted run's state.
        case .folderNotEmpty(let path) where FileManager.default.fileExists(atPath: path + "/" + FolderTileSink.stateFile):
            "it holds an interrupted run: --resume continues it; otherwise remove the folder or choose another"
        case .folderNotEmpty: "remove the folder or choose another"
        case .nothingToResume: "it is a finished tile set or another program's files; run without --resume into a new or empty output"
        case .shardStarted: "give --resume to continue it (batch scripts should always give it, so that a retried shard continues)"
        case .resumeMismatch, .leafletMissing, .mapLibreMissing, .shardCountMissing: hint
        case .noShardsStarted: "run the shards with --shard K/N or --shard auto first"
        // tile-copy and tile-join word it this way too: their runs cannot be resumed.
        case .interruptedRunLeftover(let partial):
            "if meridian tile left it, the same command with --resume continues that run; otherwise remove it (rm -- \(shellQuoted(partial))) and run again"
        }
    }
}

extension TileShardError: WordedForCommandLine {
    /// The message, naming the option of `meridian tile` that asked for what failed.
    public var commandLineMessage: String {
        switch self {
        case .countDisagrees(let given, let engine): "--shards \(given) disagrees with the job array's \(engine) tasks (SLURM_ARRAY_TASK_COUNT, MIN, MAX)"
        case .noArrayJob: "--shard auto found \(message)"
        default: "--shard auto: \(message)"
        }
    }

    /// What to do about it, in terms of `meridian tile`'s options.
    public var commandLineHint: String? {
        switch self {
        case .noArrayJob: "run it as an array job, or give --shard K/N"
        case .noCount: "give --shards N (a Kubernetes Job's completions, an AWS Batch array's size)"
        default: hint
        }
    }
}

extension TilePyramidLevelError: WordedForCommandLine {
    /// The message, naming the option of `meridian tile` that asked for what failed.
    public var commandLineMessage: String { "the tile pyramid has zoom levels \(levels.lowerBound)-\(levels.upperBound): give the one to read with --zoom" }
    /// What to do about it, in terms of `meridian tile`'s options.
    public var commandLineHint: String? { nil }
}

extension TilingJobError: WordedForCommandLine {
    /// The message, naming the option of `meridian tile` that asked for what failed.
    public var commandLineMessage: String {
        switch self {
        case .layerNameCount(let given, let inputs): "give --layer-name once per input (\(inputs)), not \(given) times"
        case .notVectorData, .mixedInputs, .noDrawing: message
        case .kmlNeedsFolderOfImages: "--kml needs a folder of image tiles"
        case .choiceNotApplying(let choice, let kind): choice.refusal(for: kind).message
        }
    }

    /// What to do about it, in terms of `meridian tile`'s options.
    public var commandLineHint: String? {
        switch self {
        case .notVectorData: "tile rasters with --tile-format png, jpeg or webp, vector data with mvt"
        case .choiceNotApplying(let choice, let kind): choice.refusal(for: kind).hint
        case .mixedInputs, .layerNameCount, .noDrawing, .kmlNeedsFolderOfImages: hint
        }
    }
}
