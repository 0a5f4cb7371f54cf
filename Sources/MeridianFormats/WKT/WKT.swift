import MeridianCore
import MeridianGeometry

/// Well-known text (OGC Simple Features, ISO 13249-3): `POINT (1 2)`, `POLYGON Z ((…))`.
///
/// Written in the ISO form (`MULTIPOINT ((1 2), (3 4))`, a `Z` tag when any position has an
/// altitude), with coordinates exact or rounded like every other writer. Read leniently: any
/// case, EWKT's `SRID=…;` prefix, `M` and `ZM` (the measure is dropped), multipoints with or
/// without inner parentheses, and untagged third coordinates.
public enum WKT {
    /// Writes `geometry` as ISO WKT into `sink`, with x (longitude) before y (latitude) and a `Z` tag
    /// when any position has an altitude; no newline follows.
    /// - Parameters:
    ///   - geometry: The geometry to write.
    ///   - sink: Where the text goes.
    ///   - precision: Decimal places to round coordinates to; nil writes them exactly.
    public static func write(_ geometry: Geometry, to sink: OutputSink, precision: Int? = nil) {
        var writer = Writer(sink: sink, precision: precision, hasZ: geometry.hasAltitude)
        writer.geometry(geometry)
    }

    /// The geometry as a WKT string.
    public static func text(_ geometry: Geometry, precision: Int? = nil) -> String {
        let sink = OutputSink(collectingAs: "wkt")
        write(geometry, to: sink, precision: precision)
        return sink.collectedText()
    }

    /// Parses one geometry; errors name `location` with the column of the fault added.
    /// An `EMPTY` geometry comes back as nil (GeoJSON's null geometry).
    public static func parse(_ text: some Collection<UInt8>, location: SourceLocation = SourceLocation(file: "<wkt>")) throws -> Geometry? {
        var parser = Parser(bytes: Array(text), location: location)
        let geometry = try parser.geometry()
        parser.skipSpace()
        if parser.index < parser.bytes.count { throw parser.error("unexpected text after the geometry") }
        return geometry
    }

    struct Writer {
        let sink: OutputSink
        let precision: Int?
        let hasZ: Bool

        mutating func geometry(_ geometry: Geometry) {
            let tag: StaticString
            switch geometry {
            case .point: tag = "POINT"
            case .lineString: tag = "LINESTRING"
            case .polygon: tag = "POLYGON"
            case .multiPoint: tag = "MULTIPOINT"
            case .multiLineString: tag = "MULTILINESTRING"
            case .multiPolygon: tag = "MULTIPOLYGON"
            case .geometryCollection: tag = "GEOMETRYCOLLECTION"
            }
            sink.write(tag)
            if hasZ { sink.write(" Z" as StaticString) }
            guard !geometry.isEmpty else {
                sink.write(" EMPTY" as StaticString)
                return
            }
            sink.write(byte: UInt8(ascii: " "))
            switch geometry {
            case .point(let p): positions([p.coordinates])
            case .lineString(let l): positions(l.coordinates)
            case .polygon(let p): rings(p.rings)
            case .multiPoint(let m): list(m.coordinates) { positions([$0]) }
            case .multiLineString(let m): rings(m.lines)
            case .multiPolygon(let m): list(m.polygons) { rings($0.rings) }
            case .geometryCollection(let c):
                list(c.geometries) { member in
                    var inner = Writer(sink: sink, precision: precision, hasZ: member.hasAltitude)
                    inner.geometry(member)
                }
            }
        }

        func list<T>(_ items: [T], _ body: (T) -> Void) {
            sink.write(byte: UInt8(ascii: "("))
            for (i, item) in items.enumerated() {
                if i > 0 { sink.write(", " as StaticString) }
                body(item)
            }
            sink.write(byte: UInt8(ascii: ")"))
        }

        func rings(_ rings: [[Position]]) { list(rings) { positions($0) } }

        func positions(_ positions: [Position]) {
            list(positions) { p in
                sink.writeCoordinate(p.longitude, precision: precision)
                sink.write(byte: UInt8(ascii: " "))
                sink.writeCoordinate(p.latitude, precision: precision)
                if hasZ {
                    sink.write(byte: UInt8(ascii: " "))
                    sink.writeCoordinate(p.altitude ?? 0, precision: precision)
                }
            }
        }
    }

    struct Parser {
        let bytes: [UInt8]
        let location: SourceLocation
        var index = 0

        func error(_ message: String, hint: String? = nil) -> MeridianError {
            var at = location
            at.column = (location.column ?? 1) + index
            return MeridianError(.badInput, "WKT: \(message)", at: at, hint: hint)
        }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func word() -> String {
            skipSpace()
            let start = index
            while index < bytes.count, (bytes[index] | 0x20) >= UInt8(ascii: "a"), (bytes[index] | 0x20) <= UInt8(ascii: "z") {
                index += 1
            }
            return String(decoding: bytes[start..<index], as: UTF8.self).uppercased()
        }

