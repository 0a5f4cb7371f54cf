import MeridianCore
import MeridianGeometry

/// The geometry of a Placemark: every geometry element directly inside it, MultiGeometry and
/// MultiTrack flattened, as togeojson v7 collects them, with three deliberate differences:
/// parts of one type make a Multi* geometry (not a GeometryCollection); a two-point track is a
/// line (as togeojson 7.1.3 has it); a Model becomes a Point at its Location.
struct KMLGeometryReader {
    let converter: KMLFeatureConverter

    /// What a Placemark's geometry elements give.
    struct Result {
        var parts: [Geometry] = []
        /// Per part: a track's times and gx:SimpleArrayData values, one per position, by name;
        /// nil for other parts.
        var partData: [JSONObject?] = []

        mutating func append(_ part: Geometry, data: JSONObject? = nil) {
            parts.append(part)
            partData.append(data)
        }

        /// The tracks' per-position arrays for ``geometry``, nested as it nests its parts, with
        /// nulls for the positions of parts that lack an array (a LineString beside a gx:Track).
        var positionData: JSONObject {
            if partData.count == 1 { return partData[0] ?? [:] }
            var names: [String] = []
            for data in partData.compactMap({ $0 }) { for name in data.keys where !names.contains(name) { names.append(name) } }
            let flat = geometry?.type == .multiPoint  // points of one track each: one flat array
            var result = JSONObject()
            for name in names {
                let values = zip(parts, partData).map { part, data in data?[name] ?? PositionData.nulls(for: part) }
                result[name] = .array(flat ? values.flatMap { $0.arrayValue ?? [] } : values)
            }
            return result
        }
        /// The first altitudeMode (or gx:altitudeMode) found.
        var altitudeMode: String?

        /// One geometry, a Multi* of parts of one kind, or a GeometryCollection; nil for none.
        var geometry: Geometry? {
            guard let first = parts.first else { return nil }
            if parts.count == 1 { return first }
            switch first.type {
            case .point where parts.allSatisfy({ $0.type == .point }):
                return .multiPoint(MultiPoint(parts.compactMap { if case .point(let p) = $0 { p.coordinates } else { nil } }))
            case .lineString where parts.allSatisfy({ $0.type == .lineString }):
                return .multiLineString(MultiLineString(parts.compactMap { if case .lineString(let l) = $0 { l.coordinates } else { nil } }))
            case .polygon where parts.allSatisfy({ $0.type == .polygon }):
                return .multiPolygon(MultiPolygon(parts.compactMap { if case .polygon(let p) = $0 { p } else { nil } }))
            default:
                return .geometryCollection(GeometryCollection(parts))
            }
        }
    }

    func read(_ placemark: XMLElement) -> Result {
        var result = Result()
        collect(placemark, into: &result)
        return result
    }

    private func collect(_ element: XMLElement, into result: inout Result) {
        for child in element.children {
            switch child.name {
            case "MultiGeometry", "gx:MultiTrack", "MultiTrack":
                noteAltitudeMode(child, &result)
                collect(child, into: &result)
            case "Point":
                noteAltitudeMode(child, &result)
                if let p = positions(child.child("coordinates"), in: child).first { result.append(.point(Point(p))) }
            case "LineString", "LinearRing":
                noteAltitudeMode(child, &result)
                let line = positions(child.child("coordinates"), in: child)
                if line.count >= 2 { result.append(.lineString(LineString(line))) }
            case "Polygon":
                noteAltitudeMode(child, &result)
                if let polygon = polygon(child) { result.append(.polygon(polygon)) }
            case "gx:Track", "Track":
                noteAltitudeMode(child, &result)
                track(child, into: &result)
            case "Model":
                noteAltitudeMode(child, &result)
                if let location = child.child("Location"),
                   let lon = location.childText("longitude").flatMap(JSNumber.parseFloat),
                   let lat = location.childText("latitude").flatMap(JSNumber.parseFloat) {
                    let altitude = location.childText("altitude").flatMap(JSNumber.parseFloat)
                    result.append(.point(Point(Position(longitude: lon, latitude: lat, altitude: altitude))))
                }
            default:
                continue
            }
        }
    }

