import MeridianCore
import MeridianTestSupport
import Testing
@testable import MeridianFormats

/// The number parser must give exactly what a correctly rounding `strtod` gives.
@Suite struct NumberTextTests {
    func parse(_ text: String) -> JSONScanner.Number? {
        var text = text
        return text.withUTF8 { NumberText.parse($0) }
    }

    func expectMatchesStrtod(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let expected = strtod(text, nil)
        guard let parsed = parse(text) else {
            Issue.record("\(text) did not parse", sourceLocation: sourceLocation)
            return
        }
        #expect(parsed.value.bitPattern == expected.bitPattern,
                "\(text): got \(parsed.value), strtod gives \(expected)", sourceLocation: sourceLocation)
    }

    @Test func hardCases() {
        let cases = [
            "0", "-0", "0.0", "-0.0", "1", "-1", "1e-7", "1E-7", "1e+2", "0.1", "0.2", "0.30000000000000004",
            "9007199254740992", "9007199254740993", "9007199254740995", "18446744073709551615", "18446744073709551616",
            "2.2250738585072011e-308", "2.2250738585072014e-308", "4.9406564584124654e-324", "5e-324", "2.4703282292062327e-324",
            "2.4703282292062328e-324", "1e-400", "1.7976931348623157e308", "1.7976931348623158e308",
            "117.703607903955245", "4.163414542001791", "-73.98765432101234567891", "123456789012345678901234567890",
            "0.000000000000000000000000000000000000000001", "1e22", "1e23", "8.98846567431158e307", "3.141592653589793238462643383279",
            "7.2057594037927933e16", "1448997445238699", "9.5e-323", "2.2204460492503131e-16", "179.99999999999997",
            "-180.0", "85.0511287798066", "0.1e-310", "123.456e-2", "1234567890123456789e-10", "12345678901234567890e-30",
        ]
        for text in cases { expectMatchesStrtod(text) }
        #expect(parse("1e309")?.value == .infinity)  // the scanner turns this into an error
    }

    @Test func randomShortestAndLongForms() {
        var rng = SplitMix64(seed: 0x4D45_5249_4449_414E)
        for _ in 0..<60_000 {
            let bits = rng.next()
            let d = Double(bitPattern: bits)
            guard d.isFinite else { continue }
            expectMatchesStrtod(d.description)
            let coordinate = Double(rng.next() % 360_000_000_000) / 1e9 - 180
            expectMatchesStrtod(coordinate.description)
            expectMatchesStrtod(String(format17: coordinate))
        }
    }

    @Test func randomDigitStringsAndExponents() {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<60_000 {
            let digitCount = Int(rng.next() % 24) + 1
            var text = rng.next() % 2 == 0 ? "" : "-"
            text += String(rng.next() % 9 + 1)
            for _ in 1..<digitCount { text += String(rng.next() % 10) }
            if rng.next() % 2 == 0 {
                let point = Int(rng.next() % UInt64(text.count))
                if point > 1 || (point > 0 && !text.hasPrefix("-")) {
                    text.insert(".", at: text.index(text.startIndex, offsetBy: point))
                }
            }
            text += "e\(Int(rng.next() % 700) - 360)"
            expectMatchesStrtod(text)
        }
    }

    @Test func integersStayIntegers() {
        #expect(parse("9223372036854775807")?.integer == .max)
        #expect(parse("-9223372036854775808")?.integer == .min)
        #expect(parse("9223372036854775808")?.integer == nil)
        #expect(parse("42")?.integer == 42)
        #expect(parse("42.0")?.integer == nil)
        #expect(parse("4e1")?.integer == nil)
        let minusZero = parse("-0")
        #expect(minusZero?.integer == nil)
        #expect(minusZero?.value.sign == .minus)
    }

    /// `text` read alone, and checked against the same text with room after it: the usual short
    /// form (`NumberText.shortDecimal`) is read without a loop only when 25 bytes follow its
    /// start, and must give the same double and end as the general rules.
    func parsePlainDecimal(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> (value: Double, end: Int)? {
        var alone = text
        let read = alone.withUTF8 { NumberText.parsePlainDecimal($0, from: 0) }
        for padding in [" ", ",", "]", "x"] {
            var padded = text + String(repeating: padding, count: 32)
            let withRoom = padded.withUTF8 { NumberText.parsePlainDecimal($0, from: 0) }
            #expect(withRoom?.value.bitPattern == read?.value.bitPattern && withRoom?.end == read?.end,
                    "\(text) followed by \(padding)", sourceLocation: sourceLocation)
        }
        return read
    }

    /// The one-pass reader for coordinate lists must give `parse`'s double, bit for bit, for every
    /// plain decimal it accepts, and refuse what it cannot read exactly in one operation.
    @Test func plainDecimalsMatchTheGeneralParser() {
        var rng = SplitMix64(seed: 18)
        var accepted = 0
        for _ in 0..<100_000 {
            var text = rng.next() % 2 == 0 ? "" : "-"
            let integerDigits = Int(rng.next() % 5)
            text += integerDigits == 0 ? "0" : String(rng.next() % 9 + 1)
            for _ in 1..<max(integerDigits, 1) { text += String(rng.next() % 10) }
            let fractionDigits = Int(rng.next() % 20)
            if fractionDigits > 0 || rng.next() % 4 == 0 {
                text += "."
                for _ in 0..<fractionDigits { text += String(rng.next() % 10) }
            }
            let general = parse(text)
            guard let plain = parsePlainDecimal(text) else { continue }
            accepted += 1
            #expect(plain.end == text.utf8.count, "\(text)")
            #expect(plain.value.bitPattern == general?.value.bitPattern, "\(text): \(plain.value) vs \(String(describing: general?.value))")
        }
        #expect(accepted > 50_000)
        #expect(parsePlainDecimal("117.703607903955,4.1")?.end == 16)
        #expect(parsePlainDecimal("-0")?.value.sign == .minus)
        // Past 2^53 (Eisel-Lemire's share): GeoJSON's 17- and 18-digit coordinates.
        for text in ["9007199254740993", "117.703607903955245", "-69.510088751999945", "0.123456789012345678"] {
            #expect(parsePlainDecimal(text)?.value.bitPattern == parse(text)?.value.bitPattern, "\(text)")
        }
    }

    @Test(arguments: ["", "-", "01", "-01", "1.", ".5", "+1", "1e5", "1.5E-3", "12345678901234567890", "0.00000000000000000001"])
    func plainDecimalReaderRefusesWhatItCannotReadExactly(_ text: String) {
        #expect(parsePlainDecimal(text) == nil)
    }

    @Test(arguments: ["", "-", "01", "-01", "1.", ".5", "1e", "1e+", "+1", "--1", "0x10", "1.2.3", "1e5e5", "1-2"])
    func rejectsWhatJSONDoes(_ text: String) {
        #expect(parse(text) == nil)
    }
}


extension String {
    /// `%.17g`: 17 significant digits, more than the shortest form needs.
    init(format17 value: Double) {
        var buffer = [CChar](repeating: 0, count: 64)
        _ = withVaList([value]) { vsnprintf(&buffer, 64, "%.17g", $0) }
        self = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
