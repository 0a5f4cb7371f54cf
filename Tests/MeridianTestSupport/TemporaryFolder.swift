import Foundation

/// A fresh empty folder for `body`, removed with everything in it when `body` returns.
public func withTemporaryFolder<T>(_ body: (URL) throws -> T) throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-test-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try body(folder)
}

/// The same, for code that takes paths: the folder's path.
public func withTemporaryFolderPath<T>(_ body: (String) throws -> T) throws -> T {
    try withTemporaryFolder { try body($0.path) }
}
