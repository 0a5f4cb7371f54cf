import Foundation

/// What GPX 1.1's schema (Tests/Fixtures/gpx/gpx-1.1.xsd) says against a GPX file, checked by
/// xmllint: nil when the file is valid, else xmllint's words (or why it could not run). Every
/// test that writes GPX runs what it wrote through this, so no GPX Meridian writes is invalid.
public func gpxSchemaProblems(atPath path: String) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["xmllint", "--noout", "--schema", fixture("gpx/gpx-1.1.xsd"), path]
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    do { try process.run() } catch { return "xmllint could not run (Scripts/bootstrap installs libxml2-utils): \(error)" }
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return process.terminationStatus == 0 ? nil : "\(path) is not valid GPX 1.1: \(text)"
}

/// The same for GPX text written to memory.
public func gpxSchemaProblems(text: String) -> String? {
    do {
        return try withTemporaryFolderPath { folder in
            let path = folder + "/written.gpx"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return gpxSchemaProblems(atPath: path)
        }
    } catch {
        return "the GPX could not be saved to check it: \(error)"
    }
}
