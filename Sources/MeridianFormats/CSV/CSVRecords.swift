import MeridianCore
import MeridianGeometry

/// The records of a CSV text (RFC 4180): fields separated by commas, or by semicolons or tabs
/// when the first line holds more of those, quoted fields running over line breaks, empty lines
/// skipped, a UTF-8 byte-order mark dropped. Each record comes with the line it starts on.
/// `CSVReader` reads features from them; anything else in CSV (coverage's route lists) can too.
public final class CSVRecords {
    private let input: BufferedInput
    private var separator = UInt8(ascii: ",")
    private var lineNumber = 0

    /// One record: its fields' bytes (quotes removed, doubled quotes made single) and its place.
    public struct Record: Sendable {
        /// The fields' bytes, unquoted, in column order (UTF-8, checked).
        public var fields: [[UInt8]]
        /// The file and the line the record starts on.
        public var location: SourceLocation
    }

    /// Records of the CSV text `input` holds, read as ``next()`` is called.
    /// - Parameter input: The CSV text.
    public init(input: BufferedInput) {
        self.input = input
    }

    /// The input's name, for messages.
    public var name: String { input.name }

    /// The next record; nil at the end of the input.
    public func next() throws -> Record? {
        while var line = try input.nextLine() {
            lineNumber += 1
            if lineNumber == 1 {
                if line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
                let counts = [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09].map { s in (s, line.filter { $0 == s }.count) }
                separator = counts.max { $0.1 < $1.1 }.flatMap { $0.1 > 0 ? $0.0 : nil } ?? UInt8(ascii: ",")
            } else if line.isEmpty {
                continue
            }
            let recordLine = lineNumber
            try requireUTF8(line)
            return Record(fields: try fields(startingWith: line), location: SourceLocation(file: input.name, line: recordLine))
        }
        return nil
    }

    /// Text that is not UTF-8 (a Windows-1252 export, say) is refused, not turned into U+FFFD:
    /// that would lose the text it meant.
    private func requireUTF8(_ line: [UInt8]) throws {
        guard let bad = line.withUnsafeBufferPointer({ UTF8Validation.firstInvalidOffset(in: $0) }) else { return }
        throw MeridianError(.badInput, "invalid UTF-8 (byte 0x\(String(line[bad], radix: 16, uppercase: true)))",
                            at: SourceLocation(file: input.name, line: lineNumber, column: bad + 1),
                            hint: "CSV is read as UTF-8; convert it first, e.g. iconv -f WINDOWS-1252 -t UTF-8")
    }

    /// The fields of the record that starts on `line`, reading further lines while a quoted
    /// field runs on.
    private func fields(startingWith line: [UInt8]) throws -> [[UInt8]] {
        var fields: [[UInt8]] = []
        var field: [UInt8] = []
        var line = line
        var i = 0
        var quoted = false, wasQuoted = false
        let startLine = lineNumber
        while true {
            if i == line.count {
                if quoted {
                    guard let more = try input.nextLine() else {
                        throw MeridianError(.badInput, "a quoted field is never closed", at: SourceLocation(file: input.name, line: startLine),
                                            hint: "a field that holds a quote must double it (\"\")")
                    }
                    lineNumber += 1
                    try requireUTF8(more)
                    field.append(0x0A)
                    line = more
                    i = 0
                    continue
                }
                fields.append(field)
                return fields
            }
            let c = line[i]
            i += 1
            if quoted {
                if c == UInt8(ascii: "\"") {
                    if i < line.count && line[i] == UInt8(ascii: "\"") {
                        field.append(c)
                        i += 1
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(c)
                }
            } else if c == separator {
                fields.append(field)
                field = []
                wasQuoted = false
            } else if c == UInt8(ascii: "\"") && field.isEmpty && !wasQuoted {
                quoted = true
                wasQuoted = true
            } else {
                field.append(c)
            }
        }
    }
}
