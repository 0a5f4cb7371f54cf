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

    /// The quadtree walk, as `ZoomLevel.descend` walked every item before lone points were
    /// placed without it: each child's rect clips what its parent holds; the nodes of `depth`
    /// reached, in order, with the features (indices) each holds, in order.
    static func walked(_ level: ZoomLevel, from node: MapTile, _ items: [TileItem], to depth: Int) -> [String] {
        if items.isEmpty { return [] }
        if node.zoom == depth { return ["\(node): \(items.map(\.feature))"] }
        return node.children.flatMap { child in
            let clipped = items.compactMap { $0.clipped(to: level.rect(child)) }
            return clipped.isEmpty ? [] : walked(level, from: child, clipped, to: depth)
        }
    }

    /// Lone points go to the nodes the walk takes them to, in its order: one point cut from the
    /// world down to a level's blocks (also as the cut finds them, by
    /// `ZoomLevel.forEachNode(holdingLonePoint:at:_:)`), and a block's points down to its tiles.
    /// Points on node edges, in the buffer on either side, at the world's edges and off the
    /// world are among them.
    @Test func lonePointsGoWhereTheWalkTakesThem() throws {
        var generator = SystemRandomNumberGenerator()
        for (zoom, buffer) in [(0, 64), (3, 64), (6, 300), (11, 64), (14, 4096)] {
            var options = VectorTilingOptions(zooms: 0...14)
            options.buffer = buffer
            let level = ZoomLevel(zoom: zoom, options: options, layerNames: ["a"])
            let depth = TileBlockSpill.blockZoom(for: zoom), width = MapWorld.size / Double(1 << zoom)
            // A block near the world's top-left corner, and its points.
            let block = MapTile(zoom: depth, x: 0, y: 0), span = MapWorld.size / Double(1 << depth)
            func coordinate() -> Double {
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: Double(Int.random(in: 0...(1 << (zoom - depth)), using: &generator)) * width  // on an edge
                case 1: Double(Int.random(in: 0...(1 << (zoom - depth)), using: &generator)) * width + level.buffer * [-1, 1, -0.5, 0.5].randomElement(using: &generator)!
                case 2: [-level.buffer, -level.buffer * 1.5, span + level.buffer, MapWorld.size + level.buffer].randomElement(using: &generator)!
                default: Double.random(in: -level.buffer...(span + level.buffer), using: &generator)
                }
            }
            var items: [TileItem] = []
            for i in 0..<2_000 {
                let item = TileItem(layer: 0, feature: i, shape: PlaneShape(points: [PlanePoint(coordinate(), coordinate())], lines: [], polygons: []))
                var placed: [String] = []
                level.descend([item], to: depth) { node, pieces in placed.append("\(node): \(pieces.map(\.feature))") }
                #expect(placed == Self.walked(level, from: MapTile(zoom: 0, x: 0, y: 0), [item].compactMap { $0.clipped(to: level.rect(MapTile(zoom: 0, x: 0, y: 0))) }, to: depth),
                        "zoom \(zoom), point \(item.shape.points)")
                // The blocks the cut finds for a lone point without the walk (in another order).
                let point = try #require(item.shape.lonePoint)
                #expect(level.findsNodesDirectly(holdingLonePoint: point))
                var found: [String] = []
                level.forEachNode(holdingLonePoint: point, at: depth) { found.append("\($0): [\(i)]") }
                #expect(found.sorted() == placed.sorted(), "zoom \(zoom), point \(point)")
                if item.clipped(to: level.rect(block)) != nil { items.append(item) }
            }
            var placed: [String] = []
            level.descend(block, items, to: zoom) { node, pieces in placed.append("\(node): \(pieces.map(\.feature))") }
            #expect(placed == Self.walked(level, from: block, items, to: zoom), "zoom \(zoom)")
            #expect(placed.count > (zoom == depth ? 0 : 3), "zoom \(zoom): the block's points reach several tiles")
        }
    }

    /// A block read a chunk at a time (what a tile's worker does) gives what its records read
    /// whole give, with or without its level's thinning: here a block of several chunks.
    @Test func aBlockReadInChunksIsReadWhole() throws {
        let options = VectorTilingOptions(zooms: 0...6)
        let level = ZoomLevel(zoom: 3, options: options, layerNames: ["a"])
        let blocks = try TileBlockSpill(), block = MapTile(zoom: 3, x: 2, y: 1), other = MapTile(zoom: 3, x: 0, y: 0)
        let width = MapWorld.size / 8
        var generator = SystemRandomNumberGenerator()
        for i in 0..<40_000 {
            var attributes = RecordWriter()
            TileAttributes.write(id: UInt64(i), properties: [("name", .string(String(repeating: "n", count: 40 + i % 30)))], to: &attributes)
            let point = PlanePoint(Double.random(in: 2 * width..<3 * width, using: &generator), Double.random(in: width..<2 * width, using: &generator))
            let rank = Double(Int.random(in: 0..<1_000, using: &generator)) / 1_000
            var record = RecordWriter()
            attributes.bytes.withUnsafeBytes {
                TileItem.write(layer: 0, attributes: $0, shape: PlaneShape(points: [point], lines: [], polygons: []),
                               thinning: i % 50 == 0 ? nil : TileItem.Thinning(rank: rank), ranking: FeatureRanking(size: .infinity, rank: rank), to: &record)
            }
            try record.bytes.withUnsafeBytes { try blocks.append(i % 4 == 0 ? other : block, $0) }
        }
        _ = try blocks.finishWriting()
        var chunks = 0
        try blocks.forEachChunk(of: block) { _ in chunks += 1 }
        #expect(chunks > 1, "the block must come back in several chunks")
        for thinning in [nil, level] {
            let whole = TileItem.read(try blocks.records(of: block), thinnedKeptBy: thinning)
            let chunked = try TileItem.read(block: block, of: blocks, thinnedKeptBy: thinning)
            #expect(chunked.items.count == whole.items.count && chunked.items.count > 0)
            #expect(chunked.items.map(\.shape.points) == whole.items.map(\.shape.points))
            #expect(chunked.items.map { $0.thinning?.rank } == whole.items.map { $0.thinning?.rank })
            #expect(chunked.items.map(\.feature) == whole.items.map(\.feature))
            #expect(chunked.attributes.map(\.id) == whole.attributes.map(\.id))
        }
    }
}
