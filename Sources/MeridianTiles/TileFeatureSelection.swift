import Foundation
import MeridianGeometry

/// What tippecanoe's per-feature `tippecanoe` member asks of a feature (`{"minzoom": 3,
/// "maxzoom": 9, "layer": "roads"}`): the zooms it shows at and the layer it goes into, so
/// GeoJSON prepared for tippecanoe tiles the same way. The member itself never becomes a property.
public struct FeatureTilingRequest: Sendable, Equatable {
    /// The lowest zoom the feature shows at.
    public var minimumZoom: Int?
    /// The deepest zoom the feature shows at.
    public var maximumZoom: Int?
    /// The layer it goes into instead of its input's.
    public var layer: String?

    /// The name of the member, in a GeoJSON Feature, that holds the request.
    public static let memberName = "tippecanoe"

    /// The request in `member` (the value of a Feature's `tippecanoe` member); members that are
    /// missing or not of the kind expected (a number for a zoom, a string for a layer) ask nothing.
    /// - Parameter member: The member's value.
    public init(_ member: JSONValue) {
        guard case .object(let object) = member else { return }
        minimumZoom = Self.zoom(object["minzoom"])
        maximumZoom = Self.zoom(object["maxzoom"])
        if case .string(let name)? = object["layer"], !name.isEmpty { layer = name }
    }

    /// A zoom level from a JSON number, clamped to 0-255 (how a spill keeps it); nil when it is not a finite number.
    static func zoom(_ value: JSONValue?) -> Int? {
        let number: Double
        switch value {
        case .integer(let i)?: number = Double(i)
        case .double(let d)? where d.isFinite: number = d
        default: return nil
        }
        return Int(min(255, max(0, number.rounded(.down))))
    }
}

/// How points are thinned below the base zoom (tippecanoe's `--drop-rate` and `--base-zoom`):
/// at each level below the base zoom a point shows with a chance `1 / rate` of that at the level
/// above, so about `count / rate^(base - zoom)` of them show at `zoom`, as evenly thinned where
/// points are dense as where they are sparse. Whether a point shows is decided by a hash of its
/// position and properties, not by the order it was read or the thread that cut it: the same data
/// gives the same tiles, and a point that shows at a level shows at every deeper level.
public struct PointThinning: Sendable, Equatable {
    /// How many times fewer points show at each level below ``baseZoom`` (2.5, tippecanoe's
    /// default); 1 shows every point at every level.
    public var dropRate: Double
    /// The level from which every point shows.
    public var baseZoom: Int

    /// Thinning by `dropRate` below `baseZoom`.
    /// - Parameters:
    ///   - dropRate: The rate, 1 or more.
    ///   - baseZoom: The level from which every point shows.
    public init(dropRate: Double = 2.5, baseZoom: Int) {
        self.dropRate = dropRate
        self.baseZoom = baseZoom
    }

    /// Whether a point whose ``rank(_:)`` is `rank` shows at `zoom`.
    func shows(rank: Double, at zoom: Int) -> Bool {
        guard zoom < baseZoom, dropRate > 1 else { return true }
        return rank < pow(dropRate, -Double(baseZoom - zoom))
    }

    /// A number in [0, 1) from `bytes` (a point's position and properties), spread evenly: a
    /// 64-bit FNV-1a hash, mixed by SplitMix64's finaliser.
    static func rank(_ bytes: UnsafeRawBufferPointer, _ positions: [Position]) -> Double {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        for byte in bytes { add(byte) }
        for position in positions.prefix(4) {
            withUnsafeBytes(of: position.longitude.bitPattern.littleEndian) { $0.forEach(add) }
            withUnsafeBytes(of: position.latitude.bitPattern.littleEndian) { $0.forEach(add) }
        }
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        hash ^= hash >> 31
        return Double(hash >> 11) / Double(1 << 53)
    }
}


/// The most a tile may hold: bytes gzipped (tippecanoe's default, 500 KB) and features (200,000).
public struct TileLimits: Sendable, Equatable {
    /// The most bytes a tile may take, gzipped: as MBTiles and PMTiles store it, and as
    /// tippecanoe counts its `--maximum-tile-bytes` (a folder's tiles, stored inflated, are larger).
    public var maximumBytes: Int
    /// The most features a tile may hold.
    public var maximumFeatures: Int

    /// Limits of `maximumBytes` and `maximumFeatures`.
    /// - Parameters:
    ///   - maximumBytes: The most bytes a tile may take.
    ///   - maximumFeatures: The most features a tile may hold.
    public init(maximumBytes: Int = 500_000, maximumFeatures: Int = 200_000) {
        self.maximumBytes = maximumBytes
        self.maximumFeatures = maximumFeatures
    }

