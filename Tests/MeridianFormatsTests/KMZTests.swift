import Foundation
import MeridianCore
import Testing
import MeridianGeometry
@testable import MeridianFormats

/// Builds a zip from (path, contents) pairs.
func makeZip(_ entries: [(String, String)], at url: URL) throws {
    let archive = try ZipArchiveWriter(path: url.path)
    for (path, text) in entries {
        let bytes = Array(text.utf8)
        try archive.addEntry(path, size: UInt64(bytes.count)) { write in try bytes.withUnsafeBytes { try write($0) } }
    }
    try archive.close()
}

@Suite struct KMZTests {
    static let placemark = """
        <kml xmlns="http://www.opengis.net/kml/2.2"><Document>
        <Placemark><name>p</name><styleUrl>styles.kml#red</styleUrl><Point><coordinates>1,2</coordinates></Point></Placemark>
        </Document></kml>
        """

    @Test func resolvesStylesInOtherDocumentsOfTheArchive() throws {
        try withTemporaryFolder { folder in
            let url = folder.appendingPathComponent("a.kmz")
            try makeZip([("doc.kml", Self.placemark),
                         ("styles.kml", "<kml><Document><Style id=\"red\"><LineStyle><color>ff0000ff</color></LineStyle></Style></Document></kml>")],
                        at: url)
            let (features, _, _) = try readKML(url.path)
            #expect(features.first?.properties?["stroke"] == "#ff0000")
            #expect(features.first?.properties?["styleUrl"] == "#styles.kml#red")
        }
    }

    @Test func picksTheFirstRootKMLWithoutDocKML() throws {
        try withTemporaryFolder { folder in
            let url = folder.appendingPathComponent("b.kmz")
            try makeZip([("images/readme.txt", "x"), ("sub/other.kml", "<kml/>"), ("main.kml", Self.placemark)], at: url)
            #expect(try readKML(url.path).features.count == 1)
        }
    }

    @Test func ignoresEntriesThatPointOutsideTheArchive() throws {
        try withTemporaryFolder { folder in
            let url = folder.appendingPathComponent("c.kmz")
            try makeZip([("../evil.kml", Self.placemark)], at: url)
            #expect {
                _ = try readKML(url.path)
            } throws: { ($0 as? MeridianError)?.message.contains("holds no .kml document") == true }

            let mixed = folder.appendingPathComponent("d.kmz")
            try makeZip([("doc.kml", Self.placemark), ("../../etc/x.png", "x")], at: mixed)
            let (features, _, warnings) = try readKML(mixed.path)
            #expect(features.count == 1)
            #expect(warnings.contains { $0.message.contains("points outside the archive") })
        }
    }

    /// An entry that inflates past the size its header declares is refused as a zip bomb.
    @Test func refusesAnEntryLargerThanItsHeaderSays() throws {
        try withTemporaryFolder { folder in
            let url = folder.appendingPathComponent("bomb.kmz")
            let big = "<kml><Document>" + String(repeating: " ", count: 2_000_000) + "</Document></kml>"
            try makeZip([("doc.kml", big)], at: url)
            var bytes = try [UInt8](Data(contentsOf: url))
            // Declare 1,000 bytes in the local header (offset 22) and the central directory (offset 24).
            func patch(signature: [UInt8], offset: Int) {
                for i in 0..<(bytes.count - 4) where Array(bytes[i..<i + 4]) == signature {
                    bytes.replaceSubrange(i + offset..<i + offset + 4, with: [0xE8, 0x03, 0x00, 0x00])
                }
            }
            patch(signature: [0x50, 0x4B, 0x03, 0x04], offset: 22)
            patch(signature: [0x50, 0x4B, 0x01, 0x02], offset: 24)
            try Data(bytes).write(to: url)
            #expect {
                _ = try readKML(url.path)
            } throws: { error in
                guard let error = error as? MeridianError else { return false }
                return error.kind == .badInput && (error.message.contains("declared size") || error.message.contains("inflate"))
            }
        }
    }

    @Test func truncatedArchiveIsBadInput() throws {
        try withTemporaryFolder { folder in
            let url = folder.appendingPathComponent("t.kmz")
            try makeZip([("doc.kml", Self.placemark)], at: url)
            let data = try Data(contentsOf: url)
            try data.prefix(data.count / 2).write(to: url)
            #expect {
                _ = try readKML(url.path)
            } throws: { ($0 as? MeridianError)?.kind == .badInput }
        }
    }

    /// Archives crafted byte by byte (Tests/Fixtures/kmz-crafted/make.py): each is refused with
    /// a message naming what is wrong, and every read ends.
    @Test(arguments: [
        ("deflate-stops-short.kmz", "doc.kml: cannot inflate doc.kml: the compressed data ends early"),
        ("wrong-crc.kmz", "does not inflate to the 35242 bytes and CRC-32 its header declares"),
        ("encrypted.kmz", "doc.kml is encrypted"),
        ("unknown-method.kmz", "doc.kml uses compression method 12"),
        ("path-traversal-only.kmz", "this KMZ archive holds no .kml document"),
        ("central-directory-overclaims.kmz", "the archive's central directory is damaged after 1 entry"),
    ])
    func craftedArchivesAreRefused(_ file: String, _ message: String) throws {
        #expect {
            _ = try readKML(fixture("kmz-crafted/\(file)"))
        } throws: { error in
            guard let error = error as? MeridianError else { return false }
            return error.kind == .badInput && "\(error)".contains(message)
        }
    }

    @Test func pathTraversalBesideADocumentIsIgnoredWithAWarning() throws {
        let (features, reader, warnings) = try readKML(fixture("kmz-crafted/path-traversal-mixed.kmz"))
        #expect(features.count == 400)
        #expect(warnings.map(\.message) == ["ignoring the archive entry \"../../../tmp/evil.png\": it points outside the archive"])
        #expect((reader as? KMZReader)?.entries == ["doc.kml"])
    }

    /// A zip bomb inflates as it is read, never to disk or memory: 64 MiB of zeros stop at the
    /// first byte. (HostileInputTests reads a bomb of blanks under a memory limit.)
    @Test func aZipBombOfZerosStopsAtItsFirstByte() throws {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("zeros.kmz").path
            let block = [UInt8](repeating: 0, count: 1 << 20)
            let archive = try ZipArchiveWriter(path: path)
            try archive.addEntry("doc.kml", size: 64 << 20) { write in
                for _ in 0..<64 { try block.withUnsafeBytes { try write($0) } }
            }
            try archive.close()
            let zipped = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
            #expect(zipped < (1 << 20))
            #expect { _ = try readKML(path) } throws: { "\($0)".contains("zeros.kmz:doc.kml:1:") }
        }
    }
}
