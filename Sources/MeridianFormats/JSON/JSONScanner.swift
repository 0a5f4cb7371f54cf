import MeridianCore
import MeridianGeometry

/// A pull parser for JSON text (RFC 8259), reading bytes in place from a `BufferedInput`.
///
/// Written by hand rather than on JSONSerialization or Codable: it must read every number to
/// the exact double (JSONSerialization on Linux does not), stream one feature at a time, give
/// every error a line and column, and be several times faster than Codable. It validates UTF-8,
/// limits nesting depth, and reports duplicate object keys.
///
/// Callers drive it structurally: `peek()` the next significant byte, then `parseString()`,
/// `parseDouble()`, `parseObject { key, mark in … }`, `parseArray { … }` or `parseValue()`.
// Hot state is marked @exclusivity(unchecked): the scanner is used from one thread, and the
// runtime access checks otherwise cost a third of the parse time.
final class JSONScanner {
    let input: BufferedInput
    /// Warnings (duplicate keys) go here.
    var diagnostics: DiagnosticHandler?
    let maximumDepth: Int
    @exclusivity(unchecked) private(set) var depth = 0

    /// Line of the byte at `input.position`, and the stream offset where that line starts.
    @exclusivity(unchecked) private(set) var line = 1
    @exclusivity(unchecked) private var lineStart = 0

    init(input: BufferedInput, maximumDepth: Int = 256, diagnostics: DiagnosticHandler? = nil) {
        self.input = input
        self.maximumDepth = maximumDepth
        self.diagnostics = diagnostics
    }

    // MARK: - Locations and errors

    /// A cheap record of a place in the text, turned into a `SourceLocation` only when needed.
    struct Mark {
        var line: Int
        var column: Int
    }

    var mark: Mark { mark(atIndex: input.position) }

    func mark(atIndex index: Int) -> Mark {
        Mark(line: line, column: input.offset(ofIndex: index) - lineStart + 1)
    }

    func location(_ mark: Mark) -> SourceLocation {
        SourceLocation(file: input.name, line: mark.line, column: mark.column)
    }

    var location: SourceLocation { location(mark) }

    func error(_ message: String, at mark: Mark? = nil, hint: String? = nil) -> MeridianError {
        MeridianError(.badInput, message, at: location(mark ?? self.mark), hint: hint)
    }

    func warn(_ message: String, at mark: Mark, hint: String? = nil) {
        diagnostics?(Diagnostic(.warning, message, at: location(mark), hint: hint))
    }

    /// "expected X, found Y" for whatever is at the current position.
    func unexpected(expected: String) throws -> MeridianError {
        guard let byte = try peek() else {
            return error("expected \(expected), but the input ends here", hint: "the file may be truncated")
        }
        return error("expected \(expected), found \(Self.describe(byte))", hint: Self.hint(for: byte))
    }

