import Foundation
import Testing

/// The module boundary, as the dynamic linker sees it: `meridian` loads no drawing library, no
/// SQLite, no GDAL and not all of Foundation (its ICU data alone is most of a small command's
/// start-up), so the commands that draw nothing start fast; pictures load cairo only in
/// `meridian-draw`, GDAL only in `meridian-gdal`.
@Suite struct LinkedLibrariesTests {
    static let heavy = ["libcairo", "libturbojpeg", "libwebp", "libsqlite3", "libgdal", "libFoundation.", "lib_FoundationICU"]

    /// The shared libraries `binary` needs, by file name, as ldd lists them.
    static func linkedLibraries(_ binary: String) throws -> [String] {
        let listed = try run("ldd", [binary])
        #expect(listed.status == 0, "\(listed.stderr)")
        return listed.stdout.split(separator: "\n").compactMap { $0.split(whereSeparator: \.isWhitespace).first.map(String.init) }
    }

    @Test(.enabled(if: OutsideToolsAcceptTheOutput.available("ldd"))) func meridianLinksNoDrawingLibraryNorSQLiteNorGDAL() throws {
        let libraries = try Self.linkedLibraries(meridianBinary)
        #expect(libraries.contains { $0.hasPrefix("libexpat") }, "\(libraries)")  // the list is real
        for name in Self.heavy {
            #expect(!libraries.contains { $0.hasPrefix(name) }, "meridian links \(name): \(libraries)")
        }
    }

    @Test(.enabled(if: OutsideToolsAcceptTheOutput.available("ldd"))) func theHelpersLinkWhatTheyAreFor() throws {
        let folder = URL(fileURLWithPath: meridianBinary).deletingLastPathComponent()
        let draw = try Self.linkedLibraries(folder.appendingPathComponent("meridian-draw").path)
        #expect(draw.contains { $0.hasPrefix("libcairo") } && !draw.contains { $0.hasPrefix("libgdal") }, "\(draw)")
        let gdal = try Self.linkedLibraries(folder.appendingPathComponent("meridian-gdal").path)
        #expect(gdal.contains { $0.hasPrefix("libgdal") } && !gdal.contains { $0.hasPrefix("libcairo") }, "\(gdal)")
    }
}
