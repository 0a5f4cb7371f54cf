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

    /// A file at the path is refused (`ExistingOutput`, cannot-create-output) and left as it
    /// was, unless the target is opened `replacing`; a file appearing while the output is
    /// written is refused at commit, the new output thrown away.
    @Test func anExistingFileIsReplacedOnlyWhenAsked() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-target-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/out.txt"
        try Data("theirs".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: ExistingOutput(path: path)) { try OutputTarget.open(path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("theirs".utf8))
        let replacing = try OutputTarget.open(path, replacing: true)
        try replacing.commit { replacing.sink.write("ours") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("ours".utf8))

        let late = folder + "/late.txt"
        let target = try OutputTarget.open(late)
        try Data("appeared".utf8).write(to: URL(fileURLWithPath: late))
        // Not #expect(throws:): capturing the target in its closure crashes Swift 6.3's SendNonSendable pass.
        var refused: ExistingOutput?
        do { try target.commit { target.sink.write("ours") } } catch let error as ExistingOutput { refused = error }
        #expect(refused == ExistingOutput(path: late, appearedDuringRun: true))
        #expect(try Data(contentsOf: URL(fileURLWithPath: late)) == Data("appeared".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["late.txt", "out.txt"])
    }
}
