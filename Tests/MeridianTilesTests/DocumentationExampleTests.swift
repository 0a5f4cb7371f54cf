import MeridianGeometry
import MeridianTestSupport
import MeridianTiles
import Testing

/// The example in MeridianTiles.docc/ReadingAndWritingMBTiles.md, kept compiling and true.
@Suite struct DocumentationExampleTests {
    @Test func readingAndWritingMBTiles() throws {
        try withTemporaryFolderPath { folder in
            let path = folder + "/overlay.mbtiles"
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47]  // a tile's bytes (a real PNG in practice)

            // Write: tiles by their XYZ address, committed a block at a time, then the metadata.
            let writer = try MBTilesWriter(path: path, resume: false, run: [("input", "chart.tif")]) { _ in }
            let block = MapTile(zoom: 3, x: 1, y: 2)
            try writer.write(block, data: png)
            try writer.write(MapTile(zoom: 4, x: 2, y: 4), data: png)
            try writer.markCompleted(block: block, tiles: 2)
            try writer.finish(metadata: MBTilesMetadata(
                name: "chart", description: "A chart as an overlay", format: "png",
                bounds: BoundingBox(west: -135, south: 40.9799, east: -90, north: 66.5133),
                center: (longitude: -112.5, latitude: 55, zoom: 3), minZoom: 3, maxZoom: 4))

            // Read: the metadata, the zoom levels and any tile by its XYZ address.
            let file = try MBTilesFile(path: path)
            #expect(file.metadata["format"] == "png")
            #expect(file.metadata["minzoom"] == "3" && file.metadata["maxzoom"] == "4")
            #expect(try file.zoomLevels() == [3, 4])
            #expect(try file.tile(MapTile(zoom: 3, x: 1, y: 2)) == png)
            #expect(try file.tile(MapTile(zoom: 3, x: 0, y: 0)) == nil)
            // Stored TMS-style: row 2 from the top at zoom 3 is row 5 from the bottom.
            #expect(MapTile(zoom: 3, x: 1, tmsY: 5) == block)
        }
    }
}