    private func noteAltitudeMode(_ geometry: XMLElement, _ result: inout Result) {
        guard result.altitudeMode == nil else { return }
        result.altitudeMode = (geometry.child("altitudeMode") ?? geometry.child("gx:altitudeMode"))?.textContent.trimmingWhitespace()
    }

    /// The positions of a `<coordinates>` element, warning about tuples that were not numbers.
    func positions(_ coordinates: XMLElement?, in parent: XMLElement) -> [Position] {
        guard let coordinates else { return [] }
        let parsed = coordinates.withTextBytes { KMLCoordinates.parse($0, into: converter.coordinateScratch) }
        if parsed.skipped > 0 {
            converter.warn("\(parsed.skipped) coordinate tuple(s) in a \(parent.name) are not numbers and were skipped",
                         line: coordinates.line)
        }
        return parsed.positions
    }

    /// Rings from outerBoundaryIs then innerBoundaryIs (or, when a file has neither, every
    /// LinearRing in order), each closed if the file forgot; rings of fewer than 4 positions dropped.
    private func polygon(_ element: XMLElement) -> Polygon? {
        var ringElements = element.children("outerBoundaryIs").flatMap { $0.children("LinearRing") }
            + element.children("innerBoundaryIs").flatMap { $0.children("LinearRing") }
        if ringElements.isEmpty { ringElements = element.descendants("LinearRing") }
        var rings: [[Position]] = []
        for ringElement in ringElements {
            var ring = positions(ringElement.child("coordinates"), in: ringElement)
            if let first = ring.first, let last = ring.last, !first.isIdentical(to: last) {
                ring.append(first)
                converter.noteUnclosedRing(line: ringElement.line)
            }
            if ring.count >= 4 {
                rings.append(ring)
            } else {
                converter.noteDroppedRing(line: ringElement.line)
            }
        }
        return rings.isEmpty ? nil : Polygon(rings)
    }

    /// gx:Track: `<gx:coord>lon lat alt</gx:coord>` with `<when>` times and gx:SimpleArrayData.
    /// A coord that is not a position is dropped with its time and values, so the others stay
    /// on their positions; times or an array whose count is not the coords' are dropped with a
    /// warning. An empty `<when/>` is an unknown time (null).
    private func track(_ element: XMLElement, into result: inout Result) {
        var coords = element.children("gx:coord")
        if coords.isEmpty { coords = element.children("coord") }
        let parsed: [Position?] = coords.map { coord in
            let numbers = coord.text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
                .compactMap { JSNumber.parseFloat(String($0)) }
            guard numbers.count >= 2 else { return nil }
            return Position(longitude: numbers[0], latitude: numbers[1], altitude: numbers.count > 2 ? numbers[2] : nil)
        }
        let positions = parsed.compactMap { $0 }
        guard let first = positions.first else { return }
        if positions.count < parsed.count {
            converter.warn("\(parsed.count - positions.count) gx:coord of a gx:Track \(parsed.count - positions.count == 1 ? "is" : "are") not a position and \(parsed.count - positions.count == 1 ? "was" : "were") dropped with \(parsed.count - positions.count == 1 ? "its" : "their") time and values",
                           line: element.line)
        }
        /// The values of the coords kept, when there is one per coord; nil (and a warning) otherwise.
        func perPosition(_ values: [JSONValue], _ name: String, line: Int) -> [JSONValue]? {
            guard values.count == parsed.count else {
                converter.warn(.positionDataDropped([name], "has \(values.count) values for \(parsed.count) gx:coord", at: SourceLocation(file: converter.file, line: line)))
                return nil
            }
            return zip(values, parsed).filter { $1 != nil }.map(\.0)
        }
        var data = JSONObject()
        let whens = element.children("when")
        if !whens.isEmpty, let times = perPosition(whens.map { when in
            let text = when.textContent.trimmingWhitespace()
            return text.isEmpty ? .null : .string(text)
        }, "times", line: whens[0].line) {
            data["times"] = .array(times)
        }
        for array in element.descendants("gx:SimpleArrayData") {
            let name = array.attributes["name"] ?? ""
            let values = array.children("gx:value").map { converter.definitions.typedValue($0.textContent, field: name) }
            if let values = perPosition(values, name, line: array.line) { data[name] = .array(values) }
        }
        result.append(positions.count >= 2 ? .lineString(LineString(positions)) : .point(Point(first)), data: data.isEmpty ? nil : data)
    }
}
