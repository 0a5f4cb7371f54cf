import MeridianGeometry

/// KML's `<coordinates>` text: tuples `lon,lat[,alt]` separated by white space.
///
/// Real files put spaces after the commas ("0.0, 0.0, 0.0"), so white space next to a comma
/// belongs to the tuple, and only white space between two numbers separates tuples.
/// Numbers are read exactly (the same converter as GeoJSON); KML's looser forms ("+1", ".5",
/// "1.") are accepted too.
enum KMLCoordinates {
    struct Result {
        var positions: [Position]
        /// Tuples with fewer than two numbers, or text that is not a number: skipped.
        var skipped = 0
    }

    static func parse(_ bytes: [UInt8], into scratch: PositionScratch = PositionScratch()) -> Result {
        bytes.withUnsafeBufferPointer { parse($0, into: scratch) }
    }

    /// The tuple being read: up to three numbers kept (a fourth, M, is dropped as togeojson does).
    /// A value type passed `inout`, not variables captured by a local function: captured
    /// variables were checked for exclusive access at run time, on every number.
    private struct Tuple {
        var x = 0.0, y = 0.0, z = 0.0
        var count = 0
        var broken = false

        mutating func add(_ value: Double) {
            switch count {
            case 0: x = value
            case 1: y = value
            case 2: z = value
            default: break
            }
            count += 1
        }

        /// Appends the tuple to `positions` (or counts it as `skipped`) and starts the next one.
        @inline(__always)
        mutating func finish(into positions: PositionScratch, skipped: inout Int) {
            if count >= 2 && !broken {
                positions.append(Position(longitude: x, latitude: y, altitude: count > 2 ? z : nil))
            } else if count > 0 || broken {
                skipped += 1
            }
            count = 0
            broken = false
        }
    }

    static func parse(_ t: UnsafeBufferPointer<UInt8>, into scratch: PositionScratch) -> Result {
        var skipped = 0
        var tuple = Tuple()
        var i = 0
        let n = t.count
        @inline(__always) func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }
        while i < n {
            while i < n && isSpace(t[i]) { i += 1 }
            guard i < n else { break }
            // One number (or a stray token): the common plain decimal read in one pass, anything
            // else delimited first and read by the general rules.
            if let (value, end) = NumberText.parsePlainDecimal(t, from: i),
               end == n || isSpace(t[end]) || t[end] == UInt8(ascii: ",") {
                tuple.add(value)
                i = end
            } else {
                let start = i
                while i < n && !isSpace(t[i]) && t[i] != UInt8(ascii: ",") { i += 1 }
                if i > start {
                    if let value = number(UnsafeBufferPointer(rebasing: t[start..<i])) {
                        tuple.add(value)
                    } else {
                        tuple.broken = true
                    }
                }
            }
            // A comma (with white space around it) continues the tuple; anything else ends it.
            var j = i
            while j < n && isSpace(t[j]) { j += 1 }
            if j < n && t[j] == UInt8(ascii: ",") {
                i = j + 1
            } else {
                tuple.finish(into: scratch, skipped: &skipped)
                i = j
            }
        }
        tuple.finish(into: scratch, skipped: &skipped)
        return Result(positions: scratch.take(), skipped: skipped)
    }

    /// A number in KML's text: JSON's grammar first (exact and fast), then the looser forms.
    static func number(_ token: UnsafeBufferPointer<UInt8>) -> Double? {
        if let parsed = NumberText.parse(token), parsed.value.isFinite { return parsed.value }
        guard token.count < 64 else { return nil }
        var text = String(decoding: token, as: UTF8.self)
        if text.hasPrefix("+") { text.removeFirst() }
        if text.hasPrefix(".") { text = "0" + text }
        if text.hasPrefix("-.") { text = "-0" + text.dropFirst() }
        if text.hasSuffix(".") { text += "0" }
        return text.utf8.withContiguousStorageIfAvailable { bytes in
            NumberText.parse(bytes).flatMap { $0.value.isFinite ? $0.value : nil }
        } ?? nil
    }
}
