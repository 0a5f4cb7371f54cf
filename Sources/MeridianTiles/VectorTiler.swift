import Foundation
import MeridianGeometry
import Synchronization

/// How vector data is cut into Mapbox Vector Tiles.
public struct VectorTilingOptions: Sendable {
    /// The zoom levels to tile.
    public var zooms: ClosedRange<Int>
    /// Units across a tile (the specification's default, 4096: tippecanoe's detail 12).
    public var extent: Int
    /// How far past its edges each tile holds geometry, in tile units: tippecanoe's default
    /// buffer of 5/256 of the tile (80 units of 4096), so lines and outlines drawn wide do not
    /// stop short at tile edges.
    public var buffer: Int
    /// The largest tile in bytes; a tile over it loses its smallest features until it fits
    /// (tippecanoe's default limit, 500 KB).
    public var maximumTileBytes: Int
    /// The line simplification, at one tile unit of the zoom level.
    public var method: SimplifyMethod

    /// The defaults: zoom `zooms`, 4096 units, 80 units of buffer, 500 KB a tile, Douglas-Peucker.
    public init(zooms: ClosedRange<Int>, extent: Int = 4096, buffer: Int = 80, maximumTileBytes: Int = 500_000,
                method: SimplifyMethod = .douglasPeucker) {
        self.zooms = zooms
        self.extent = extent
        self.buffer = buffer
        self.maximumTileBytes = maximumTileBytes
        self.method = method
    }
}

/// A named collection of features, one layer of every tile, held as the tiler needs them:
/// properties already typed as tiles hold them, ids as given, and positions as longitude and
/// latitude only (16 bytes a position where a `Position`, with its optional altitude, takes
/// 32: tiles are flat), since a layer is held whole while all its zoom levels are cut.
public struct VectorLayerInput: Sendable {
    /// The layer's name in the tiles.
    public var name: String
    /// The features, in the order given.
    var features: [StoredFeature] = []

    /// An empty layer named `name`.
    public init(name: String) { self.name = name }

    /// A layer named `name` holding `features`.
    public init(name: String, features: [MeridianGeometry.Feature]) {
        self.name = name
        features.forEach { append($0) }
    }

    /// Adds a feature (in WGS 84) to the end of the layer.
    public mutating func append(_ feature: MeridianGeometry.Feature) {
        features.append(StoredFeature(
            id: feature.id,
            properties: (feature.properties ?? [:]).compactMap { key, value in VectorTile.Value(value).map { (key: key, value: $0) } },
            geometry: feature.geometry.map(StoredGeometry.init)))
    }

    /// The number of features.
    public var count: Int { features.count }
}

/// A feature as a layer holds it (see ``VectorLayerInput``).
struct StoredFeature: Sendable {
    let id: FeatureID?
    let properties: [(key: String, value: VectorTile.Value)]
    let geometry: StoredGeometry?
}

