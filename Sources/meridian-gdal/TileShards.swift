import Foundation
import MeridianCommandLine
import MeridianCore
import MeridianFormats
import MeridianRaster
import MeridianTiles

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
        let workspace = ShardWorkspace(output: output)
        guard let sink = try shardSink(shard, of: run, workspace: workspace) else { return nil }
        return try tiling { try tiler.runShard(shard, of: run, into: sink, workspace: workspace, progress: $0) }
    }

    /// Claims the shards' folder for `run` and opens shard `shard`'s sink; nil (said) when the shard had completed.
    func shardSink(_ shard: TileShard, of run: TilingRunIdentity, workspace: ShardWorkspace) throws -> TileSink? {
        let sink = try workspace.openShardSink(shard, of: run, output: output, format: tileFormat, scheme: rows, resume: resume)
        if sink == nil && !quiet { Reporter.printError("\(output): shard \(shard) has already completed; nothing to do") }
        return sink
    }

    /// Joins the completed shards; nil when they had already been joined.
    func finishShards(_ tiler: Tiler) throws -> TilingSummary? {
        guard let joining = try joiningSink(identity: { try runIdentity(tiler, shards: $0) }) else { return nil }
        return try tiler.finishShards(count: joining.count, of: joining.run, into: joining.sink, workspace: joining.workspace)
    }

    /// For `--finish`: the shards' number and run, and the output's sink to join them into;
    /// nil (said) when they had been joined already.
    func joiningSink(identity: (Int) throws -> TilingRunIdentity) throws -> (count: Int, run: TilingRunIdentity, workspace: ShardWorkspace, sink: TileSink)? {
        let workspace = ShardWorkspace(output: output)
        let joining = try workspace.openJoining(output: output, count: shards, format: tileFormat, scheme: rows, identity: identity)
        guard let sink = joining.sink else {
            if !quiet { Reporter.printError("\(output): the \(joining.count) shards were joined already; nothing to do") }
            return nil
        }
        return (joining.count, joining.run, workspace, sink)
    }
}
