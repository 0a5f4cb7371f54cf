import Foundation

/// A fresh empty folder (its path) for `body`, removed with everything in it when `body` returns.
/// What the test targets share lives in this target; the older targets' own copies of this
/// helper are to move here.
public func withTemporaryFolder<T>(_ body: (String) throws -> T) throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-test-\(UUID())").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    return try body(folder)
}
