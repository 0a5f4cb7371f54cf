/// The shortest round-trip text of a double, byte for byte what Swift's `description` prints,
/// computed faster for the numbers geodata is made of.
///
/// Swift's printer (`_Float64ToASCII`, about 550 instructions a number) was a third of the
/// writing thread's time on large conversions. Coordinates lie in a narrow range
/// (`0.001 ≤ |x| < 10^15`, printed as plain decimals). Those that came from text of 15
/// significant digits or fewer take one multiplication and one division
/// (``atMostFifteenDigits(_:)``); the others (GeoJSON's 17-digit coordinates) get their digits
/// from Giulietti's Schubfach idea done in exact integer arithmetic (``shortest(_:)``):
///
/// - Scale `x = c · 2^-shift` by `10^j`, the smallest power of ten at least `2^shift`: one unit
///   of `x`'s last place becomes between 1 and 10 units of the scaled value `V`. In this range
///   `10^j ≤ 10^19` is an exact integer, so `V`, and the interval of decimals that read back as
///   `x` (half a unit of the last place either side, ends included when `c` is even, as
///   round-half-even reading does), are exact fractions over `2^shift`, in 128-bit integers.
/// - The interval is narrower than 10 units, so it holds at most one multiple of ten: the
///   multiple of ten just below `V` or just above. When one of them is inside, it is the only
///   decimal with fewer digits than a unit's, so it is the shortest (its trailing zeros go when
///   it is written). Otherwise the shortest are the units inside, and the nearest to `V` is the
///   one below `V` or the one above.
///
/// That is what Swift's printer returns too (the shortest, and of those the nearest). Anything
/// else (zero, exponent form, powers of two whose interval is lopsided, a tie between two nearest
/// candidates) returns nil, and the caller prints with Swift's printer. Tests compare the two on
/// millions of doubles and on every coordinate of the fixtures.
enum ShortestDecimal {
    /// The bytes ``format(_:into:)`` may touch: a sign, "0.00", 17 digits, and the slack of the
    /// eight-byte moves that place them.
    static let maximumLength = 48

    /// Writes `value` as Swift's `description` would into `out`, which has room for
    /// ``maximumLength`` bytes, and returns the length; nil when the value is outside the
    /// fast path (nothing useful is left in `out` then).
    @inline(__always)
    static func format(_ value: Double, into out: UnsafeMutablePointer<UInt8>) -> Int? {
        let magnitude = value.magnitude
        // Swift prints plain decimals between 10^-4 and 2^53; this path keeps inside them.
        guard magnitude >= 1e-3, magnitude < 1e15,
              let (digits, scale) = atMostFifteenDigits(magnitude) ?? shortest(magnitude) else { return nil }
        let sign = value.sign == .minus ? 1 : 0
        if sign == 1 { out[0] = UInt8(ascii: "-") }
        return sign + writeDecimal(digits, scale: scale, into: out + sign)
    }

    /// The digits when `x` (`0.001 ≤ x < 10^15`) reads back from a decimal of at most 15
    /// significant digits, as a coordinate written with `%.15g` does (ogr2ogr's KML): then it is
    /// the shortest, with no interval to work out. `m = round(x · 10^k)` for the `k` that leaves
    /// 15 digits, kept when `m / 10^k` reads back as `x`. Both operations are exact or correctly
    /// rounded (`m` and `10^k` are exact doubles), so `m · 10^-k` is a decimal of at most 15
    /// digits that reads back as `x`; as any two such decimals read back as different doubles
    /// (DBL_DIG), it is the only one, and no shorter one exists. Nil otherwise (an estimate of
    /// the digits before the point that is off by one only misses, never gives a wrong digit).
    @inline(__always)
    static func atMostFifteenDigits(_ x: Double) -> (digits: UInt64, scale: Int)? {
        let binaryExponent = Int(x.exponentBitPattern) - 1023  // `exponent` is a call, not inlined
        var integerDigits = (binaryExponent * 78_913) >> 18 + 1
        let powers = NumberText.powersOfTen
        let nextPower = integerDigits >= 0 ? powers[integerDigits] : 1 / powers[-integerDigits]
        if x >= nextPower { integerDigits += 1 }
        let scale = 15 - integerDigits
        guard scale >= 0, scale <= 22 else { return nil }
        let power = powers[scale]
        // Rounds to an integer without a call to libm's round: adding 2^52 leaves no bits for
        // a fraction, and the integer is then the low bits of the sum (a conversion to UInt64
        // would check its range first). Only for products below 2^52; larger ones fail the
        // check below anyway.
        let rounded = x * power + 0x1p52
        let scaled = rounded - 0x1p52
        guard scaled < 1e15, scaled / power == x else { return nil }
        return (rounded.bitPattern & 0x000F_FFFF_FFFF_FFFF, scale)
    }

