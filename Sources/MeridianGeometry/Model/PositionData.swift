/// Data that belongs to positions: the `coordinateProperties` member of a feature's properties,
/// as Mapbox's togeojson writes it for GPX and KML tracks (`times`, and one array per
/// gx:SimpleArrayData). Each member holds one value per position, nested as the geometry nests
/// its positions: a flat array for a Point, LineString or MultiPoint, an array per line of a
/// MultiLineString (per ring of a Polygon, per polygon of a MultiPolygon, per member of a
/// GeometryCollection).
///
/// Readers keep only arrays shaped like their geometry (``Feature/removeMisalignedPositionData()``);
/// transforms that drop, add or move positions replace the geometry through
/// ``Feature/replaceGeometry(with:)``, which carries every array to the new positions, so no
/// algorithm tracks the arrays itself.
public enum PositionData {
    /// The properties member that holds the per-position arrays.
    public static let member = "coordinateProperties"
}

/// How a geometry nests its positions, which is how its per-position arrays nest.
indirect enum PositionLayout {
    case positions([Position])
    case parts([PositionLayout])

    init(_ geometry: Geometry) {
        switch geometry {
        case .point(let p): self = .positions([p.coordinates])
        case .lineString(let l): self = .positions(l.coordinates)
        case .multiPoint(let m): self = .positions(m.coordinates)
        case .multiLineString(let m): self = .parts(m.lines.map { .positions($0) })
        case .polygon(let p): self = .parts(p.rings.map { .positions($0) })
        case .multiPolygon(let m): self = .parts(m.polygons.map { .parts($0.rings.map { .positions($0) }) })
        case .geometryCollection(let c): self = .parts(c.geometries.map(PositionLayout.init))
        }
    }

    /// Whether `value` is an array with one value per position, nested as the positions are.
    func fits(_ value: JSONValue) -> Bool {
        guard let array = value.arrayValue else { return false }
        switch self {
        case .positions(let positions): return array.count == positions.count
        case .parts(let parts): return array.count == parts.count && zip(parts, array).allSatisfy { $0.fits($1) }
        }
    }

    /// The runs of positions (lines, rings, a point) in order.
    var runs: [[Position]] {
        switch self {
        case .positions(let positions): [positions]
        case .parts(let parts): parts.flatMap(\.runs)
        }
    }

    /// A fitting value's runs of values, in the order of ``runs``.
    func runs(of value: JSONValue) -> [[JSONValue]] {
        let array = value.arrayValue ?? []
        switch self {
        case .positions: return [array]
        case .parts(let parts): return zip(parts, array).flatMap { $0.runs(of: $1) }
        }
    }

    /// The nested value for this layout from its runs of values, taken in order.
    func value(from runs: inout ArraySlice<[JSONValue]>) -> JSONValue {
        switch self {
        case .positions: return .array(runs.popFirst() ?? [])
        case .parts(let parts): return .array(parts.map { $0.value(from: &runs) })
        }
    }
}

extension Feature {
    /// The geometry's runs of positions (a line, each line of a MultiLineString, each ring, a
    /// point) and, for each per-position array that fits the geometry, its values in runs of
    /// the same shape, in the arrays' order: what an output with a row per position writes (a
    /// CSV of track points). Arrays that do not fit are left out; no geometry has no runs.
    public var positionRuns: (positions: [[Position]], arrays: [(name: String, runs: [[JSONValue]])]) {
        guard let geometry else { return ([], []) }
        let layout = PositionLayout(geometry)
        let arrays = (positionData ?? [:]).compactMap { name, value in layout.fits(value) ? (name: name, runs: layout.runs(of: value)) : nil }
        return (layout.runs, arrays)
    }

    /// The per-position arrays (see ``PositionData``).
    var positionData: JSONObject? {
        get { properties?[PositionData.member]?.objectValue }
        set {
            if let newValue, !newValue.isEmpty {
                properties?[PositionData.member] = .object(newValue)
            } else {
                properties?.removeValue(forKey: PositionData.member)
            }
        }
    }