    /// Whether a tile of `features` features, `encoded` as these bytes, is within the limits.
    func admit(_ encoded: [UInt8], features: Int) -> Bool {
        features <= maximumFeatures && !Self.gzippedSize(of: encoded, exceeds: maximumBytes)
    }

    /// Whether `encoded` takes more than `limit` bytes gzipped: how `tile` and `tile-join` both
    /// count a tile's size. A tile well under the limit as it is is not compressed to tell:
    /// gzip adds its header and trailer (18 bytes) and 5 bytes per stored block of at most 64 KiB.
    /// Should zlib fail to start, the tile's own size (the larger) is counted.
    static func gzippedSize(of encoded: [UInt8], exceeds limit: Int) -> Bool {
        if encoded.count + encoded.count / 8192 + 64 <= limit { return false }
        return ((try? Gzip.compress(encoded))?.count ?? encoded.count) > limit
    }
}

/// What ranks a feature among its zoom level's when the level's tiles must lose some: known
/// before the feature is cut into tiles, so that its pieces rank alike in every tile it crosses.
struct FeatureRanking: Sendable, Equatable {
    /// How big the whole feature is at the level: its polygons' area, else its lines' length,
    /// in map points; points are above every other (infinity).
    var size: Double
    /// A number in [0, 1) from its position and attributes (``PointThinning/rank(_:_:)``),
    /// spread evenly: it orders features of one size, and is the order of an evenly spread fraction.
    var rank: Double
}

/// A zoom level's threshold under `OverLimitStrategy`: a feature whose key (its size, gap to
/// its neighbour or nothing, then its rank, by the strategy) is below it leaves every tile of
/// the level (or is merged), so that all the level's tiles are thinned alike, with no seams
/// between tiles thinned more and less (tippecanoe's `minextent`, `mingap` and drop sequence,
/// raised for the whole zoom level).
struct DropThreshold: Comparable, Sendable {
    /// The strategy's measure: size, gap, or 0 for an evenly spread fraction.
    var measure: Double
    /// The feature's rank, between features of one measure.
    var rank: Double

    /// Above every key: every feature goes.
    static let everything = DropThreshold(measure: .infinity, rank: .infinity)

    static func < (a: DropThreshold, b: DropThreshold) -> Bool { (a.measure, a.rank) < (b.measure, b.rank) }
}

/// Brings a tile over its ``TileLimits`` under them by an `OverLimitStrategy`: finds the
/// least ``DropThreshold`` that does, which the tiler raises for the whole level.
struct TileFeatureBudget {
    let limits: TileLimits
    let strategy: OverLimitStrategy

    /// What fitting a tile did: its bytes (none when every feature had to go: such a tile is
    /// not written), how many features were dropped or merged into others, and the threshold
    /// that fitted it (nil when merging could not, and the tile's own features were dropped
    /// instead: that is not asked of the level's other tiles).
    struct Fitted {
        var bytes: [UInt8]
        var dropped = 0, coalesced = 0
        var threshold: DropThreshold?
    }

    /// A tile with the features under a threshold taken out, and how many were dropped and merged.
    struct Thinned {
        var tile: VectorTile
        var dropped = 0, coalesced = 0
    }

    /// `tile` brought under the limits, its features ranked by themselves (their size in the
    /// tile, their order spread evenly): for a tile on its own.
    func fit(_ tile: VectorTile) -> Fitted {
        fit(tile, keys: keys(tile, rankings: Self.rankings(of: tile)), from: nil)
    }

    /// Rankings of a tile's features from the tile alone: their size in it, their place in it
    /// bit-reversed (so the first of them in rank order are spread evenly through it).
    static func rankings(of tile: VectorTile) -> [[FeatureRanking]] {
        let count = tile.featureCount
        let bits = max(1, Int.bitWidth - max(0, count - 1).leadingZeroBitCount)
        var index = 0
        return tile.layers.map { layer in
            layer.features.map { feature in
                defer { index += 1 }
                return FeatureRanking(size: TileGrid.size(of: feature), rank: Double(reversed(index, bits: bits)) / Double(1 << bits))
            }
        }
    }

