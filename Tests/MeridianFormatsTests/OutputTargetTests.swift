import Foundation
import Testing
@testable import MeridianFormats

/// A file output is written whole, in pieces of every size, while its writeback is started as
/// it goes (every `OutputSink.writebackStride` bytes on Linux).
@Suite struct OutputTargetTests {
    @Test func aLargeOutputArrivesWholeAcrossWritebackStrides() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-target-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/big.bin"
        // Two and a half strides, a pattern that does not repeat with the writes' sizes.
        let expected = (0..<(OutputSink.writebackStride * 5 / 2 + 12_345)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
        let target = try OutputTarget.open(path)
        #expect(target.sink.startsWritebackEarly)
        try target.commit {
            var offset = 0
            while offset < expected.count {
                let size = min(expected.count - offset, [7, 65_536, 70_000, 1_000_003][offset % 4])
                expected[offset..<(offset + size)].withUnsafeBytes { target.sink.write($0) }
                offset += size
            }
        }
        #expect(target.sink.bytesWritten == expected.count)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(expected))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["big.bin"])
        // Standard output is not a file whose writeback can be started.
        #expect(try !OutputTarget.open("-").sink.startsWritebackEarly)
    }
}