/// A geometry's shape with its positions as (longitude, latitude) pairs.
indirect enum StoredGeometry: Sendable {
    case point(SIMD2<Double>), multiPoint([SIMD2<Double>]), lineString([SIMD2<Double>]), multiLineString([[SIMD2<Double>]])
    case polygon([[SIMD2<Double>]]), multiPolygon([[[SIMD2<Double>]]]), geometryCollection([StoredGeometry])

    init(_ geometry: Geometry) {
        func pairs(_ positions: [Position]) -> [SIMD2<Double>] { positions.map { SIMD2($0.longitude, $0.latitude) } }
        switch geometry {
        case .point(let p): self = .point(SIMD2(p.coordinates.longitude, p.coordinates.latitude))
        case .multiPoint(let m): self = .multiPoint(pairs(m.coordinates))
        case .lineString(let l): self = .lineString(pairs(l.coordinates))
        case .multiLineString(let m): self = .multiLineString(m.lines.map(pairs))
        case .polygon(let p): self = .polygon(p.rings.map(pairs))
        case .multiPolygon(let m): self = .multiPolygon(m.polygons.map { $0.rings.map(pairs) })
        case .geometryCollection(let c): self = .geometryCollection(c.geometries.map(StoredGeometry.init))
        }
    }

    /// The geometry again (made for one zoom level's simplification, then let go).
    var geometry: Geometry {
        func positions(_ pairs: [SIMD2<Double>]) -> [Position] { pairs.map { Position(longitude: $0.x, latitude: $0.y) } }
        switch self {
        case .point(let p): return .point(Point(Position(longitude: p.x, latitude: p.y)))
        case .multiPoint(let m): return .multiPoint(MultiPoint(positions(m)))
        case .lineString(let l): return .lineString(LineString(positions(l)))
        case .multiLineString(let m): return .multiLineString(MultiLineString(m.map(positions)))
        case .polygon(let p): return .polygon(Polygon(p.map(positions)))
        case .multiPolygon(let m): return .multiPolygon(MultiPolygon(m.map { Polygon($0.map(positions)) }))
        case .geometryCollection(let c): return .geometryCollection(GeometryCollection(c.map(\.geometry)))
        }
    }

    /// The lines and rings, for the spacing of positions.
    var sequences: [[SIMD2<Double>]] {
        switch self {
        case .point, .multiPoint: []
        case .lineString(let l): [l]
        case .multiLineString(let m), .polygon(let m): m
        case .multiPolygon(let m): m.flatMap { $0 }
        case .geometryCollection(let c): c.flatMap(\.sequences)
        }
    }
}

/// What a vector tiling run did, for the summary and the tile set's metadata.
public struct VectorTilingSummary: Sendable {
    /// Tiles written per zoom level.
    public var tilesPerZoom: [Int: Int] = [:]
    /// Tiles that were over the size limit, and the features dropped from them to fit.
    public var tilesOverLimit = 0, featuresDroppedForSize = 0
    /// Tile polygons that snapping to the grid made invalid, repaired with GEOS (MakeValid, then
    /// back on the grid).
    public var polygonsRepaired = 0
    /// Features that simplified to nothing at some zoom level (smaller than a tile unit), summed over the levels.
    public var featuresTooSmall = 0
    /// Feature ids that a vector tile cannot hold (strings, negative or fractional numbers), left out.
    public var idsLeftOut = 0
    /// Per layer: its fields with their kinds (`String`, `Number`, `Boolean`), as TileJSON's `vector_layers` lists them.
    public var fields: [String: [String: String]] = [:]
    /// The tile count.
    public var tiles: Int { tilesPerZoom.values.reduce(0, +) }
}

/// Cuts vector layers into Mapbox Vector Tiles, zoom level by zoom level: each feature
/// simplified at one tile unit of the level with Meridian's simplifier (valid polygons, the
/// input's own positions), clipped to each tile it touches plus a buffer, snapped to the tile's
/// integer grid, outer rings wound as the specification requires. Properties keep their types
/// and non-negative integer ids are kept.
public struct VectorTiler: Sendable {
    /// The layers, in the order they go into each tile.
    public let layers: [VectorLayerInput]
    /// How the tiles are cut.
    public let options: VectorTilingOptions

    /// A tiler of `layers` with `options`.
    public init(layers: [VectorLayerInput], options: VectorTilingOptions) {
        self.layers = layers
        self.options = options
    }

