import Foundation
import MeridianCore
import MeridianFormats
import Testing

/// OutputSink's bytes reach its descriptor whole (swift-system's writeAll), and a failed write
/// is a typed I/O error naming the output.
@Suite struct OutputSinkDescriptorTests {
    @Test func everyByteReachesTheFileThroughAPipeSizedBuffer() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-sink-\(UUID()).txt").path
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        defer { unlink(path) }
        let sink = OutputSink(fileDescriptor: fd, name: path)
        var expected = ""
        for line in 0..<50_000 {
            let text = "line \(line) of fifty thousand\n"
            sink.write(text)
            expected += text
        }
        try sink.flush()
        #expect(close(fd) == 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == expected)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "a device that is always full"))
    func aFullDeviceIsAnIOErrorNamingTheOutput() throws {
        let fd = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        let sink = OutputSink(fileDescriptor: fd, name: "full.geojson")
        sink.write(String(repeating: "x", count: 200_000))
        let error = try #require(throws: MeridianError.self) { try sink.flush() }
        #expect(error.kind == .io)
        #expect(error.location?.file == "full.geojson")
    }
}