        mutating func take(_ c: Character) -> Bool {
            skipSpace()
            guard index < bytes.count, bytes[index] == c.asciiValue! else { return false }
            index += 1
            return true
        }

        mutating func expect(_ c: Character) throws {
            guard take(c) else {
                throw error(index < bytes.count ? "expected '\(c)'" : "the text ends where '\(c)' was expected")
            }
        }

        enum Dimensions { case xyz, xym, xyzm, unknown }

        static let types = ["POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION"]

        /// How deep geometry collections may nest (the parser recurses once per level).
        static let maximumDepth = 64
        var depth = 0

        mutating func geometry() throws -> Geometry? {
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maximumDepth else { throw error("geometry collections nested more than \(Self.maximumDepth) deep") }
            skipSpace()
            if bytes[index...].starts(with: Array("SRID=".utf8)) || bytes[index...].starts(with: Array("srid=".utf8)) {
                guard let semicolon = bytes[index...].firstIndex(of: UInt8(ascii: ";")) else { throw error("SRID= without ';'") }
                index = semicolon + 1
            }
            let typeStart = index
            var type = word()
            var dimensions = Dimensions.unknown
            let tags: [(String, Dimensions)] = [("ZM", .xyzm), ("Z", .xyz), ("M", .xym)]
            if !Self.types.contains(type) {
                // "POINTZ", "LINESTRINGM": the tag written onto the type.
                for base in Self.types {
                    if let tag = tags.first(where: { base + $0.0 == type }) { (type, dimensions) = (base, tag.1) }
                }
            }
            let afterType = index
            let tagWord = word()
            if let tag = tags.first(where: { $0.0 == tagWord }) { dimensions = tag.1 } else { index = afterType }
            let afterTag = index
            if word() == "EMPTY" { return nil }
            index = afterTag
            switch type {
            case "POINT":
                try expect("(")
                let p = try position(dimensions)
                try expect(")")
                return .point(Point(p))
            case "LINESTRING": return .lineString(LineString(try positionList(dimensions)))
            case "POLYGON": return .polygon(Polygon(try ringList(dimensions)))
            case "MULTIPOINT":
                try expect("(")
                var points: [Position] = []
                repeat {
                    if take("(") {
                        points.append(try position(dimensions))
                        try expect(")")
                    } else {
                        points.append(try position(dimensions))
                    }
                } while take(",")
                try expect(")")
                return .multiPoint(MultiPoint(points))
            case "MULTILINESTRING": return .multiLineString(MultiLineString(try ringList(dimensions)))
            case "MULTIPOLYGON":
                try expect("(")
                var polygons: [Polygon] = []
                repeat { polygons.append(Polygon(try ringList(dimensions))) } while take(",")
                try expect(")")
                return .multiPolygon(MultiPolygon(polygons))
            case "GEOMETRYCOLLECTION":
                try expect("(")
                var members: [Geometry] = []
                repeat {
                    if let member = try geometry() { members.append(member) }
                } while take(",")
                try expect(")")
                return .geometryCollection(GeometryCollection(members))
            default:
                index = typeStart
                throw error(type.isEmpty ? "expected a geometry type" : "unknown geometry type \(type)",
                            hint: "POINT, LINESTRING, POLYGON, MULTIPOINT, MULTILINESTRING, MULTIPOLYGON or GEOMETRYCOLLECTION")
            }
        }

        mutating func number() throws -> Double {
            skipSpace()
            let start = index
            while index < bytes.count, NumberText.isNumberByte(bytes[index]) { index += 1 }
            guard let value = NumberText.parseLenient(bytes[start..<index]) else {
                index = start
                throw error(start < bytes.count ? "expected a number" : "the text ends where a number was expected")
            }
            return value
        }

        mutating func position(_ dimensions: Dimensions) throws -> Position {
            let x = try number(), y = try number()
            var values: [Double] = []
            while true {
                skipSpace()
                guard index < bytes.count, NumberText.isNumberByte(bytes[index]) else { break }
                values.append(try number())
            }
            guard values.count <= 2 else { throw error("a position has more than four numbers") }
            let z: Double? = switch dimensions {
            case .xym: nil
            default: values.first
            }
            return Position(longitude: x, latitude: y, altitude: z)
        }

        mutating func positionList(_ dimensions: Dimensions) throws -> [Position] {
            try expect("(")
            var positions: [Position] = []
            repeat { positions.append(try position(dimensions)) } while take(",")
            try expect(")")
            return positions
        }

        mutating func ringList(_ dimensions: Dimensions) throws -> [[Position]] {
            try expect("(")
            var rings: [[Position]] = []
            repeat { rings.append(try positionList(dimensions)) } while take(",")
            try expect(")")
            return rings
        }
    }
}