    /// The zoom levels to tile when none are asked for: from 0 to the level where the data's
    /// typical detail — the median distance between neighbouring positions — spans about 16 tile
    /// units (like tippecanoe's `-zg`, which guesses from the spacing of features), at most 14.
    public static func guessedZooms(_ layers: [VectorLayerInput]) -> ClosedRange<Int> {
        var distances: [Double] = []
        var previousPoint: MapPoint?
        for layer in layers {
            for feature in layer.features {
                guard let geometry = feature.geometry else { continue }
                for path in geometry.sequences where path.count >= 2 {
                    let points = path.map { MapPoint(Position(longitude: $0.x, latitude: $0.y)) }
                    for (a, b) in zip(points, points.dropFirst()) where distances.count < 1_000_000 {
                        distances.append(hypot(b.x - a.x, b.y - a.y))
                    }
                }
                if case .point(let p) = geometry {
                    let point = MapPoint(Position(longitude: p.x, latitude: p.y))
                    if let previousPoint { distances.append(hypot(point.x - previousPoint.x, point.y - previousPoint.y)) }
                    previousPoint = point
                }
            }
        }
        let spacing = distances.filter { $0 > 0 }.sorted()
        guard !spacing.isEmpty else { return 0...14 }
        let median = spacing[spacing.count / 2]
        // One tile unit at zoom z is 2^28 / 2^z / 4096 = 2^(16 - z) map points: 16 units is median at z = 20 - log2(median).
        return 0...min(14, max(0, Int((20 - log2(median)).rounded())))
    }

    /// Every tile of the run, zoom level by zoom level, handed to `write` encoded (tiles that
    /// hold nothing are not made), from `jobs` threads at once but one call at a time. Returns
    /// what was done.
    ///
    /// Each zoom level is cut from the top down, as a quadtree: the level's simplified features
    /// (in map points) are clipped to each quarter of the world, those pieces to each quarter of
    /// that, and so on to the level's tiles, each clip with the level's buffer. A feature wholly
    /// inside a quarter passes down as it is, so a vertex is clipped about once per level of the
    /// tree rather than once for every tile its feature's bounds touch (which, for a country at
    /// zoom 8, was thousands of times). Below the first few levels the subtrees are independent
    /// and go to the threads; a tile is encoded as soon as its leaf is reached and nothing of the
    /// level is held but the path being cut.
    public func run(jobs: Int = 1, _ write: (MapTile, [UInt8]) throws -> Void) throws -> VectorTilingSummary {
        var summary = VectorTilingSummary()
        var ids: [[UInt64?]] = []
        for layer in layers {
            var fields: [String: String] = [:]
            var layerIDs: [UInt64?] = []
            for feature in layer.features {
                for (key, value) in feature.properties {
                    let kind = Self.fieldKind(value)
                    fields[key] = fields[key].map { $0 == kind ? $0 : "Mixed" } ?? kind
                }
                let id = feature.id.flatMap(Self.tileID)
                if feature.id != nil && id == nil { summary.idsLeftOut += 1 }
                layerIDs.append(id)
            }
            summary.fields[layer.name] = fields
            ids.append(layerIDs)
        }
        let properties = layers.map { $0.features.map(\.properties) }
        let jobs = max(1, jobs)
        for zoom in options.zooms {
            let (items, tooSmall) = simplified(atZoom: zoom, jobs: jobs)
            summary.featuresTooSmall += tooSmall
            let level = ZoomLevel(zoom: zoom, options: options, layerNames: layers.map(\.name), properties: properties, ids: ids)
            // The subtrees under one level of the quadtree go to the threads: deep enough that
            // each thread has several (the world's land is not spread evenly), and never below the zoom.
            var subtrees: [(QuadNode, [TileItem])] = []
            level.descend(items, to: min(zoom, jobs == 1 ? 0 : 3)) { subtrees.append(($0, $1)) }
            let next = Atomic<Int>(0)
            try WorkerThreads.run(threads: min(jobs, subtrees.count)) { [subtrees, options] (emit: (BuiltTile) throws -> Void) in
                let repair = PolygonRepair()
                while case let index = next.add(1, ordering: .relaxed).oldValue, index < subtrees.count {
                    let (node, items) = subtrees[index]
                    try level.descend(node, items, to: zoom) { node, items in
                        let repairedBefore = repair.repaired
                        guard let content = level.tile(node, items, repair: repair) else { return }
                        var built = BuiltTile(tile: MapTile(zoom: zoom, x: node.x, y: node.y), bytes: content.encoded(),
                                              repaired: repair.repaired - repairedBefore)
                        if built.bytes.count > options.maximumTileBytes {
                            (built.bytes, built.dropped) = Self.fit(content, under: options.maximumTileBytes)
                        }
                        try emit(built)
                    }
                }
            } consume: { built in
                try write(built.tile, built.bytes)
                summary.tilesPerZoom[zoom, default: 0] += 1
                summary.polygonsRepaired += built.repaired
                if let dropped = built.dropped {
                    summary.tilesOverLimit += 1
                    summary.featuresDroppedForSize += dropped
                }
            }
        }
        return summary
    }