    /// Removes every per-position array that does not hold one value per position of the
    /// geometry (nested as the geometry nests them), and returns their names, for a warning.
    @discardableResult
    public mutating func removeMisalignedPositionData() -> [String] {
        guard let data = positionData else { return [] }
        let layout = geometry.map(PositionLayout.init)
        let misaligned = data.keys.filter { key in !(layout?.fits(data[key]!) ?? false) }
        guard !misaligned.isEmpty else { return [] }
        positionData = data.filter { !misaligned.contains($0.key) }
        return Array(misaligned)
    }

    /// Removes every per-position array, for an output that has no place for them, and
    /// returns their names, for a warning.
    @discardableResult
    public mutating func removePositionData() -> [String] {
        let names = positionData.map { Array($0.keys) } ?? []
        if !names.isEmpty { positionData = nil }
        return names
    }

    /// Removes every per-position array, as ``removePositionData()`` does, and returns how
    /// many values each held (its positions' count, however the array nests), for a warning
    /// that counts what an output could not keep.
    @discardableResult
    public mutating func removePositionDataCountingValues() -> [String: Int] {
        guard let data = positionData, !data.isEmpty else { return [:] }
        func leaves(_ value: JSONValue) -> Int {
            guard let array = value.arrayValue else { return 1 }
            return array.reduce(0) { $0 + leaves($1) }
        }
        positionData = nil
        var counts: [String: Int] = [:]
        for (name, value) in data { counts[name] = leaves(value) }
        return counts
    }

    /// Replaces the geometry with one a transform made from it (a simplify, a clip, a cut at
    /// the antimeridian, a densify), carrying each per-position array to the new positions.
    ///
    /// Transforms keep the input's positions (their latitude bit for bit, their longitude up to
    /// whole turns) in order and add new ones between them, so the positions kept are found
    /// in order in the input and each new one on the input segment it lies nearest: it gets
    /// the values there interpolated (numbers and ISO 8601 times; null for other values).
    /// Arrays of polygons whose rings changed, or that cannot be followed, are removed.
    /// - Returns: The names of the arrays removed, for a warning; empty when all followed.
    ///
    /// A new position on a line whose input positions have altitudes gets its altitude so too,
    /// between the two ends of its input segment: a cut or a densified point of a 3D track stays
    /// 3D, never 2D among 3D positions (which GDAL reads as altitude 0).
    @discardableResult
    public mutating func replaceGeometry(with newGeometry: Geometry?) -> [String] {
        var newGeometry = newGeometry
        if let old = geometry, let transformed = newGeometry {
            newGeometry = transformed.interpolatingAltitudes(from: old)
        }
        defer { geometry = newGeometry }
        guard var data = positionData, !data.isEmpty, let old = geometry, let newGeometry, old != newGeometry else { return [] }
        let oldLayout = PositionLayout(old), newLayout = PositionLayout(newGeometry)
        // A ring's start and direction are the transform's to choose: its arrays are not followed.
        guard !old.hasRings, data.values.allSatisfy(oldLayout.fits),
              let origins = PositionOrigins(from: oldLayout.runs, to: newLayout.runs) else {
            positionData = nil
            return Array(data.keys)
        }
        for (key, value) in data {
            let values = Array(oldLayout.runs(of: value).joined())
            var runs = origins.runs.map { run in run.map { $0.value(in: values) } }[...]
            data[key] = newLayout.value(from: &runs)
        }
        positionData = data
        return []
    }
}

