import Foundation
import MeridianGeometry
@testable import MeridianPicture
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
        #expect(try tiles.drawTiles(zoom: 2, jobs: 2) { tile, _ in drawn.withLock { $0.append(tile) } } == 2)
        #expect(Set(drawn.withLock { $0 }) == [MapTile(zoom: 2, x: 1, y: 1), MapTile(zoom: 2, x: 2, y: 1)])
    }

    /// A polygon whose ring jumps over ±180° (179.5 → -179.5) is one small piece at the
    /// world's two edges, as a picture of it shows it: drawn into the tiles on both sides of
    /// ±180°, where they meet, and not as a band round the world. Both ways of writing it (one
    /// ring across, or RFC 7946's two pieces) and tiles drawn one by one or all together agree.
    @Test(arguments: [false, true])
    func aPolygonAcrossTheAntimeridianIsOnePiece(_ split: Bool) throws {
        let ring = [(179.5, -17.0), (-179.5, -17.0), (-179.5, -16.0), (179.5, -16.0), (179.5, -17.0)].map { Position(longitude: $0, latitude: $1) }
        let polygon = Polygon([ring])
        let geometry = split ? Antimeridian.cut(.polygon(polygon)) : .polygon(polygon)
        let tiles = FeatureTiles(features: [Feature(geometry: geometry, properties: ["fill": "#ff0000", "stroke-width": 0])], tileSize: 256)
        let row = Int(MapPoint(Position(longitude: 0, latitude: -16.5)).y / MapWorld.size * 512) - 256
        let west = try #require(try tiles.draw(MapTile(zoom: 1, x: 0, y: 1)))
        let east = try #require(try tiles.draw(MapTile(zoom: 1, x: 1, y: 1)))
        /// The columns of a tile's row with something drawn.
        func drawnColumns(_ rgba: [UInt8]) -> [Int] { (0..<256).filter { pixel(rgba, $0, row)[3] > 0 } }
        // Half a degree is about 0.36 pixels at zoom 1: a pixel or two at each edge, nothing between.
        #expect(drawnColumns(west) == [0], "\(drawnColumns(west))")
        #expect(drawnColumns(east) == [255], "\(drawnColumns(east))")
        #expect(try tiles.draw(MapTile(zoom: 1, x: 0, y: 0)) == nil)

        let drawn = Mutex<[MapTile]>([])
        #expect(try tiles.drawTiles(zoom: 4, jobs: 2) { tile, _ in drawn.withLock { $0.append(tile) } } == 2)
        #expect(Set(drawn.withLock { $0 }.map(\.x)) == [0, 15])
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

    /// A level is drawn streamed at zooms 0-2, then from blocks at zoom 3, 9, 15, …: the deepest
    /// of those at most the level, so a block holds at most 32 by 32 of its tiles.
    @Test func levelsAreDrawnFromBlocksSixLevelsApartFromZoomThree() {
        #expect((0...16).map { FeatureTiles.blockZoom(for: $0) }
            == [nil, nil, nil, 3, 3, 3, 3, 3, 3, 9, 9, 9, 9, 9, 9, 15, 15])
    }

    /// Tiles drawn in a run (streamed for zooms 0-2, from blocks set aside on disk below) are
    /// the tiles drawn one at a time: the same pixels, and only the tiles something reaches.
    /// Styled lines, a polygon with a hole and pins, south and west of the equator too.
    @Test func aRunDrawsWhatEachTileDrawnAloneShows() throws {
        let ring = [(-70.0, -30.0), (-20.0, -30.0), (-20.0, 10.0), (-70.0, 10.0), (-70.0, -30.0)].map { Position(longitude: $0.0, latitude: $0.1) }
        let hole = [(-50.0, -20.0), (-50.0, 0.0), (-30.0, 0.0), (-30.0, -20.0), (-50.0, -20.0)].map { Position(longitude: $0.0, latitude: $0.1) }
        let features = [
            Feature(geometry: .polygon(Polygon([ring, hole])), properties: ["fill": "#00ff00", "fill-opacity": 0.5, "stroke": "#004400", "stroke-width": 3]),
            Feature(geometry: .lineString(LineString((0...40).map { Position(longitude: -100 + Double($0) * 4, latitude: 35 * sin(Double($0) / 6)) })),
                    properties: ["stroke": "#ff0000", "stroke-width": 6]),
            Feature(geometry: .multiPoint(MultiPoint([Position(longitude: -45, latitude: -10), Position(longitude: 120, latitude: -33.9)])),
                    properties: ["marker-color": "#0000ff"]),
        ]
        let tiles = FeatureTiles(features: features, tileSize: 256)
        let drawn = Mutex<[MapTile: [UInt8]]>([:])
        let count = try (1...4).reduce(0) { count, zoom in
            try count + tiles.drawTiles(zoom: zoom, jobs: 2) { tile, pixels in drawn.withLock { $0[tile] = pixels } }
        }
        let byTile = drawn.withLock { $0 }
        #expect(count == byTile.count && count > 40)
        for zoom in 1...4 {
            for y in 0..<(1 << zoom) {
                for x in 0..<(1 << zoom) {
                    let tile = MapTile(zoom: zoom, x: x, y: y)
                    #expect(try tiles.draw(tile) == byTile[tile], "tile \(tile)")
                }
            }
        }
    }
}