    /// Each feature's key under the strategy, per layer: its size, its gap to its neighbour
    /// before it along the Z-order curve (of its first vertex, in tile units: the same scale in
    /// every tile of the level), or nothing; then its rank.
    func keys(_ tile: VectorTile, rankings: [[FeatureRanking]]) -> [[DropThreshold]] {
        switch strategy {
        case .dropSmallest, .coalesceSmallest:
            return rankings.map { $0.map { DropThreshold(measure: $0.size, rank: $0.rank) } }
        case .dropFraction:
            return rankings.map { $0.map { DropThreshold(measure: 0, rank: $0.rank) } }
        case .dropDensest, .coalesceDensest:
            var firsts: [(code: UInt64, point: SIMD2<Int32>, layer: Int, feature: Int)] = []
            for (l, layer) in tile.layers.enumerated() {
                for (f, feature) in layer.features.enumerated() {
                    let first = feature.parts.first?.first ?? .zero
                    firsts.append((Self.mortonCode(first), first, l, f))
                }
            }
            firsts.sort { ($0.code, $0.layer, $0.feature) < ($1.code, $1.layer, $1.feature) }
            var keys = rankings.map { $0.map { DropThreshold(measure: .infinity, rank: $0.rank) } }
            for (previous, next) in zip(firsts, firsts.dropFirst()) {
                keys[next.layer][next.feature].measure = hypot(Double(previous.point.x) - Double(next.point.x),
                                                               Double(previous.point.y) - Double(next.point.y))
            }
            return keys
        }
    }

    /// `tile` without the features whose key is under `threshold`, or with them merged into the
    /// kept feature of the same layer and kind before them (after, for the first); a feature
    /// with none of its kind in its layer to merge into is dropped. With `keepingOne`, a tile
    /// the threshold would empty keeps its feature of the highest key, so that sparse areas do
    /// not go blank under a level's threshold (as a tile keeps a point under thinning).
    func thinned(_ tile: VectorTile, keys: [[DropThreshold]], below threshold: DropThreshold, keepingOne: Bool = false) -> Thinned {
        var threshold = threshold
        if keepingOne, let highest = keys.lazy.flatMap({ $0 }).max(), highest < threshold { threshold = highest }
        var result = Thinned(tile: tile)
        let merges = strategy == .coalesceSmallest || strategy == .coalesceDensest
        for (l, layer) in tile.layers.enumerated() {
            var kept: [VectorTile.Feature] = []
            var waiting: [VectorTile.Feature] = []  // merged before any feature of their kind was kept
            for (f, feature) in layer.features.enumerated() {
                if keys[l][f] < threshold {
                    if !merges {
                        result.dropped += 1
                    } else if let target = kept.lastIndex(where: { $0.type == feature.type }) {
                        kept[target].parts += feature.parts
                        result.coalesced += 1
                    } else {
                        waiting.append(feature)
                    }
                } else {
                    var feature = feature
                    for (w, early) in waiting.enumerated().reversed() where early.type == feature.type {
                        feature.parts = early.parts + feature.parts
                        waiting.remove(at: w)
                        result.coalesced += 1
                    }
                    kept.append(feature)
                }
            }
            result.dropped += waiting.count  // no feature of their kind in the layer to merge into
            result.tile.layers[l].features = kept
        }
        result.tile.layers.removeAll { $0.features.isEmpty }
        return result
    }

    /// `tile` brought under the limits by the least threshold, at least `start`, that does:
    /// the features' keys from the lowest, a tenth of those left more at a time. When merging
    /// every feature it can leaves the tile over, its features are dropped instead, in the same
    /// order; then, and when only losing every feature fits it, no threshold is given for the level.
    func fit(_ tile: VectorTile, keys: [[DropThreshold]], from start: DropThreshold?) -> Fitted {
        let sorted = keys.flatMap { $0 }.sorted()
        var removed = start.map { start in sorted.firstIndex { !($0 < start) } ?? sorted.count } ?? 0
        while true {
            removed = min(sorted.count, removed + max(1, (sorted.count - removed) / 10))
            let threshold = removed == sorted.count ? DropThreshold.everything : sorted[removed]
            let thinned = thinned(tile, keys: keys, below: threshold)
            let count = thinned.tile.featureCount
            // A tile that fits only empty is not written; the level's other tiles are not emptied for it.
            if count == 0 { return Fitted(bytes: [], dropped: thinned.dropped, coalesced: thinned.coalesced, threshold: nil) }
            let bytes = thinned.tile.encoded()
            if limits.admit(bytes, features: count) {
                return Fitted(bytes: bytes, dropped: thinned.dropped, coalesced: thinned.coalesced, threshold: threshold)
            }
            if removed == sorted.count {
                // Merged all it could and still over: drop instead, this tile only.
                let dropping = TileFeatureBudget(limits: limits, strategy: strategy == .coalesceSmallest ? .dropSmallest : .dropDensest)
                var fitted = dropping.fit(tile, keys: keys, from: nil)
                fitted.threshold = nil
                return fitted
            }
        }
    }

