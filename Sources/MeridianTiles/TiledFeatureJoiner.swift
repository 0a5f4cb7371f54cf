import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry

/// Features put back together from the vector tiles of one zoom level: each tile's pieces cut
/// to the tile's own square (tiles overlap by their buffer), then the pieces that share a layer
/// and a feature id joined into one feature.
///
/// - Polygons are dissolved along the tile edges: the pieces' rings, cut to exact tile squares,
///   meet along those edges in opposite directions; those shared stretches cancel out and the
///   remaining edges are linked back into rings (outer rings, then each hole in the smallest
///   outer ring around it).
/// - Lines are joined end to end where one piece ends on a tile edge within one tile unit of
///   where the next begins.
/// - Points are kept once each.
///
/// Work is in whole tile units across the zoom level (a tile's units offset by its column and
/// row times the extent), so pieces from neighbouring tiles meet exactly; positions in degrees
/// come last. Features without an id stay as their pieces, one feature per tile.
public struct TiledFeatureJoiner {
    /// A joined feature's identity: its layer, and its id (or a piece's own number, for
    /// features without one), with the geometry type (an id may have pieces of several).
    private struct Key: Hashable {
        var layer: String
        var extent: Int
        var id: UInt64?
        var piece: Int
        var type: VectorTile.GeometryType
    }

    /// What has been gathered of one feature, in whole tile units of the zoom level.
    private struct Gathered {
        var properties: [(key: String, value: VectorTile.Value)]
        var rings: [[SIMD2<Int64>]] = []
        var lines: [[SIMD2<Int64>]] = []
        var points: [SIMD2<Int64>] = []
        var seenPoints: Set<SIMD2<Int64>> = []
    }

    /// The zoom level of the tiles.
    public let zoom: Int
    /// The name of the property that gets each feature's layer name.
    public let layerProperty: String
    private var order: [Key] = []
    private var gathered: [Key: Gathered] = [:]
    private var pieces = 0

    /// A joiner for tiles of zoom level `zoom`; each feature gets its layer's name as the
    /// property `layerProperty` (unless it has one of that name).
    public init(zoom: Int, layerProperty: String = "layer") {
        self.zoom = zoom
        self.layerProperty = layerProperty
    }

    /// The layer extents the joiner works with (wider ones would overflow its whole units).
    public static let extents = 1...(1 << 20)

    /// Takes in one tile's features (layers whose extent is not in ``extents`` are passed over).
    public mutating func add(_ content: VectorTile, of tile: MapTile) {
        for layer in content.layers where Self.extents.contains(layer.extent) {
            let extent = Int64(layer.extent)
            let origin = SIMD2<Int64>(Int64(tile.x) * extent, Int64(tile.y) * extent)
            let square = RectClip(minX: Double(origin.x), minY: Double(origin.y), maxX: Double(origin.x + extent), maxY: Double(origin.y + extent))
            for feature in layer.features {
                pieces += 1
                let key = Key(layer: layer.name, extent: layer.extent, id: feature.id, piece: feature.id == nil ? pieces : 0, type: feature.type)
                var entry = gathered[key] ?? Gathered(properties: feature.properties)
                if gathered[key] == nil { order.append(key) }
                let parts = feature.parts.map { $0.map { PlanePoint(Double(origin.x + Int64($0.x)), Double(origin.y + Int64($0.y))) } }
                switch feature.type {
                case .polygon:
                    for ring in parts where ring.count >= 3 {
                        for cut in square.clip(ring: ring + [ring[0]]) {
                            let points = Self.whole(cut.dropLast())
                            if points.count >= 3 { entry.rings.append(points) }
                        }
                    }
                case .lineString:
                    for line in parts {
                        for cut in square.clip(line: line) {
                            let points = Self.whole(cut[...])
                            if points.count >= 2 { entry.lines.append(points) }
                        }
                    }
                case .point:
                    // Half-open squares, so a point on an edge belongs to one tile; the world's
                    // last column and row keep their far edge.
                    let world = extent << Int64(zoom)
                    for point in parts.joined() {
                        let p = SIMD2<Int64>(Int64(point.x), Int64(point.y))
                        let right = origin.x + extent, bottom = origin.y + extent
                        guard p.x >= origin.x, p.y >= origin.y, p.x < right || right == world && p.x == right,
                              p.y < bottom || bottom == world && p.y == bottom else { continue }
                        if entry.seenPoints.insert(p).inserted { entry.points.append(p) }
                    }
                }
                gathered[key] = entry
            }
        }
    }

