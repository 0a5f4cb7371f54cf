import Foundation
import MeridianCommandLine
import Testing

/// `shellQuoted`, the one quoting of a word for a shell (the MapKit header's command line, the
/// command a stopped tiling run prints to resume it): bash reads each word back as it was, and
/// the quoted word is one line whatever the word holds. (A line break in a word became a space
/// in the header, and broke the printed command across lines.)
@Suite struct ShellQuotingTests {
    static let words = ["plain-word_1.kml", "with space", "it's", "a\nnewline", "tab\tand\\backslash 'quote'", "bell\u{7}del\u{7F}",
                        "line\u{2028}separator", "c1\u{85}next", "café ⛵", "$HOME `x` *", "", "\r\n"]

    @Test func plainWordsStayPlainAndQuotedWordsStayOnOneLine() {
        #expect(shellQuoted("plain-word_1.kml") == "plain-word_1.kml")
        #expect(shellQuoted("with space") == "'with space'")
        #expect(shellQuoted("it's") == #"'it'\''s'"#)
        #expect(shellQuoted("a\nnewline") == #"$'a\nnewline'"#)
        for word in Self.words {
            let oneLine = !shellQuoted(word).contains { $0.isNewline }
            #expect(oneLine, "\(word.debugDescription) → \(shellQuoted(word).debugDescription)")
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/bash")))
    func bashReadsEachWordBack() throws {
        for word in Self.words {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            // printf prints the word as bash parsed it, between two markers.
            process.arguments = ["-c", "printf '<%s>' " + shellQuoted(word)]
            process.environment = ["LC_ALL": "C.UTF-8", "HOME": "/nowhere"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(String(decoding: data, as: UTF8.self) == "<\(word)>", "\(word.debugDescription) quoted \(shellQuoted(word))")
        }
    }
}