    /// The Z-order (Morton) code of a tile point, its coordinates offset to be non-negative.
    static func mortonCode(_ point: SIMD2<Int32>) -> UInt64 {
        MortonOrder.code(x: UInt32(bitPattern: point.x) ^ 0x8000_0000, y: UInt32(bitPattern: point.y) ^ 0x8000_0000)
    }

    /// `value`'s lowest `bits` bits in reverse order.
    static func reversed(_ value: Int, bits: Int) -> Int {
        var out = 0, v = value
        for _ in 0..<bits {
            out = (out << 1) | (v & 1)
            v >>= 1
        }
        return out
    }
}

extension VectorTile {
    /// The features of all its layers.
    var featureCount: Int { layers.reduce(0) { $0 + $1.features.count } }
}

extension Geometry {
    /// The positions of a point or multipoint (what ``PointThinning`` thins); nil for other kinds.
    var pointPositions: [Position]? {
        switch self {
        case .point(let p): [p.coordinates]
        case .multiPoint(let m): m.coordinates
        default: nil
        }
    }
}

/// Tippecanoe's tiny polygon reduction: polygons too small to draw at a level (that simplify to
/// nothing) are not all lost, which would make a layer of many small areas (buildings, lakes)
/// vanish at low zooms. Their areas are summed as they go by, and each time the sum reaches a
/// square of ``side`` (two tile units), the polygon that reached it is drawn as that square at
/// its place: the level shows about as much area as the data has.
struct TinyPolygonReduction {
    /// The square's side in map points: two tile units of the level.
    let side: Double
    /// The area summed and not yet drawn, in square map points.
    private var pending = 0.0

    /// A reduction for a level whose tile unit is `unit` map points.
    init(unit: Double) { side = 2 * unit }

    /// The square to draw for `geometry`, a polygon too small to draw; nil while the summed area
    /// stays under a square (or for a geometry with no polygon).
    mutating func square(for geometry: Geometry) -> PlaneShape? {
        let shape = PlaneShape(geometry)
        guard let anchor = shape.polygons.first?.first?.first else { return nil }
        for polygon in shape.polygons {
            for (index, ring) in polygon.enumerated() {
                let area = abs(Self.area(ring))
                pending += index == 0 ? area : -area
            }
        }
        guard pending >= side * side else { return nil }
        pending -= side * side
        let x = anchor.x, y = anchor.y
        let ring = [PlanePoint(x, y), PlanePoint(x + side, y), PlanePoint(x + side, y + side), PlanePoint(x, y + side), PlanePoint(x, y)]
        return PlaneShape(points: [], lines: [], polygons: [[ring]])
    }

    /// A ring's area by the surveyor's formula (signed).
    static func area(_ ring: [PlanePoint]) -> Double {
        guard ring.count >= 3 else { return 0 }
        var sum = 0.0
        for (a, b) in zip(ring, ring.dropFirst() + [ring[0]]) { sum += a.x * b.y - b.x * a.y }
        return sum / 2
    }
}

/// Point clustering (tippecanoe's `--cluster-distance` and `--accumulate-attribute`): in each
/// tile below the deepest zoom, points closer than ``distance`` pixels (of 256 a tile) to the
/// first point of a cluster join it, taken in the tile's Z-order. A cluster is one point at its
/// members' mean position, with the first member's attributes, `clustered` true, `point_count`,
/// `sqrt_point_count` and `point_count_abbreviated` (tippecanoe's names), and the attributes
/// named in ``accumulations`` combined over the members. A point alone stays as it is.
public struct PointClustering: Sendable, Equatable {
    /// How an attribute is combined over a cluster's members.
    public typealias Accumulation = ClusterAccumulation

    /// The distance, in pixels of 256 a tile, within which points join a cluster.
    public var distance: Int
    /// The attributes combined over a cluster, and how.
    public var accumulations: [String: Accumulation]

    /// Clustering within `distance` pixels, combining `accumulations`.
    /// - Parameters:
    ///   - distance: The distance in pixels (1-255).
    ///   - accumulations: The attributes combined over a cluster, and how.
    public init(distance: Int, accumulations: [String: Accumulation] = [:]) {
        self.distance = distance
        self.accumulations = accumulations
    }

