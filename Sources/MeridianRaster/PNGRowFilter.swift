/// PNG's row filters (PNG specification, section 9) chosen adaptively, 16 bytes at a time with
/// Swift's SIMD types: per row, all four predicting filters are written at once into scratch
/// rows while their sums of absolute values are taken, and the least one is copied back.
///
/// Why SIMD by hand: the compiler vectorized the sums of none, sub, up and average written as
/// plain loops, but not Paeth's predictor (three distances and two choices a byte), which left
/// the filters at about 75 instructions a byte of a photograph tile, twice libdeflate's own.
/// Every prediction reads only unfiltered bytes (the row and the row above), so 16 bytes are
/// independent and the bytes are the plain definition's (TileKernelTests checks them).
enum PNGRowFilter {
    typealias Bytes = SIMD16<UInt8>
    private typealias Wide = SIMD16<Int16>

    /// The filter (0 none, 1 sub, 2 up, 3 average, 4 Paeth) whose output has the least sum of
    /// absolute values as signed bytes (ties to the lower type, as libpng), written over `row`
    /// (`count` bytes) in place. `above` is the unfiltered row above (zeros for the first row);
    /// `scratch` holds at least 4 × `count` bytes.
    static func filterAdaptively(_ row: UnsafeMutablePointer<UInt8>, above: UnsafePointer<UInt8>, count: Int, bytesPerPixel bpp: Int,
                                 scratch: UnsafeMutablePointer<UInt8>) -> UInt8 {
        let sub = scratch, up = scratch + count, average = scratch + 2 &* count, paeth = scratch + 3 &* count
        var sums = Sums()
        // The first pixel has nothing to its left (nor above left): zeros.
        let lead = min(bpp, count)
        for i in 0..<lead {
            let x = row[i], b = above[i]
            sums.add(x: x, sub: x, up: x &- b, average: x &- (b >> 1), paeth: x &- b)
            sub[i] = x; up[i] = x &- b; average[i] = x &- (b >> 1); paeth[i] = x &- b
        }
        var i = lead
        var wide = WideSums()
        var blocks = 0
        while i &+ 16 <= count {
            let x = load(row + i), a = load(row + (i &- bpp)), b = load(above + i), c = load(above + (i &- bpp))
            let s = x &- a, u = x &- b, v = x &- floorAverage(a, b), p = x &- paethPredictor(a, b, c)
            store(s, sub + i); store(u, up + i); store(v, average + i); store(p, paeth + i)
            wide.add(none: x, sub: s, up: u, average: v, paeth: p)
            i &+= 16
            blocks &+= 1
            // 16-bit lanes hold 511 blocks of magnitudes up to 128.
            if blocks == 511 { sums.add(wide); wide = WideSums(); blocks = 0 }
        }
        sums.add(wide)
        while i < count {
            let x = row[i], a = row[i &- bpp], b = above[i], c = above[i &- bpp]
            let s = x &- a, u = x &- b, v = x &- floorAverage(a, b), p = x &- paethPredictor(a, b, c)
            sums.add(x: x, sub: s, up: u, average: v, paeth: p)
            sub[i] = s; up[i] = u; average[i] = v; paeth[i] = p
            i &+= 1
        }
        var best = 0, bestSum = sums.none
        if sums.sub < bestSum { best = 1; bestSum = sums.sub }
        if sums.up < bestSum { best = 2; bestSum = sums.up }
        if sums.average < bestSum { best = 3; bestSum = sums.average }
        if sums.paeth < bestSum { best = 4 }
        if best > 0 { row.update(from: scratch + (best &- 1) &* count, count: count) }
        return UInt8(best)
    }

    /// Per filter, the sum of the filtered bytes' absolute values as signed bytes.
    private struct Sums {
        var none = 0, sub = 0, up = 0, average = 0, paeth = 0

        @inline(__always)
        mutating func add(x: UInt8, sub s: UInt8, up u: UInt8, average v: UInt8, paeth p: UInt8) {
            none &+= magnitude(x); sub &+= magnitude(s); up &+= magnitude(u); average &+= magnitude(v); paeth &+= magnitude(p)
        }

        @inline(__always)
        mutating func add(_ wide: WideSums) {
            none &+= wide.none.total; sub &+= wide.sub.total; up &+= wide.up.total
            average &+= wide.average.total; paeth &+= wide.paeth.total
        }

