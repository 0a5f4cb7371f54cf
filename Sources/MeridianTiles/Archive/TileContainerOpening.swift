import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry

/// What a tile sink is opened for. Each container opens its own sink for each purpose in
/// `TileContainer.openSink(at:format:scheme:for:replacing:)`, the one place that does.
public enum TileSinkPurpose {
    /// A tiling run into the output, continuing an interrupted run of the same identity when
    /// `resume` (where the container keeps one). `identity` gives the run's identity, asked only
    /// by a container that records it; `checkpointBytes` commits an MBTiles file's tiles that
    /// often when a run's blocks are large.
    case run(resume: Bool, checkpointBytes: Int?, identity: () throws -> TilingRunIdentity)
    /// A new tile set written in one go that no run resumes (`tile-copy`, `tile-join`): staged
    /// out of sight and moved into place when finished; an existing output is refused.
    case newSet
    /// Shard `index`'s part of the run split across machines whose shard identity is
    /// `identity`, with its state in `workspace`, continuing its interrupted attempt when `resume`.
    case shardPart(index: Int, workspace: ShardWorkspace, identity: TilingRunIdentity, resume: Bool, checkpointBytes: Int?)
    /// The joining of the completed shards (in `workspace`) of the run `identity` into the output.
    case joining(workspace: ShardWorkspace, identity: TilingRunIdentity, checkpointBytes: Int?)
}

extension TileContainer {
    /// Whether a run into the container keeps what it stored when it is interrupted, for a
    /// later run to continue: a folder and an MBTiles file do; a PMTiles archive is laid out
    /// whole at the end, so an interrupted one leaves nothing.
    public var keepsInterruptedRuns: Bool { self != .pmtiles }

    /// The container's sink at `path` for `purpose`: the one place that chooses a sink class
    /// and how it is opened, for every kind of tiles and every subcommand that writes them.
    /// - Parameters:
    ///   - path: The output: a folder, an MBTiles file or a PMTiles archive, as the container is.
    ///   - format: The tiles' format.
    ///   - scheme: How a folder counts its rows (other containers have their own).
    ///   - purpose: A run (resumable where the container is), a new tile set, a shard's part or
    ///     the joining of the shards.
    ///   - replacing: Whether the finished file (MBTiles, PMTiles) replaces a regular file at
    ///     `path`. A folder is never replaced: it may hold anyone's files.
    /// - Throws: The sink's errors: an existing output refused, one that cannot be made, a
    ///   resumed run that is another's; `MeridianError` (usage) for `replacing` a folder or a shard's part.
    public func openSink(at path: String, format: TileFormat, scheme: TileScheme, for purpose: TileSinkPurpose,
                         replacing: Bool = false) throws -> TileSink {
        if replacing {
            if self == .folder {
                throw MeridianError(.usage, "a folder of tiles is never replaced: it may hold files no run made", at: SourceLocation(file: path),
                                    hint: "remove it or choose another path, or write an .mbtiles file or a .pmtiles archive")
            }
            if case .shardPart = purpose {
                throw MeridianError(.usage, "a shard's part is never replaced: it is continued or made again", at: SourceLocation(file: path))
            }
        }
        switch (self, purpose) {
        case (.folder, .run(let resume, _, let identity)):
            return try FolderTileSink(path: path, scheme: scheme, format: format, resume: resume, identity: identity())
        case (.folder, .newSet):
            return try FolderTileSink(staging: path, scheme: scheme, format: format)
        case (.folder, .shardPart(let index, let workspace, let identity, let resume, _)):
            // The shards write their tiles into the folder itself; each keeps its state in the workspace.
            return try FolderTileSink(path: path, scheme: scheme, format: format, resume: resume, identity: identity,
                                      sharedState: workspace.state(index), writesMetadata: false)
        case (.folder, .joining(let workspace, let identity, _)):
            return try FolderTileSink(path: path, scheme: scheme, format: format, resume: true, identity: identity, sharedState: workspace.finishState)
        case (.mbtiles, .run(let resume, let checkpointBytes, let identity)):
            return try MBTilesSink(path: path, format: format, resume: resume, identity: identity(), checkpointBytes: checkpointBytes,
                                   replacing: replacing)
        case (.mbtiles, .newSet):
            // Its blocks are not marked: tiles are committed every few megabytes instead.
            return try MBTilesSink(path: path, format: format, resume: false,
                                   identity: TilingRunIdentity(fields: [.init(name: "kind", value: format.displayName)]),
                                   checkpointBytes: 8 << 20, removeOnSignal: true, replacing: replacing)
        case (.mbtiles, .joining(_, let identity, let checkpointBytes)):
            return try MBTilesSink(path: path, format: format, resume: false, identity: identity, checkpointBytes: checkpointBytes,
                                   replacing: replacing)
        case (.pmtiles, .run), (.pmtiles, .newSet), (.pmtiles, .joining):
            // Written in one go: nothing to resume, no identity to record.
            return try PMTilesSink(path: path, format: format, replacing: replacing)
        case (_, .shardPart(let index, let workspace, let identity, let resume, let checkpointBytes)):
            // A file container's shards each write an MBTiles part of their own in the
            // workspace (SQLite must not be written by several hosts), which the joining's
            // sink adopts. A part that is whole but not marked complete was cut off before
            // the mark: it is made again.
            unlink(workspace.mbtiles(index))
            return try MBTilesSink(path: workspace.mbtiles(index), format: format, resume: resume, identity: identity, isShardPart: true,
                                   checkpointBytes: checkpointBytes)
        }
    }

    /// The container's reader of the pyramid at `path`: the one place that chooses a reader class.
    /// - Parameters:
    ///   - path: The pyramid: a folder, an MBTiles file or a PMTiles archive, as the container is.
    ///   - readingFolderWithoutMetadata: Whether a folder without `metadata.json` is read too
    ///     (`TileFolderReader.init(path:readingFolderWithoutMetadata:)`); other containers state
    ///     their metadata themselves.
    /// - Throws: `MeridianError` (input unavailable) when the file cannot be opened, (bad input)
    ///   when it is not a pyramid of this container.
    public func openReader(at path: String, readingFolderWithoutMetadata: Bool = false) throws -> any TilePyramidReader {
        switch self {
        case .mbtiles: return try MBTilesFile(path: path)
        case .pmtiles: return try PMTilesFile(path: path)
        case .folder:
            guard Self.isFolder(path) else {
                throw MeridianError(.badInput, "not a tile pyramid", at: SourceLocation(file: path),
                                    hint: readingFolderWithoutMetadata ? "give a folder of z/x/y tiles, an .mbtiles file or a .pmtiles archive"
                                        : "give a tile folder with metadata.json, an .mbtiles file or a .pmtiles archive")
            }
            return try TileFolderReader(path: path, readingFolderWithoutMetadata: readingFolderWithoutMetadata)
        }
    }

    /// Whether `path` is a folder (or a link the user gave to one: the input itself, not a link inside it).
    private static func isFolder(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
    }
}