    /// A tile encoded by a worker, and how many features were dropped to fit it under the limit.
    struct BuiltTile: Sendable {
        let tile: MapTile
        var bytes: [UInt8]
        var repaired: Int
        var dropped: Int?
    }

    /// Every layer's features simplified at one tile unit of `zoom`, in map points, in layer
    /// and feature order (simplified on `jobs` threads), and how many simplified to nothing.
    func simplified(atZoom zoom: Int, jobs: Int) -> (items: [TileItem], tooSmall: Int) {
        let unit = MapWorld.size / Double(1 << zoom) / Double(options.extent)
        let all = layers.indices.flatMap { layer in layers[layer].features.indices.map { (layer, $0) } }
        let chunks = max(1, min(jobs * 8, all.count / 16))
        var done: [(chunk: Int, items: [TileItem], tooSmall: Int)] = []
        let next = Atomic<Int>(0)
        // (Nothing in here throws.)
        try? WorkerThreads.run(threads: min(jobs, chunks)) { [layers, options] (emit: ((chunk: Int, items: [TileItem], tooSmall: Int)) throws -> Void) in
            var simplifier = GeometrySimplifier(tolerance: unit, method: options.method)
            while case let chunk = next.add(1, ordering: .relaxed).oldValue, chunk < chunks {
                var items: [TileItem] = [], tooSmall = 0
                for (layer, index) in all[(chunk * all.count / chunks)..<((chunk + 1) * all.count / chunks)] {
                    guard let geometry = layers[layer].features[index].geometry?.geometry else { continue }
                    guard let simplified = simplifier.simplify(geometry) else {
                        tooSmall += 1
                        continue
                    }
                    let shape = PlaneShape(simplified)
                    if !shape.isEmpty { items.append(TileItem(layer: layer, feature: index, shape: shape)) }
                }
                try emit((chunk, items, tooSmall))
            }
        } consume: { done.append($0) }
        done.sort { $0.chunk < $1.chunk }
        return (done.flatMap(\.items), done.reduce(0) { $0 + $1.tooSmall })
    }

    static func fieldKind(_ value: VectorTile.Value) -> String {
        switch value {
        case .string: "String"
        case .double, .uint, .sint: "Number"
        case .bool: "Boolean"
        }
    }

    /// A feature id as a tile holds it: non-negative integers only.
    static func tileID(_ id: FeatureID) -> UInt64? {
        switch id {
        case .integer(let i): i >= 0 ? UInt64(i) : nil
        case .double(let d): d >= 0 && d == d.rounded() && d < 1.8e19 ? UInt64(d) : nil
        case .string: nil
        }
    }

