import MeridianCore

/// Reading and writing JSON numbers exactly.
///
/// Reading: the text is checked against RFC 8259's grammar and converted to the correctly
/// rounded double. Numbers whose digits and power of ten are both exact doubles take one IEEE
/// operation (Clinger's fast path); other numbers of up to 19 significant digits take the
/// Eisel-Lemire algorithm (Lemire 2021, "Number Parsing at a Gigabyte per Second"), 5-10x
/// faster than `strtod` and the reason a 25 MB file converts in a fraction of a second; the rest
/// (more than 19 digits, or the rare case Eisel-Lemire cannot decide) go to glibc's `strtod`,
/// which rounds correctly. No Swift package on our list does this, hence the hand-written code;
/// tests compare it with `strtod` on millions of numbers.
/// Writing: the shortest text that reads back to the same double (Swift's own printer).
enum NumberText {
    @inline(__always)
    static func isNumberByte(_ c: UInt8) -> Bool {
        (c &- UInt8(ascii: "0")) < 10 || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
            || c == UInt8(ascii: "e") || c == UInt8(ascii: "E") || c == UInt8(ascii: "+")
    }

    @inline(__always)
    private static func digit(_ c: UInt8) -> UInt64? {
        let d = c &- UInt8(ascii: "0")
        return d < 10 ? UInt64(d) : nil
    }

    /// The value of eight ASCII digits at `p`, nil unless all eight are digits: one load and three
    /// multiplications instead of eight dependent steps (the SWAR method of Lemire's fast_float).
    @inline(__always)
    private static func eightDigits(_ p: UnsafePointer<UInt8>) -> UInt64? {
        let bytes = UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
        // Every byte 0x30...0x39: high nibbles 3, and adding 6 does not carry into them.
        guard bytes & 0xF0F0_F0F0_F0F0_F0F0 == 0x3030_3030_3030_3030,
              (bytes &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0 == 0x3030_3030_3030_3030 else { return nil }
        return combineDigits(bytes & 0x0F0F_0F0F_0F0F_0F0F)
    }

    /// The number eight digit values (0...9, one a byte, the first in the lowest byte) make:
    /// pairs, then fours, then all eight combined by three multiplications.
    @inline(__always)
    private static func combineDigits(_ digits: UInt64) -> UInt64 {
        var value = (digits &* 2561) >> 8
        value = ((value & 0x00FF_00FF_00FF_00FF) &* 6_553_601) >> 16
        return ((value & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) >> 32
    }

    /// Powers of ten as integers, 10^0 to 10^19 (the largest `UInt64` holds). Written out: a
    /// table computed at start would be checked for initialisation at every use.
    static let integerPowersOfTen: [UInt64] = [
        1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000,
        10_000_000_000, 100_000_000_000, 1_000_000_000_000, 10_000_000_000_000, 100_000_000_000_000,
        1_000_000_000_000_000, 10_000_000_000_000_000, 100_000_000_000_000_000, 1_000_000_000_000_000_000,
        10_000_000_000_000_000_000,
    ]

    /// Exact powers of ten representable as doubles (10^22 is the largest); the printer uses them too.
    static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Parses one JSON number token; nil when the text breaks the grammar.
    static func parse(_ t: UnsafeBufferPointer<UInt8>) -> JSONScanner.Number? {
        let n = t.count
        var i = 0
        var negative = false
        if i < n, t[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var truncated = false
        var exponent = 0

        // Integer part: "0" or a non-zero digit followed by digits.
        guard i < n, let first = digit(t[i]) else { return nil }
        if first == 0 {
            i += 1
            if i < n, digit(t[i]) != nil { return nil }  // no leading zeros
        } else {
            while significantDigits <= 11, i + 8 <= n, let eight = eightDigits(t.baseAddress! + i) {
                mantissa = mantissa &* 100_000_000 &+ eight
                significantDigits += 8
                i += 8
            }
            while i < n, let d = digit(t[i]) {
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ d
                    significantDigits += 1
                } else {
                    exponent += 1
                    truncated = truncated || d != 0
                }
                i += 1
            }
        }
        var isInteger = true
        // Fraction.
        if i < n, t[i] == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            let fractionStart = i
            while i < n, let d = digit(t[i]) {
                // Eight at a time once the leading zeros are behind (they are not significant).
                if mantissa != 0, significantDigits <= 11, i + 8 <= n, let eight = eightDigits(t.baseAddress! + i) {
                    mantissa = mantissa &* 100_000_000 &+ eight
                    significantDigits += 8
                    exponent -= 8
                    i += 8
                    continue
                }
                if mantissa == 0 && d == 0 {
                    exponent -= 1  // a leading zero: not significant
                } else if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ d
                    significantDigits += 1
                    exponent -= 1
                } else {
                    truncated = truncated || d != 0
                }
                i += 1
            }
            if i == fractionStart { return nil }
        }
        // Exponent.
        if i < n, t[i] == UInt8(ascii: "e") || t[i] == UInt8(ascii: "E") {
            isInteger = false
            i += 1
            var exponentNegative = false
            if i < n, t[i] == UInt8(ascii: "+") || t[i] == UInt8(ascii: "-") {
                exponentNegative = t[i] == UInt8(ascii: "-")
                i += 1
            }
            let exponentStart = i
            var value = 0
            while i < n, let d = digit(t[i]) {
                if value < 100_000 { value = value * 10 + Int(d) }  // beyond any double's range anyway
                i += 1
            }
            if i == exponentStart { return nil }
            exponent += exponentNegative ? -value : value
        }
        guard i == n else { return nil }

        if isInteger && exponent == 0 {
            if !negative, mantissa <= UInt64(Int64.max) {
                return .init(value: Double(mantissa), integer: Int64(mantissa))
            }
            if negative, mantissa == 0 {
                return .init(value: -0.0, integer: nil)  // keep the sign: "-0" is not "0"
            }
            if negative, mantissa <= UInt64(Int64.max) + 1 {
                let integer = mantissa == UInt64(Int64.max) + 1 ? Int64.min : -Int64(mantissa)
                return .init(value: Double(integer), integer: integer)
            }
        }
        // Clinger's fast path: both the mantissa and the power of ten are exact doubles,
        // so one IEEE multiplication or division rounds correctly.
        if !truncated, mantissa <= 1 << 53, exponent >= -22, exponent <= 22 {
            var value = Double(mantissa)
            value = exponent < 0 ? value / powersOfTen[-exponent] : value * powersOfTen[exponent]
            return .init(value: negative ? -value : value, integer: nil)
        }
        if !truncated, let value = eiselLemire(mantissa, exponent) {
            return .init(value: negative ? -value : value, integer: nil)
        }
        return .init(value: correctlyRounded(t), integer: nil)
    }