    /// The shortest decimal `digits · 10^-scale` (trailing zeros possible) that reads back as
    /// `x`, nearest to `x`, for `0.001 ≤ x < 10^15`; nil when `x` is a power of two or two
    /// candidates are equally near.
    @inline(__always)
    static func shortest(_ x: Double) -> (digits: UInt64, scale: Int)? {
        let fraction = x.significandBitPattern
        guard fraction != 0 else { return nil }  // a power of two: the interval is lopsided
        let c = fraction | 1 << 52
        let shift = 1075 - Int(x.exponentBitPattern)  // x = c / 2^shift, shift in 3...62 here
        // The digits of 2^shift: the estimate from log10(2) ≈ 78913 / 2^18, then made exact.
        var scale = (shift * 78_913) >> 18 + 1
        let powers = NumberText.integerPowersOfTen
        let unit = UInt64(1) << shift
        if powers[scale - 1] >= unit { scale -= 1 }
        if powers[scale] < unit { scale += 1 }
        let power = powers[scale]
        // V = c · 10^scale / 2^shift. Over the common denominator 2^(shift + 1) the interval of x
        // runs from 2V - power to 2V + power; the units inside it run from `smallest` to
        // `largest` (rounding inwards, and past an end that is excluded).
        let (high, low) = c.multipliedFullWidth(by: power)
        let product = UInt128(high) << 64 | UInt128(low)
        let lowEnd = product << 1 - UInt128(power), highEnd = product << 1 + UInt128(power)
        let endMask = UInt64(1) << (shift + 1) - 1
        let inclusive = c & 1 == 0
        let smallest = UInt64(truncatingIfNeeded: lowEnd >> (shift + 1))
            + (UInt64(truncatingIfNeeded: lowEnd) & endMask != 0 || !inclusive ? 1 : 0)
        let largest = UInt64(truncatingIfNeeded: highEnd >> (shift + 1))
            - (UInt64(truncatingIfNeeded: highEnd) & endMask == 0 && !inclusive ? 1 : 0)
        let below = UInt64(truncatingIfNeeded: product >> shift)  // floor(V)
        // A decimal one digit shorter: the multiple of ten below V or the one above (given
        // without its last zero).
        let tens = below / 10
        let tenBelowInside = tens * 10 >= smallest, tenAboveInside = tens * 10 + 10 <= largest
        if tenBelowInside != tenAboveInside {
            return (tenBelowInside ? tens : tens + 1, scale - 1)
        }
        // Otherwise a whole unit: the one below V or the one above, whichever is inside, else
        // the nearer one, by V's fraction (the low `shift` bits of the product) against a half.
        let above = below + 1
        let belowInside = below >= smallest, aboveInside = above <= largest
        if belowInside != aboveInside {
            return (belowInside ? below : above, scale)
        }
        let fractionOfV = low & (unit - 1), half = unit >> 1
        guard fractionOfV != half else { return nil }
        return (fractionOfV < half ? below : above, scale)
    }