    /// The tile without its smallest features (by area for polygons, length for lines, points
    /// last of all: they are drawn at any size), dropped a tenth of what is left at a time until
    /// it encodes under `limit` bytes: its bytes, and how many features went.
    static func fit(_ tile: VectorTile, under limit: Int) -> (bytes: [UInt8], dropped: Int) {
        var ranked: [(layer: Int, feature: Int, size: Double)] = []
        for (l, layer) in tile.layers.enumerated() {
            for (f, feature) in layer.features.enumerated() { ranked.append((l, f, TileGrid.size(of: feature))) }
        }
        ranked.sort { $0.size < $1.size }
        var keep = Set(ranked.map { [$0.layer, $0.feature] })
        var dropped = 0, trimmed = tile
        repeat {
            let step = max(1, (ranked.count - dropped) / 10)
            for entry in ranked[dropped..<min(ranked.count, dropped + step)] { keep.remove([entry.layer, entry.feature]) }
            dropped = min(ranked.count, dropped + step)
            for l in trimmed.layers.indices {
                trimmed.layers[l].features = tile.layers[l].features.enumerated().filter { keep.contains([l, $0.offset]) }.map(\.element)
            }
            let bytes = trimmed.encoded()
            if bytes.count <= limit || dropped >= ranked.count { return (bytes, dropped) }
        } while true
    }
}

/// A node of a zoom level's quadtree: a tile of zoom `level`, which the level's tiles are cut from.
struct QuadNode: Sendable {
    let level: Int, x: Int, y: Int

    /// Its four quarters, row by row.
    var children: [QuadNode] {
        [(0, 0), (1, 0), (0, 1), (1, 1)].map { QuadNode(level: level + 1, x: 2 * x + $0.0, y: 2 * y + $0.1) }
    }
}

/// One feature (or what of it lies in a quadtree node) on its way to the tiles: its layer and
/// index (for its id and properties) and its simplified geometry in map points.
struct TileItem: Sendable {
    let layer: Int, feature: Int
    var shape: PlaneShape

    /// What of it lies in `rect`: itself when wholly inside (no copy), nil when nothing is.
    func clipped(to rect: RectClip) -> TileItem? {
        let b = shape.bounds
        if b.maxX < rect.minX || b.minX > rect.maxX || b.maxY < rect.minY || b.minY > rect.maxY { return nil }
        if rect.minX <= b.minX && b.maxX <= rect.maxX && rect.minY <= b.minY && b.maxY <= rect.maxY { return self }
        let shape = shape.clipped(to: rect)
        return shape.isEmpty ? nil : TileItem(layer: layer, feature: feature, shape: shape)
    }
}

/// A geometry in map points, by kind of part (a geometry collection's members together):
/// points, lines, and polygons as rings (exterior first, each closed), with its bounds.
struct PlaneShape: Sendable {
    var points: [PlanePoint] = [], lines: [[PlanePoint]] = [], polygons: [[[PlanePoint]]] = []
    private(set) var bounds = RectClip(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)

    /// `geometry`'s parts projected to map points.
    init(_ geometry: Geometry) {
        func project(_ positions: [Position]) -> [PlanePoint] {
            positions.map { let m = MapPoint($0); return PlanePoint(m.x, m.y) }
        }
        func add(_ g: Geometry) {
            switch g {
            case .point(let p): points += project([p.coordinates])
            case .multiPoint(let m): points += project(m.coordinates)
            case .lineString(let l): lines.append(project(l.coordinates))
            case .multiLineString(let m): lines += m.lines.map(project)
            case .polygon(let p): polygons.append(p.rings.map(project))
            case .multiPolygon(let m): polygons += m.polygons.map { $0.rings.map(project) }
            case .geometryCollection(let c): c.geometries.forEach(add)
            }
        }
        add(geometry)
        measure()
    }

    init(points: [PlanePoint], lines: [[PlanePoint]], polygons: [[[PlanePoint]]]) {
        (self.points, self.lines, self.polygons) = (points, lines, polygons)
        measure()
    }

    var isEmpty: Bool { points.isEmpty && lines.isEmpty && polygons.isEmpty }

    private mutating func measure() {
        func add(_ p: PlanePoint) {
            bounds.minX = min(bounds.minX, p.x)
            bounds.minY = min(bounds.minY, p.y)
            bounds.maxX = max(bounds.maxX, p.x)
            bounds.maxY = max(bounds.maxY, p.y)
        }
        points.forEach(add)
        for line in lines { line.forEach(add) }
        for polygon in polygons { polygon.first?.forEach(add) }  // holes lie inside their exterior
    }