    /// Points rounded to whole units (cut points have one fractional coordinate), repeats dropped.
    private static func whole(_ points: ArraySlice<PlanePoint>) -> [SIMD2<Int64>] {
        var out: [SIMD2<Int64>] = []
        for p in points {
            let q = SIMD2<Int64>(Int64(p.x.rounded()), Int64(p.y.rounded()))
            if out.last != q { out.append(q) }
        }
        while out.count > 1, out.first == out.last { out.removeLast() }
        return out
    }

    /// The joined features, in the order their first pieces came, in WGS 84.
    public func features() -> [Feature] {
        order.compactMap { key in
            guard let entry = gathered[key] else { return nil }
            let unit = MapWorld.size / Double(1 << zoom) / Double(key.extent)
            func position(_ p: SIMD2<Int64>) -> Position { MapPoint(x: Double(p.x) * unit, y: Double(p.y) * unit).position }
            let geometry: Geometry?
            switch key.type {
            case .point:
                let points = entry.points.map(position)
                geometry = points.isEmpty ? nil : points.count == 1 ? .point(Point(points[0])) : .multiPoint(MultiPoint(points))
            case .lineString:
                let lines = Self.joinedLines(entry.lines, extent: Int64(key.extent)).map { $0.map(position) }
                geometry = lines.isEmpty ? nil : lines.count == 1 ? .lineString(LineString(lines[0])) : .multiLineString(MultiLineString(lines))
            case .polygon:
                // Rings in tile units (y down) have outer rings clockwise on screen; GeoJSON
                // (RFC 7946) wants them counterclockwise: each ring is reversed and closed.
                let polygons = Self.dissolved(entry.rings, extent: Int64(key.extent)).map { rings in
                    Polygon(rings.map { ring in (ring + [ring[0]]).reversed().map(position) })
                }
                geometry = polygons.isEmpty ? nil : polygons.count == 1 ? .polygon(polygons[0]) : .multiPolygon(MultiPolygon(polygons))
            }
            guard let geometry else { return nil }
            var properties: JSONObject = [:]
            for (name, value) in entry.properties { properties[name] = value.json }
            if properties[layerProperty] == nil { properties[layerProperty] = .string(key.layer) }
            let id = key.id.map { $0 <= UInt64(Int64.max) ? FeatureID.integer(Int64($0)) : FeatureID.double(Double($0)) }
            return Feature(id: id, geometry: geometry, properties: properties)
        }
    }

    // MARK: Lines

    /// Lines joined where one ends on a tile edge within one unit of where another begins.
    static func joinedLines(_ pieces: [[SIMD2<Int64>]], extent: Int64) -> [[SIMD2<Int64>]] {
        func onTileEdge(_ p: SIMD2<Int64>) -> Bool { p.x % extent == 0 || p.y % extent == 0 }
        func meet(_ end: SIMD2<Int64>, _ start: SIMD2<Int64>) -> Bool {
            onTileEdge(end) && onTileEdge(start) && abs(end.x - start.x) <= 1 && abs(end.y - start.y) <= 1
        }
        /// `a` then `b`, `b`'s first point (where `a` ends) dropped, and the point where they meet
        /// too when it only marks where a tile edge cut the line.
        func joined(_ a: [SIMD2<Int64>], _ b: [SIMD2<Int64>]) -> [SIMD2<Int64>] {
            var line = a + b.dropFirst()
            let meeting = a.count - 1
            if meeting > 0, meeting + 1 < line.count, isCut(line[meeting - 1], line[meeting], line[meeting + 1], extent: extent) {
                line.remove(at: meeting)
            }
            return line
        }
        var remaining = pieces, lines: [[SIMD2<Int64>]] = []
        while !remaining.isEmpty {
            var line = remaining.removeFirst()
            var grew = true
            while grew {
                grew = false
                if let next = remaining.firstIndex(where: { meet(line.last!, $0.first!) }) {
                    let piece = remaining.remove(at: next)
                    line = joined(line, piece)
                    grew = true
                }
                if let previous = remaining.firstIndex(where: { meet($0.last!, line.first!) }) {
                    let piece = remaining.remove(at: previous)
                    line = joined(piece, line)
                    grew = true
                }
            }
            lines.append(line)
        }
        return lines
    }

