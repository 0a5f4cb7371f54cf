/// The shortest round-trip text of a double, byte for byte what Swift's `description` prints,
/// computed faster for the numbers geodata is made of.
///
/// Swift's printer (`_Float64ToASCII`) was a third of the writing thread's time on large
/// conversions. Coordinates lie in a narrow range (`0.001 ≤ |x| < 10^15`, printed as plain
/// decimals) and usually came from text of 15 significant digits or fewer (ogr2ogr writes KML
/// with `%.15g`) or of 17 (GeoJSON), which two cheap stages cover:
///
/// 1. Up to 15 significant digits: `m = round(x · 10^k)` for the `k` that leaves 15 digits, kept
///    when `m / 10^k` reads back as `x`. Both operations are exact or correctly rounded (`m` and
///    `10^k` are exact doubles), so `m · 10^-k` is a decimal of at most 15 digits that reads back
///    as `x`; as any two decimals of 15 digits or fewer read back as different doubles (DBL_DIG),
///    it is the only one, so the shortest text is its digits without trailing zeros.
/// 2. Otherwise: the exact interval of decimals that read back as `x` (half an ulp either side,
///    ends included when the significand is even, as round-half-even reading does), in 128-bit
///    integers at a scale of 17 or more digits; the shortest decimals in it are those on the
///    coarsest power of ten that still has a multiple inside, and of those the one nearest `x`
///    is printed, as Swift's printer chooses.
///
/// Anything else (zero, exponent form, powers of two whose interval is lopsided, a tie between
/// two nearest candidates) returns nil, and the caller prints with Swift's printer. Tests compare
/// the two on millions of doubles and on every coordinate of the fixtures.
enum ShortestDecimal {
    /// The most bytes ``format(_:into:)`` writes: a sign, "0.00", and 19 digits.
    static let maximumLength = 32

    /// Exact powers of ten as integers (10^19 is the largest `UInt64` holds); as doubles, the
    /// parser's `NumberText.powersOfTen`.
    private static let integerPowers: [UInt64] = (0...19).map { exponent in
        (0..<exponent).reduce(1) { power, _ in power * 10 }
    }

    /// Writes `value` as Swift's `description` would into `out`, which has room for
    /// ``maximumLength`` bytes, and returns the length; nil when the value is outside the
    /// fast path (nothing useful is left in `out` then).
    @inline(__always)
    static func format(_ value: Double, into out: UnsafeMutablePointer<UInt8>) -> Int? {
        let magnitude = value.magnitude
        // Swift prints plain decimals between 10^-4 and 2^53; this path keeps inside them.
        guard magnitude >= 1e-3, magnitude < 1e15 else { return nil }
        let sign = value.sign == .minus ? 1 : 0
        if sign == 1 { out[0] = UInt8(ascii: "-") }
        // Digits before the point: from the binary exponent (it may come out one low), then
        // one comparison. An estimate off by one only costs the fast path a miss, never a
        // wrong digit: each stage checks its result exactly.
        let binaryExponent = Int(magnitude.exponentBitPattern) - 1023  // `exponent` is a call, not inlined
        var integerDigits = (binaryExponent * 78_913) >> 18 + 1
        let nextPower = integerDigits >= 0 ? NumberText.powersOfTen[integerDigits] : 1 / NumberText.powersOfTen[-integerDigits]
        if magnitude >= nextPower { integerDigits += 1 }
        if let (digits, scale) = atMostFifteenDigits(magnitude, integerDigits: integerDigits)
            ?? shortestInInterval(magnitude, binaryExponent: binaryExponent, integerDigits: integerDigits) {
            return sign + writeDecimal(digits, scale: scale, into: out + sign)
        }
        return nil
    }

    /// Stage 1: the digits when `x` reads back from a decimal of at most 15 significant digits.
    @inline(__always)
    private static func atMostFifteenDigits(_ x: Double, integerDigits: Int) -> (UInt64, Int)? {
        let scale = 15 - integerDigits
        guard scale >= 0, scale <= 22 else { return nil }
        let power = NumberText.powersOfTen[scale]
        // Rounds to an integer without a call to libm's round: adding 2^52 leaves no bits for
        // a fraction. Only for products below 2^52; larger ones fail the check below anyway.
        let scaled = (x * power + 0x1p52) - 0x1p52
        guard scaled < 1e15, scaled / power == x else { return nil }
        return (UInt64(scaled), scale)
    }

