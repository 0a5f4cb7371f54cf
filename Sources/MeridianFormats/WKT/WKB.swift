import MeridianCore
import MeridianGeometry

/// Well-known binary (ISO 13249-3), written little-endian with ISO's Z codes (1001 for a 3D
/// point); read in either byte order, with ISO or EWKB (PostGIS) type codes and an optional SRID.
public enum WKB {
    /// The geometry as little-endian ISO WKB (the bytes OGR and PostGIS take), coordinates bit for
    /// bit; a geometry with altitudes uses the Z type codes (1001–1007).
    /// - Parameter geometry: The geometry to encode.
    /// - Returns: The WKB bytes.
    public static func encode(_ geometry: Geometry) -> [UInt8] {
        var out: [UInt8] = []
        append(geometry, to: &out)
        return out
    }

    static func append(_ geometry: Geometry, to out: inout [UInt8]) {
        let hasZ = geometry.hasAltitude
        func uint32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        func double(_ v: Double) { withUnsafeBytes(of: v.bitPattern.littleEndian) { out += $0 } }
        func position(_ p: Position) {
            double(p.longitude)
            double(p.latitude)
            if hasZ { double(p.altitude ?? 0) }
        }
        func positions(_ list: [Position]) {
            uint32(UInt32(list.count))
            list.forEach(position)
        }
        func header(_ code: UInt32) {
            out.append(1)  // little-endian
            uint32(code + (hasZ ? 1000 : 0))
        }
        switch geometry {
        case .point(let p):
            header(1)
            position(p.coordinates)
        case .lineString(let l):
            header(2)
            positions(l.coordinates)
        case .polygon(let p):
            header(3)
            uint32(UInt32(p.rings.count))
            p.rings.forEach(positions)
        case .multiPoint(let m):
            header(4)
            uint32(UInt32(m.coordinates.count))
            for p in m.coordinates { append(.point(Point(p)), to: &out) }
        case .multiLineString(let m):
            header(5)
            uint32(UInt32(m.lines.count))
            for line in m.lines { append(.lineString(LineString(line)), to: &out) }
        case .multiPolygon(let m):
            header(6)
            uint32(UInt32(m.polygons.count))
            for polygon in m.polygons { append(.polygon(polygon), to: &out) }
        case .geometryCollection(let c):
            header(7)
            uint32(UInt32(c.geometries.count))
            for member in c.geometries { append(member, to: &out) }
        }
    }

    /// Decodes one geometry; an empty point (NaN coordinates) comes back as nil.
    public static func decode(_ bytes: [UInt8], location: SourceLocation = SourceLocation(file: "<wkb>")) throws -> Geometry? {
        var reader = Reader(bytes: bytes, location: location)
        let geometry = try reader.geometry(depth: 0)
        guard reader.offset == bytes.count else { throw reader.error("\(bytes.count - reader.offset) bytes after the geometry") }
        return geometry
    }

    /// Hexadecimal text, uppercase as PostGIS writes it.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes from hexadecimal text (either case); nil when it is not hex.
    public static func bytes(fromHex text: some Collection<UInt8>) -> [UInt8]? {
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        guard text.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 2)
        var high: UInt8?
        for c in text {
            guard let v = value(c) else { return nil }
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        return out
    }

    struct Reader {
        let bytes: [UInt8]
        let location: SourceLocation
        var offset = 0
        var littleEndian = true

        func error(_ message: String) -> MeridianError {
            MeridianError(.badInput, "WKB: \(message) (byte \(offset))", at: location)
        }

        mutating func byte() throws -> UInt8 {
            guard offset < bytes.count else { throw error("the data ends early") }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func uint32() throws -> UInt32 {
            guard offset + 4 <= bytes.count else { throw error("the data ends early") }
            var v: UInt32 = 0
            for i in 0..<4 { v |= UInt32(bytes[offset + i]) << (8 * i) }
            offset += 4
            return littleEndian ? v : v.byteSwapped
        }

        mutating func double() throws -> Double {
            guard offset + 8 <= bytes.count else { throw error("the data ends early") }
            var v: UInt64 = 0
            for i in 0..<8 { v |= UInt64(bytes[offset + i]) << (8 * i) }
            offset += 8
            return Double(bitPattern: littleEndian ? v : v.byteSwapped)
        }

        /// A count, checked against the bytes left so a corrupt count cannot ask for gigabytes.
        mutating func count(each minimum: Int) throws -> Int {
            let n = Int(try uint32())
            guard n * minimum <= bytes.count - offset else { throw error("a count of \(n) is more than the data holds") }
            return n
        }

        mutating func geometry(depth: Int) throws -> Geometry? {
            guard depth < 64 else { throw error("geometries nested too deep") }
            let outerOrder = littleEndian  // a member may use the other byte order
            defer { littleEndian = outerOrder }
            switch try byte() {
            case 0: littleEndian = false
            case 1: littleEndian = true
            default: throw error("a byte order other than 0 or 1")
            }
            var code = try uint32()
            var hasZ = false, hasM = false
            if code & 0x2000_0000 != 0 { _ = try uint32() }  // EWKB SRID
            if code & 0x8000_0000 != 0 { hasZ = true }
            if code & 0x4000_0000 != 0 { hasM = true }
            code &= 0x0FFF_FFFF
            switch code / 1000 {
            case 1: hasZ = true
            case 2: hasM = true
            case 3: hasZ = true; hasM = true
            default: break
            }
            let width = 16 + (hasZ ? 8 : 0) + (hasM ? 8 : 0)
            // A position's numbers are finite (GeoJSON has no NaN or infinity: they were written
            // as `nan` and `inf`), except a point's two NaNs, WKB's POINT EMPTY.
            func position(_ r: inout Reader, emptyPoint: Bool = false) throws -> Position {
                let x = try r.double(), y = try r.double()
                let z = hasZ ? try r.double() : nil
                if hasM { _ = try r.double() }
                guard (x.isFinite && y.isFinite && z?.isFinite != false) || (emptyPoint && x.isNaN && y.isNaN) else {
                    throw r.error("a coordinate is not a finite number")
                }
                return Position(longitude: x, latitude: y, altitude: z)
            }
            func positions(_ r: inout Reader) throws -> [Position] {
                try (0..<r.count(each: width)).map { _ in try position(&r) }
            }
            func members(_ r: inout Reader) throws -> [Geometry?] {
                try (0..<r.count(each: 5)).map { _ in try r.geometry(depth: depth + 1) }
            }
            switch code % 1000 {
            case 1:
                let p = try position(&self, emptyPoint: true)
                return p.longitude.isNaN && p.latitude.isNaN ? nil : .point(Point(p))
            case 2: return .lineString(LineString(try positions(&self)))
            case 3: return .polygon(Polygon(try (0..<count(each: 4)).map { _ in try positions(&self) }))
            case 4: return .multiPoint(MultiPoint(try members(&self).compactMap { if case .point(let p)? = $0 { p.coordinates } else { nil } }))
            case 5: return .multiLineString(MultiLineString(try members(&self).compactMap { if case .lineString(let l)? = $0 { l.coordinates } else { nil } }))
            case 6: return .multiPolygon(MultiPolygon(try members(&self).compactMap { if case .polygon(let p)? = $0 { p } else { nil } }))
            case 7: return .geometryCollection(GeometryCollection(try members(&self).compactMap { $0 }))
            default: throw error("unknown geometry type code \(code)")
            }
        }
    }
}
