import MeridianGeometry

/// KML's `<coordinates>` text: tuples `lon,lat[,alt]` separated by white space.
///
/// Real files put spaces after the commas ("0.0, 0.0, 0.0"), so white space next to a comma
/// belongs to the tuple, and only white space between two numbers separates tuples.
/// Numbers are read exactly (the same converter as GeoJSON); KML's looser forms ("+1", ".5",
/// "1.") are accepted too.
enum KMLCoordinates {
    struct Result {
        var positions: [Position] = []
        /// Tuples with fewer than two numbers, or text that is not a number: skipped.
        var skipped = 0
    }

    static func parse(_ bytes: [UInt8]) -> Result {
        bytes.withUnsafeBufferPointer { parse($0) }
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

        /// Appends the tuple to `result` (or counts it as skipped) and starts the next one.
        mutating func finish(into result: inout Result) {
            if count >= 2 && !broken {
                result.positions.append(Position(longitude: x, latitude: y, altitude: count > 2 ? z : nil))
            } else if count > 0 || broken {
                result.skipped += 1
            }
            count = 0
            broken = false
        }
    }

    static func parse(_ t: UnsafeBufferPointer<UInt8>) -> Result {
        var reader = Reader()
        reader.read(t)
        return reader.finish()
    }

    /// Reads a `<coordinates>` text piece by piece, as expat hands it over, so that the text
    /// need not be collected first; a token cut by the end of a piece waits for the rest.
    struct Reader {
        private var result = Result()
        private var tuple = Tuple()
        /// A token has ended and only white space came after it: a comma continues its tuple,
        /// the start of another token ends the tuple first.
        private var tokenEnded = false
        /// The start of a token the last piece ended in.
        private var pending: [UInt8] = []

        @inline(__always) private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }
        @inline(__always) private static func isDelimiter(_ c: UInt8) -> Bool { isSpace(c) || c == UInt8(ascii: ",") }

        /// Reads the next piece of the text.
        mutating func read(_ t: UnsafeBufferPointer<UInt8>) {
            let n = t.count
            var i = 0
            if !pending.isEmpty {
                while i < n && !Self.isDelimiter(t[i]) { i += 1 }
                pending.append(contentsOf: UnsafeBufferPointer(rebasing: t[0..<i]))
                guard i < n else { return }
                endPendingToken()
            }
            while i < n {
                let c = t[i]
                if Self.isSpace(c) {
                    i += 1
                    continue
                }
                if c == UInt8(ascii: ",") {
                    tokenEnded = false
                    i += 1
                    continue
                }
                if tokenEnded {
                    tuple.finish(into: &result)
                    tokenEnded = false
                }
                // One number (or a stray token): the common plain decimal read in one pass, anything
                // else delimited first and read by the general rules; one that reaches the end of
                // the piece may go on in the next.
                if let (value, end) = NumberText.parsePlainDecimal(t, from: i), end < n, Self.isDelimiter(t[end]) {
                    tuple.add(value)
                    tokenEnded = true
                    i = end
                    continue
                }
                let start = i
                while i < n && !Self.isDelimiter(t[i]) { i += 1 }
                guard i < n else {
                    pending.append(contentsOf: UnsafeBufferPointer(rebasing: t[start..<n]))
                    return
                }
                add(UnsafeBufferPointer(rebasing: t[start..<i]))
            }
        }

        private mutating func add(_ token: UnsafeBufferPointer<UInt8>) {
            if let value = KMLCoordinates.number(token) {
                tuple.add(value)
            } else {
                tuple.broken = true
            }
            tokenEnded = true
        }

        private mutating func endPendingToken() {
            let token = pending
            token.withUnsafeBufferPointer { add($0) }
            pending.removeAll(keepingCapacity: true)
        }

        /// The positions read, once the text has ended.
        mutating func finish() -> Result {
            if !pending.isEmpty { endPendingToken() }
            tuple.finish(into: &result)
            return result
        }
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

/// A `<coordinates>` element of a Placemark's geometry, whose text is read into positions as it
/// arrives (by ``KMLDocumentBuilder``) instead of being kept: a country's outline is megabytes of
/// text, copied once more for nothing when collected first.
final class KMLCoordinatesElement: XMLElement {
    private var reader = KMLCoordinates.Reader()
    /// The positions, once the element has ended.
    private(set) var parsed: KMLCoordinates.Result?

    func read(_ text: UnsafeBufferPointer<UInt8>) {
        reader.read(text)
    }

    func finishReading() {
        parsed = reader.finish()
        reader = KMLCoordinates.Reader()
    }
}
