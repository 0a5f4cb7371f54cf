import Foundation
import Testing

/// Binary output is refused on a terminal, as gzip refuses: PNG or zip bytes would only garble it.
@Suite struct TerminalOutputTests {
    static let countries = fixture("geojson/ne_10m_countries_sample.geojson")

    @Test(arguments: [
        ["render", countries],                                  // PNG by default
        ["convert", countries, "--to", "kmz"],
        ["simplify", countries, "--zoom-level", "3", "--to", "png"],
        ["clip", countries, "--bbox", "5,45,11,48", "-o", "-", "--to", "png"],
    ])
    func binaryOutputIsRefusedOnATerminal(_ arguments: [String]) throws {
        let run = try meridianOnTerminal(arguments)
        #expect(run.status == ExitStatus.usage, "\(run.stderr)")
        #expect(run.stderr.contains("-o PATH"), "\(run.stderr)")
        #expect(!run.stdoutData.contains(0), "no binary bytes reached the terminal")
    }

    @Test func textStillGoesToTheTerminal() throws {
        let run = try meridianOnTerminal(["convert", Self.countries, "--to", "wkb"])  // hex: text
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("01030000000"))
    }

    @Test func binaryOutputStillGoesToAPipeOrAFile() throws {
        let run = try meridian(["render", Self.countries])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdoutData.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }
}
