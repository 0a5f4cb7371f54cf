import MeridianCore
import Testing

@Suite struct MeridianErrorTests {
    /// DESIGN.md §3: the exit code each kind of failure stands for (sysexits.h).
    @Test func kindsStandForTheDesignsExitCodes() {
        let expected: [(MeridianError.Kind, Int32)] = [
            (.usage, 64), (.badInput, 65), (.inputUnavailable, 66), (.unavailable, 69), (.cannotCreateOutput, 73), (.io, 74),
        ]
        for (kind, code) in expected {
            #expect(kind.exitCode == code)
            #expect(MeridianError.Kind(exitCode: code) == kind)
            #expect(MeridianError(kind, "x").exitCode == code)
        }
        #expect(MeridianError.Kind(exitCode: 0) == nil)
        #expect(MeridianError.Kind(exitCode: 70) == nil)
    }

    @Test func aLocationNamesFileLineAndColumnAsKnown() {
        #expect(SourceLocation(file: "a.kml", line: 3, column: 14).description == "a.kml:3:14")
        #expect(SourceLocation(file: "a.kml", line: 3).description == "a.kml:3")
        // A column without a line says nothing: the file alone is named.
        #expect(SourceLocation(file: "a.kml", column: 9).description == "a.kml")
        let error = MeridianError(.badInput, "bad coordinate", at: SourceLocation(file: "a.kml", line: 3, column: 14))
        #expect(error.description == "a.kml:3:14: bad coordinate")
        #expect(MeridianError(.io, "disk full").description == "disk full")
    }

    @Test func diagnosticsOrderBySeverity() {
        #expect(Severity.note < .warning && Severity.warning < .error)
        #expect([Severity.error, .note, .warning].max() == .error)
        let warning = Diagnostic(.warning, "dropped", at: SourceLocation(file: "b.gpx", line: 7))
        #expect(warning.description == "warning: b.gpx:7: dropped")
    }
}

@Suite struct RGBTests {
    @Test func cssFormsAreRead() {
        #expect(RGB(css: "#336699") == RGB(0x33, 0x66, 0x99))
        #expect(RGB(css: "  #ABC\n") == RGB(0xAA, 0xBB, 0xCC))
        #expect(RGB(css: "Navy") == RGB(0, 0, 0x80))
        #expect(RGB(css: "grey") == RGB(css: "gray"))
        #expect(RGB(css: "#12345") == nil)
        #expect(RGB(css: "#ggg") == nil)
        #expect(RGB(css: "") == nil)
        #expect(RGB(css: "rebeccapurple") == nil)  // not one of CSS 2.1's seventeen
    }

    @Test func cssIsWrittenInLowercaseHex() {
        #expect(RGB(0xAB, 0x01, 0xFF).css == "#ab01ff")
        #expect(RGB(css: RGB(0x12, 0x34, 0x56).css) == RGB(0x12, 0x34, 0x56))
        #expect(RGB(9, 9, 9).isGray && !RGB(9, 9, 8).isGray)
    }

    @Test func whitespaceIsTrimmedAtBothEndsOnly() {
        #expect(" \t a b \r\n".trimmingWhitespace() == "a b")
        #expect(" \n\t ".trimmingWhitespace() == "")
        #expect("é".trimmingWhitespace() == "é")
    }
}
