import Foundation
import MeridianCore
import MeridianTestSupport
import Testing
@testable import MeridianFormats

/// The fast printer must write exactly the bytes Swift's own printer writes, for every double.
@Suite struct ShortestDecimalTests {
    /// Both printers' text for `value`, through the sink as the writers use it.
    func bothTexts(_ value: Double) -> (fast: String, swift: String) {
        let fast = OutputSink(collectingAs: "fast"), swift = OutputSink(collectingAs: "swift")
        fast.writeShortest(value)
        swift.writeShortestWithSwift(value)
        return (fast.collectedText(), swift.collectedText())
    }

    /// Records a mismatch; returns false on one so loops over millions can stop early.
    @discardableResult
    func expectSameText(_ value: Double, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Bool {
        let (fast, swift) = bothTexts(value)
        #expect(fast == swift, "\(value.bitPattern): fast \(fast), Swift \(swift)", sourceLocation: sourceLocation)
        return fast == swift
    }

    @Test func awkwardNumbers() {
        let texts = [
            "0", "-0", "1e21", "1e-7", "5e-324", "123456789012345678", ".5", "1.0", "1E5", "0.1000000000000000055511151231257827",
            "0.001", "0.00099999999999999", "0.0001", "1e15", "999999999999999", "999999999999999.9", "1e16", "9007199254740992",
            "9007199254740993", "0.3", "0.30000000000000004", "100", "-74", "179.99999999999997", "-180", "85.0511287798066",
            "117.703607903955245", "4.163414542001791", "1.7976931348623157e308", "2.2250738585072014e-308", "0.5", "0.25",
            "1024", "0.0009765625", "0.001953125", "123456789012345.6", "12345678901234.56", "0.012345678901234567",
            "99999999999999.99", "0.0099999999999999999", "2.5", "1.5", "0.125", "8.5", "7.000000000000001",
        ]
        for text in texts {
            let value = try? #require(NumberText.parseLenient(Array(text.utf8)), "\(text)")
            guard let value else { continue }
            expectSameText(value)
            expectSameText(-value)
            expectSameText(value.nextUp)
            expectSameText(value.nextDown)
        }
        for value in [Double.infinity, -.infinity, .nan, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .ulpOfOne] {
            expectSameText(value)
        }
    }

    /// Powers of two and ten and their neighbours: where the digit count and the interval change.
    @Test func boundaries() {
        for exponent in -20...60 {
            let two = Double(sign: .plus, exponent: exponent, significand: 1)
            for value in [two, two.nextUp, two.nextDown] { expectSameText(value) }
        }
        for exponent in -6...17 {
            let ten = exponent >= 0 ? pow(10.0, Double(exponent)) : 1 / pow(10.0, Double(-exponent))
            for value in [ten, ten.nextUp, ten.nextDown, ten.nextUp.nextUp, ten.nextDown.nextDown] { expectSameText(value) }
        }
    }

    @Test func randomDoubles() {
        var random = SplitMix64(seed: 0x5348_4F52_5445_5354)
        for _ in 0..<1_000_000 {
            // Bit patterns whose exponents cover the fast path and a little beyond it.
            let exponent = UInt64.random(in: (1023 - 14)...(1023 + 54), using: &random)
            let fraction: UInt64 = random.next() & ((1 << 52) - 1)
            let sign: UInt64 = (random.next() & 1) << 63
            let bits: UInt64 = sign | exponent << 52 | fraction
            if !expectSameText(Double(bitPattern: bits)) { return }
        }
    }

    @Test func randomShortDecimals() {
        var random = SplitMix64(seed: 0x4449_4749_5453)
        for _ in 0..<1_000_000 {
            // A decimal of 1 to 17 digits with the point anywhere: what files are full of.
            let digits = Int.random(in: 1...17, using: &random)
            let mantissa = UInt64.random(in: 0..<pow10(digits), using: &random)
            let point = Int.random(in: 0...20, using: &random)
            var text = String(mantissa)
            if point > 0 {
                text = String(repeating: "0", count: max(0, point - text.count + 1)) + text
                text.insert(".", at: text.index(text.endIndex, offsetBy: -point))
            }
            guard let value = NumberText.parseLenient(Array(text.utf8)) else {
                Issue.record("\(text) did not parse")
                return
            }
            if !expectSameText(value) || !expectSameText(value.nextUp) || !expectSameText(-value) { return }
        }
    }

    /// Every number in the test fixtures and in the large shared files the benchmarks convert.
    @Test(.timeLimit(.minutes(10))) func everyFixtureNumber() throws {
        var files: [[UInt8]] = []
        let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures").path
        let enumerator = FileManager.default.enumerator(atPath: fixtures)
        while let path = enumerator?.nextObject() as? String {
            let lowered = path.lowercased()
            guard [".kml", ".geojson", ".json", ".gpx", ".csv", ".wkt"].contains(where: lowered.hasSuffix),
                  let data = FileManager.default.contents(atPath: fixtures + "/" + path) else { continue }
            files.append(Array(data))
        }
        // The bundled fixtures alone hold about 28,000 numbers (a fresh clone has no ../shared);
        // the shared Natural Earth files add about a million.
        var expected = 20_000
        for large in ["kml/large/ne_10m_countries.kml.xz", "vector/ne_10m_countries.geojson.xz"] where sharedFixtureExists(large) {
            files.append(try decompressed(sharedFixture(large)))
            expected = 100_000
        }
        var numbers = 0
        for bytes in files {
            var i = 0
            while i < bytes.count {
                guard NumberText.isNumberByte(bytes[i]) else {
                    i += 1
                    continue
                }
                let start = i
                while i < bytes.count && NumberText.isNumberByte(bytes[i]) { i += 1 }
                guard let value = NumberText.parseLenient(Array(bytes[start..<i])) else { continue }
                numbers += 1
                if !expectSameText(value) { return }
            }
        }
        #expect(numbers > expected)
    }

    private func pow10(_ n: Int) -> UInt64 { (0..<n).reduce(1) { value, _ in value * 10 } }

    private func decompressed(_ path: String) throws -> [UInt8] {
        let xz = Process()
        xz.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        xz.arguments = ["xz", "-dc", path]
        let pipe = Pipe()
        xz.standardOutput = pipe
        try xz.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        xz.waitUntilExit()
        try #require(xz.terminationStatus == 0)
        return Array(data)
    }
}
