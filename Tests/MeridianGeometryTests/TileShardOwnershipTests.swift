import MeridianGeometry
import Testing

/// Which shard makes a tile: every tile exactly one shard's, shared out evenly, and a node's
/// "does any tile of the level under it belong to the shard" the same as asking each tile.
@Suite struct TileShardOwnershipTests {
    @Test(arguments: [1, 3, 4, 7])
    func everyTileIsOneShardsAndTheAnswersForNodesAgreeWithTheTiles(count: Int) throws {
        let shards = try (0..<count).map { try #require(TileShardOwnership(index: $0, count: count)) }
        for zoom in [2, 5, 8, 10] {
            let side = 1 << min(zoom, 6)
            var perShard = Array(repeating: 0, count: count)
            for y in 0..<side {
                for x in 0..<side {
                    let tile = MapTile(zoom: zoom, x: x, y: y)
                    let owners = shards.filter { $0.owns(tile) }
                    #expect(owners.count == 1)
                    perShard[owners[0].index] += 1
                }
            }
            // Evenly: no shard has under half its share of a level of thousands of tiles.
            if side * side >= 1024 { #expect(perShard.allSatisfy { Double($0) > 0.5 * Double(side * side) / Double(count) }, "\(perShard)") }
            for node in [MapTile(zoom: min(zoom, 8) - 2, x: 1, y: 0), MapTile(zoom: max(0, zoom - 2), x: 1, y: 2), MapTile(zoom: zoom, x: 3, y: 1)] where node.zoom <= zoom {
                let shift = zoom - node.zoom
                let tiles = ((node.y << shift)..<((node.y + 1) << shift)).flatMap { y in
                    ((node.x << shift)..<((node.x + 1) << shift)).map { MapTile(zoom: zoom, x: $0, y: y) }
                }
                for shard in shards {
                    #expect(shard.ownsAny(atZoom: zoom, under: node) == tiles.contains(where: shard.owns), "\(shard) \(node) at \(zoom)")
                }
            }
        }
        #expect(TileShardOwnership("2/3") == TileShardOwnership(index: 2, count: 3))
        #expect(TileShardOwnership("3/3") == nil && TileShardOwnership("1") == nil && TileShardOwnership(index: 0, count: 0) == nil)
    }
}
