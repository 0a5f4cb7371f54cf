import Foundation
import MeridianGeometry

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

/// A named collection of features, one layer of every tile.
public struct VectorLayerInput: Sendable {
    /// The layer's name in the tiles.
    public var name: String
    /// The features, in WGS 84.
    public var features: [MeridianGeometry.Feature]

    /// A layer named `name` holding `features`.
    public init(name: String, features: [MeridianGeometry.Feature]) {
        self.name = name
        self.features = features
    }
}

/// What a vector tiling run did, for the summary and the tile set's metadata.
public struct VectorTilingSummary: Sendable {
    /// Tiles written per zoom level.
    public var tilesPerZoom: [Int: Int] = [:]
    /// Tiles that were over the size limit, and the features dropped from them to fit.
    public var tilesOverLimit = 0, featuresDroppedForSize = 0
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
                for path in Self.sequences(geometry) where path.count >= 2 {
                    let points = path.map(MapPoint.init)
                    for (a, b) in zip(points, points.dropFirst()) where distances.count < 1_000_000 {
                        distances.append(hypot(b.x - a.x, b.y - a.y))
                    }
                }
                if case .point(let p) = geometry {
                    let point = MapPoint(p.coordinates)
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

    /// The geometry's lines and rings as position sequences.
    static func sequences(_ geometry: Geometry) -> [[Position]] {
        switch geometry {
        case .point, .multiPoint: []
        case .lineString(let l): [l.coordinates]
        case .multiLineString(let m): m.lines
        case .polygon(let p): p.rings
        case .multiPolygon(let m): m.polygons.flatMap(\.rings)
        case .geometryCollection(let c): c.geometries.flatMap(sequences)
        }
    }

    /// Every tile of the run, zoom level by zoom level, handed to `write` encoded (tiles that
    /// hold nothing are not made). Returns what was done.
    public func run(_ write: (MapTile, [UInt8]) throws -> Void) throws -> VectorTilingSummary {
        var summary = VectorTilingSummary()
        for layer in layers {
            var fields: [String: String] = [:]
            for feature in layer.features {
                for (key, value) in feature.properties ?? [:] {
                    guard let kind = VectorTile.Value(value).map(Self.fieldKind) else { continue }
                    fields[key] = fields[key].map { $0 == kind ? $0 : "Mixed" } ?? kind
                }
                if let id = feature.id, Self.tileID(id) == nil { summary.idsLeftOut += 1 }
            }
            summary.fields[layer.name] = fields
        }
        for zoom in options.zooms {
            for (tile, content) in try tiles(atZoom: zoom, summary: &summary).sorted(by: { ($0.key.x, $0.key.y) < ($1.key.x, $1.key.y) }) {
                var bytes = content.encoded()
                if bytes.count > options.maximumTileBytes {
                    let fitted = Self.fit(content, under: options.maximumTileBytes)
                    bytes = fitted.bytes
                    summary.tilesOverLimit += 1
                    summary.featuresDroppedForSize += fitted.dropped
                }
                try write(tile, bytes)
                summary.tilesPerZoom[zoom, default: 0] += 1
            }
        }
        return summary
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

    /// The tiles of one zoom level, each with its layers' features.
    func tiles(atZoom zoom: Int, summary: inout VectorTilingSummary) throws -> [MapTile: VectorTile] {
        let tileWidth = MapWorld.size / Double(1 << zoom), unit = tileWidth / Double(options.extent)
        let buffer = Double(options.buffer) * unit
        var simplifier = GeometrySimplifier(tolerance: unit, method: options.method)
        var tiles: [MapTile: VectorTile] = [:]
        for (layerIndex, layer) in layers.enumerated() {
            for feature in layer.features {
                guard let geometry = feature.geometry else { continue }
                guard let simplified = simplifier.simplify(geometry) else {
                    summary.featuresTooSmall += 1
                    continue
                }
                let rect = MapRect(enclosing: simplified)
                guard !rect.isNull else { continue }
                let last = (1 << zoom) - 1
                let columns = max(0, Int(((rect.minX - buffer) / tileWidth).rounded(.down)))...min(last, Int(((rect.maxX + buffer) / tileWidth).rounded(.down)))
                let rows = max(0, Int(((rect.minY - buffer) / tileWidth).rounded(.down)))...min(last, Int(((rect.maxY + buffer) / tileWidth).rounded(.down)))
                let id = feature.id.flatMap(Self.tileID)
                let properties = (feature.properties ?? [:]).compactMap { key, value in VectorTile.Value(value).map { (key: key, value: $0) } }
                for x in columns {
                    for y in rows {
                        let tile = MapTile(zoom: zoom, x: x, y: y)
                        let box = tile.mapRect
                        let clipper = GeometryClipper(rect: RectClip(minX: box.minX - buffer, minY: box.minY - buffer,
                                                                     maxX: box.maxX + buffer, maxY: box.maxY + buffer), plane: .mapPoints)
                        guard let clipped = clipper.clip(simplified) else { continue }
                        let grid = TileGrid(origin: MapPoint(x: box.minX, y: box.minY), unit: unit)
                        let pieces = grid.features(clipped, id: id, properties: properties)
                        guard !pieces.isEmpty else { continue }
                        var content = tiles[tile] ?? VectorTile(layers: layers.map { VectorTile.Layer(name: $0.name, extent: options.extent) })
                        content.layers[layerIndex].features += pieces
                        tiles[tile] = content
                    }
                }
            }
        }
        // Layers a tile holds nothing of are left out of it.
        return tiles.mapValues { VectorTile(layers: $0.layers.filter { !$0.features.isEmpty }) }
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

/// A tile's integer grid: positions in WGS 84 to tile units, and geometries to tile features.
struct TileGrid {
    let origin: MapPoint
    let unit: Double

    func point(_ p: Position) -> SIMD2<Int32> {
        let m = MapPoint(p)
        return SIMD2(Int32(((m.x - origin.x) / unit).rounded()), Int32(((m.y - origin.y) / unit).rounded()))
    }

    /// `geometry` (clipped to the tile) as tile features: one per kind of part it has.
    func features(_ geometry: Geometry, id: UInt64?, properties: [(key: String, value: VectorTile.Value)]) -> [VectorTile.Feature] {
        var points: [SIMD2<Int32>] = [], lines: [[SIMD2<Int32>]] = [], rings: [[SIMD2<Int32>]] = []
        func add(_ g: Geometry) {
            switch g {
            case .point(let p): points.append(point(p.coordinates))
            case .multiPoint(let m): points += m.coordinates.map(point)
            case .lineString(let l): line(l.coordinates).map { lines.append($0) }
            case .multiLineString(let m): lines += m.lines.compactMap(line)
            case .polygon(let p): rings += polygon(p.rings)
            case .multiPolygon(let m): rings += m.polygons.flatMap { polygon($0.rings) }
            case .geometryCollection(let c): c.geometries.forEach(add)
            }
        }
        add(geometry)
        var out: [VectorTile.Feature] = []
        if !points.isEmpty { out.append(VectorTile.Feature(id: id, type: .point, parts: [points], properties: properties)) }
        if !lines.isEmpty { out.append(VectorTile.Feature(id: id, type: .lineString, parts: lines, properties: properties)) }
        if !rings.isEmpty { out.append(VectorTile.Feature(id: id, type: .polygon, parts: rings, properties: properties)) }
        return out
    }

    /// A line snapped to the grid, repeated points dropped; nil when it shrank to a point.
    func line(_ positions: [Position]) -> [SIMD2<Int32>]? {
        let snapped = Self.deduplicated(positions.map(point))
        return snapped.count >= 2 ? snapped : nil
    }

    /// A polygon's rings snapped to the grid, unclosed, the outer ring with positive area (the
    /// specification's clockwise on screen) and holes negative; none when the outer ring
    /// collapses, and holes that collapse are dropped.
    func polygon(_ rings: [[Position]]) -> [[SIMD2<Int32>]] {
        var out: [[SIMD2<Int32>]] = []
        for (index, ring) in rings.enumerated() {
            var snapped = Self.deduplicated(ring.map(point))
            if snapped.count > 1 && snapped.first == snapped.last { snapped.removeLast() }
            let area = Self.doubleArea(snapped)
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