extension Geometry {
    /// The geometry (a transform's output from `old`) with each position that lacks an
    /// altitude but lies between two input positions that have one given the altitude in
    /// proportion along that segment. Lines only: a ring's new corners (a clip's) lie on no
    /// input segment. Itself when nothing is missing or the positions cannot be followed.
    func interpolatingAltitudes(from old: Geometry) -> Geometry {
        guard !old.hasRings, !hasRings, old.hasAltitude else { return self }
        let layout = PositionLayout(self)
        let runs = layout.runs
        guard runs.contains(where: { $0.contains { $0.altitude == nil } }) else { return self }
        let input = PositionLayout(old).runs
        guard let origins = PositionOrigins(from: input, to: runs) else { return self }
        let positions = Array(input.joined())
        var filled = ArraySlice(zip(runs, origins.runs).map { run, origin in
            zip(run, origin).map { position, origin -> Position in
                guard position.altitude == nil, case .between(let index, let fraction) = origin,
                      let a = positions[index].altitude, let b = positions[index + 1].altitude else { return position }
                var position = position
                position.altitude = a + (b - a) * fraction
                return position
            }
        })
        return replacingRuns(with: &filled)
    }

    /// The geometry with its runs of positions (lines, rings, points, in the order of
    /// `PositionLayout.runs`) replaced by `runs`, taken in order.
    func replacingRuns(with runs: inout ArraySlice<[Position]>) -> Geometry {
        switch self {
        case .point(let p): return .point(Point(runs.popFirst()?.first ?? p.coordinates))
        case .lineString: return .lineString(LineString(runs.popFirst() ?? []))
        case .multiPoint: return .multiPoint(MultiPoint(runs.popFirst() ?? []))
        case .multiLineString(let m): return .multiLineString(MultiLineString(m.lines.map { _ in runs.popFirst() ?? [] }))
        case .polygon(let p): return .polygon(Polygon(p.rings.map { _ in runs.popFirst() ?? [] }))
        case .multiPolygon(let m): return .multiPolygon(MultiPolygon(m.polygons.map { Polygon($0.rings.map { _ in runs.popFirst() ?? [] }) }))
        case .geometryCollection(let c): return .geometryCollection(GeometryCollection(c.geometries.map { $0.replacingRuns(with: &runs) }))
        }
    }

    /// Whether the geometry has polygon rings.
    var hasRings: Bool {
        switch self {
        case .polygon, .multiPolygon: true
        case .geometryCollection(let c): c.geometries.contains(where: \.hasRings)
        default: false
        }
    }
}

/// Where each position of a transform's output came from in its input: an input position, or
/// a point on an input segment. Indices count the input's positions run after run.
struct PositionOrigins {
    enum Origin {
        case kept(Int)
        /// On the segment from input position `from` to `from + 1`, `fraction` of the way.
        case between(Int, fraction: Double)

        func value(in values: [JSONValue]) -> JSONValue {
            switch self {
            case .kept(let index): values[index]
            case .between(let index, let fraction): PositionData.interpolate(values[index], values[index + 1], fraction)
            }
        }
    }

    /// Per output run, each position's origin.
    var runs: [[Origin]] = []