    /// What of it lies in `rect`: points on or in it, lines cut where they leave it, polygons
    /// cut along its edges (``RectClip``).
    func clipped(to rect: RectClip) -> PlaneShape {
        PlaneShape(points: points.filter(rect.contains), lines: lines.flatMap { rect.clip(line: $0) },
                   polygons: polygons.flatMap { rect.clip(polygon: $0) })
    }
}

/// One zoom level being cut: its sizes in map points, and what its tiles need of the features
/// (layer names, ids, typed properties).
struct ZoomLevel: Sendable {
    let zoom: Int, extent: Int
    /// A tile unit, and the buffer, in map points.
    let unit: Double, buffer: Double
    let layerNames: [String]
    let properties: [[[(key: String, value: VectorTile.Value)]]]
    let ids: [[UInt64?]]

    init(zoom: Int, options: VectorTilingOptions, layerNames: [String], properties: [[[(key: String, value: VectorTile.Value)]]], ids: [[UInt64?]]) {
        self.zoom = zoom
        extent = options.extent
        unit = MapWorld.size / Double(1 << zoom) / Double(options.extent)
        buffer = Double(options.buffer) * unit
        self.layerNames = layerNames
        self.properties = properties
        self.ids = ids
    }

    /// What a node's features are clipped to: its square and the level's buffer around it.
    func rect(_ node: QuadNode) -> RectClip {
        let width = MapWorld.size / Double(1 << node.level)
        return RectClip(minX: Double(node.x) * width - buffer, minY: Double(node.y) * width - buffer,
                        maxX: Double(node.x + 1) * width + buffer, maxY: Double(node.y + 1) * width + buffer)
    }

    /// Cuts `items` (already clipped to `node`) down the quadtree, depth first, handing each
    /// node of level `depth` that holds something to `body` with its pieces.
    func descend(_ node: QuadNode, _ items: [TileItem], to depth: Int, _ body: (QuadNode, [TileItem]) throws -> Void) rethrows {
        if node.level == depth { return try body(node, items) }
        for child in node.children {
            let rect = rect(child)
            let clipped = items.compactMap { $0.clipped(to: rect) }
            if !clipped.isEmpty { try descend(child, clipped, to: depth, body) }
        }
    }

    /// The world's features cut down to the nodes of level `depth`.
    func descend(_ items: [TileItem], to depth: Int, _ body: (QuadNode, [TileItem]) throws -> Void) rethrows {
        let root = QuadNode(level: 0, x: 0, y: 0), rect = rect(root)
        let clipped = items.compactMap { $0.clipped(to: rect) }
        if !clipped.isEmpty { try descend(root, clipped, to: depth, body) }
    }

    /// The tile of leaf `node` holding `items`, snapped to its grid, its polygons made valid
    /// by `repair`; nil when nothing is left after snapping. Layers it holds nothing of are left out.
    func tile(_ node: QuadNode, _ items: [TileItem], repair: PolygonRepair) -> VectorTile? {
        let width = MapWorld.size / Double(1 << zoom)
        let grid = TileGrid(origin: PlanePoint(Double(node.x) * width, Double(node.y) * width), unit: unit)
        var layers = layerNames.map { VectorTile.Layer(name: $0, extent: extent) }
        for item in items {
            for var feature in grid.features(item.shape, id: ids[item.layer][item.feature], properties: properties[item.layer][item.feature]) {
                if feature.type == .polygon {
                    feature.parts = repair.valid(feature.parts)
                    if feature.parts.isEmpty { continue }
                }
                layers[item.layer].features.append(feature)
            }
        }
        layers.removeAll { $0.features.isEmpty }
        return layers.isEmpty ? nil : VectorTile(layers: layers)
    }
}

