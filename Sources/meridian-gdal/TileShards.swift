import Foundation
import MeridianCommandLine
import MeridianFormats
import MeridianRaster

/// `meridian tile --shard K/N` and `--finish`: a run split across the machines of a batch engine.
extension Tile {
    /// The run every shard and the --finish belong to: the inputs, the options and N.
    func runIdentity(_ tiler: Tiler, shards: Int) throws -> TilingRunIdentity {
        try tiler.identity(output: outputFields + [("shards", "\(shards)")])
    }

    /// This process's shard: `--shard K/N`, or for `auto` the batch engine's environment
    /// (read once, here, before any thread starts).
    func resolvedShard(_ text: String) throws -> TileShard {
        if text != "auto" { return TileShard(text)! }   // validate() checked it
        return try TileShard.fromEnvironment(ProcessInfo.processInfo.environment, count: shards)
    }

    /// Runs this process's shard into the shared output (a folder) or its own MBTiles file in
    /// the shards' folder; nil when the shard had already completed.
    func runShard(_ tiler: Tiler, shard text: String) throws -> TilingSummary? {
        let shard = try resolvedShard(text)
        if let shards, shards != shard.count {
            throw MeridianError(.usage, "--shards \(shards) disagrees with --shard \(shard)")
        }
        let run = try runIdentity(tiler, shards: shard.count)
        let identity = run.shard(shard.index)
        let workspace = ShardWorkspace(output: output)
        guard let sink = try shardSink(shard, of: run, workspace: workspace) else { return nil }
        return try tiling { try tiler.runShard(shard, of: run, into: sink, workspace: workspace, progress: $0) }
    }

    /// Claims the shards' folder for `run` and opens shard `shard`'s sink: the shared folder, or
    /// its own MBTiles file in the shards' folder; nil (said) when the shard had completed.
    func shardSink(_ shard: TileShard, of run: TilingRunIdentity, workspace: ShardWorkspace, checkpointBytes: Int? = nil) throws -> TileSink? {
        try workspace.claim(for: run)
        guard !workspace.isComplete(shard.index, of: run) else {
            if !quiet { Reporter.printError("\(output): shard \(shard) has already completed; nothing to do") }
            return nil
        }
        let identity = run.shard(shard.index)
        if isMBTiles {
            // A shard's file that is whole but not marked complete was cut off before the mark: redo it.
            unlink(workspace.mbtiles(shard.index))
            return try MBTilesSink(path: workspace.mbtiles(shard.index), format: tileFormat, resume: resume, identity: identity, isShardPart: true,
                                   checkpointBytes: checkpointBytes)
        }
        return try FolderTileSink(path: output, scheme: rows, format: tileFormat, resume: resume,
                                  identity: identity, sharedState: workspace.state(shard.index), writesMetadata: false)
    }

    /// Joins the completed shards; nil when they had already been joined.
    func finishShards(_ tiler: Tiler) throws -> TilingSummary? {
        guard let joining = try joiningSink(identity: { try runIdentity(tiler, shards: $0) }) else { return nil }
        return try tiler.finishShards(count: joining.count, of: joining.run, into: joining.sink, workspace: joining.workspace)
    }

    /// For `--finish`: the number of shards and the run (`identity` of that number) the shards'
    /// folder records, checked against this one's, and the output's sink to join them into;
    /// nil (said) when they had been joined already.
    func joiningSink(identity: (Int) throws -> TilingRunIdentity, checkpointBytes: Int? = nil)
        throws -> (count: Int, run: TilingRunIdentity, workspace: ShardWorkspace, sink: TileSink)? {
        let workspace = ShardWorkspace(output: output)
        guard let recorded = workspace.recordedRun() else {
            throw MeridianError(.inputUnavailable, "no shards of this run have started (there is no \(workspace.path))",
                                at: SourceLocation(file: output), hint: "run the shards with --shard K/N or --shard auto first")
        }
        let recordedCount = recorded.fields.first { $0.name == "shards" }.flatMap { Int($0.value) }
        guard let count = shards ?? recordedCount, (1...TileShard.maximumCount).contains(count) else {
            throw MeridianError(.badInput, "the shards' folder records no number of shards from 1 to \(TileShard.maximumCount)",
                                at: SourceLocation(file: workspace.path + "/run"), hint: "the shards' folder is damaged: run the shards again into a new output")
        }
        let run = try identity(count)
        let differences = run.differences(from: recorded)
        guard differences.isEmpty else { throw TileOutputError.resumeMismatch(path: workspace.path, differences: differences) }
        if workspace.isFinished(run) {
            if !quiet { Reporter.printError("\(output): the \(count) shards were joined already; nothing to do") }
            return nil
        }
        // Checked before anything is made, so that a refused --finish changes nothing.
        try workspace.checkComplete(count: count, of: run)
        let sink: TileSink = isMBTiles
            ? try MBTilesSink(path: output, format: tileFormat, resume: false, identity: run, checkpointBytes: checkpointBytes)
            : try FolderTileSink(path: output, scheme: rows, format: tileFormat, resume: true,
                                 identity: run, sharedState: workspace.finishState)
        return (count, run, workspace, sink)
    }
}
