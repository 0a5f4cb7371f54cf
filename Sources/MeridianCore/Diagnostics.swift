/// Where in an input something was found: file name (or "<stdin>"), 1-based line and column.
/// Columns count bytes of UTF-8 from the start of the line, as compilers do.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    /// The input's name as it is reported: a path as given, an archive member (`a.kmz:doc.kml`), or
    /// `<stdin>`.
    public var file: String
    /// The 1-based line, or nil when the position within the input is unknown.
    public var line: Int?
    /// The 1-based column in bytes of UTF-8 from the start of the line, or nil when unknown.
    public var column: Int?

    /// A location in `file`, as precisely as it is known.
    /// - Parameters:
    ///   - file: The input's name as it should be reported.
    ///   - line: The 1-based line, if known.
    ///   - column: The 1-based byte column, if known (meaningful only with `line`).
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
    /// Orders severities from `note` through `warning` to `error`, so a run can keep the worst.
    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}

/// Something a reader noticed and recovered from (a warning), or a note; errors are thrown
/// as `MeridianError` instead, since they stop the work.
public struct Diagnostic: Hashable, Sendable, CustomStringConvertible {
    /// How much it matters; readers report warnings, and helper processes may pass on any severity.
    public var severity: Severity
    /// What was noticed, in the library's words (never naming a command-line flag).
    public var message: String
    /// Where in the input it was noticed, when that is known.
    public var location: SourceLocation?
    /// A suggestion for what to do about it, or nil.
    public var hint: String?

    /// A diagnostic to hand to a ``DiagnosticHandler``.
    /// - Parameters:
    ///   - severity: How much it matters.
    ///   - message: What was noticed.
    ///   - location: Where in the input, if known.
    ///   - hint: A suggestion for what to do about it, if any.
    public init(_ severity: Severity, _ message: String, at location: SourceLocation? = nil, hint: String? = nil) {
        self.severity = severity
        self.message = message
        self.location = location
        self.hint = hint
    }

    /// `SEVERITY: FILE:LINE:COLUMN: message` (without the location when there is none), the form
    /// printed on standard error.
    public var description: String {
        var text = "\(severity.rawValue): "
        if let location { text += "\(location): " }
        text += message
        return text
    }
}

/// Receives the warnings of a run. Readers call it as they go; the CLI prints to stderr.
public typealias DiagnosticHandler = (Diagnostic) -> Void
