import Foundation
import MeridianCore
import MeridianGeometry
@testable import MeridianFormats
// Fixtures and exit statuses, shared by every test target; re-exported for this target's files.
@_exported import MeridianTestSupport

/// Everything a reader yields, with any warnings it gave.
struct ReadResult {
    var features: [Feature]
    var metadata: CollectionMetadata
    var trailing: CollectionMetadata
    var warnings: [Diagnostic]
}

func readAll(_ input: BufferedInput, layout: GeoJSONReader.Layout = .automatic) throws -> ReadResult {
    var warnings: [Diagnostic] = []
    let reader = GeoJSONReader(input: input, layout: layout, options: ReadOptions(diagnostics: { warnings.append($0) }))
    let metadata = try reader.readMetadata()
    var features: [Feature] = []
    while let feature = try reader.next() { features.append(feature) }
    return ReadResult(features: features, metadata: metadata, trailing: reader.trailingMetadata, warnings: warnings)
}

func readAll(path: String, chunkSize: Int = 1 << 16, layout: GeoJSONReader.Layout = .automatic) throws -> ReadResult {
    try readAll(BufferedInput.open(path, chunkSize: chunkSize), layout: layout)
}

func readAll(text: String, layout: GeoJSONReader.Layout = .automatic) throws -> ReadResult {
    try readAll(BufferedInput(string: text, name: "test.geojson"), layout: layout)
}

/// Writes features with the GeoJSON writer into memory and returns the text.
func write(_ result: ReadResult, options: WriteOptions = .init(), sequence: Bool = false) throws -> String {
    let sink = OutputSink(collectingAs: "out.geojson")
    let writer = GeoJSONWriter(sink: sink, options: options, sequence: sequence)
    try writer.begin(result.metadata)
    for feature in result.features { try writer.write(feature) }
    try writer.finish(result.trailing)
    return sink.collectedText()
}

/// Structural equality that also compares every double's bits (so -0.0 ≠ 0.0).
func identical(_ a: [Feature], _ b: [Feature]) -> Bool {
    guard a == b, a.count == b.count else { return false }
    for (x, y) in zip(a, b) {
        var px: [Position] = [], py: [Position] = []
        x.geometry?.forEachPosition { px.append($0) }
        y.geometry?.forEachPosition { py.append($0) }
        guard px.count == py.count, zip(px, py).allSatisfy({ $0.isIdentical(to: $1) }) else { return false }
        guard identical(x.properties.map(JSONValue.object), y.properties.map(JSONValue.object)) else { return false }
    }
    return true
}

private func identical(_ a: JSONValue?, _ b: JSONValue?) -> Bool {
    switch (a, b) {
    case (nil, nil): return true
    case (.double(let x)?, .double(let y)?): return x.bitPattern == y.bitPattern
    case (.array(let x)?, .array(let y)?): return x.count == y.count && zip(x, y).allSatisfy { identical($0, $1) }
    case (.object(let x)?, .object(let y)?):
        return x.keys == y.keys && x.keys.allSatisfy { identical(x[$0], y[$0]) }
    default: return a == b
    }
}
