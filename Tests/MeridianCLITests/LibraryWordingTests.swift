import Foundation
import MeridianTestSupport
import Testing

/// Issue 31: no library message names a command-line flag. The libraries state facts in typed
/// errors; the executables word them with their options (`WordedForCommandLine`).
@Suite struct LibraryWordingTests {
    /// The library modules' folders under Sources (the executables are lowercase, C modules start with C).
    static func libraryFolders() throws -> [URL] {
        let sources = packageRoot.appendingPathComponent("Sources")
        return try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
            .filter { $0.hasPrefix("Meridian") || $0 == "GDALSupport" }
            .filter { !$0.hasSuffix("CommandLine") }   // the executables' shared layers word for the command line
            .map { sources.appendingPathComponent($0) }
    }

    /// The string literals of a line of Swift outside comments (`"…"`, escapes skipped).
    static func literals(in line: Substring) -> [String] {
        var literals: [String] = [], current: String?, escaped = false
        var previous: Character = " "
        for character in line {
            if var text = current {
                if escaped { escaped = false; text.append(character); current = text; continue }
                if character == "\\" { escaped = true; current = text; continue }
                if character == "\"" { literals.append(text); current = nil; continue }
                text.append(character)
                current = text
            } else {
                if character == "/" && previous == "/" { break }   // a comment to the end of the line
                if character == "\"" { current = "" }
            }
            previous = character
        }
        return literals
    }

    @Test func noLibraryStringNamesAFlag() throws {
        let flag = /--[a-z][a-z-]+/
        var offenders: [String] = []
        for folder in try Self.libraryFolders() {
            guard let walker = FileManager.default.enumerator(atPath: folder.path) else { continue }
            for case let relative as String in walker where relative.hasSuffix(".swift") {
                let path = folder.appendingPathComponent(relative)
                let text = try String(contentsOf: path, encoding: .utf8)
                var inMultilineLiteral = false
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let trimmed = line.drop { $0 == " " }
                    // A line inside a multi-line literal (`"""` … `"""`, the pages and the help) is all text.
                    let delimiters = line.ranges(of: "\"\"\"").count
                    if inMultilineLiteral || delimiters > 0, line.contains(flag) {
                        offenders.append("\(folder.lastPathComponent)/\(relative):\(number + 1): \(trimmed)")
                        if delimiters % 2 == 1 { inMultilineLiteral.toggle() }
                        continue
                    }
                    if delimiters % 2 == 1 { inMultilineLiteral.toggle() }
                    if inMultilineLiteral || delimiters > 0 || trimmed.hasPrefix("//") { continue }
                    if Self.literals(in: line).contains(where: { $0.contains(flag) }) {
                        offenders.append("\(folder.lastPathComponent)/\(relative):\(number + 1): \(trimmed)")
                    }
                }
            }
        }
        #expect(offenders.isEmpty, "library strings naming a flag:\n\(offenders.joined(separator: "\n"))")
    }

    /// The checker finds what it is for, and not what it is not.
    @Test func theCheckerSeesLiteralsOnly() {
        #expect(Self.literals(in: #"throw E("a --shard b") // "--x""#) == ["a --shard b"])
        #expect(Self.literals(in: #"let s = "\"--q\"" + x"#) == [#""--q""#])
        #expect(Self.literals(in: "a -- b // \"--finish\"").isEmpty)
    }
}