    /// A plain decimal starting at `start` in `t` (an optional minus, digits without leading
    /// zeros, an optional fraction; no exponent, at most 19 digits) and the offset just past it;
    /// nil for anything else.
    ///
    /// For the numbers of coordinate lists, which are almost all of this form: one pass over the
    /// bytes, where delimiting the token first and then calling ``parse(_:)`` took two, and no
    /// grammar cases to test. The digits and power of ten are those ``parse(_:)`` finds, and they
    /// go to the same conversions (Clinger's fast path, else Eisel-Lemire), so the double is the
    /// same bit for bit; callers hand what it refuses (and tokens that do not end where it
    /// stopped) to ``parse(_:)``.
    /// - Parameters:
    ///   - t: The text.
    ///   - start: Where the number begins.
    /// - Returns: The number's value and the offset of the first byte after it.
    @inline(__always)
    static func parsePlainDecimal(_ t: UnsafeBufferPointer<UInt8>, from start: Int) -> (value: Double, end: Int)? {
        if start + 25 <= t.count, let base = t.baseAddress, let (value, length) = shortDecimal(at: base + start) {
            return (value, start + length)
        }
        return plainDecimalByRules(t, from: start)
    }

    /// ``parsePlainDecimal(_:from:)`` for the forms ``shortDecimal(at:)`` does not read (and
    /// near the end of the text): out of line, so that the short form inlines into its callers.
    @inline(never)
    private static func plainDecimalByRules(_ t: UnsafeBufferPointer<UInt8>, from start: Int) -> (value: Double, end: Int)? {
        let n = t.count
        var i = start
        let negative = i < n && t[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        // Every digit is kept, leading zeros of the fraction included: with at most 19 of them
        // the mantissa cannot overflow (past 19 it may wrap, and the number is refused), and the
        // power of ten is the fraction's length.
        var mantissa: UInt64 = 0
        let integerStart = i
        let integerDigits = accumulateDigits(t, &i, into: &mantissa)
        // "0" alone, or digits not starting with 0 (JSON's rule, which `parse` applies).
        guard integerDigits > 0, integerDigits == 1 || t[integerStart] != UInt8(ascii: "0") else { return nil }
        var fractionDigits = 0
        if i < n, t[i] == UInt8(ascii: ".") {
            i += 1
            fractionDigits = accumulateDigits(t, &i, into: &mantissa)
            guard fractionDigits > 0 else { return nil }
        }
        if i < n, t[i] == UInt8(ascii: "e") || t[i] == UInt8(ascii: "E") { return nil }
        guard integerDigits + fractionDigits <= 19 else { return nil }
        var value: Double
        if mantissa <= 1 << 53 && fractionDigits <= 22 {
            value = Double(mantissa)
            if fractionDigits > 0 { value /= powersOfTen[fractionDigits] }
        } else {
            // Leading zeros of the fraction are in `fractionDigits` but add nothing to the
            // mantissa, so this is the w · 10^q that `parse` hands Eisel-Lemire.
            guard let exact = eiselLemire(mantissa, -fractionDigits) else { return nil }
            value = exact
        }
        return (negative ? -value : value, i)
    }

    /// A coordinate's usual form, read without a loop: an optional minus, one to seven digits
    /// (no leading zero), a point and one to fifteen decimals, at `p` with 25 bytes readable
    /// from it. The value and the length, or nil for any other form (``parsePlainDecimal(_:from:)``
    /// then reads it by the general rules, to the same result where both read it: the same
    /// digits and power of ten go to the same conversion).
    @inline(__always)
    private static func shortDecimal(at p: UnsafePointer<UInt8>) -> (value: Double, length: Int)? {
        let negative = p.pointee == UInt8(ascii: "-")
        let q = p + (negative ? 1 : 0)
        // The integer part: its digits end at the point within the first eight bytes.
        let whole = leadingDigits(q)
        guard whole.count > 0, whole.count < 8, q[whole.count] == UInt8(ascii: "."),
              whole.count == 1 || q.pointee != UInt8(ascii: "0") else { return nil }
        // The decimals: up to eight in the next word, up to seven more in the one after.
        let f = q + whole.count + 1
        let first = leadingDigits(f)
        guard first.count > 0 else { return nil }
        var mantissa = whole.value &* integerPowersOfTen[first.count] &+ first.value
        var decimals = first.count
        if first.count == 8 {
            let second = leadingDigits(f + 8)
            guard second.count < 8 else { return nil }
            mantissa = mantissa &* integerPowersOfTen[second.count] &+ second.value
            decimals += second.count
        }
        let end = f + decimals
        guard end.pointee | 0x20 != UInt8(ascii: "e"), whole.count + decimals <= 19 else { return nil }
        var value: Double
        if mantissa <= 1 << 53 {
            value = Double(mantissa) / powersOfTen[decimals]
        } else {
            guard let exact = eiselLemire(mantissa, -decimals) else { return nil }
            value = exact
        }
        return (negative ? -value : value, end - p)
    }

    /// Reads the digits from `i` on into `mantissa` (ten times over for each, wrapping past 19
    /// digits) and moves `i` past them; returns how many there were.
    @inline(__always)
    private static func accumulateDigits(_ t: UnsafeBufferPointer<UInt8>, _ i: inout Int, into mantissa: inout UInt64) -> Int {
        let n = t.count, start = i
        while i + 8 <= n {
            let (count, value) = leadingDigits(t.baseAddress! + i)
            mantissa = mantissa &* integerPowersOfTen[count] &+ value
            i += count
            if count < 8 { return i - start }
        }
        while i < n, let d = digit(t[i]) {
            mantissa = mantissa &* 10 &+ d
            i += 1
        }
        return i - start
    }

    /// How many of the eight bytes at `p` are digits before the first that is not, and the value
    /// of those digits: one load and a few operations on all eight at once, where a loop took a
    /// compare and a branch per digit (a coordinate's fraction has 7 to 15).
    @inline(__always)
    private static func leadingDigits(_ p: UnsafePointer<UInt8>) -> (count: Int, value: UInt64) {
        let bytes = UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
        // Digits become the bytes 0...9, and only digits do (xor is one to one). A byte is not a
        // digit when it is 10 or more: adding 0x76 sets its top bit then, or it had it already.
        // A carry out of a byte reaches only bytes after it, after the first non-digit.
        let x = bytes ^ 0x3030_3030_3030_3030
        let notDigits = (x | (x &+ 0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080
        let count = notDigits.trailingZeroBitCount >> 3
        guard count > 0 else { return (0, 0) }
        // The digits moved to the high bytes, zeros below: the same number with leading zeros
        // (the first byte in memory is the most significant digit).
        return (count, combineDigits(x &<< UInt64(64 - 8 * count)))
    }

    /// The correctly rounded double nearest to `w` × 10^`q`, or nil in the rare case the 128-bit
    /// product cannot decide the rounding (the caller then falls back to `strtod`).
    static func eiselLemire(_ w: UInt64, _ q: Int) -> Double? {
        if w == 0 || q < PowersOfFive.smallestExponent { return 0 }
        if q > PowersOfFive.largestExponent { return .infinity }
        let leadingZeros = w.leadingZeroBitCount
        let w = w << leadingZeros
        let index = 2 * (q - PowersOfFive.smallestExponent)
        var (high, low) = w.multipliedFullWidth(by: PowersOfFive.table[index])
        // 55 bits decide the result (52 + hidden + rounding + spare); if the bits below them are
        // all ones, the truncated table value may be too small: add the next 64 bits.
        if high & 0x1FF == 0x1FF {
            let (high2, _) = w.multipliedFullWidth(by: PowersOfFive.table[index + 1])
            let (sum, carry) = low.addingReportingOverflow(high2)
            low = sum
            if carry { high &+= 1 }
        }
        if low == .max && (q < -27 || q > 55) { return nil }
        let upperBit = Int(high >> 63)
        let shift = upperBit + 64 - 52 - 3
        var mantissa = high >> UInt64(shift)
        // floor(log2(10^q)) + 63, plus the IEEE bias.
        var power2 = ((217_706 * q) >> 16) + 63 + upperBit - leadingZeros + 1023
        if power2 <= 0 {
            // Subnormal: shift into place and round half to even.
            if -power2 + 1 >= 64 { return 0 }
            mantissa >>= UInt64(-power2 + 1)
            mantissa += mantissa & 1
            mantissa >>= 1
            power2 = mantissa < (1 << 52) ? 0 : 1
            return Double(bitPattern: UInt64(power2) << 52 | (mantissa & ((1 << 52) - 1)))
        }
        // An exact halfway case rounds to even, which the general rounding below would not do.
        if low <= 1, q >= -4, q <= 23, mantissa & 3 == 1, mantissa << UInt64(shift) == high {
            mantissa &= ~1
        }
        mantissa += mantissa & 1
        mantissa >>= 1
        if mantissa >= (2 << 52) {
            mantissa = 1 << 52
            power2 += 1
        }
        mantissa &= ~(1 << 52)
        if power2 >= 0x7FF { return .infinity }
        return Double(bitPattern: UInt64(power2) << 52 | mantissa)
    }

    /// The C library's conversion, for what the fast path cannot do exactly.
    private static func correctlyRounded(_ t: UnsafeBufferPointer<UInt8>) -> Double {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: t.count + 1) { buffer in
            for (k, byte) in t.enumerated() { buffer[k] = CChar(bitPattern: byte) }
            buffer[t.count] = 0
            return strtod(buffer.baseAddress!, nil)
        }
    }
}

/// Finds where UTF-8 goes wrong, to point an error at the byte (the standard library only
/// says whether a buffer is valid, not where it is not).
enum UTF8Validation {
    static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let n = bytes.count
        var i = 0
        func continuation(_ k: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            k < n && range.contains(bytes[k])
        }
        while i < n {
            let b = bytes[i]
            let length: Int
            switch b {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = continuation(i + 1) ? 2 : 0
            case 0xE0: length = continuation(i + 1, 0xA0...0xBF) && continuation(i + 2) ? 3 : 0
            case 0xE1...0xEC, 0xEE...0xEF: length = continuation(i + 1) && continuation(i + 2) ? 3 : 0
            case 0xED: length = continuation(i + 1, 0x80...0x9F) && continuation(i + 2) ? 3 : 0
            case 0xF0: length = continuation(i + 1, 0x90...0xBF) && continuation(i + 2) && continuation(i + 3) ? 4 : 0
            case 0xF1...0xF3: length = continuation(i + 1) && continuation(i + 2) && continuation(i + 3) ? 4 : 0
            case 0xF4: length = continuation(i + 1, 0x80...0x8F) && continuation(i + 2) && continuation(i + 3) ? 4 : 0
            default: length = 0
            }
            if length == 0 { return i }
            i += length
        }
        return nil
    }
}

extension NumberText {
    /// A number in the looser forms text formats other than JSON allow (".5", "+1", "1."),
    /// exact like JSON's; nil for anything else, infinities and NaN included.
    static func parseLenient(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        // JSON's grammar takes "1e999" (its value infinite): as out of range here as strtod's.
        if let number = parse(bytes) { return number.value.isFinite ? number.value : nil }
        guard !bytes.isEmpty, bytes.count < 400, bytes.allSatisfy(isNumberByte) else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { text in
            for (i, b) in bytes.enumerated() { text[i] = CChar(bitPattern: b) }
            text[bytes.count] = 0
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(text.baseAddress!, &end)
            guard end == text.baseAddress! + bytes.count, value.isFinite else { return nil }
            return value
        }
    }

    static func parseLenient(_ bytes: some Collection<UInt8>) -> Double? {
        Array(bytes).withUnsafeBufferPointer { parseLenient($0) }
    }
}
