import OrderedCollections

/// What `meridian info` reports about a stream of features, gathered one feature at a time
/// so a summary of any size of input takes constant memory (plus one entry per property key).
public struct DatasetSummary: Sendable, Hashable {
    /// Features added so far.
    public private(set) var featureCount = 0
    /// Features with `"geometry": null`.
    public private(set) var nullGeometryCount = 0
    /// Features per geometry type, in order of first appearance.
    public private(set) var geometryTypes: OrderedDictionary<GeometryType, Int> = [:]
    /// Positions (vertices) across every geometry, counting ring closures.
    public private(set) var positionCount = 0
    /// Positions with an altitude.
    public private(set) var positionsWithAltitude = 0
    private(set) var boundingBoxAccumulator = BoundingBox.Accumulator()
    /// Property keys in order of first appearance, with the JSON types seen for each.
    public private(set) var propertyKeys: OrderedDictionary<String, PropertyKeySummary> = [:]

    /// How often one property key appears, and with which JSON types.
    public struct PropertyKeySummary: Sendable, Hashable {
        /// Features that have the key.
        public var count = 0
        /// JSON type names seen ("string", "integer", "number", "null", …), in order of first appearance.
        public var types: OrderedSet<String> = []
    }

    /// Creates an empty summary; ``add(_:)`` each feature in turn.
    public init() {}

    /// The bounds of every position seen, or nil when there were none; across the antimeridian
    /// (`west > east`) when the positions lie about it (``BoundingBox/Accumulator/resultAcrossAntimeridian``).
    public var boundingBox: BoundingBox? { boundingBoxAccumulator.resultAcrossAntimeridian }

    /// Counts one feature: its geometry type, positions, bounds and property keys.
    public mutating func add(_ feature: Feature) {
        featureCount += 1
        if let geometry = feature.geometry {
            geometryTypes[geometry.type, default: 0] += 1
            geometry.forEachPosition { p in
                positionCount += 1
                if p.altitude != nil { positionsWithAltitude += 1 }
                boundingBoxAccumulator.add(p)
            }
        } else {
            nullGeometryCount += 1
        }
        for (key, value) in feature.properties ?? [:] {
            propertyKeys[key, default: PropertyKeySummary()].count += 1
            propertyKeys[key]!.types.append(value.typeName)
        }
    }
}

extension BoundingBox.Accumulator: Hashable {
    /// Two accumulators are equal when they would give the same box.
    public static func == (a: Self, b: Self) -> Bool { a.result == b.result }
    /// Hashes the box the accumulator would give.
    public func hash(into hasher: inout Hasher) { hasher.combine(result) }
}