    /// Nil when some output position cannot be placed on the input (the arrays are then dropped).
    init?(from input: [[Position]], to output: [[Position]]) {
        let positions = Array(input.joined())
        var runEnd: [Int] = []  // per input position: the index past its run's last
        for run in input { runEnd += Array(repeating: runEnd.count + run.count, count: run.count) }
        // Input positions by latitude, which transforms keep bit for bit.
        var byLatitude: [UInt64: [Int]] = [:]
        for (index, p) in positions.enumerated() { byLatitude[p.latitude.bitPattern, default: []].append(index) }
        func sameLongitude(_ a: Double, _ b: Double) -> Bool {
            let turns = ((a - b) / 360).rounded()
            return abs(a - b - turns * 360) <= 1e-9
        }
        /// The first input position at or after `start` that `p` is.
        func match(_ p: Position, atOrAfter start: Int) -> Int? {
            byLatitude[p.latitude.bitPattern]?.first { $0 >= start && sameLongitude(positions[$0].longitude, p.longitude) }
        }
        // First the positions kept, found in order: output runs go forward through the input.
        var cursor = 0
        var kept: [[Int?]] = []
        for run in output {
            kept.append(run.enumerated().map { i, p in
                // The same input position may end one output run and start the next (a clip).
                guard let index = match(p, atOrAfter: cursor + (i == 0 ? 0 : 1)) else { return nil }
                cursor = index
                return index
            })
        }
        // Then each new position, on the input segment nearest it between the kept ones around it.
        var runStart = runEnd
        for (index, end) in runEnd.enumerated() { runStart[index] = index == 0 || runEnd[index - 1] != end ? index : runStart[index - 1] }
        let flatKept = Array(kept.joined())
        var nextKept = flatKept.map { _ in Int?.none }
        var following: Int?
        for index in flatKept.indices.reversed() {
            nextKept[index] = following
            if let k = flatKept[index] { following = k }
        }
        // Where the last position placed lies on the input: no later one lies before it.
        var floor = 0, floorFraction = 0.0, flatIndex = 0
        for (run, runKept) in zip(output, kept) {
            var origins: [Origin] = []
            var before: Int?
            var i = 0
            while i < run.count {
                if let index = runKept[i] {
                    origins.append(.kept(index))
                    (floor, floorFraction, before) = (index, 0, index)
                    i += 1
                    flatIndex += 1
                    continue
                }
                // New positions with no kept one between them lie on one input segment (a clip's
                // entry and exit, a densified segment's points), in order along it: placed together,
                // a line that goes back over itself gets each piece from the pass it belongs to.
                var end = i
                while end < run.count, runKept[end] == nil { end += 1 }
                let after = nextKept[flatIndex]
                let high = after.map { $0 - 1 } ?? before.map { runEnd[$0] - 2 } ?? positions.count - 2
                let low = max(floor, before ?? after.map { runStart[$0] } ?? floor)
                if let (segment, fractions) = Self.segment(fitting: Array(run[i..<end]), in: positions, runEnd: runEnd,
                                                           from: low, through: high, notBefore: (floor, floorFraction)) {
                    for fraction in fractions { origins.append(.between(segment, fraction: fraction)) }
                    (floor, floorFraction) = (segment, fractions.last ?? floorFraction)
                } else {
                    for p in run[i..<end] {
                        let low = max(floor, before ?? after.map { runStart[$0] } ?? floor)
                        guard let (segment, fraction) = Self.nearestSegment(to: p, in: positions, runEnd: runEnd, from: low, through: high) else { return nil }
                        origins.append(.between(segment, fraction: fraction))
                        (floor, floorFraction) = (segment, fraction)
                    }
                }
                flatIndex += end - i
                i = end
            }
            runs.append(origins)
        }
    }

    /// The input segment among those starting at `low...high` (and ending in the same run) that
    /// `points` lie along in order, at or after `notBefore` (a segment and a fraction along it),
    /// nearest them in all, the earliest of equally near ones; with each point's fraction along it.
    /// Nil when no segment has them in order.
    static func segment(fitting points: [Position], in positions: [Position], runEnd: [Int], from low: Int, through high: Int,
                        notBefore: (segment: Int, fraction: Double)) -> (Int, [Double])? {
        guard low <= high else { return nil }
        var best: (segment: Int, fractions: [Double], distance: Double)?
        candidates: for start in low...high where start + 1 < runEnd[start] {
            var fractions: [Double] = [], total = 0.0
            var previous = start == notBefore.segment ? notBefore.fraction : 0
            for p in points {
                let (t, distance) = project(p, ontoSegmentFrom: start, in: positions)
                // Allow for rounding where a point is the previous one (a piece ending where the next begins).
                guard t >= previous - 1e-9 else { continue candidates }
                fractions.append(t)
                total += distance
                previous = t
            }
            // Nearer by more than rounding, or it stays the earlier segment.
            if best == nil || total < best!.distance - 1e-18 { best = (start, fractions, total) }
        }
        return best.map { ($0.segment, $0.fractions) }
    }

