import MeridianCore
import MeridianFormats

/// Why a tile set cannot be written where it was asked for, before any tile is.
public enum TileOutputError: MeridianFailure, Equatable {
    /// A new run's output folder already holds files.
    case folderNotEmpty(path: String)
    /// A resumed run's output holds no interrupted Meridian run (a finished tile set, another
    /// program's files).
    case nothingToResume(path: String)
    /// A resumed run's output holds a run of another input or other settings.
    case resumeMismatch(path: String, differences: [TilingRunIdentity.Difference])
    /// A shard's state exists (it ran before) and the run was not asked to resume.
    case shardStarted(path: String)
    /// The offline viewer copies Leaflet from `leaflet`, where it is not.
    case leafletMissing(folder: String, leaflet: String)
    /// The vector tiles' viewer copies MapLibre GL JS from the first of `searched` holding it,
    /// and none does.
    case mapLibreMissing(folder: String, searched: [String])
    /// Shards are to be joined into `output`, and none has started (its shards' folder `workspace` is missing).
    case noShardsStarted(output: String, workspace: String)
    /// The shards' folder records no number of shards a run can have (its `run` file, at `path`, is damaged).
    case shardCountMissing(path: String)
    /// A new run's MBTiles output has a killed run's partial file beside it (at `partial`),
    /// which a new run would overwrite: resuming that run continues it.
    case interruptedRunLeftover(partial: String)

    /// Usage for a resume that cannot continue; unavailable for a missing map library; cannot-create-output otherwise.
    public var kind: MeridianError.Kind {
        switch self {
        case .folderNotEmpty, .leafletMissing, .interruptedRunLeftover: .cannotCreateOutput
        case .nothingToResume, .resumeMismatch, .shardStarted: .usage
        case .mapLibreMissing: .unavailable
        case .noShardsStarted: .inputUnavailable
        case .shardCountMissing: .badInput
        }
    }

    /// The output (folder or file) concerned.
    public var location: SourceLocation? {
        switch self {
        case .folderNotEmpty(let path), .nothingToResume(let path), .resumeMismatch(let path, _), .shardStarted(let path): SourceLocation(file: path)
        case .leafletMissing(let folder, _), .mapLibreMissing(let folder, _): SourceLocation(file: folder)
        case .noShardsStarted(let output, _): SourceLocation(file: output)
        case .shardCountMissing(let path), .interruptedRunLeftover(let path): SourceLocation(file: path)
        }
    }

    /// What is wrong, in a sentence for the user (a mismatch lists the differing fields).
    public var message: String {
        switch self {
        case .folderNotEmpty: "the output folder is not empty"
        case .nothingToResume: "the output holds no interrupted Meridian run to continue"
        case .resumeMismatch(_, let differences):
            "the output holds a run of another input or other settings; nothing was written"
                + differences.map { "\n  \($0)" }.joined()
        case .shardStarted: "this shard has run before: its state is here"
        case .leafletMissing(_, let leaflet): "the viewer needs Leaflet at \(leaflet) (Debian package libjs-leaflet)"
        case .mapLibreMissing(_, let searched):
            "the viewer of vector tiles needs MapLibre GL JS (maplibre-gl.js and maplibre-gl.css), in none of \(searched.joined(separator: ", "))"
        case .noShardsStarted(_, let workspace): "no shards of this run have started (there is no \(workspace))"
        case .shardCountMissing: "the shards' folder records no number of shards from 1 to \(TileShard.maximumCount)"
        case .interruptedRunLeftover: "an interrupted run's partial file is beside the output"
        }
    }

    /// What the user can do about it.
    public var hint: String? {
        switch self {
        case .folderNotEmpty: "an interrupted run in it can be resumed; otherwise remove the folder or choose another"
        case .nothingToResume: "it is a finished tile set or another program's files; tile into a new or empty output"
        case .resumeMismatch: "resume with the same input and options, or tile into a new output"
        case .shardStarted: "resume the run to continue it"
        case .leafletMissing: "Scripts/bootstrap installs it"
        case .mapLibreMissing(_, let searched):
            "Scripts/bootstrap fetches it (the two files of PyPI's maplibre wheel, maplibre/srcjs/) into \(searched.first ?? "share/meridian/maplibre-gl")"
        case .noShardsStarted: "run the shards first"
        case .shardCountMissing: "the shards' folder is damaged: run the shards again into a new output"
        case .interruptedRunLeftover: "resuming the run that left it continues it; otherwise remove it and run again"
        }
    }
}
