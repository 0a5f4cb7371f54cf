import MeridianFormats
import MeridianGeometry
import Testing
@testable import MeridianTiles

/// The spills that keep vector tiling's memory bounded: features set aside and streamed back
/// in batches, and one zoom level's pieces set aside per block.
@Suite struct VectorSpillTests {
    /// Features come back once each, in order, whole, typed: with records that straddle the
    /// batches' megabyte reads and one larger than a read.
    @Test func featuresStreamBackInOrderAcrossBatches() throws {
        let spill = try VectorFeatureSpill()
        spill.startLayer(named: "a")
        var sent: [Feature] = []
        for i in 0..<3_000 {
            // Every 997th feature is a line of 40,000 positions (640 kB); the rest are small.
            let count = i % 997 == 0 ? 40_000 : 1 + i % 50
            let line = LineString((0..<count).map { Position(longitude: -179.5 + Double($0) * 0.008, latitude: Double(i % 170) - 85 + 1e-9 * Double($0)) })
            sent.append(Feature(id: .integer(Int64(i)), geometry: .lineString(line), properties: ["i": .integer(Int64(i)), "s": .string("é\(i)")]))
        }
        sent.append(Feature(id: .string("x"), geometry: .lineString(LineString((0..<200_000).map { Position(longitude: Double($0) / 2e5, latitude: 0) })),
                            properties: ["big": .bool(true)]))
        sent.forEach { try? spill.append($0) }
        #expect(spill.count == sent.count && spill.idsLeftOut == 1)
        #expect(spill.fields == [["i": "Number", "s": "String", "big": "Boolean"]])

        var batches = try spill.batches(), received = 0, batchCount = 0
        while let batch = try batches.next() {
            batchCount += 1
            try RecordBatches.forEach(in: batch) { record in
                let feature = SpilledFeature(&record)
                let expected = sent[received]
                #expect(feature.layer == 0)
                #expect(feature.geometry == expected.geometry, "feature \(received)")
                var attributesReader = RecordReader(UnsafeRawBufferPointer(rebasing: record.bytes[feature.attributes]))
                let attributes = TileAttributes(&attributesReader)
                #expect(attributes.id == (received < 3_000 ? UInt64(received) : nil))
                #expect(attributes.properties.decoded.map(\.key).sorted() == (expected.properties ?? [:]).keys.sorted())
                received += 1
            }
        }
        #expect(received == sent.count)
        #expect(batchCount > 3, "the spill is several megabytes: it must come back in several batches")
    }

    /// A block's pieces come back in the order appended, exactly, whether they were still
    /// buffered or went to disk in chunks (the buffers pass their limit several times here).
    @Test func blockPiecesComeBackInOrderThroughChunks() throws {
        let blocks = try TileBlockSpill()
        let nodes = [MapTile(zoom: 3, x: 1, y: 2), MapTile(zoom: 3, x: 7, y: 0), MapTile(zoom: 3, x: 0, y: 0)]
        var attributes = RecordWriter()
        TileAttributes.write(id: 9, properties: [("k", .sint(-3))], to: &attributes)
        var sent: [MapTile: [PlaneShape]] = [:]
        for i in 0..<600 {
            let node = nodes[i % (i % 5 == 0 ? 1 : 3)]
            let line = (0..<(1 + i * 7 % 3_000)).map { PlanePoint(Double(i), Double($0) + 0.25) }
            let shape = PlaneShape(points: [PlanePoint(Double(i), -1)], lines: [line], polygons: i % 2 == 0 ? [] : [[line + [line[0]]]])
            var record = RecordWriter()
            attributes.bytes.withUnsafeBytes { TileItem.write(layer: i % 2, attributes: $0, shape: shape, thinning: i % 7 == 0 ? TileItem.Thinning(rank: 0.5) : nil, to: &record) }
            try record.bytes.withUnsafeBytes { try blocks.append(node, $0) }
            sent[node, default: []].append(shape)
        }
        let held = try blocks.finishWriting()
        #expect(Set(held) == Set(nodes))
        for node in nodes {
            let (items, pieceAttributes) = TileItem.read(try blocks.records(of: node))
            #expect(items.count == sent[node]!.count)
            for (item, shape) in zip(items, sent[node]!) {
                #expect(item.shape.points == shape.points && item.shape.lines == shape.lines && item.shape.polygons == shape.polygons)
                #expect(pieceAttributes[item.feature].id == 9)
            }
        }
    }

    /// Reading a block with its level leaves out only thinned points no leaf keeps: every leaf
    /// of the block holds the same items, in the same order, after ``TileItem/kept(_:)``, as
    /// when every piece is read. Points on tile edges and in buffers, ties of rank, shown points
    /// and thinned multipoints are among them.
    @Test func thinnedPointsNoTileKeepsAreLeftOutOfABlock() throws {
        var options = VectorTilingOptions(zooms: 0...6)
        options.buffer = 300  // wide, so that points reach into several neighbours
        for zoom in [2, 5] {
            let level = ZoomLevel(zoom: zoom, options: options, layerNames: ["a"])
            let width = MapWorld.size / Double(1 << zoom)
            var records = RecordWriter()
            var generator = SystemRandomNumberGenerator()
            for i in 0..<4_000 {
                var attributes = RecordWriter()
                TileAttributes.write(id: UInt64(i), properties: [], to: &attributes)
                // Some on the tiles' edges, the rest anywhere in the block (the top-left quarter).
                func coordinate() -> Double {
                    i % 5 == 0 ? Double(Int.random(in: 0...(1 << zoom) / 2, using: &generator)) * width
                        : Double.random(in: 0..<MapWorld.size / 2, using: &generator)
                }
                let points = (0..<(i % 11 == 0 ? 3 : 1)).map { _ in PlanePoint(coordinate(), coordinate()) }
                let shown = i % 97 == 0
                let rank = Double(Int.random(in: 0..<500, using: &generator)) / 500  // ties
                let shape = PlaneShape(points: points, lines: [], polygons: [])
                attributes.bytes.withUnsafeBytes {
                    TileItem.write(layer: 0, attributes: $0, shape: shape, thinning: shown ? nil : TileItem.Thinning(rank: rank),
                                   ranking: FeatureRanking(size: .infinity, rank: rank), to: &records)
                }
            }
            func leaves(_ read: (items: [TileItem], attributes: [TileAttributes])) -> [MapTile: [UInt64?]] {
                var out: [MapTile: [UInt64?]] = [:]
                level.descend(read.items, to: zoom) { node, items in
                    let kept = TileItem.kept(items)
                    out[node] = kept.map { read.attributes[$0.feature].id }
                }
                return out
            }
            let whole = TileItem.read(records.bytes), reduced = TileItem.read(records.bytes, thinnedKeptBy: level)
            #expect(reduced.items.count < whole.items.count / 4, "zoom \(zoom): \(reduced.items.count) of \(whole.items.count) read")
            #expect(leaves(reduced) == leaves(whole), "zoom \(zoom)")
        }
    }
}
