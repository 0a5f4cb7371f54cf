import OrderedCollections

/// A JSON object whose members keep the order they were read in (RFC 8259 leaves order free,
/// but people diff converted files and expect their columns where they left them).
public typealias JSONObject = OrderedDictionary<String, JSONValue>

/// Any JSON value, as found in feature properties and foreign members.
///
/// Numbers keep the distinction the text made: `42` reads as `.integer`, `42.0` and `4.2e1` as
/// `.double`, so a property written `42.0` is written back as `42.0` and typed fields stay typed.
/// Integers beyond Int64 are kept as the nearest double.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The value as a Double, for either kind of number.
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    /// The string, or nil when the value is not a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The object's members, or nil when the value is not an object.
    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The array's elements, or nil when the value is not an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The JSON type name (`"string"`, `"number"`, …), as `meridian info` reports property types.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// Creates `.null` from `nil`, so properties can be written as literals.
    public init(nilLiteral: ()) { self = .null }
    /// Creates `.bool` from `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// Creates `.integer` from an integer literal such as `42`.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// Creates `.double` from a floating-point literal such as `42.0`.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// Creates `.string` from a string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// Creates `.array` from an array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Creates `.object` from a dictionary literal, keeping the members in the order written; a
    /// repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements, uniquingKeysWith: { _, last in last }))
    }
}