    /// Writes `digits · 10^-scale` as Swift does: "123.45", "0.00123", "1200.0"; returns the length.
    /// `digits` is below 10^17 (Schubfach's at most 17 digits); `out` must have room for
    /// ``maximumLength`` bytes (the digits are moved eight at a time).
    @inline(__always)
    static func writeDecimal(_ digits: UInt64, scale: Int, into out: UnsafeMutablePointer<UInt8>) -> Int {
        // The digits' places in three words of eight (first place in the lowest byte): how many
        // digits there are, and how many zeros end them, are counted from the zero bytes at
        // either end, where dividing by ten digit by digit took a loop.
        let low = digitPlaces(digits % 100_000_000)
        let upper = digits / 100_000_000
        let middle = digitPlaces(upper % 100_000_000)
        let top = upper >= 100_000_000 ? digitPlaces(upper / 100_000_000) : 0
        let count = top != 0 ? 24 - top.trailingZeroBitCount >> 3
            : middle != 0 ? 16 - middle.trailingZeroBitCount >> 3 : 8 - low.trailingZeroBitCount >> 3
        let trailingZeros = low != 0 ? low.leadingZeroBitCount >> 3
            : middle != 0 ? 8 + middle.leadingZeroBitCount >> 3 : 16 + top.leadingZeroBitCount >> 3
        // Zeros after the point go ("1.50" is "1.5"); those before it stay.
        let dropped = min(trailingZeros, scale)
        let length = count - dropped, decimals = scale - dropped
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 6) { scratch in
            // The digits at the end of a row of 24 places; the moves below read up to 24 bytes
            // past them: zeros, never stale memory.
            let row = scratch.baseAddress!
            row[0] = (top | 0x3030_3030_3030_3030).littleEndian
            row[1] = (middle | 0x3030_3030_3030_3030).littleEndian
            row[2] = (low | 0x3030_3030_3030_3030).littleEndian
            row[3] = 0; row[4] = 0; row[5] = 0
            let first = UnsafeRawPointer(row).assumingMemoryBound(to: UInt8.self) + 24 - count
            if decimals >= length {
                // Below one: "0." and the zeros after the point.
                out[0] = UInt8(ascii: "0")
                out[1] = UInt8(ascii: ".")
                var n = 2
                for _ in 0..<(decimals - length) {
                    out[n] = UInt8(ascii: "0")
                    n += 1
                }
                moveTwentyFour(from: first, to: out + n)
                return n + length
            }
            let whole = length - decimals
            moveTwentyFour(from: first, to: out)
            out[whole] = UInt8(ascii: ".")
            if decimals == 0 {
                out[whole + 1] = UInt8(ascii: "0")  // an integral double keeps its ".0"
                return whole + 2
            }
            moveTwentyFour(from: first + whole, to: out + whole + 1)
            return whole + 1 + decimals
        }
    }

    /// Copies 24 bytes in three unaligned moves (the bytes past what is needed are written over
    /// or left beyond the text's end).
    @inline(__always)
    private static func moveTwentyFour(from: UnsafePointer<UInt8>, to: UnsafeMutablePointer<UInt8>) {
        let source = UnsafeRawPointer(from), target = UnsafeMutableRawPointer(to)
        for offset in stride(from: 0, to: 24, by: 8) {
            target.storeBytes(of: source.loadUnaligned(fromByteOffset: offset, as: UInt64.self), toByteOffset: offset, as: UInt64.self)
        }
    }

    /// The eight decimal places of `value` (below 10^8), leading zeros included, one per byte
    /// as the numbers 0...9, the first place in the lowest byte (an ASCII digit each once 0x30 is
    /// added): the eight found together in one 64-bit word (two halves of four, then pairs, then
    /// single digits, each split by a multiplication and a shift instead of a division).
    @inline(__always)
    static func digitPlaces(_ value: UInt64) -> UInt64 {
        // Lanes of 32 bits: the first four digits low, the last four high (memory order is
        // little-endian, first place first).
        let halves = value / 10_000 | (value % 10_000) << 32
        // Each lane below 10^4: its hundreds (x · 10486 >> 20 is x / 100 for x < 10^4 + 41).
        let hundreds = (halves &* 10_486) >> 20 & 0x0000_007F_0000_007F
        let pairs = (halves &- hundreds &* 100) << 16 | hundreds  // lanes of 16 bits, each below 100
        // Each 16-bit lane below 100: its tens (x · 103 >> 10 is x / 10 for x < 179).
        let tens = (pairs &* 103) >> 10 & 0x000F_000F_000F_000F
        return (pairs &- tens &* 10) << 8 | tens
    }
}