        @inline(__always)
        private func magnitude(_ byte: UInt8) -> Int { Int(min(byte, 0 &- byte)) }
    }

    /// The same sums in 16 lanes of 16 bits, per block of 16 bytes.
    private struct WideSums {
        var none = SIMD16<UInt16>(), sub = SIMD16<UInt16>(), up = SIMD16<UInt16>()
        var average = SIMD16<UInt16>(), paeth = SIMD16<UInt16>()

        @inline(__always)
        mutating func add(none x: Bytes, sub s: Bytes, up u: Bytes, average v: Bytes, paeth p: Bytes) {
            none &+= magnitude(x); sub &+= magnitude(s); up &+= magnitude(u); average &+= magnitude(v); paeth &+= magnitude(p)
        }

        /// A byte's absolute value as a signed byte (0 to 128) is the lesser of it and its
        /// negation, as unsigned bytes.
        @inline(__always)
        private func magnitude(_ bytes: Bytes) -> SIMD16<UInt16> {
            // As two's complement: the sign bit spread over the byte, then |v| = (v ^ sign) − sign
            // (−128 gives 0x80, 128 as an unsigned byte).
            let sign = 0 &- (bytes &>> 7)
            return SIMD16<UInt16>(truncatingIfNeeded: (bytes ^ sign) &- sign)
        }
    }

    @inline(__always)
    private static func load(_ p: UnsafePointer<UInt8>) -> Bytes { UnsafeRawPointer(p).loadUnaligned(as: Bytes.self) }

    @inline(__always)
    private static func load(_ p: UnsafeMutablePointer<UInt8>) -> Bytes { UnsafeRawPointer(p).loadUnaligned(as: Bytes.self) }

    @inline(__always)
    private static func store(_ bytes: Bytes, _ p: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(p).storeBytes(of: bytes, as: Bytes.self)
    }

    /// ⌊(a + b) / 2⌋ without leaving 8 bits.
    @inline(__always)
    static func floorAverage(_ a: UInt8, _ b: UInt8) -> UInt8 { (a & b) &+ ((a ^ b) >> 1) }

    @inline(__always)
    private static func floorAverage(_ a: Bytes, _ b: Bytes) -> Bytes { (a & b) &+ ((a ^ b) &>> 1) }

    /// PNG's Paeth predictor: of the bytes left (a), above (b) and above left (c), the one
    /// nearest a + b − c, ties to a, then b.
    @inline(__always)
    static func paethPredictor(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        @inline(__always) func distance(_ value: Int32) -> Int32 { value < 0 ? 0 &- value : value }
        let a32 = Int32(a), b32 = Int32(b), c32 = Int32(c)
        let pa = distance(b32 &- c32), pb = distance(a32 &- c32), pc = distance(a32 &+ b32 &- c32 &- c32)
        return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
    }

    @inline(__always)
    private static func paethPredictor(_ a: Bytes, _ b: Bytes, _ c: Bytes) -> Bytes {
        let a16 = Wide(truncatingIfNeeded: a), b16 = Wide(truncatingIfNeeded: b), c16 = Wide(truncatingIfNeeded: c)
        // Comparisons and choices as arithmetic on 16-bit lanes (the distances are below 1,024):
        // `v &>> 15` is all ones where v < 0, zero elsewhere. (Swift's `replacing(with:where:)`
        // and `pointwiseMin` did not compile to vector instructions here.)
        @inline(__always) func distance(_ v: Wide) -> Wide { let sign = v &>> 15; return (v ^ sign) &- sign }
        @inline(__always) func notAbove(_ x: Wide, _ y: Wide) -> Wide { ~((y &- x) &>> 15) }  // all ones where x <= y
        let toA = b16 &- c16, toB = a16 &- c16
        let pa = distance(toA), pb = distance(toB), pc = distance(toA &+ toB)
        let bOrC = c16 ^ ((b16 ^ c16) & notAbove(pb, pc))
        let chosen = bOrC ^ ((a16 ^ bOrC) & notAbove(pa, pb) & notAbove(pa, pc))
        return Bytes(truncatingIfNeeded: chosen)
    }
}

extension SIMD16<UInt16> {
    /// The sum of the lanes.
    @inline(__always)
    fileprivate var total: Int {
        // Widened first: the lanes' sum can pass 16 bits.
        Int(SIMD16<UInt32>(truncatingIfNeeded: self).wrappedSum())
    }
}
