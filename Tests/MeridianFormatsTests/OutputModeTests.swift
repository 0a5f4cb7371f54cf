import Foundation
import Testing
@testable import MeridianFormats

import MeridianCore

/// Outputs get the mode the process's umask allows, even while other threads create files.
@Suite struct OutputModeTests {
    /// The umask, as Linux reports it without changing it (`Umask:` in /proc/self/status).
    func processUmask() throws -> mode_t {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
        return try #require(mode_t(line.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8))
    }

    /// Four threads each write 1,000 files and folders at once. OutputTarget once read the umask
    /// by setting it to 0 and back, so a file another thread created in between was 0666.
    @Test func concurrentOutputsGetTheUmasksMode() throws {
        let mask = try processUmask()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-modes-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for i in 0..<1000 {
                let sub = "\(folder)/\(thread)-\(i)"
                mkdir(sub, 0o777)
                try? OutputTarget.write([1, 2, 3], to: "\(sub)/f", durable: false)
            }
        }
        var wrong: [String] = []
        for entry in try FileManager.default.subpathsOfDirectory(atPath: folder) {
            var status = stat()
            lstat("\(folder)/\(entry)", &status)
            let expected = (status.st_mode & S_IFMT == S_IFDIR ? 0o777 : 0o666) & ~mask
            if status.st_mode & 0o7777 != expected { wrong.append("\(entry): \(String(status.st_mode & 0o7777, radix: 8))") }
        }
        #expect(wrong.isEmpty, "\(wrong.count) of 8000 with the wrong mode, e.g. \(wrong.prefix(5))")
    }

    /// FileModes learns the new-file mode without reading the umask, and gives it to files
    /// another library made (SQLite's 0644).
    @Test func filesOfOtherLibrariesGetTheNewFileMode() throws {
        let mask = try processUmask()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-modes-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder + "/inner", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(FileModes.newFile(in: folder) == 0o666 & ~mask)
        for path in ["\(folder)/a.gpkg", "\(folder)/inner/b"] {
            close(open(path, O_WRONLY | O_CREAT, 0o600))
        }
        try FileModes.applyNewFileMode(under: folder)
        for path in ["\(folder)/a.gpkg", "\(folder)/inner/b"] {
            var status = stat()
            stat(path, &status)
            #expect(status.st_mode & 0o7777 == 0o666 & ~mask, "\(path)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["a.gpkg", "inner"])
    }
}
