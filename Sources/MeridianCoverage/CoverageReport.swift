import MeridianFormats
import MeridianGeometry

/// The result of validating one coverage file.
public struct CoverageReport: Sendable {
    /// The name of the file validated, as the report prints it.
    public var file: String
    /// Every finding, errors and warnings, in the order they were found.
    public var issues: [CoverageIssue]
    /// The polygons as the validator read them, numbered as the issues number them (polygon,
    /// ring, position); nil where a position is not a readable longitude and latitude. What
    /// `--preview` draws, so every finding's pin lands where it points.
    public var polygons: [[[Position?]]]

    /// Creates a report from findings (the validator makes them; tests and tools may too).
    /// - Parameters:
    ///   - file: The name of the file validated.
    ///   - issues: The findings.
    ///   - polygons: The polygons as read, for a preview; empty when there is nothing to draw.
    public init(file: String, issues: [CoverageIssue], polygons: [[[Position?]]] = []) {
        self.file = file
        self.issues = issues
        self.polygons = polygons
    }

    /// The findings that make App Store Connect reject the file (or Maps misread it).
    public var errors: [CoverageIssue] { issues.filter { $0.severity == .error } }
    /// The findings that break Apple's recommendations or RFC 7946 but do not stop the file.
    public var warnings: [CoverageIssue] { issues.filter { $0.severity == .warning } }
    /// App Store Connect would accept it (warnings allowed).
    public var isValid: Bool { errors.isEmpty }

    /// The verdict a check gives: valid, and with `strict` free of warnings too. `validate`'s
    /// exit status is 1 when a file does not pass.
    public func passes(strict: Bool) -> Bool { isValid && (!strict || warnings.isEmpty) }

    /// `{"file", "valid", "strict", "passes", "errors": [...], "warnings": [...]}`: "valid" is App
    /// Store Connect's verdict, "passes" the check's as run (what the exit status says).
    public func jsonValue(strict: Bool = false) -> JSONValue {
        func issue(_ i: CoverageIssue) -> JSONValue {
            var object: JSONObject = ["rule": .string(i.rule.id), "message": .string(i.message)]
            object["line"] = i.line.map { .integer(Int64($0)) } ?? .null
            object["column"] = i.column.map { .integer(Int64($0)) } ?? .null
            object["polygon"] = i.polygon.map { .integer(Int64($0)) } ?? .null
            object["ring"] = i.ring.map { .integer(Int64($0)) } ?? .null
            object["position"] = i.position.map { .integer(Int64($0)) } ?? .null
            object["point"] = i.point.map { .array([.double($0.longitude), .double($0.latitude)]) } ?? .null
            object["hint"] = .string(i.rule.hint)
            return .object(object)
        }
        return [
            "file": .string(file), "valid": .bool(isValid), "strict": .bool(strict), "passes": .bool(passes(strict: strict)),
            "errors": .array(errors.map(issue)), "warnings": .array(warnings.map(issue)),
        ]
    }

    /// The human report: a verdict line, then each finding with its place and hint.
    /// `colour` adds ANSI colours (for a terminal); with `strict`, a file with warnings says
    /// that it fails `strictCheck`, the strict check as the caller names it (a command line,
    /// by its option).
    public func text(colour: Bool, strict: Bool = false, strictCheck: String = "the strict check") -> String {
        func paint(_ s: String, _ code: String) -> String { colour ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
        var verdict = isValid ? paint("valid", "32") : paint("INVALID", "1;31")
        let counts = [(errors.count, "error"), (warnings.count, "warning")].filter { $0.0 > 0 }
            .map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")" }
        if !counts.isEmpty { verdict += ", " + counts.joined(separator: ", ") }
        if isValid && !passes(strict: strict) { verdict += "; " + paint("FAILS \(strictCheck)", "1;31") + " (warnings count as errors)" }
        var lines = ["\(file): \(verdict)"]
        for i in errors + warnings {
            let label = i.severity == .error ? paint("error", "31") : paint("warning", "33")
            var line = "  \(label)[\(i.rule.id)]: \(file)"
            if let l = i.line { line += ":\(l)" + (i.column.map { ":\($0)" } ?? "") }
            line += ": "
            if let whereText = i.whereText { line += "\(whereText): " }
            lines.append(line + i.message)
            lines.append("    hint: \(i.rule.hint)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
