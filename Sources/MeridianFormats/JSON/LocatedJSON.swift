/// A JSON document read whole, with every value's line and column and every number's text:
/// for checks that point at the exact place of a problem (coverage files), not for streaming.
public indirect enum LocatedJSON: Sendable {
    /// An object: its members in the order written.
    case object([Member], at: Place)
    /// An array and its elements.
    case array([LocatedJSON], at: Place)
    /// A number, with its text as written (to count decimals). Non-JSON words such as NaN are
    /// kept as numbers that are not finite, so a checker can name them.
    case number(Double, text: String, at: Place)
    /// A string, unescaped.
    case string(String, at: Place)
    /// `true` or `false`.
    case bool(Bool, at: Place)
    /// `null`.
    case null(at: Place)

    /// One member of an object, in the order written, with where its key starts.
    public struct Member: Sendable {
        /// The member's name.
        public var key: String
        /// Where the key's opening quote is.
        public var keyPlace: Place
        /// The member's value, with its own place.
        public var value: LocatedJSON
    }

    /// A 1-based line and column.
    public struct Place: Sendable, Hashable {
        /// The 1-based line.
        public var line: Int
        /// The 1-based column, in bytes of UTF-8 from the start of the line.
        public var column: Int
        /// A place in the document.
        /// - Parameters:
        ///   - line: The 1-based line.
        ///   - column: The 1-based byte column.
        public init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }
    }

    /// Where the value starts: its first character (`{`, `[`, `"`, a digit, …).
    public var place: Place {
        switch self {
        case .object(_, let at), .array(_, let at), .number(_, _, let at), .string(_, let at), .bool(_, let at), .null(let at): at
        }
    }

    /// The value of the object's member called `key` (the last one, if the key is repeated); nil when
    /// this is not an object or has no such member.
    /// - Parameter key: The member's name.
    public subscript(key: String) -> LocatedJSON? {
        if case .object(let members, _) = self { return members.last { $0.key == key }?.value }
        return nil
    }

    /// The object's members in the order written, repeated keys included; nil when this is not an
    /// object.
    public var members: [Member]? {
        if case .object(let members, _) = self { return members }
        return nil
    }

    /// The array's elements; nil when this is not an array.
    public var elements: [LocatedJSON]? {
        if case .array(let elements, _) = self { return elements }
        return nil
    }

    /// The string's value; nil when this is not a string.
    public var string: String? {
        if case .string(let s, _) = self { return s }
        return nil
    }

    /// The number's value (NaN for non-JSON words such as `NaN` or `Infinity`); nil when this is not a
    /// number.
    public var number: Double? {
        if case .number(let d, _, _) = self { return d }
        return nil
    }

    /// Reads a whole document; the input must hold exactly one JSON value.
    public static func parse(_ input: BufferedInput) throws -> LocatedJSON {
        let scanner = JSONScanner(input: input)
        try scanner.skipByteOrderMark()
        guard try scanner.peek() != nil else { throw scanner.error("the input is empty", hint: "expected a JSON value") }
        let value = try parseValue(scanner)
        if try scanner.peek() != nil {
            throw scanner.error("unexpected data after the end of the JSON value")
        }
        return value
    }

    private static func place(_ scanner: JSONScanner) -> Place {
        let mark = scanner.mark
        return Place(line: mark.line, column: mark.column)
    }

    private static func parseValue(_ scanner: JSONScanner) throws -> LocatedJSON {
        guard let c = try scanner.peek() else { throw try scanner.unexpected(expected: "a value") }
        let at = place(scanner)
        switch c {
        case UInt8(ascii: "{"):
            var members: [Member] = []
            try scanner.parseObject { key, keyMark in
                members.append(Member(key: key, keyPlace: Place(line: keyMark.line, column: keyMark.column),
                                      value: try parseValue(scanner)))
            }
            return .object(members, at: at)
        case UInt8(ascii: "["):
            var elements: [LocatedJSON] = []
            try scanner.parseArray { elements.append(try parseValue(scanner)) }
            return .array(elements, at: at)
        case UInt8(ascii: "\""):
            return .string(try scanner.parseString(), at: at)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            // The token is whole in the buffer once parsed (a refill may have moved it): read its
            // text back from where it ends.
            let startOffset = scanner.input.offset(ofIndex: scanner.input.position)
            let value = try scanner.parseNumber().value
            let length = scanner.input.offset(ofIndex: scanner.input.position) - startOffset
            let text = String(decoding: UnsafeBufferPointer(start: scanner.input.base + scanner.input.position - length,
                                                            count: length), as: UTF8.self)
            return .number(value, text: text, at: at)
        case UInt8(ascii: "N"), UInt8(ascii: "I"):
            // NaN and Infinity are not JSON, but coverage files carry them; name them, don't stop.
            let word = try scanner.peekWord()
            guard JSONScanner.nonFiniteWords.contains(word) else { return try literal(scanner, at: at) }
            scanner.input.position += word.utf8.count
            return .number(.nan, text: word, at: at)
        default:
            return try literal(scanner, at: at)
        }
    }

    private static func literal(_ scanner: JSONScanner, at: Place) throws -> LocatedJSON {
        if case .bool(let b) = try scanner.parseLiteral() { return .bool(b, at: at) }
        return .null(at: at)
    }
}
