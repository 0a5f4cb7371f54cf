import Foundation
import MeridianCore
import Testing
import MeridianGeometry
import MeridianTestSupport
@testable import MeridianFormats

/// A large KML file is parsed in one call, mapped into expat's buffer, with its lines counted by
/// Meridian (`LineCounter`) instead of expat; anything else in chunks, with expat's counts. Both
/// ways must give the same features, the same warnings at the same lines, and the same errors.
@Suite struct WholeDocumentParsingTests {
    /// What reading `path` gives: the features, every warning, and the error that ended it.
    struct Reading: Equatable {
        var features: [Feature] = []
        var diagnostics: [Diagnostic] = []
        var error: String?
    }

    /// Reads the file at `path`, whole from `wholeDocumentMinimum` bytes on.
    static func read(_ path: String, wholeDocumentMinimum: Int) throws -> Reading {
        var reading = Reading()
        let reader = KMLReader(input: try BufferedInput.open(path), options: KMLReadOptions(),
                               readOptions: ReadOptions(diagnostics: { reading.diagnostics.append($0) }),
                               wholeDocumentMinimum: wholeDocumentMinimum)
        do {
            _ = try reader.readMetadata()
            while let feature = try reader.next() { reading.features.append(feature) }
        } catch let error as MeridianError {
            reading.error = "\(error.location.map { "\($0)" } ?? ""): \(error.message)"
        }
        return reading
    }

    static var kmlFixtures: [String] {
        let root = fixture("")
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return files.filter { $0.lowercased().hasSuffix(".kml") }.sorted()
    }

    /// Every KML fixture (small files, read whole from a buffer of expat's own), both ways.
    @Test(arguments: kmlFixtures)
    func fixturesReadTheSameWholeAsInChunks(_ name: String) throws {
        let path = fixture(name)
        let whole = try Self.read(path, wholeDocumentMinimum: 0)
        let chunked = try Self.read(path, wholeDocumentMinimum: .max)
        #expect(whole == chunked)
    }

    /// A document of `count` placemarks (over a megabyte, so it is mapped), with the line breaks
    /// of three systems in turn, an element in the wrong case at the placemark `misspelt`, and a
    /// `tail` after them.
    static func largeDocument(placemarks count: Int, misspelt: Int, tail: String = "</Document></kml>") -> String {
        let breaks = ["\n", "\r\n", "\r"]
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n<kml xmlns=\"http://www.opengis.net/kml/2.2\">\n<Document>\r"
        for i in 0..<count {
            let br = breaks[i % 3]
            let name = i == misspelt ? "<NAME>p\(i)</NAME>" : "<name>p\(i)</name>"
            text += "<Placemark>\(br)  \(name)\(br)  <LineString><coordinates>\(br)"
            for j in 0..<20 { text += "-\(i % 180).\(j)123456,-4\(j).98765 " }
            text += "\(br)  </coordinates></LineString>\(br)</Placemark>\(br)"
        }
        return text + tail
    }

    /// Line breaks before `offset`, as XML counts them (CR LF once, a lone CR too), plus one.
    static func line(of offset: String.Index, in text: String) -> Int {
        let bytes = Array(text[..<offset].utf8)
        var line = 1
        for (i, byte) in bytes.enumerated() {
            if byte == 0x0A || (byte == 0x0D && (i + 1 == bytes.count ? false : bytes[i + 1] != 0x0A)) { line += 1 }
        }
        return line
    }

    @Test func aMappedFileCountsLinesAsExpatDoes() throws {
        let text = Self.largeDocument(placemarks: 4_000, misspelt: 3_500)
        #expect(text.utf8.count > XMLEventParser.wholeDocumentMinimum)
        let path = try temporaryFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let whole = try Self.read(path, wholeDocumentMinimum: XMLEventParser.wholeDocumentMinimum)
        let chunked = try Self.read(path, wholeDocumentMinimum: .max)
        #expect(whole.features.count == 4_000)
        #expect(whole.error == nil)
        #expect(whole == chunked)
        // The case warning is at the misspelt element's line, counted here independently.
        let warning = try #require(whole.diagnostics.first { $0.message.contains("case-sensitive") })
        #expect(warning.location?.line == Self.line(of: text.range(of: "<NAME>")!.lowerBound, in: text))
    }

    @Test func anErrorInAMappedFileIsWhereExpatPutsIt() throws {
        let text = Self.largeDocument(placemarks: 4_000, misspelt: -1, tail: "<Placemark>\r\n<name>x</nam>")
        let path = try temporaryFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let whole = try Self.read(path, wholeDocumentMinimum: XMLEventParser.wholeDocumentMinimum)
        let chunked = try Self.read(path, wholeDocumentMinimum: .max)
        #expect(whole.features.count == 4_000)
        #expect(whole.error != nil)
        #expect(whole == chunked)
        #expect(whole.error?.contains(":\(Self.line(of: text.range(of: "</nam>")!.lowerBound, in: text)):") == true)
    }

    /// An attribute value of megabytes grows expat's own pools past `ExpatMemory.pageBlockSize`:
    /// blocks it maps, and then reallocates by copying.
    @Test func megabyteAttributesPassThroughExpatsMappedBlocks() throws {
        let id = String(repeating: "abcdefgh", count: 400_000)  // 3.2 MB
        let text = "<kml><Document><Placemark id=\"\(id)\"><Point><coordinates>1,2</coordinates></Point></Placemark></Document></kml>"
        let path = try temporaryFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        for minimum in [0, Int.max] {
            let reading = try Self.read(path, wholeDocumentMinimum: minimum)
            #expect(reading.error == nil)
            #expect(reading.features.first?.id == .string(id))
        }
    }

    func temporaryFile(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "meridian-whole-\(UUID().uuidString).kml"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
