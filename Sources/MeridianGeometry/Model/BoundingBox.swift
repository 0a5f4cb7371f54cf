/// An axis-aligned box in longitude/latitude (and altitude, when every position has one).
///
/// A box that crosses the antimeridian has `west > east`, as RFC 7946 §5.2 writes it.
/// `Accumulator.result` only ever grows a box, so it has `west <= east`;
/// `Accumulator.resultAcrossAntimeridian` gives the box across the antimeridian when the
/// positions lie about it (as `meridian info` reports them).
public struct BoundingBox: Hashable, Sendable {
    /// Westernmost longitude, in degrees (greater than `east` when the box crosses the antimeridian).
    public var west: Double
    /// Southernmost latitude, in degrees.
    public var south: Double
    /// Easternmost longitude, in degrees.
    public var east: Double
    /// Northernmost latitude, in degrees.
    public var north: Double
    /// Lowest and highest altitude, when every position that went into the box had one.
    public var minAltitude: Double?
    /// Highest altitude in metres, when every position had one (see `minAltitude`).
    public var maxAltitude: Double?

    /// Creates a box from its edges, in degrees.
    /// - Parameters:
    ///   - west: Westernmost longitude.
    ///   - south: Southernmost latitude.
    ///   - east: Easternmost longitude (less than `west` for a box across the antimeridian).
    ///   - north: Northernmost latitude.
    ///   - minAltitude: Lowest altitude in metres, or nil for a 2D box.
    ///   - maxAltitude: Highest altitude in metres, or nil for a 2D box.
    public init(west: Double, south: Double, east: Double, north: Double,
                minAltitude: Double? = nil, maxAltitude: Double? = nil) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
        self.minAltitude = minAltitude
        self.maxAltitude = maxAltitude
    }

    /// The box as GeoJSON's `bbox` member writes it: 4 numbers, or 6 with altitudes.
    public var values: [Double] {
        if let minAltitude, let maxAltitude {
            return [west, south, minAltitude, east, north, maxAltitude]
        }
        return [west, south, east, north]
    }

    /// Reads a GeoJSON `bbox` array (4 or 6 numbers); nil for any other length.
    public init?(values: [Double]) {
        switch values.count {
        case 4: self.init(west: values[0], south: values[1], east: values[2], north: values[3])
        case 6:
            self.init(west: values[0], south: values[1], east: values[3], north: values[4],
                      minAltitude: values[2], maxAltitude: values[5])
        default: return nil
        }
    }

    /// The smallest box holding both boxes (neither may cross the antimeridian).
    public func union(_ other: BoundingBox) -> BoundingBox {
        var acc = Accumulator()
        acc.add(self)
        acc.add(other)
        return acc.result!
    }

    /// Grows a box one position (or box) at a time; streaming readers use it feature by feature.
    public struct Accumulator: Sendable {
        private var west = Double.infinity, south = Double.infinity
        private var east = -Double.infinity, north = -Double.infinity
        private var minZ = Double.infinity, maxZ = -Double.infinity
        private var count = 0
        private var allHaveAltitude = true
        /// The easternmost longitude west of Greenwich, the westernmost east of it (from 0), and
        /// the longitude nearest Greenwich: what tells whether the positions lie about the antimeridian.
        private var eastmostWestern = -Double.infinity, westmostEastern = Double.infinity
        private var nearestGreenwich = Double.infinity

        /// Creates an empty accumulator; its ``result`` is nil until something is added.
        public init() {}

        /// Grows the box to hold a position (the altitude counts only if every position has one).
        @inlinable
        public mutating func add(_ p: Position) {
            add(longitude: p.longitude, latitude: p.latitude, altitude: p.altitude)
        }

        @usableFromInline
        mutating func add(longitude: Double, latitude: Double, altitude: Double?) {
            west = min(west, longitude); east = max(east, longitude)
            south = min(south, latitude); north = max(north, latitude)
            if longitude < 0 { eastmostWestern = max(eastmostWestern, longitude) } else { westmostEastern = min(westmostEastern, longitude) }
            nearestGreenwich = min(nearestGreenwich, abs(longitude))
            if let altitude {
                minZ = min(minZ, altitude); maxZ = max(maxZ, altitude)
            } else {
                allHaveAltitude = false
            }
            count += 1
        }

        /// Grows the box to hold another box (which must not cross the antimeridian).
        public mutating func add(_ box: BoundingBox) {
            add(longitude: box.west, latitude: box.south, altitude: box.minAltitude)
            add(longitude: box.east, latitude: box.north, altitude: box.maxAltitude)
        }

        /// True until the first position or box is added.
        public var isEmpty: Bool { count == 0 }

        /// The box so far, or nil when nothing has been added.
        public var result: BoundingBox? {
            guard count > 0 else { return nil }
            return BoundingBox(west: west, south: south, east: east, north: north,
                               minAltitude: allHaveAltitude ? minZ : nil,
                               maxAltitude: allHaveAltitude ? maxZ : nil)
        }

        /// The box so far, across the antimeridian (`west > east`, RFC 7946 §5.2) when the
        /// positions lie on both sides of it and none is within 90° of Greenwich (Fiji, the
        /// Aleutians, a Pacific crossing), otherwise ``result``. Positions alone cannot tell
        /// which way a line between them goes: the 90° rule keeps data that spans Greenwich,
        /// or the world, in an ordinary box.
        public var resultAcrossAntimeridian: BoundingBox? {
            guard var box = result else { return nil }
            if nearestGreenwich >= 90, eastmostWestern.isFinite, westmostEastern.isFinite {
                (box.west, box.east) = (westmostEastern, eastmostWestern)
            }
            return box
        }
    }
}
