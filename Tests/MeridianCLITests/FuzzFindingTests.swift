import Foundation
import Testing

/// Every input the fuzzer ever caught goes through the same target again (without the
/// sanitizers) and through `meridian convert` on standard input: a clean error or success,
/// never a crash or a signal.
@Suite struct FuzzFindingTests {
    static let findings = fixtures.appendingPathComponent("fuzz-findings")

    static var binary: String {
        URL(fileURLWithPath: meridianBinary).deletingLastPathComponent().appendingPathComponent("meridian-fuzz").path
    }

    @Test func findingsAreHandled() throws {
        let targets = try FileManager.default.contentsOfDirectory(atPath: Self.findings.path).filter { !$0.hasSuffix(".md") }
        #expect(!targets.isEmpty)
        for target in targets {
            let folder = Self.findings.appendingPathComponent(target)
            for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                let path = folder.appendingPathComponent(file).path
                let replay = try run(Self.binary, [target, path])
                #expect(replay.status == 0, "\(target)/\(file): \(replay.stderr)")
                let format = target == "coverage" ? "geojson" : target
                let convert = try meridian(["convert", "--from", format], stdin: try Data(contentsOf: URL(fileURLWithPath: path)))
                #expect(convert.status == 0 || convert.status == ExitStatus.badInput, "\(target)/\(file): \(convert.status) \(convert.stderr)")
            }
        }
    }
}
