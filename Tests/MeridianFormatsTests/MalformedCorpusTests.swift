import Foundation
import MeridianCore
import MeridianGeometry
import Testing
@testable import MeridianFormats

/// Broken versions of real files, made on the fly: every reader must end each one with its
/// features or a `MeridianFailure` (exit 65 on the command line), never a crash, a hang or a
/// runaway allocation. Truncations at 48 offsets and 48 single-bit flips per file, from a fixed
/// seed so a failure reproduces.
@Suite struct MalformedCorpusTests {
    static let sources: [(String, String)] = [
        ("geojson/edge-cases.geojson", "geojson"),
        ("geojson/sequence.geojsonl", "geojsonseq"),
        ("coverage/real/parthalon025_six-flags-sa__routing_app_coverage.geojson", "geojson"),
        ("kml/togeojson/multigeometry.kml", "kml"),
        ("kml/togeojson/gxmultitrack.kml", "kml"),
        ("kml/togeojson/extended_data.kml", "kml"),
        ("gpx/mixed.gpx", "gpx"),
        ("fuzz-seeds/wkt/shapes.wkt", "wkt"),
        ("fuzz-seeds/wkb/shapes.wkb", "wkb"),
        ("fuzz-seeds/csv/wkt.csv", "csv"),
        ("fuzz-seeds/kmz/multigeometry.kmz", "kmz"),
    ]

    /// Reads everything; true when the reader finished, false when it refused with a MeridianFailure.
    @discardableResult
    static func readAll(_ bytes: [UInt8], format: String) throws -> Bool {
        do {
            let reader = try FormatRegistry.standard.format(named: format).reader(for: BufferedInput(bytes: bytes, name: "broken"))
            _ = try reader.readMetadata()
            var count = 0
            while try reader.next() != nil {
                count += 1
                if count > 100_000 { Issue.record("\(format): more features than bytes"); break }
            }
            return true
        } catch is any MeridianFailure {
            return false
        }
    }

    struct Random {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(max(bound, 1)))
        }
    }

    @Test(arguments: sources)
    func truncationsAndBitFlips(_ source: (String, String)) throws {
        let (path, format) = source
        let bytes = Array(try Data(contentsOf: fixtures.appendingPathComponent(path)))
        #expect(try Self.readAll(bytes, format: format), "\(path) itself must read")
        var refused = 0
        for i in 0..<48 {
            let cut = bytes.count * i / 48
            if !(try Self.readAll(Array(bytes[..<cut]), format: format)) { refused += 1 }
        }
        var random = Random(state: UInt64(bytes.count))
        for _ in 0..<48 {
            var flipped = bytes
            let at = random.next(bytes.count)
            flipped[at] ^= UInt8(1 << random.next(8))
            try Self.readAll(flipped, format: format)
        }
        #expect(refused > 0, "\(path): some truncation must be refused")
    }

    @Test func xmlBombsAndExternalEntitiesAreRefused() throws {
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE gpx [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>
            <gpx version="1.1" creator="&c;"><wpt lat="1" lon="2"><name>&c;</name></wpt></gpx>
            """
        let external = """
            <?xml version="1.0"?>
            <!DOCTYPE kml [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
            <kml xmlns="http://www.opengis.net/kml/2.2"><Placemark><name>&secret;</name><Point><coordinates>1,2</coordinates></Point></Placemark></kml>
            """
        // Quadratic blowup: one 100 kB entity referenced 20,000 times (2 GB if expanded).
        let quadratic = "<?xml version=\"1.0\"?><!DOCTYPE kml [<!ENTITY e \"" + String(repeating: "x", count: 100_000) + "\">]>"
            + "<kml><Placemark><name>" + String(repeating: "&e;", count: 20_000) + "</name><Point><coordinates>1,2</coordinates></Point></Placemark></kml>"
        #expect(try !Self.readAll(Array(laughs.utf8), format: "gpx"))
        #expect(try !Self.readAll(Array(quadratic.utf8), format: "kml"))
        #expect(try !Self.readAll(Array(external.utf8), format: "kml"))
        #expect(try !Self.readAll(Array(external.replacingOccurrences(of: "kml", with: "gpx").utf8), format: "gpx"))
    }

    @Test func hugeAndEmptyInputsAreRefusedQuickly() throws {
        for format in ["geojson", "kml", "gpx", "wkt", "wkb", "csv", "kmz"] {
            #expect(try !Self.readAll([], format: format) || format == "wkt" || format == "wkb", "\(format): empty")
        }
        // A 20 MB number, a 20 MB string, 5,000 nested arrays.
        let digits = "{\"type\":\"Point\",\"coordinates\":[1" + String(repeating: "0", count: 20 << 20) + ",2]}"
        let text = "{\"type\":\"Feature\",\"properties\":{\"s\":\"" + String(repeating: "x", count: 20 << 20) + "\"},\"geometry\":null}"
        let nested = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
        #expect(try !Self.readAll(Array(digits.utf8), format: "geojson"))
        #expect(try Self.readAll(Array(text.utf8), format: "geojson"))  // long strings are fine
        #expect(try !Self.readAll(Array(("{\"type\":\"Point\",\"coordinates\":" + nested + "}").utf8), format: "geojson"))
        #expect(try !Self.readAll(Array(("POINT " + String(repeating: "(", count: 100_000)).utf8), format: "wkt"))
        #expect(try !Self.readAll(Array(String(repeating: "GEOMETRYCOLLECTION (", count: 100_000).utf8), format: "wkt"))
        let deepKML = "<kml><Placemark>" + String(repeating: "<MultiGeometry>", count: 100_000) + String(repeating: "</MultiGeometry>", count: 100_000) + "</Placemark></kml>"
        #expect(try !Self.readAll(Array(deepKML.utf8), format: "kml"))
        let deepFolders = "<kml><Document>" + String(repeating: "<Folder><name>f</name>", count: 100_000) + String(repeating: "</Folder>", count: 100_000) + "</Document></kml>"
        #expect(try !Self.readAll(Array(deepFolders.utf8), format: "kml"))
        let deepGPX = "<gpx version=\"1.1\" creator=\"x\"><wpt lat=\"1\" lon=\"2\">" + String(repeating: "<extensions>", count: 100_000) + String(repeating: "</extensions>", count: 100_000) + "</wpt></gpx>"
        #expect(try !Self.readAll(Array(deepGPX.utf8), format: "gpx"))
    }

    /// A string or text node that never ends (pulled from a source giving "x" for ever) is
    /// refused at `BufferedInput.maximumTokenSize`, not read until memory runs out.
    @Test(arguments: [
        ("geojson", #"{"type":"Feature","properties":{"s":""#, "a single token is larger than 256 MiB"),
        ("kml", "<kml><Placemark><description>", "a text node is larger than 256 MiB"),
    ])
    func anEndlessStringStopsAtTheTokenLimit(_ format: String, _ start: String, _ message: String) throws {
        let head = Array(start.utf8)
        var sent = 0
        let input = BufferedInput(name: "endless") { buffer in
            buffer.initializeMemory(as: UInt8.self, repeating: UInt8(ascii: "x"))
            if sent == 0 { buffer.copyBytes(from: head) }
            sent += buffer.count
            return buffer.count
        }
        let reader = try FormatRegistry.standard.format(named: format).reader(for: input)
        #expect {
            _ = try reader.readMetadata()
            _ = try reader.next()
        } throws: { ($0 as? MeridianError)?.message == message }
        #expect(sent < 2 * BufferedInput.maximumTokenSize)
    }
}
