import Foundation

/// Tests/Fixtures, found from this file's place in the source tree.
public let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures")

/// The path of a file under Tests/Fixtures (`"geojson/ne_10m_countries_sample.geojson"`).
public func fixture(_ path: String) -> String { fixtures.appendingPathComponent(path).path }

/// The package's root folder (where Package.swift and .build are).
public let packageRoot = fixtures.deletingLastPathComponent().deletingLastPathComponent()

/// ../shared/fixtures beside the checkout, present on developer machines and CI only: tests
/// that read it are enabled only where it is (`sharedFixtureExists`).
public let sharedFixtures = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures")

/// The path of a file under ../shared/fixtures.
public func sharedFixture(_ path: String) -> String { sharedFixtures.appendingPathComponent(path).path }

/// Whether ../shared/fixtures holds `path`.
public func sharedFixtureExists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: sharedFixture(path)) }

/// A fixture table that a parameterised test cannot run without.
public struct MissingFixtureTable: Error, CustomStringConvertible {
    public var path: String
    public var description: String { "the fixture table \(path) is missing or has no rows" }
}

/// The rows of a tab-separated table under Tests/Fixtures, each split into its fields: lines
/// starting with `#` are comments, and with `header` the first line is left out. Throws when
/// the table is missing or has no rows, so a test whose cases come from it fails instead of
/// running no case at all (`@Test(arguments: try …)`).
public func fixtureTable(_ path: String, header: Bool = false) throws -> [[String]] {
    guard let text = try? String(contentsOfFile: fixture(path), encoding: .utf8) else { throw MissingFixtureTable(path: path) }
    let lines = text.split(separator: "\n").dropFirst(header ? 1 : 0).filter { !$0.hasPrefix("#") }
    guard !lines.isEmpty else { throw MissingFixtureTable(path: path) }
    return lines.map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
}