    /// Where `p` projects onto the input segment from `positions[start]` to the next: the
    /// fraction along it (0...1) and the squared distance, in degrees with longitudes unwrapped.
    static func project(_ p: Position, ontoSegmentFrom start: Int, in positions: [Position]) -> (fraction: Double, distance: Double) {
        let a = positions[start], b = positions[start + 1]
        func unwrap(_ x: Double) -> Double { x - ((x - a.longitude) / 360).rounded() * 360 }
        let bx = unwrap(b.longitude) - a.longitude, by = b.latitude - a.latitude
        let px = unwrap(p.longitude) - a.longitude, py = p.latitude - a.latitude
        let length2 = bx * bx + by * by
        let t = length2 > 0 ? min(1, max(0, (px * bx + py * by) / length2)) : 0
        let dx = px - t * bx, dy = py - t * by
        return (t, dx * dx + dy * dy)
    }

    /// The input segment (start index, fraction along it) nearest `p` among those starting at
    /// `low...high` and ending in the same run, measured in degrees with longitudes unwrapped.
    static func nearestSegment(to p: Position, in positions: [Position], runEnd: [Int], from low: Int, through high: Int) -> (Int, Double)? {
        guard low <= high else { return nil }
        var best: (Int, Double, Double)?
        for start in low...high where start + 1 < runEnd[start] {
            let (t, distance) = project(p, ontoSegmentFrom: start, in: positions)
            if best == nil || distance < best!.2 { best = (start, t, distance) }
        }
        return best.map { ($0.0, $0.1) }
    }
}

extension PositionData {
    /// The value `fraction` of the way from `a` to `b`: numbers and ISO 8601 times in
    /// proportion (integers stay integers, times keep their zone and precision); equal values
    /// stay; anything else is unknown (null).
    static func interpolate(_ a: JSONValue, _ b: JSONValue, _ fraction: Double) -> JSONValue {
        if fraction == 0 || a == b { return a }
        if fraction == 1 { return b }
        switch (a, b) {
        case (.integer(let x), .integer(let y)):
            let value = (Double(x) + (Double(y) - Double(x)) * fraction).rounded()
            return Int64(exactly: value).map(JSONValue.integer) ?? .double(value)
        case (.integer, .double), (.double, .integer), (.double, .double):
            let x = a.doubleValue!, y = b.doubleValue!
            return .double(x + (y - x) * fraction)
        case (.string(let x), .string(let y)):
            guard let start = ISOTime(x), let end = ISOTime(y) else { return .null }
            var time = start
            time.seconds = start.seconds + (end.seconds - start.seconds) * fraction
            time.fractionDigits = max(start.fractionDigits, end.fractionDigits)
            return .string(time.text)
        default:
            return .null
        }
    }
}

/// A time as xsd:dateTime (and ISO 8601) writes it, `YYYY-MM-DDThh:mm:ss[.fff][Z|±hh:mm]`:
/// the form GPX's `<time>` takes and KML's `<when>` may take. Held as seconds since 1970 (on
/// its own zone's wall clock) so two can be interpolated, and written back in the same form.
public struct ISOTime: Sendable {
    var seconds: Double
    /// Minutes east of UTC, nil for `Z`; `hasZone` false for a time without a zone.
    var offsetMinutes: Int?
    var hasZone: Bool
    var fractionDigits: Int