/// A tile's integer grid: map points to tile units, and shapes to tile features.
struct TileGrid {
    let origin: PlanePoint
    let unit: Double

    func point(_ p: PlanePoint) -> SIMD2<Int32> {
        SIMD2(Int32(((p.x - origin.x) / unit).rounded()), Int32(((p.y - origin.y) / unit).rounded()))
    }

    /// `shape` (clipped to the tile) as tile features: one per kind of part it has.
    func features(_ shape: PlaneShape, id: UInt64?, properties: [(key: String, value: VectorTile.Value)]) -> [VectorTile.Feature] {
        var out: [VectorTile.Feature] = []
        if !shape.points.isEmpty {
            out.append(VectorTile.Feature(id: id, type: .point, parts: [shape.points.map(point)], properties: properties))
        }
        let lines = shape.lines.compactMap(line)
        if !lines.isEmpty { out.append(VectorTile.Feature(id: id, type: .lineString, parts: lines, properties: properties)) }
        let rings = shape.polygons.flatMap(polygon)
        if !rings.isEmpty { out.append(VectorTile.Feature(id: id, type: .polygon, parts: rings, properties: properties)) }
        return out
    }

    /// A line snapped to the grid, repeated points dropped; nil when it shrank to a point.
    func line(_ points: [PlanePoint]) -> [SIMD2<Int32>]? {
        let snapped = Self.deduplicated(points.map(point))
        return snapped.count >= 2 ? snapped : nil
    }

    /// A polygon's rings snapped to the grid (``wound(_:)``).
    func polygon(_ rings: [[PlanePoint]]) -> [[SIMD2<Int32>]] {
        Self.wound(rings.map { $0.map(point) })
    }

    /// A polygon's rings on the grid, repeated points dropped, unclosed, the outer ring with
    /// positive area (the specification's clockwise on screen) and holes negative; none when
    /// the outer ring collapses, and holes that collapse are dropped.
    static func wound(_ rings: [[SIMD2<Int32>]]) -> [[SIMD2<Int32>]] {
        var out: [[SIMD2<Int32>]] = []
        for (index, ring) in rings.enumerated() {
            var snapped = deduplicated(ring)
            if snapped.count > 1 && snapped.first == snapped.last { snapped.removeLast() }
            let area = doubleArea(snapped)
            guard snapped.count >= 3, area != 0 else {
                if index == 0 { return [] }
                continue
            }
            if (index == 0) != (area > 0) { snapped.reverse() }
            out.append(snapped)
        }
        return out
    }

    static func deduplicated(_ points: [SIMD2<Int32>]) -> [SIMD2<Int32>] {
        var out: [SIMD2<Int32>] = []
        out.reserveCapacity(points.count)
        for p in points where out.last != p { out.append(p) }
        return out
    }

    /// Twice the ring's area by the surveyor's formula in tile units (y down): positive clockwise on screen.
    static func doubleArea(_ ring: [SIMD2<Int32>]) -> Int64 {
        guard ring.count >= 3 else { return 0 }
        var sum: Int64 = 0
        for i in ring.indices {
            let a = ring[i], b = ring[(i + 1) % ring.count]
            sum += Int64(a.x) * Int64(b.y) - Int64(b.x) * Int64(a.y)
        }
        return sum
    }

    /// How big a feature is, to rank which to drop from a full tile: polygon area, line length,
    /// and points above every other.
    static func size(of feature: VectorTile.Feature) -> Double {
        switch feature.type {
        case .point: return .infinity
        case .lineString:
            return feature.parts.reduce(0) { total, line in
                total + zip(line, line.dropFirst()).reduce(0) { $0 + Double(hypot(Double($1.1.x - $1.0.x), Double($1.1.y - $1.0.y))) }
            }
        case .polygon:
            return feature.parts.reduce(0) { $0 + Double(doubleArea($1)) / 2 }
        }
    }
}
