import MeridianCore
import MeridianGeometry

extension JSONValue {
    /// The value as a text field (KML's ExtendedData, a CSV cell): strings as they are, numbers
    /// in shortest round-trip form, null as nothing, arrays and objects as compact JSON.
    public func plainText(true yes: String = "true", false no: String = "false") -> String {
        switch self {
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .double(let d): return "\(d)"
        case .bool(let b): return b ? yes : no
        case .null: return ""
        case .array, .object: return jsonText
        }
    }

    /// KML's rich description, `{"@type": "html", "value": "<b>…</b>"}`, as its HTML text;
    /// any other value as it is. Formats that store text (a CSV cell, GPX's desc, a GDAL field)
    /// take the HTML, not its JSON wrapper.
    public var unwrappingHTML: JSONValue {
        if case .object(let object) = self, object["@type"] == "html", let html = object["value"]?.stringValue { return .string(html) }
        return self
    }

    /// A `name` or `description` as the text of a format's own field (GPX's desc, an SVG title,
    /// a MapKit subtitle): HTML descriptions as their HTML, numbers and booleans as text; nil
    /// for null.
    public var displayText: String? {
        let value = unwrappingHTML
        return value == .null ? nil : value.plainText()
    }

    /// The value as compact JSON text.
    public var jsonText: String {
        let sink = OutputSink(collectingAs: "value")
        writeJSON(self, to: sink, pretty: false)
        return sink.collectedText().trimmingWhitespace()
    }

    /// The typed value a text field most likely meant: an integer or a number (JSON's grammar,
    /// so "007" and "1,5" stay text; beyond a double's range, "1e999", text too: it was
    /// written as `inf`, which no JSON reader takes), true or false, null for an empty field,
    /// else the text.
    public static func inferred(fromText bytes: [UInt8]) -> JSONValue {
        if bytes.isEmpty { return .null }
        if bytes.elementsEqual("true".utf8) { return .bool(true) }
        if bytes.elementsEqual("false".utf8) { return .bool(false) }
        if let number = bytes.withUnsafeBufferPointer({ NumberText.parse($0) }), number.integer != nil || number.value.isFinite {
            if let integer = number.integer { return .integer(integer) }
            return .double(number.value)
        }
        return .string(String(decoding: bytes, as: UTF8.self))
    }
}

extension FeatureID {
    var plainText: String {
        switch self {
        case .string(let s): s
        case .integer(let i): String(i)
        case .double(let d): "\(d)"
        }
    }
}