    /// Hints for the usual ways hand-edited JSON goes wrong.
    private static func hint(for byte: UInt8) -> String? {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: "#"): "JSON does not allow comments"
        case UInt8(ascii: "'"): "JSON strings and member names use double quotes"
        case UInt8(ascii: "]"), UInt8(ascii: "}"): "JSON does not allow a comma before a closing bracket"
        default: nil
        }
    }

    static func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x20...0x7E: "'\(Character(Unicode.Scalar(byte)))'"
        default: "byte 0x\(String(byte, radix: 16, uppercase: true))"
        }
    }

    // MARK: - Whitespace and punctuation

    /// Skips whitespace and returns the next byte without consuming it; nil at the end of input.
    @inline(__always)
    func peek() throws -> UInt8? {
        while true {
            let base = input.base
            let limit = input.limit
            var p = input.position
            while p < limit {
                let c = base[p]
                if c == 0x20 || c == 0x09 || c == 0x0D {
                    p += 1
                } else if c == 0x0A {
                    p += 1
                    line += 1
                    lineStart = input.offset(ofIndex: p)
                } else {
                    input.position = p
                    return c
                }
            }
            input.position = p
            if try input.fill(atLeast: 1) == 0 { return nil }
        }
    }

    /// Consumes one byte known to be there (after `peek()` returned it).
    @inline(__always)
    func advance() { input.position += 1 }

    /// Consumes `byte` after optional whitespace, or throws.
    func expect(_ byte: UInt8) throws {
        guard try peek() == byte else {
            throw try unexpected(expected: "'\(Character(Unicode.Scalar(byte)))'")
        }
        input.position += 1
    }

    /// Skips a UTF-8 byte-order mark at the start of the input.
    func skipByteOrderMark() throws {
        if try input.fill(atLeast: 3) >= 3, input.base[input.position] == 0xEF,
           input.base[input.position + 1] == 0xBB, input.base[input.position + 2] == 0xBF {
            input.position += 3
            lineStart = input.offset(ofIndex: input.position)
        }
    }

    // MARK: - Containers

    private func enter(_ mark: Mark) throws {
        depth += 1
        if depth > maximumDepth {
            throw error("nesting is deeper than \(maximumDepth) levels", at: mark,
                        hint: "GeoJSON needs only a few levels; this looks like malformed or hostile input")
        }
    }

    /// Parses an object, calling `member` for each key with the scanner positioned at its value.
    /// `member` must consume exactly that value.
    func parseObject(_ member: (_ key: String, _ keyMark: Mark) throws -> Void) throws {
        let open = mark
        try expect(UInt8(ascii: "{"))
        try enter(open)
        defer { depth -= 1 }
        if try peek() == UInt8(ascii: "}") {
            advance()
            return
        }
        while true {
            guard try peek() == UInt8(ascii: "\"") else { throw try unexpected(expected: "a member name in double quotes") }
            let keyMark = mark
            let key = try parseString()
            try expect(UInt8(ascii: ":"))
            try member(key, keyMark)
            switch try peek() {
            case UInt8(ascii: ","): advance()
            case UInt8(ascii: "}"): advance(); return
            default: throw try unexpected(expected: "',' or '}' after an object member")
            }
        }
    }

    /// Parses an array, calling `element` for each element with the scanner positioned at it.
    func parseArray(_ element: () throws -> Void) throws {
        let open = mark
        try expect(UInt8(ascii: "["))
        try enter(open)
        defer { depth -= 1 }
        if try peek() == UInt8(ascii: "]") {
            advance()
            return
        }
        while true {
            try element()
            switch try peek() {
            case UInt8(ascii: ","): advance()
            case UInt8(ascii: "]"): advance(); return
            default: throw try unexpected(expected: "',' or ']' after an array element")
            }
        }
    }

    // MARK: - Any value

    /// Parses any JSON value into a `JSONValue`. Duplicate keys keep the last value, with a warning.
    func parseValue() throws -> JSONValue {
        guard let c = try peek() else { throw try unexpected(expected: "a value") }
        switch c {
        case UInt8(ascii: "{"):
            var object = JSONObject()
            try parseObject { key, keyMark in
                let value = try parseValue()
                if object.updateValue(value, forKey: key) != nil {
                    warn("duplicate key \"\(key)\": the last value is kept", at: keyMark)
                }
            }
            return .object(object)
        case UInt8(ascii: "["):
            var array: [JSONValue] = []
            try parseArray { array.append(try parseValue()) }
            return .array(array)
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let number = try parseNumber()
            if let integer = number.integer { return .integer(integer) }
            return .double(number.value)
        default:
            return try parseLiteral()
        }
    }

    /// Parses `true`, `false` or `null`; names the common non-JSON words (NaN, Infinity) in the error.
    func parseLiteral() throws -> JSONValue {
        let start = mark
        let word = try scanWord()
        switch word {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        case _ where Self.nonFiniteWords.contains(word):
            throw error("\(word) is not a JSON number", at: start, hint: "JSON numbers must be finite; write null for a missing value")
        case "":
            throw try unexpected(expected: "a value")
        default:
            throw error("unexpected \"\(word)\": expected a value", at: start)
        }
    }

    /// Words people write for numbers JSON cannot hold.
    static let nonFiniteWords: Set<String> = ["NaN", "nan", "Infinity", "-Infinity", "inf"]

    /// Consumes a run of letters (for literals and error messages).
    private func scanWord() throws -> String {
        let word = try peekWord()
        input.position += word.utf8.count
        return word
    }

    /// The run of letters at the current position, not consumed.
    func peekWord() throws -> String {
        var length = 0
        while true {
            let available = try input.fill(atLeast: length + 1)
            guard available > length else { break }
            let c = input.base[input.position + length]
            let isLetter = (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z")
            guard isLetter || (length == 0 && c == UInt8(ascii: "-")), length < 16 else { break }
            length += 1
        }
        return String(decoding: UnsafeBufferPointer(start: input.base + input.position, count: length), as: UTF8.self)
    }

    // MARK: - Strings

    /// Parses a string at the current position (which must be `"`).
    func parseString() throws -> String {
        guard try peek() == UInt8(ascii: "\"") else { throw try unexpected(expected: "a string") }
        // `input.position` stays on the opening quote until the string is done, so `fill` keeps it.
        var offset = 1
        var sawNonASCII = false
        while true {
            let base = input.base
            let start = input.position
            let limit = input.limit
            var i = start + offset
            while i < limit {
                let c = base[i]
                if c == UInt8(ascii: "\"") {
                    let bytes = UnsafeBufferPointer(start: base + start + 1, count: i - start - 1)
                    let string: String
                    if sawNonASCII {
                        guard let valid = String(validating: bytes, as: UTF8.self) else {
                            throw invalidUTF8(in: bytes, at: start + 1)
                        }
                        string = valid
                    } else {
                        string = String(decoding: bytes, as: UTF8.self)
                    }
                    input.position = i + 1
                    return string
                } else if c == UInt8(ascii: "\\") {
                    return try parseEscapedString(scannedUpTo: i - start)
                } else if c < 0x20 {
                    throw controlCharacter(c, at: i)
                }
                sawNonASCII = sawNonASCII || c >= 0x80
                i += 1
            }
            offset = i - start
            if try input.fill(atLeast: offset + 1) <= offset {
                throw error("unterminated string: the input ends inside it", hint: "the file may be truncated")
            }
        }
    }

    /// The slow path, for strings with escapes: decodes into a byte array.
    private func parseEscapedString(scannedUpTo offset: Int) throws -> String {
        var bytes: [UInt8] = []
        bytes.append(contentsOf: UnsafeBufferPointer(start: input.base + input.position + 1, count: offset - 1))
        let contentStart = input.position + 1
        input.position += offset
        // From here on bytes are consumed one at a time; this path is rare in geodata.
        func next() throws -> UInt8 {
            if input.position == input.limit, try input.fill(atLeast: 1) == 0 {
                throw error("unterminated string: the input ends inside it", hint: "the file may be truncated")
            }
            defer { input.position += 1 }
            return input.base[input.position]
        }
        func hex4() throws -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                let at = input.position
                let c = try next()
                let digit: UInt8
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
                default: throw error("invalid \\u escape: \(Self.describe(c)) is not a hex digit", at: mark(atIndex: at))
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        while true {
            let at = input.position
            let c = try next()
            switch c {
            case UInt8(ascii: "\""):
                guard let string = String(validating: bytes, as: UTF8.self) else {
                    throw error("string is not valid UTF-8", at: mark(atIndex: contentStart))
                }
                return string
            case UInt8(ascii: "\\"):
                let e = try next()
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(e)
                case UInt8(ascii: "b"): bytes.append(0x08)
                case UInt8(ascii: "f"): bytes.append(0x0C)
                case UInt8(ascii: "n"): bytes.append(0x0A)
                case UInt8(ascii: "r"): bytes.append(0x0D)
                case UInt8(ascii: "t"): bytes.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard try next() == UInt8(ascii: "\\"), try next() == UInt8(ascii: "u") else {
                            throw error("invalid \\u escape: a high surrogate must be followed by a low one", at: mark(atIndex: at))
                        }
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw error("invalid \\u escape: a high surrogate must be followed by a low one", at: mark(atIndex: at))
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("invalid \\u escape: a lone low surrogate", at: mark(atIndex: at))
                    }
                    bytes.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
                default:
                    throw error("invalid escape \\\(Character(Unicode.Scalar(e)))", at: mark(atIndex: at),
                                hint: "JSON escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX")
                }
            default:
                if c < 0x20 { throw controlCharacter(c, at: at) }
                bytes.append(c)
            }
        }
    }

    private func controlCharacter(_ c: UInt8, at index: Int) -> MeridianError {
        if c == 0x0A {
            return error("unterminated string: a line break inside a string", at: mark(atIndex: index),
                         hint: "write line breaks in strings as \\n")
        }
        return error("control character \(Self.describe(c)) inside a string", at: mark(atIndex: index),
                     hint: "escape it as \\u00\(c < 0x10 ? "0" : "")\(String(c, radix: 16))")
    }

    /// Points at the first byte that is not valid UTF-8.
    private func invalidUTF8(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> MeridianError {
        let bad = UTF8Validation.firstInvalidOffset(in: bytes) ?? 0
        return error("invalid UTF-8 (byte 0x\(String(bytes[bad], radix: 16, uppercase: true)))",
                     at: mark(atIndex: index + bad),
                     hint: "GeoJSON must be UTF-8 (RFC 7946 §1.2); convert it with iconv first")
    }

    // MARK: - Numbers

    /// A parsed number: its double value, and its integer value when the text was an integer
    /// that fits in Int64.
    struct Number {
        var value: Double
        var integer: Int64?
    }

    /// Parses a number as a double, bit-exactly (correctly rounded), keeping the sign of -0.
    ///
    /// Coordinates are almost all plain decimals: those are read in one pass where they lie in
    /// the buffer (``NumberText/parsePlainDecimal(_:from:)``), when the byte after them is there
    /// to show they ended; anything else goes the general way, which delimits the token first.
    @inline(__always)
    func parseDouble() throws -> Double {
        _ = try peek()  // skip whitespace
        let available = input.limit - input.position
        let text = UnsafeBufferPointer(start: input.base + input.position, count: available)
        if let (value, end) = NumberText.parsePlainDecimal(text, from: 0),
           end < available ? !NumberText.isNumberByte(text[end]) : input.reachedEnd {
            input.position += end
            return value
        }
        return try parseNumber().value
    }

    /// A position, `[x, y]` or `[x, y, z]` of plain decimals with spaces or tabs between, read
    /// in one pass where it lies whole in the buffer; nil, with nothing consumed, for anything
    /// else (a line break, another number form, a fourth number, the buffer's end), which the
    /// caller reads the general way. Positions are most of a file, and the general way takes a
    /// call and a test per bracket, comma and number.
    @inline(__always)
    func parsePlainPosition() -> (x: Double, y: Double, z: Double?)? {
        let available = input.limit - input.position
        let t = UnsafeBufferPointer(start: input.base + input.position, count: available)
        var i = 0
        @inline(__always) func skipBlanks() { while i < available && (t[i] == 0x20 || t[i] == 0x09) { i += 1 } }
        @inline(__always) func at(_ byte: UInt8) -> Bool {
            skipBlanks()
            guard i < available, t[i] == byte else { return false }
            i += 1
            skipBlanks()
            return true
        }
        guard at(UInt8(ascii: "[")), let (x, afterX) = NumberText.parsePlainDecimal(t, from: i) else { return nil }
        i = afterX
        guard at(UInt8(ascii: ",")), let (y, afterY) = NumberText.parsePlainDecimal(t, from: i) else { return nil }
        i = afterY
        var z: Double?
        if at(UInt8(ascii: ",")) {
            guard let (value, afterZ) = NumberText.parsePlainDecimal(t, from: i) else { return nil }
            z = value
            i = afterZ
        }
        guard at(UInt8(ascii: "]")) else { return nil }
        input.position += i
        return (x, y, z)
    }

    func parseNumber() throws -> Number {
        _ = try peek()  // skip whitespace
        let start = mark
        // Find the token's end, refilling if it runs to the end of the buffer.
        var length = 0
        while true {
            let base = input.base + input.position
            let available = input.limit - input.position
            while length < available && NumberText.isNumberByte(base[length]) { length += 1 }
            if length < available || input.reachedEnd { break }
            try input.fill(atLeast: length + 1)
        }
        if length == 0 {
            if let c = try peek(), (c | 0x20) >= UInt8(ascii: "a"), (c | 0x20) <= UInt8(ascii: "z") {
                _ = try parseLiteral()  // names NaN and Infinity; any other word is not a number either
            }
            throw try unexpected(expected: "a number")
        }
        let token = UnsafeBufferPointer(start: input.base + input.position, count: length)
        guard let number = NumberText.parse(token) else {
            throw error("invalid number \"\(String(decoding: token, as: UTF8.self))\"", at: start,
                        hint: "JSON numbers look like -12.5, 0.001 or 1e-7")
        }
        guard number.value.isFinite else {
            throw error("number \(String(decoding: token, as: UTF8.self)) is out of range", at: start,
                        hint: "the largest finite double is about 1.8e308")
        }
        input.position += length
        return number
    }
}
