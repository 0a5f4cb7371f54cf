import MeridianCore
import MeridianGeometry

/// Numbers as text, the same way in every format: exact by default (the shortest text that reads
/// back to the same double), or rounded to `--precision` decimals.
extension OutputSink {
    /// A double in Swift's shortest round-trip form (`1.0`, `1e-07`, `-0.0`): valid JSON, and
    /// the `.0` keeps an integral double a double for the next reader.
    public func writeShortest(_ value: Double) {
        reserve(ShortestDecimal.maximumLength)
        if let length = ShortestDecimal.format(value, into: buffer + count) {
            count += length
            return
        }
        writeShortestWithSwift(value)
    }

    /// A position as a compact JSON array of its shortest numbers (`[x,y]` or `[x,y,z]`), after
    /// a comma unless it is `first`: room is made once for the whole position and the bytes go
    /// straight into the buffer (positions are almost all of a GeoJSON file; checking for room
    /// and calling a write per bracket and comma was a quarter of writing them).
    func writeShortestPosition(_ position: Position, first: Bool) {
        reserve(3 * ShortestDecimal.maximumLength + 8)
        if !first { buffer[count] = UInt8(ascii: ","); count += 1 }
        buffer[count] = UInt8(ascii: "[")
        count += 1
        writeShortestInPlace(position.longitude)
        buffer[count] = UInt8(ascii: ",")
        count += 1
        writeShortestInPlace(position.latitude)
        if let altitude = position.altitude {
            buffer[count] = UInt8(ascii: ",")
            count += 1
            writeShortestInPlace(altitude)
        }
        buffer[count] = UInt8(ascii: "]")
        count += 1
    }

    /// ``writeShortest(_:)`` where room for ``ShortestDecimal/maximumLength`` bytes is made already.
    @inline(__always)
    private func writeShortestInPlace(_ value: Double) {
        if let length = ShortestDecimal.format(value, into: buffer + count) {
            count += length
        } else {
            writeShortestWithSwift(value)  // within the room made: no drain in between
        }
    }

    /// Swift's own printer, which ``writeShortest(_:)`` matches byte for byte on its fast path.
    func writeShortestWithSwift(_ value: Double) {
        var sink = self
        value.write(to: &sink)
    }

    /// Writes a coordinate (or any number) the way every format does: the shortest round-trip text,
    /// or, when that has more than `precision` decimals (or an exponent), `%.Nf` rounding with trailing
    /// zeros removed but one kept after the point (`-74.0`).
    /// - Parameters:
    ///   - value: The number, e.g. a longitude or latitude in degrees.
    ///   - precision: Decimal places to keep at most; nil writes the exact shortest form.
    public func writeCoordinate(_ value: Double, precision: Int?) {
        guard let precision else { return writeShortest(value) }
        // Room first, so the number's text lands whole at the end of the buffer to inspect.
        reserve(48)
        let start = count
        writeShortest(value)
        let text = UnsafeBufferPointer(start: buffer + start, count: count - start)
        var decimals = 0
        var seenPoint = false
        for c in text {
            if c == UInt8(ascii: "e") { decimals = .max; break }
            if seenPoint { decimals += 1 }
            if c == UInt8(ascii: ".") { seenPoint = true }
        }
        if decimals > precision {
            count = start
            writeRounded(value, precision)
        }
    }

    /// `%.Nf` rounding (of the exact binary value, as printf does), trailing zeros removed but
    /// one kept after the point ("-74.0"), as exact output writes integral values.
    private func writeRounded(_ value: Double, _ precision: Int) {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 400) { buffer in
            let length = withVaList([Int32(precision), value]) {
                vsnprintf(buffer.baseAddress!, buffer.count, "%.*f", $0)
            }
            var end = Int(min(length, Int32(buffer.count - 1)))
            if buffer[0..<end].contains(CChar(UInt8(ascii: "."))) {
                while buffer[end - 1] == CChar(UInt8(ascii: "0")) && buffer[end - 2] != CChar(UInt8(ascii: ".")) { end -= 1 }
            }
            var start = 0
            if buffer[0] == CChar(UInt8(ascii: "-")) && !buffer[1..<end].contains(where: { $0 > CChar(UInt8(ascii: "0")) }) {
                start = 1  // "-0.0" after rounding a tiny negative number is just 0.0
            }
            write(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[start..<end]))
        }
    }
}

extension OutputSink {
    /// Like `writeCoordinate`, but never in exponent form ("0.0000001", not "1e-07"), for
    /// formats whose numbers are xsd:decimal (GPX), and in at most 18 digits, all a schema
    /// validator must read (XSD 1.0 §3.2.3; libxml2 reads 24): a value below 0.1, whose leading
    /// zeros count, is rounded to 17 decimals. The caller keeps values below 10^18.
    public func writePlainDecimal(_ value: Double, precision: Int?) {
        var precision = precision
        if value != 0, abs(value) < 0.1 { precision = min(precision ?? 17, 17) }
        reserve(48)  // first, so the text below lands whole after `start`
        let start = count
        writeCoordinate(value, precision: precision)
        let text = Array(UnsafeBufferPointer(start: buffer + start, count: count - start))
        guard let e = text.firstIndex(of: UInt8(ascii: "e")) else { return }
        count = start
        let negative = text.first == UInt8(ascii: "-")
        let mantissa = text[(negative ? 1 : 0)..<e]
        let exponent = Int(String(decoding: text[(e + 1)...], as: UTF8.self)) ?? 0
        let integerDigits = mantissa.firstIndex(of: UInt8(ascii: ".")).map { $0 - mantissa.startIndex } ?? mantissa.count
        var digits = Array(mantissa.filter { $0 != UInt8(ascii: ".") })
        while digits.count > 1 && digits.last == UInt8(ascii: "0") { digits.removeLast() }
        let point = integerDigits + exponent  // digits before the decimal point
        if negative { write(byte: UInt8(ascii: "-")) }
        if point <= 0 {
            write("0." as StaticString)
            for _ in 0..<(-point) { write(byte: UInt8(ascii: "0")) }
            digits.forEach { write(byte: $0) }
        } else if point >= digits.count {
            digits.forEach { write(byte: $0) }
            for _ in 0..<(point - digits.count) { write(byte: UInt8(ascii: "0")) }
        } else {
            digits[..<point].forEach { write(byte: $0) }
            write(byte: UInt8(ascii: "."))
            digits[point...].forEach { write(byte: $0) }
        }
    }
}
