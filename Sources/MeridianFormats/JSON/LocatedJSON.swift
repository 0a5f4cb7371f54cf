/// A JSON document read whole, with every value's line and column and every number's text:
/// for checks that point at the exact place of a problem (coverage files), not for streaming.
public indirect enum LocatedJSON: Sendable {
    case object([Member], at: Place)
    case array([LocatedJSON], at: Place)
    /// A number, with its text as written (to count decimals). Non-JSON words such as NaN are
    /// kept as numbers that are not finite, so a checker can name them.
    case number(Double, text: String, at: Place)
    case string(String, at: Place)
    case bool(Bool, at: Place)
    case null(at: Place)

    public struct Member: Sendable {
        public var key: String
        public var keyPlace: Place
        public var value: LocatedJSON
    }

    /// A 1-based line and column.
    public struct Place: Sendable, Hashable {
        public var line: Int
        public var column: Int
        public init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }
    }

    public var place: Place {
        switch self {
        case .object(_, let at), .array(_, let at), .number(_, _, let at), .string(_, let at), .bool(_, let at), .null(let at): at
        }
    }

    public subscript(key: String) -> LocatedJSON? {
        if case .object(let members, _) = self { return members.last { $0.key == key }?.value }
        return nil
    }

    public var members: [Member]? {
        if case .object(let members, _) = self { return members }
        return nil
    }

    public var elements: [LocatedJSON]? {
        if case .array(let elements, _) = self { return elements }
        return nil
    }

    public var string: String? {
        if case .string(let s, _) = self { return s }
        return nil
    }

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