    /// Stage 2: the shortest decimal that reads back as `x`, nearest to `x`, by exact integer
    /// arithmetic; nil when `x` is a power of two or two candidates are equally near.
    private static func shortestInInterval(_ x: Double, binaryExponent: Int, integerDigits: Int) -> (UInt64, Int)? {
        let significand = x.significandBitPattern
        guard significand != 0 else { return nil }  // a power of two: the interval is lopsided
        let m = significand | (1 << 52)
        let shift = 52 - binaryExponent + 1  // x = m / 2^(shift - 1), scaled by 2 for the half-ulp
        // 17 or more digits, so the interval (at least one unit wide) holds an integer.
        let scale = 17 - integerDigits
        guard scale >= 0, scale < integerPowers.count, shift > 0, shift < 128 else { return nil }
        let power = integerPowers[scale]
        // Everything over the common denominator 2^shift: x·10^scale = center, the ends ± power.
        let (productHigh, productLow) = (m << 1).multipliedFullWidth(by: power)
        let center = UInt128(productHigh) << 64 | UInt128(productLow)
        let lowEnd = center - UInt128(power), highEnd = center + UInt128(power)
        let mask = (UInt128(1) << shift) - 1
        let inclusive = m & 1 == 0
        var smallest = UInt64(truncatingIfNeeded: lowEnd >> shift)
        if lowEnd & mask != 0 || !inclusive { smallest += 1 }
        var largest = UInt64(truncatingIfNeeded: highEnd >> shift)
        if highEnd & mask == 0 && !inclusive { largest -= 1 }
        guard smallest <= largest else { return nil }
        // The coarsest power of ten with a multiple in [smallest, largest]: the ends and x
        // divided down by ten together (divisions by a constant; by a variable they were slow).
        var step: UInt64 = 1
        var low = smallest, high = largest, whole = UInt64(truncatingIfNeeded: center >> shift)
        while high / 10 >= (low + 9) / 10 {
            high /= 10
            low = (low + 9) / 10
            whole /= 10
            step &*= 10
        }
        // Of its multiples, the two around x; the nearer one inside the interval.
        let below = whole &* step
        let above = below &+ step
        let belowInside = below >= smallest, aboveInside = above <= largest
        let chosen: UInt64
        if belowInside && aboveInside {
            let belowDistance = center - UInt128(below) << shift
            let aboveDistance = UInt128(above) << shift - center
            guard belowDistance != aboveDistance else { return nil }
            chosen = belowDistance < aboveDistance ? below : above
        } else if belowInside {
            chosen = below
        } else if aboveInside {
            chosen = above
        } else {
            return nil
        }
        return (chosen, scale)
    }

    private static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// Writes `digits · 10^-scale` as Swift does: "123.45", "0.00123", "1200.0"; returns the length.
    @inline(__always)
    private static func writeDecimal(_ digits: UInt64, scale: Int, into out: UnsafeMutablePointer<UInt8>) -> Int {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { scratch in
            let row = scratch.baseAddress!
            // All 24 places (with leading zeros) in three independent groups of eight: chains of
            // divisions one after another were this function's whole cost.
            let upper = digits / 100_000_000
            writeEightDigits(UInt32(truncatingIfNeeded: upper / 100_000_000), to: row)
            writeEightDigits(UInt32(truncatingIfNeeded: upper % 100_000_000), to: row + 8)
            writeEightDigits(UInt32(truncatingIfNeeded: digits % 100_000_000), to: row + 16)
            var first = 0
            while first < 23 && row[first] == UInt8(ascii: "0") { first += 1 }
            var end = 24, scale = scale
            while scale > 0 && row[end - 1] == UInt8(ascii: "0") {
                end -= 1
                scale -= 1
            }
            let count = end - first
            var n = 0
            if scale >= count {
                // Below one: "0." and the zeros after the point.
                out[0] = UInt8(ascii: "0")
                out[1] = UInt8(ascii: ".")
                n = 2
                for _ in 0..<(scale - count) {
                    out[n] = UInt8(ascii: "0")
                    n += 1
                }
                copy(row + first, count, to: out + n)
                return n + count
            }
            let whole = count - scale
            copy(row + first, whole, to: out)
            n = whole
            out[n] = UInt8(ascii: ".")
            n += 1
            if scale == 0 {
                out[n] = UInt8(ascii: "0")  // an integral double keeps its ".0"
                return n + 1
            }
            copy(row + first + whole, scale, to: out + n)
            return n + scale
        }
    }

    /// A few bytes, copied inline (`update(from:count:)` calls memcpy, slower for these lengths).
    @inline(__always)
    private static func copy(_ from: UnsafeMutablePointer<UInt8>, _ count: Int, to out: UnsafeMutablePointer<UInt8>) {
        for k in 0..<count { out[k] = from[k] }
    }

    /// Writes `value` (below 10^8) as exactly eight digits, leading zeros included.
    @inline(__always)
    private static func writeEightDigits(_ value: UInt32, to out: UnsafeMutablePointer<UInt8>) {
        let pairs = digitPairs.utf8Start
        let high = value / 10_000, low = value % 10_000
        let places = (Int(high / 100), Int(high % 100), Int(low / 100), Int(low % 100))
        out[0] = pairs[2 * places.0]
        out[1] = pairs[2 * places.0 + 1]
        out[2] = pairs[2 * places.1]
        out[3] = pairs[2 * places.1 + 1]
        out[4] = pairs[2 * places.2]
        out[5] = pairs[2 * places.2 + 1]
        out[6] = pairs[2 * places.3]
        out[7] = pairs[2 * places.3 + 1]
    }
}