    // MARK: Polygons

    /// Rings cut to tile squares, dissolved into polygons (each its outer ring, then its holes).
    static func dissolved(_ rings: [[SIMD2<Int64>]], extent: Int64) -> [[[SIMD2<Int64>]]] {
        let edges = cancelled(split(rings.flatMap { ring in ring.indices.map { (ring[$0], ring[($0 + 1) % ring.count]) } }, extent: extent))
        var linked = link(edges).map { withoutCutPoints($0, extent: extent) }.filter { $0.count >= 3 }
        // Outer rings have positive area in tile units; were there none, the tiles wound
        // their rings the other way.
        if !linked.contains(where: { doubleArea($0) > 0 }) { linked = linked.map { $0.reversed() } }
        let outers = linked.filter { doubleArea($0) > 0 }.sorted { doubleArea($0) < doubleArea($1) }
        var polygons = outers.map { [$0] }
        for hole in linked where doubleArea(hole) < 0 {
            // The smallest outer ring around the hole (outers are sorted smallest first).
            if let index = outers.firstIndex(where: { outer in hole.contains { encloses(outer, $0) == true } }) {
                polygons[index].append(hole)
            }
        }
        return polygons
    }

    /// Edges lying on a tile edge cut at every point where another such edge on the same line
    /// ends, so that the stretches two pieces share become the same edges.
    private static func split(_ edges: [(SIMD2<Int64>, SIMD2<Int64>)], extent: Int64) -> [(SIMD2<Int64>, SIMD2<Int64>)] {
        /// The tile edge line an edge lies on: (0, x) for a vertical line, (1, y) for a horizontal one.
        func line(_ a: SIMD2<Int64>, _ b: SIMD2<Int64>) -> SIMD2<Int64>? {
            if a.x == b.x, a.x % extent == 0 { return SIMD2(0, a.x) }
            if a.y == b.y, a.y % extent == 0 { return SIMD2(1, a.y) }
            return nil
        }
        var stops: [SIMD2<Int64>: [Int64]] = [:]
        for (a, b) in edges {
            guard let l = line(a, b) else { continue }
            let along = l.x == 0 ? (a.y, b.y) : (a.x, b.x)
            stops[l, default: []] += [along.0, along.1]
        }
        for l in stops.keys { stops[l] = Array(Set(stops[l]!)).sorted() }
        var out: [(SIMD2<Int64>, SIMD2<Int64>)] = []
        for (a, b) in edges {
            guard let l = line(a, b), let cuts = stops[l] else {
                out.append((a, b))
                continue
            }
            let vertical = l.x == 0
            let from = vertical ? a.y : a.x, to = vertical ? b.y : b.x
            // The stops strictly between the ends, found by bisection: a ring zigzagging along a
            // tile edge has as many stops on it as edges, and scanning them all for each edge
            // took minutes.
            let first = firstIndex(in: cuts, after: min(from, to)), end = firstIndex(in: cuts, after: max(from, to) - 1)
            let between = Array(cuts[first..<max(first, end)])
            var previous = a
            for c in from < to ? between : between.reversed() {
                let p = vertical ? SIMD2(a.x, c) : SIMD2(c, a.y)
                out.append((previous, p))
                previous = p
            }
            out.append((previous, b))
        }
        return out
    }

