import Foundation
import MeridianCore
import Testing
import MeridianGeometry
@testable import MeridianFormats

/// The KML reader runs expat on a thread of its own while its caller converts the trees; what it hands
/// out must stay in document order whatever the two threads do: features, warnings from either
/// side, the folder tree, and an error after the features before it.
@Suite struct KMLReadingSideTests {
    /// A document of `count` placemarks in folders of ten, each with a distinct value and a ring
    /// that is not closed, with a misspelt element every hundred (a warning of the reading side).
    func document(_ count: Int, ending: String = "</Document></kml>") -> String {
        var text = "<?xml version=\"1.0\"?><kml xmlns=\"http://www.opengis.net/kml/2.2\"><Document><name>many</name>\n"
        for i in 0..<count {
            if i % 10 == 0 { text += "<Folder><name>folder \(i / 10)</name>\n" }
            let shape = "<Polygon><outerBoundaryIs><LinearRing><coordinates>0,0 1,0 1,1 0,\(Double(i) / 1000)</coordinates></LinearRing></outerBoundaryIs></Polygon>"
            let name = i % 100 == 99 ? "<NAME>x</NAME>" : ""
            text += "<Placemark><name>p\(i)</name>\(name)<ExtendedData><Data name=\"i\"><value>\(i)</value></Data></ExtendedData>\(shape)</Placemark>\n"
            if i % 10 == 9 { text += "</Folder>\n" }
        }
        return text + ending
    }

    func reader(_ text: String, options: KMLReadOptions = .init(), warnings: @escaping (Diagnostic) -> Void = { _ in }) -> KMLReader {
        KMLReader(input: BufferedInput(string: text, name: "many.kml"), options: options,
                  readOptions: ReadOptions(diagnostics: warnings))
    }

    @Test func featuresWarningsAndFoldersKeepDocumentOrder() throws {
        // The warnings are collected from the caller's thread only: the array needs no lock.
        var warnings: [Diagnostic] = []
        let kml = reader(document(2_000), options: KMLReadOptions(folders: .tree)) { warnings.append($0) }
        var names: [String] = []
        var warningsSeenBefore: [Int] = []
        while let feature = try kml.next() {
            names.append(feature.properties?["name"]?.stringValue ?? "")
            #expect(feature.properties?["i"]?.stringValue == String(names.count - 1))
            #expect(feature.properties?["folder"] == nil)  // a tree, not a property
            warningsSeenBefore.append(warnings.count)
        }
        #expect(names == (0..<2_000).map { "p\($0)" })
        // One warning for the unclosed rings (at the first, placemark 1: placemark 0's ring is
        // closed) and one for the case (at the first misspelt element, in placemark 99), each
        // handed out before the feature it was found in.
        #expect(warnings.count == 2)
        #expect(warnings.first?.message.contains("not closed") == true)
        #expect(warnings.last?.message.contains("case-sensitive") == true)
        #expect(Array(warningsSeenBefore[0...1]) == [0, 1] && Array(warningsSeenBefore[98...99]) == [1, 2], "\(warnings)")
        #expect(kml.folderTree?.folderCount == 200)
        #expect(kml.statistics.folders == 200)
    }

    @Test func featuresTheReadingThreadConvertsKeepDocumentOrderAndTheirWarnings() throws {
        // A slow caller: the queue fills, and the reading thread converts the features queued
        // behind the one being taken. Everything still comes out in document order, and the
        // warning every ring would give comes once, before the first feature that has it.
        var warnings: [Diagnostic] = []
        let kml = reader(document(1_000)) { warnings.append($0) }
        var names: [String] = []
        var warningsSeenBefore: [Int] = []
        while let feature = try kml.next() {
            if names.count % 4 == 0 { usleep(200) }
            names.append(feature.properties?["name"]?.stringValue ?? "")
            #expect(feature.properties?["i"]?.stringValue == String(names.count - 1))
            #expect(feature.properties?["folder"]?.stringValue == "folder \((names.count - 1) / 10)")
            warningsSeenBefore.append(warnings.count)
        }
        #expect(names == (0..<1_000).map { "p\($0)" })
        #expect(kml.featuresConvertedAhead > 100, "the reading thread converted \(kml.featuresConvertedAhead)")
        #expect(warnings.count == 2)
        #expect(warnings.first?.message.contains("not closed") == true)
        #expect(warnings.first?.location?.line == 4)  // placemark 1's line
        #expect(Array(warningsSeenBefore[0...1]) == [0, 1] && Array(warningsSeenBefore[98...99]) == [1, 2], "\(warnings)")
    }

    @Test func anErrorComesAfterEveryFeatureBeforeIt() throws {
        let kml = reader(document(1_500, ending: "<Placemark><name>broken</Document></kml>"))
        var count = 0
        let error = #expect(throws: MeridianError.self) {
            while try kml.next() != nil { count += 1 }
        }
        #expect(count == 1_500)
        #expect(error?.kind == .badInput)
        #expect(error?.location?.line == 1 + 1_500 + 2 * 150 + 1)  // the line of the broken tail
    }

    @Test func aReaderDroppedPartWayStopsItsThread() throws {
        for _ in 0..<50 {
            let kml = reader(document(3_000))
            _ = try kml.next()
            _ = try kml.next()
            // Dropped here with trees queued and the reading thread busy: deinit must neither
            // hang nor crash.
        }
    }

    @Test func aLayerKeepsOnlyItsFeaturesInOrder() throws {
        let kml = KMLReader(input: BufferedInput(string: document(300), name: "many.kml"),
                            readOptions: ReadOptions(layer: "folder 7"))
        var names: [String] = []
        while let feature = try kml.next() { names.append(feature.properties?["name"]?.stringValue ?? "") }
        #expect(names == (70..<80).map { "p\($0)" })
    }
}
