import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
@testable import MeridianTiles
import MeridianTestSupport
import Testing

/// `TilePyramidSummary`: what `meridian info` says of a tile pyramid, the same from every
/// container, with the tiles per level counted as the pyramid lists them.
@Suite struct TilePyramidSummaryTests {
    static let bounds = BoundingBox(west: -10, south: 40, east: 5, north: 50)

    /// Every tile of zooms 0-2 the same bytes (one PMTiles run crossing two level boundaries)
    /// and two tiles at zoom 4, written as `metadata` says into `path`.
    static func write(_ path: String, metadata: TileSetMetadata, scheme: TileScheme = .xyz) throws {
        let tile = VectorTile(layers: [.init(name: "places", features: [.init(type: .point, parts: [[SIMD2(10, 10)]])])]).encoded()
        try TileSinks.writeNew(path, format: metadata.format, scheme: scheme) { store in
            for zoom in 0...2 {
                for x in 0..<(1 << zoom) { for y in 0..<(1 << zoom) { try store(MapTile(zoom: zoom, x: x, y: y), tile) } }
            }
            try store(MapTile(zoom: 4, x: 3, y: 5), tile)
            try store(MapTile(zoom: 4, x: 9, y: 2), tile)
            return metadata
        }
    }

    static let vector = TileSetMetadata.vectorTiles(name: "places", description: "a test", bounds: bounds, zooms: 0...4,
                                                    layers: [(name: "places", fields: ["name": "String", "rank": "Number"])])

    @Test(arguments: ["t.mbtiles", "t.pmtiles", "t"])
    func everyContainerSaysTheSame(_ name: String) throws {
        try withTemporaryFolderPath { folder in
            let path = folder + "/" + name
            try Self.write(path, metadata: Self.vector)
            let summary = try TilePyramids.summary(path)
            #expect(summary.container == TileContainer(path: path))
            #expect(summary.scheme == (summary.container == .mbtiles ? .tms : .xyz))
            #expect(summary.metadata.format == .mvt && summary.metadata.name == "places" && summary.metadata.zooms == 0...4)
            #expect(summary.tilesPerZoom.map(\.zoom) == [0, 1, 2, 4] && summary.tilesPerZoom.map(\.tiles) == [1, 4, 16, 2])
            #expect(summary.tileCount == 23 && summary.zoomsWithTiles == 0...4)
            // The counts are the listing's, whichever way the container counts.
            let listed = try TilePyramids.open(path).tileAddresses(zooms: nil)
            #expect(Dictionary(grouping: listed, by: \.zoom).mapValues(\.count) == Dictionary(uniqueKeysWithValues: summary.tilesPerZoom.map { ($0.zoom, $0.tiles) }))
            #expect(summary.vectorLayers == [VectorLayerDescription(id: "places", fields: [.init(name: "name", kind: "String"), .init(name: "rank", kind: "Number")],
                                                                    minZoom: 0, maxZoom: 4, description: nil)])
            #expect(abs(summary.metadata.bounds.west + 10) < 1e-6 && abs(summary.metadata.bounds.north - 50) < 1e-6)
            #expect(summary.centerIsStated && abs(summary.center.longitude + 2.5) < 1e-6 && abs(summary.center.latitude - 45) < 1e-6)
            if summary.container == .folder {
                // The tiles' files and metadata.json.
                let files = try FileManager.default.subpathsOfDirectory(atPath: path).filter { !$0.hasPrefix(".") }
                let sizes = try files.map { try FileManager.default.attributesOfItem(atPath: path + "/" + $0) }
                    .filter { $0[.type] as? FileAttributeType == .typeRegular }.map { ($0[.size] as? Int) ?? 0 }
                #expect(summary.bytes == sizes.reduce(0, +))
            } else {
                #expect(summary.bytes == (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int))
            }
        }
    }

    /// A folder of TMS rows says so; image tiles list no layers; a center the metadata does not
    /// state is the bounds' middle: of the bounds as the tiles agree them (the deepest level's
    /// two tiles reach down to the top of row 6 at zoom 4, about 40.98° north, not the stated 40°).
    @Test func tmsImageFolderWithoutCenter() throws {
        try withTemporaryFolderPath { folder in
            let path = folder + "/png"
            try Self.write(path, metadata: TileSetMetadata(format: .png, name: "pictures", description: "", bounds: Self.bounds, zooms: 0...4),
                           scheme: .tms)
            var json = try String(contentsOfFile: path + "/metadata.json", encoding: .utf8)
            json = json.replacingOccurrences(of: #""center": \[[^\]]*\],"#, with: "", options: .regularExpression)
            try json.write(toFile: path + "/metadata.json", atomically: true, encoding: .utf8)
            let summary = try TilePyramids.summary(path)
            #expect(summary.scheme == .tms && summary.metadata.format == .png && summary.vectorLayers.isEmpty)
            #expect(summary.tilesPerZoom.map(\.tiles) == [1, 4, 16, 2])
            let south = MapTile(zoom: 4, x: 3, y: 5).boundingBox.south
            #expect(summary.metadata.bounds == BoundingBox(west: -10, south: south, east: 5, north: 50))
            #expect(!summary.centerIsStated && summary.center == TileSetCenter(longitude: -2.5, latitude: (south + 50) / 2, zoom: 2), "\(summary.center)")
        }
    }

    /// A center that is no place or level is bad input naming the file; `vector_layers` entries
    /// that are not layers are left out.
    @Test func hostileMetadata() throws {
        try withTemporaryFolderPath { folder in
            for center in ["[500, 0, 3]", "[0, 0, 31]", "[0, 0, 1e300]", "[0, 0, 1.5]"] {
                let path = folder + "/t\(center.hashValue)"
                try Self.write(path, metadata: Self.vector)
                var json = try String(contentsOfFile: path + "/metadata.json", encoding: .utf8)
                json = json.replacingOccurrences(of: #""center": \[[^\]]*\]"#, with: "\"center\": \(center)", options: .regularExpression)
                try json.write(toFile: path + "/metadata.json", atomically: true, encoding: .utf8)
                #expect { try TilePyramids.summary(path) } throws: { error in
                    let error = error as? MeridianError
                    return error?.kind == .badInput && error?.location?.file == path + "/metadata.json"
                }
            }
            #expect(VectorLayerDescription.layers("{\"id\":\"x\"}").isEmpty)
            #expect(VectorLayerDescription.layers("[1, {\"fields\":{}}, {\"id\":\"a\",\"fields\":[1],\"minzoom\":-3,\"maxzoom\":1e300}]")
                == [VectorLayerDescription(id: "a", fields: [], minZoom: nil, maxZoom: nil, description: nil)])
        }
    }
}
