import MeridianCore
import MeridianGeometry

extension Diagnostic {
    /// The diagnostic as one line of JSON (`{"severity":"warning","message":…,"file":…,"line":…,
    /// "column":…,"hint":…}`), for a helper process to hand it to `meridian`, which reports it as
    /// its own (`meridian-gdal ogr-read` and `ogr-write` do).
    public var jsonLine: String {
        var object: JSONObject = ["severity": .string(severity.rawValue), "message": .string(message)]
        if let location {
            object["file"] = .string(location.file)
            if let line = location.line { object["line"] = .integer(Int64(line)) }
            if let column = location.column { object["column"] = .integer(Int64(column)) }
        }
        if let hint { object["hint"] = .string(hint) }
        return JSONValue.object(object).jsonText
    }

    /// A diagnostic from its `jsonLine`; nil when the line is not one.
    public init?(jsonLine: String) {
        guard jsonLine.hasPrefix("{"),
              let object = (try? JSONScanner(input: BufferedInput(string: jsonLine, name: "diagnostic")).parseValue())?.objectValue,
              let severity = object["severity"]?.stringValue.flatMap(Severity.init(rawValue:)),
              let message = object["message"]?.stringValue else { return nil }
        func number(_ key: String) -> Int? { if case .integer(let n)? = object[key] { Int(n) } else { nil } }
        let location = object["file"]?.stringValue.map { SourceLocation(file: $0, line: number("line"), column: number("column")) }
        self.init(severity, message, at: location, hint: object["hint"]?.stringValue)
    }
}