    /// `tile` with its close points clustered.
    func clustered(_ tile: VectorTile) -> VectorTile {
        var out = tile
        for l in out.layers.indices {
            let layer = out.layers[l]
            let reach = Int64(distance) * Int64(layer.extent) / 256
            let points = layer.features.indices.filter { layer.features[$0].type == .point && layer.features[$0].parts.joined().count == 1 }
            guard points.count > 1 else { continue }
            let ordered = points.sorted {
                (TileFeatureBudget.mortonCode(layer.features[$0].parts[0][0]), $0) < (TileFeatureBudget.mortonCode(layer.features[$1].parts[0][0]), $1)
            }
            var groups: [[Int]] = []
            for index in ordered {
                let p = layer.features[index].parts[0][0]
                if let first = groups.last?.first {
                    let q = layer.features[first].parts[0][0]
                    let dx = Int64(p.x) - Int64(q.x), dy = Int64(p.y) - Int64(q.y)
                    if dx * dx + dy * dy <= reach * reach {
                        groups[groups.count - 1].append(index)
                        continue
                    }
                }
                groups.append([index])
            }
            var replaced: [Int: VectorTile.Feature] = [:], removed = Set<Int>()
            for group in groups where group.count > 1 {
                let members = group.sorted()
                replaced[members[0]] = cluster(members.map { layer.features[$0] })
                removed.formUnion(members.dropFirst())
            }
            out.layers[l].features = layer.features.indices.compactMap { removed.contains($0) ? nil : replaced[$0] ?? layer.features[$0] }
        }
        return out
    }

    /// One point standing for `members`.
    func cluster(_ members: [VectorTile.Feature]) -> VectorTile.Feature {
        let positions = members.map { $0.parts[0][0] }
        let x = positions.reduce(0.0) { $0 + Double($1.x) } / Double(positions.count)
        let y = positions.reduce(0.0) { $0 + Double($1.y) } / Double(positions.count)
        let count = members.count
        let special: Set<String> = ["clustered", "point_count", "sqrt_point_count", "point_count_abbreviated"]
        var properties = members[0].properties.filter { !special.contains($0.key) && accumulations[$0.key] == nil }
        for (key, accumulation) in accumulations.sorted(by: { $0.key < $1.key }) {
            let values = members.compactMap { member in member.properties.first { $0.key == key }?.value }
            if let value = Self.combine(values, accumulation) { properties.append((key, value)) }
        }
        properties += [("clustered", .bool(true)), ("point_count", .uint(UInt64(count))),
                       ("sqrt_point_count", .double((Double(count).squareRoot() * 100).rounded() / 100)),
                       ("point_count_abbreviated", .string(Self.abbreviated(count)))]
        return VectorTile.Feature(id: members[0].id, type: .point, parts: [[SIMD2(Int32(x.rounded()), Int32(y.rounded()))]], properties: properties)
    }

    /// `values` combined by `accumulation`; nil when none applies (no numbers for a numeric one).
    static func combine(_ values: [VectorTile.Value], _ accumulation: Accumulation) -> VectorTile.Value? {
        func number(_ value: VectorTile.Value) -> Double? {
            switch value {
            case .double(let d): d
            case .uint(let u): Double(u)
            case .sint(let i): Double(i)
            case .string, .bool: nil
            }
        }
        func text(_ value: VectorTile.Value) -> String {
            switch value {
            case .string(let s): s
            case .double(let d): d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
            case .uint(let u): String(u)
            case .sint(let i): String(i)
            case .bool(let b): b ? "true" : "false"
            }
        }
        let numbers = values.compactMap(number)
        switch accumulation {
        case .concat: return values.isEmpty ? nil : .string(values.map(text).joined())
        case .comma: return values.isEmpty ? nil : .string(values.map(text).joined(separator: ","))
        case .sum: return numbers.isEmpty ? nil : .double(numbers.reduce(0, +))
        case .mean: return numbers.isEmpty ? nil : .double(numbers.reduce(0, +) / Double(numbers.count))
        case .max: return numbers.max().map { .double($0) }
        case .min: return numbers.min().map { .double($0) }
        }
    }

    /// A count as tippecanoe abbreviates it: 999, 1.2k, 15k, 1.5M.
    static func abbreviated(_ count: Int) -> String {
        if count < 1_000 { return "\(count)" }
        if count < 10_000 { return String(format: "%.1fk", Double(count) / 1_000) }
        if count < 1_000_000 { return "\(count / 1_000)k" }
        return String(format: "%.1fM", Double(count) / 1_000_000)
    }
}
