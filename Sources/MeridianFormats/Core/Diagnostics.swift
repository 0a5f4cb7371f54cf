/// Where in an input something was found: file name (or "<stdin>"), 1-based line and column.
/// Columns count bytes of UTF-8 from the start of the line, as compilers do.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var column: Int?

    public init(file: String, line: Int? = nil, column: Int? = nil) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `FILE:LINE:COLUMN`, or as much of it as is known.
    public var description: String {
        var text = file
        if let line {
            text += ":\(line)"
            if let column { text += ":\(column)" }
        }
        return text
    }
}

/// How much a diagnostic matters.
public enum Severity: String, Sendable, Hashable, Comparable, Codable {
    case note, warning, error

    private var rank: Int {
        switch self {
        case .note: 0
        case .warning: 1
        case .error: 2
        }
    }
    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}

/// Something a reader noticed and recovered from (a warning), or a note; errors are thrown
/// as `MeridianError` instead, since they stop the work.
public struct Diagnostic: Hashable, Sendable, CustomStringConvertible {
    public var severity: Severity
    public var message: String
    public var location: SourceLocation?
    public var hint: String?

    public init(_ severity: Severity, _ message: String, at location: SourceLocation? = nil, hint: String? = nil) {
        self.severity = severity
        self.message = message
        self.location = location
        self.hint = hint
    }

    public var description: String {
        var text = "\(severity.rawValue): "
        if let location { text += "\(location): " }
        text += message
        return text
    }
}

/// Receives the warnings of a run. Readers call it as they go; the CLI prints to stderr.
public typealias DiagnosticHandler = (Diagnostic) -> Void