    /// The index of the first of the sorted `values` greater than `value` (their count if none is).
    private static func firstIndex(in values: [Int64], after value: Int64) -> Int {
        var low = 0, high = values.count
        while low < high {
            let middle = (low + high) / 2
            if values[middle] > value { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// The edges left when each edge and one edge going the opposite way cancel out.
    private static func cancelled(_ edges: [(SIMD2<Int64>, SIMD2<Int64>)]) -> [(SIMD2<Int64>, SIMD2<Int64>)] {
        struct Edge: Hashable { var from: SIMD2<Int64>, to: SIMD2<Int64> }
        var count: [Edge: Int] = [:]
        var order: [Edge] = []
        for (a, b) in edges where a != b {
            let reverse = Edge(from: b, to: a)
            if let n = count[reverse], n > 0 {
                count[reverse] = n - 1
            } else {
                let edge = Edge(from: a, to: b)
                if count[edge] == nil { order.append(edge) }
                count[edge, default: 0] += 1
            }
        }
        return order.flatMap { edge in Array(repeating: (edge.from, edge.to), count: count[edge] ?? 0) }
    }

    /// Edges linked into closed rings (unclosed: the last point is not repeated). Where several
    /// edges leave one point, the one turning furthest to the right (on screen) is taken, so
    /// rings that touch at a point come out as separate rings.
    private static func link(_ edges: [(SIMD2<Int64>, SIMD2<Int64>)]) -> [[SIMD2<Int64>]] {
        var outgoing: [SIMD2<Int64>: [SIMD2<Int64>]] = [:]
        for (a, b) in edges { outgoing[a, default: []].append(b) }
        var rings: [[SIMD2<Int64>]] = []
        for (start, _) in edges {
            guard var next = outgoing[start]?.popLast() else { continue }
            var ring = [start], current = start
            // Every point has as many edges in as out, so the walk comes back to `start`.
            var steps = 0
            while next != start && steps <= edges.count {
                steps += 1
                ring.append(next)
                let incoming = next &- current
                current = next
                guard var choices = outgoing[current], !choices.isEmpty else { break }
                let pick = choices.indices.max { turn(incoming, choices[$0] &- current) < turn(incoming, choices[$1] &- current) }!
                next = choices.remove(at: pick)
                outgoing[current] = choices
            }
            if next == start { rings.append(ring) }
        }
        return rings
    }

    /// The angle from direction `a` to direction `b`, positive turning right on screen (y down).
    private static func turn(_ a: SIMD2<Int64>, _ b: SIMD2<Int64>) -> Double {
        let cross = Double(a.x) * Double(b.y) - Double(a.y) * Double(b.x), dot = Double(a.x) * Double(b.x) + Double(a.y) * Double(b.y)
        return atan2(cross, dot)
    }

    /// Whether the ring's or line's point `b`, between `a` and `c`, adds nothing: it lies on the
    /// straight line through `a` and `c`, or it is a point where a tile edge cut the stretch from
    /// `a` to `c`: on the edge, with `a` and `c` on either side of it, within a unit of the
    /// stretch (the cut point was rounded). A point on the edge with a neighbour on the edge too
    /// is a corner, however close its neighbours: a rectangle one unit wide keeps its four.
    private static func isCut(_ a: SIMD2<Int64>, _ b: SIMD2<Int64>, _ c: SIMD2<Int64>, extent: Int64) -> Bool {
        let cross = Double(b.x - a.x) * Double(c.y - a.y) - Double(b.y - a.y) * Double(c.x - a.x)
        if cross == 0 { return true }
        let crossesColumnEdge = b.x % extent == 0 && (a.x < b.x && b.x < c.x || c.x < b.x && b.x < a.x)
        let crossesRowEdge = b.y % extent == 0 && (a.y < b.y && b.y < c.y || c.y < b.y && b.y < a.y)
        guard crossesColumnEdge || crossesRowEdge else { return false }
        let length = hypot(Double(c.x - a.x), Double(c.y - a.y))
        let along = Double(b.x - a.x) * Double(c.x - a.x) + Double(b.y - a.y) * Double(c.y - a.y)
        return length > 0 && abs(cross) / length <= 1 && along > 0 && along < length * length
    }

    /// The ring without the points that add nothing (see `isCut`), in one pass: each point is
    /// checked against the last one kept and the next, and the ring's ends against each other
    /// at the end (removing points one by one from the whole ring was quadratic for a ring
    /// that crosses a tile edge thousands of times).
    private static func withoutCutPoints(_ ring: [SIMD2<Int64>], extent: Int64) -> [SIMD2<Int64>] {
        var kept: [SIMD2<Int64>] = []
        kept.reserveCapacity(ring.count)
        for point in ring {
            while kept.count >= 2 && isCut(kept[kept.count - 2], kept[kept.count - 1], point, extent: extent) { kept.removeLast() }
            kept.append(point)
        }
        // Where the ring closes: its last points against its first.
        var first = 0
        while kept.count - first >= 3 {
            let n = kept.count
            if isCut(kept[n - 2], kept[n - 1], kept[first], extent: extent) {
                kept.removeLast()
            } else if isCut(kept[n - 1], kept[first], kept[first + 1], extent: extent) {
                first += 1
            } else {
                break
            }
        }
        return Array(kept[first...])
    }

    /// Twice the ring's area by the surveyor's formula (y down): positive clockwise on screen.
    static func doubleArea(_ ring: [SIMD2<Int64>]) -> Double {
        var sum = 0.0
        for i in ring.indices {
            let a = ring[i], b = ring[(i + 1) % ring.count]
            sum += Double(a.x) * Double(b.y) - Double(b.x) * Double(a.y)
        }
        return sum
    }

    /// Whether `p` is inside `ring` (true), outside (false), or on its boundary (nil).
    private static func encloses(_ ring: [SIMD2<Int64>], _ p: SIMD2<Int64>) -> Bool? {
        var inside = false
        for i in ring.indices {
            let a = ring[i], b = ring[(i + 1) % ring.count]
            let cross = Double(b.x - a.x) * Double(p.y - a.y) - Double(b.y - a.y) * Double(p.x - a.x)
            if cross == 0, min(a.x, b.x) <= p.x, p.x <= max(a.x, b.x), min(a.y, b.y) <= p.y, p.y <= max(a.y, b.y) { return nil }
            if (a.y > p.y) != (b.y > p.y) {
                let x = Double(a.x) + Double(p.y - a.y) * Double(b.x - a.x) / Double(b.y - a.y)
                if Double(p.x) < x { inside.toggle() }
            }
        }
        return inside
    }
}

extension TiledFeatureJoiner {
    /// The features of a vector tile pyramid at one zoom level, joined (see ``TiledFeatureJoiner``).
    /// - Parameters:
    ///   - pyramid: The tile pyramid, open for reading.
    ///   - zoom: The zoom level to read; nil when the pyramid holds tiles of one level only.
    ///   - layer: Only this layer's features; nil for every layer's.
    /// - Throws: `MeridianError` (bad input) when the pyramid holds images or a tile is damaged,
    ///   `TilePyramidLevelError` (usage) when `zoom` is nil and the pyramid has several levels;
    ///   `MeridianError` (usage) when `zoom` is not one of
    ///   them, or no tile has the layer `layer`.
    public static func features(of pyramid: any TilePyramidReader, zoom: Int?, layer: String? = nil) throws -> [Feature] {
        let metadata = try pyramid.pyramidMetadata()
        guard metadata.format == .mvt else {
            throw MeridianError(.badInput, "the tile pyramid holds \(metadata.format.displayName), not vector tiles: only vector tiles are read back as features",
                                at: SourceLocation(file: pyramid.path))
        }
        let tiles = try pyramid.tileAddresses(zooms: zoom.map { $0...$0 })
        let levels = Set(tiles.map(\.zoom)).sorted()
        if zoom == nil && levels.count > 1 {
            throw TilePyramidLevelError(path: pyramid.path, levels: levels.first!...levels.last!)
        }
        guard let level = levels.first else {
            let stated = metadata.zooms
            throw MeridianError(.usage, zoom.map { "the tile pyramid has no tiles at zoom \($0) (its zoom levels: \(stated.lowerBound)-\(stated.upperBound))" }
                                ?? "the tile pyramid holds no tiles", at: SourceLocation(file: pyramid.path))
        }
        var joiner = TiledFeatureJoiner(zoom: level)
        var layers: Set<String> = []
        for tile in tiles {
            guard var content = try pyramid.vectorTile(tile) else { continue }
            if let odd = content.layers.first(where: { !Self.extents.contains($0.extent) }) {
                throw MeridianError(.badInput, "tile \(tile): layer \"\(odd.name)\" has an extent of \(odd.extent) units (Meridian reads 1 to \(Self.extents.upperBound))",
                                    at: SourceLocation(file: pyramid.path))
            }
            layers.formUnion(content.layers.map(\.name))
            if let layer { content.layers.removeAll { $0.name != layer } }
            joiner.add(content, of: tile)
        }
        if let layer, !layers.contains(layer) {
            throw MeridianError(.usage, "the tiles have no layer \"\(layer)\"; their layers: \(layers.sorted().joined(separator: ", "))",
                                at: SourceLocation(file: pyramid.path))
        }
        return joiner.features()
    }
}
