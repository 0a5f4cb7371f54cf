import ArgumentParser
import Testing
@testable import MeridianCommandLine

/// A command shaped like Meridian's: a subcommand with a positional coordinate, options that
/// take values (one with a short name) and a flag.
private struct Tool: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "tool", subcommands: [Point.self])

    struct Point: ParsableCommand {
        @Argument var coordinate: String
        @Argument var rest: [String] = []
        @Option var radius: Double?
        @Option(name: [.customShort("b"), .long]) var bbox: String?
        @Flag var pretty = false
    }
}

@Suite struct NegativeNumbersTests {
    @Test(arguments: ["-33.86,151.21", "-5", "-0.5", "-.5", "-122.6,37.2,-121.6,38.1", "-1e3", "-3x4", "-1-3"])
    func negativeValues(_ word: String) {
        #expect(NegativeNumbers.isNegativeValue(word))
    }

    @Test(arguments: ["--radius", "-q", "-o", "-", "--", "-x5", "33.8", "-5a", "-e5"])
    func notNegativeValues(_ word: String) {
        #expect(!NegativeNumbers.isNegativeValue(word))
    }

    @Test func wordsAreRewrittenSoTheParserReadsThemAsValues() throws {
        let cases: [([String], [String])] = [
            (["point", "-33.86,151.21"], ["point", "--", "-33.86,151.21"]),
            (["point", "-33.86,151.21", "--radius", "-5"], ["point", "--radius=-5", "--", "-33.86,151.21"]),
            (["point", "1,2", "-b", "-10,-10,10,10", "--pretty"], ["point", "1,2", "-b=-10,-10,10,10", "--pretty"]),
            (["point", "--pretty", "-1,2", "a", "-3"], ["point", "--pretty", "--", "-1,2", "a", "-3"]),
            (["point", "a", "-1", "b"], ["point", "a", "--", "-1", "b"]),
            (["point", "1,2", "--radius", "5"], ["point", "1,2", "--radius", "5"]),
            (["point", "--", "-1"], ["point", "--", "-1"]),
        ]
        for (typed, expected) in cases {
            #expect(NegativeNumbers.protect(typed, for: Tool.self) == expected, "\(typed)")
        }
    }

    @Test func theParserThenReadsTheValues() throws {
        let parsed = try Tool.parseAsRoot(NegativeNumbers.protect(["point", "-33.86,151.21", "--radius", "-5", "-b", "-1,-2,3,4", "-7"], for: Tool.self))
        let point = try #require(parsed as? Tool.Point)
        #expect(point.coordinate == "-33.86,151.21" && point.radius == -5 && point.bbox == "-1,-2,3,4" && point.rest == ["-7"])
    }

    @Test func argumentsWithoutNegativeNumbersAreLeftAlone() {
        let typed = ["point", "--radius", "--pretty", "-q"]
        #expect(NegativeNumbers.protect(typed, for: Tool.self) == typed)
    }
}
