import Foundation
import MeridianGeometry
import MeridianPicture
import Synchronization
import Testing

/// `FeatureTiles`: features drawn into image tiles, each tile the picture of its own square.
@Suite struct FeatureTilesTests {
    /// One pixel of a tile's RGBA rows.
    func pixel(_ rgba: [UInt8], _ x: Int, _ y: Int, size: Int = 256) -> [UInt8] { Array(rgba[(y * size + x) * 4..<(y * size + x) * 4 + 4]) }

    /// A blue line 4 points wide crossing the edge between tiles 2/1/1 and 2/2/1 is in both,
    /// on the same row at the edge, opaque blue; nothing is drawn in tiles it does not reach.
    @Test func aLineCrossingAnEdgeIsDrawnIntoBothTiles() throws {
        let latitude = 40.0
        let line = Feature(geometry: .lineString(LineString([Position(longitude: -20, latitude: latitude), Position(longitude: 20, latitude: latitude)])),
                           properties: ["stroke": "#0000ff", "stroke-width": 4])
        let tiles = FeatureTiles(features: [line], tileSize: 256)
        let row = Int(MapPoint(Position(longitude: 0, latitude: latitude)).y / MapWorld.size * 1024) - 256
        let west = try #require(try tiles.draw(MapTile(zoom: 2, x: 1, y: 1)))
        let east = try #require(try tiles.draw(MapTile(zoom: 2, x: 2, y: 1)))
        #expect(pixel(west, 255, row) == [0, 0, 255, 255] && pixel(east, 0, row) == [0, 0, 255, 255])
        #expect(pixel(west, 255, row - 4)[3] == 0 && pixel(west, 0, 0)[3] == 0)
        #expect(try tiles.draw(MapTile(zoom: 2, x: 1, y: 2)) == nil)

        let drawn = Mutex<[MapTile]>([])
        #expect(try tiles.drawTiles(zooms: 2...2, jobs: 2) { tile, _ in drawn.withLock { $0.append(tile) } } == 2)
        #expect(Set(drawn.withLock { $0 }) == [MapTile(zoom: 2, x: 1, y: 1), MapTile(zoom: 2, x: 2, y: 1)])
    }

    /// A pin whose tip is just inside the top of a tile has its head in the tile above, so it is
    /// drawn there too.
    @Test func aPinReachesIntoTheTileAboveItsTip() throws {
        let edge = MapTile(zoom: 3, x: 4, y: 3).mapRect
        let tip = MapPoint(x: edge.midX, y: edge.minY + 3 * edge.size.height / 256).position
        let pin = Feature(geometry: .point(Point(tip)), properties: ["marker-color": "#ff0000"])
        let tiles = FeatureTiles(features: [pin], tileSize: 256)
        #expect(try tiles.draw(MapTile(zoom: 3, x: 4, y: 3)) != nil)
        let above = try #require(try tiles.draw(MapTile(zoom: 3, x: 4, y: 2)))
        #expect(pixel(above, 128, 250)[3] == 255)
    }
}
