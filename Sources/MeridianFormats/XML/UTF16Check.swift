/// Checks a UTF-16 document's code units before expat reads them: every surrogate paired, no
/// byte left over at the end.
///
/// expat decides by itself, and not the same way in every version the project supports
/// (expat 2.5.0 as Debian 12 first shipped it reads a lone high surrogate as half a pair with
/// the next character and fails later at a "mismatched tag"; its security updates refuse the
/// surrogate itself). Checked here, a broken UTF-16 file gets Meridian's message at the same
/// place with every expat. Lines and columns count as expat counts them: 1-based, columns in
/// code units, a byte-order mark not counted. UTF-8 and single-byte documents pass untouched.
struct UTF16Check {
    private enum State {
        /// Before the first bytes: not yet known whether the document is UTF-16.
        case undecided
        case utf16(bigEndian: Bool)
        case notUTF16
    }

    /// What is wrong, and where.
    struct Problem {
        var message: String
        var line: Int
        var column: Int
        var hint = "the file is not the UTF-16 it says it is; convert it to UTF-8 with iconv, which names the bad character"
    }

    private var state = State.undecided
    private var pending: UInt8?
    private var highSurrogate: (unit: UInt16, line: Int, column: Int)?
    private var line = 1
    private var column = 1
    private var afterCarriageReturn = false
    private var skipByteOrderMark = false

    /// Whether a document starting with `head` (its first two bytes) is UTF-16.
    static func isUTF16(_ head: [UInt8]) -> Bool {
        if case .utf16 = decide(head) { return true }
        return false
    }

    /// Bytes seen before the encoding could be decided (a first chunk of one byte).
    private var head: [UInt8] = []

    /// Checks the next `chunk` of the document (`isFinal` for the last one).
    mutating func check(_ chunk: UnsafeBufferPointer<UInt8>, isFinal: Bool) -> Problem? {
        if case .undecided = state {
            let earlier = head  // bytes of earlier chunks, not read yet
            head += chunk.prefix(2 - head.count)
            guard head.count == 2 || isFinal else { return nil }
            state = Self.decide(head)
            guard case .utf16 = state else { return nil }
            skipByteOrderMark = head[0] == 0xFF || head[0] == 0xFE
            if let problem = read(earlier) { return problem }
        }
        guard case .utf16 = state else { return nil }
        if let problem = read(chunk) { return problem }
        if isFinal {
            if let high = highSurrogate { return Self.loneHigh(high) }
            if pending != nil {
                return Problem(message: "invalid UTF-16: the input ends in the middle of a character (an odd number of bytes)",
                               line: line, column: column, hint: "the file may be truncated")
            }
        }
        return nil
    }

    /// Pairs bytes into code units and takes each.
    private mutating func read(_ bytes: some Sequence<UInt8>) -> Problem? {
        guard case .utf16(let bigEndian) = state else { return nil }
        for byte in bytes {
            guard let first = pending else {
                pending = byte
                continue
            }
            pending = nil
            let unit = bigEndian ? UInt16(first) << 8 | UInt16(byte) : UInt16(byte) << 8 | UInt16(first)
            if skipByteOrderMark {
                skipByteOrderMark = false
                continue
            }
            if let problem = take(unit) { return problem }
        }
        return nil
    }

    private static func loneHigh(_ high: (unit: UInt16, line: Int, column: Int)) -> Problem {
        Problem(message: "invalid UTF-16: a lone high surrogate \(hex(high.unit))", line: high.line, column: high.column)
    }

    private static func hex(_ unit: UInt16) -> String {
        let digits = String(unit, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// One code unit: its pairing, then the line and column it moves to.
    private mutating func take(_ unit: UInt16) -> Problem? {
        switch unit {
        case 0xD800...0xDBFF:
            if let high = highSurrogate { return Self.loneHigh(high) }
            highSurrogate = (unit, line, column)
            return nil
        case 0xDC00...0xDFFF:
            guard highSurrogate != nil else {
                return Problem(message: "invalid UTF-16: a lone low surrogate \(Self.hex(unit))", line: line, column: column)
            }
            highSurrogate = nil
            column += 1  // the pair is one character
            return nil
        default:
            if let high = highSurrogate { return Self.loneHigh(high) }
        }
        if unit == 0x0A {
            if !afterCarriageReturn { line += 1 }
            column = 1
        } else if unit == 0x0D {
            line += 1
            column = 1
        } else {
            column += 1
        }
        afterCarriageReturn = unit == 0x0D
        return nil
    }

    /// UTF-16 by its byte-order mark, or by `<` or `<?` as 16-bit units (XML 1.0, appendix F).
    private static func decide(_ bytes: [UInt8]) -> State {
        guard bytes.count >= 2 else { return .notUTF16 }
        switch (bytes[0], bytes[1]) {
        case (0xFE, 0xFF), (0x00, 0x3C): return .utf16(bigEndian: true)
        case (0xFF, 0xFE), (0x3C, 0x00): return .utf16(bigEndian: false)
        default: return .notUTF16
        }
    }
}