    /// The time `text` spells, or nil when it is not an xsd:dateTime (a date alone, an empty
    /// or other text).
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for i in range {
                guard (48...57).contains(bytes[i]) else { return nil }
                value = value * 10 + Int(bytes[i] - 48)
            }
            return value
        }
        guard bytes.count >= 19, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84,
              bytes[13] == 58, bytes[16] == 58,
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var index = 19, fraction = 0.0, digits = 0
        if index < bytes.count, bytes[index] == 46 {
            index += 1
            var scale = 0.1
            while index < bytes.count, (48...57).contains(bytes[index]) {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
        }
        offsetMinutes = nil
        hasZone = false
        if index < bytes.count {
            if bytes[index] == 90, index + 1 == bytes.count {
                hasZone = true
            } else if bytes[index] == 43 || bytes[index] == 45, bytes.count == index + 6, bytes[index + 3] == 58,
                      let h = number((index + 1)..<(index + 3)), let m = number((index + 4)..<(index + 6)) {
                hasZone = true
                offsetMinutes = (bytes[index] == 45 ? -1 : 1) * (h * 60 + m)
            } else {
                return nil
            }
        }
        fractionDigits = digits
        let days = Self.days(year: year, month: month, day: day)
        seconds = Double(((days * 24 + hour) * 60 + minute) * 60 + second) + fraction
    }

    /// The time written back, in the same zone, to as many decimals as it was read with (at
    /// most nine: nanoseconds).
    public var text: String {
        let decimals = min(fractionDigits, 9)
        var scale = 1
        for _ in 0..<decimals { scale *= 10 }
        // Whole seconds and the fraction apart: years 0000-9999 keep both well within Int.
        let floored = seconds.rounded(.down)
        var whole = Int(floored), part = Int(((seconds - floored) * Double(scale)).rounded())
        if part == scale { (whole, part) = (whole + 1, 0) }
        var days = whole / 86400, inDay = whole % 86400
        if inDay < 0 { inDay += 86400; days -= 1 }
        let (year, month, day) = Self.civil(days: days)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var text = "\(String(repeating: "0", count: max(0, 4 - String(year).count)))\(year)-\(two(month))-\(two(day))T"
            + "\(two(inDay / 3600)):\(two(inDay / 60 % 60)):\(two(inDay % 60))"
        if decimals > 0 {
            let digits = String(part)
            text += "." + String(repeating: "0", count: decimals - digits.count) + digits
        }
        if hasZone {
            if let offset = offsetMinutes {
                text += (offset < 0 ? "-" : "+") + two(abs(offset) / 60) + ":" + two(abs(offset) % 60)
            } else {
                text += "Z"
            }
        }
        return text
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }

    /// The date of a day count since 1970-01-01 (civil_from_days).
    static func civil(days: Int) -> (Int, Int, Int) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let dayOfEra = z - era * 146097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Feature {
    /// The values of the per-position array `name`, one run per line, ring or point in the
    /// order of the geometry's positions; nil when the feature has no such array fitting its geometry.
    public func positionValues(_ name: String) -> [[JSONValue]]? {
        guard let geometry, let value = positionData?[name] else { return nil }
        let layout = PositionLayout(geometry)
        return layout.fits(value) ? layout.runs(of: value) : nil
    }
}

extension Feature {
    /// The feature with only the `index`th member of its GeometryCollection, and that member's
    /// part of each per-position array, for a format that writes members apart.
    public func collectionMember(_ index: Int) -> Feature {
        guard case .geometryCollection(let c)? = geometry else { return self }
        var member = self
        member.geometry = c.geometries[index]
        member.bbox = nil
        if let data = positionData {
            member.positionData = data.compactMapValues { value in
                value.arrayValue.flatMap { $0.indices.contains(index) ? $0[index] : nil }
            }
        }
        return member
    }
}

extension PositionData {
    /// An array of nulls shaped like `geometry`'s positions: the values of a part that has none
    /// beside parts that have some.
    public static func nulls(for geometry: Geometry) -> JSONValue {
        func nulls(_ layout: PositionLayout) -> JSONValue {
            switch layout {
            case .positions(let positions): .array(Array(repeating: .null, count: positions.count))
            case .parts(let parts): .array(parts.map(nulls))
            }
        }
        return nulls(PositionLayout(geometry))
    }
}
