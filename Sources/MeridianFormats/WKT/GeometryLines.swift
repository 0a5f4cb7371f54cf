import MeridianCore
import MeridianGeometry

/// Formats of one geometry per line (WKT, WKB as hex): what databases and scripts exchange.
/// Only geometry travels; a feature without geometry is written as an empty geometry so that
/// line N is still feature N.
enum GeometryLine {
    case wkt
    case wkbHex

    func write(_ geometry: Geometry?, to sink: OutputSink, precision: Int?) {
        switch (self, geometry) {
        case (.wkt, let geometry?): WKT.write(geometry, to: sink, precision: precision)
        case (.wkt, nil): sink.write("GEOMETRYCOLLECTION EMPTY" as StaticString)
        case (.wkbHex, let geometry?): sink.write(WKB.hex(WKB.encode(geometry)))
        case (.wkbHex, nil): sink.write(WKB.hex(WKB.encode(.geometryCollection(GeometryCollection([])))))
        }
        sink.write(byte: UInt8(ascii: "\n"))
    }

    func read(_ line: [UInt8], location: SourceLocation) throws -> Geometry? {
        switch self {
        case .wkt:
            return try WKT.parse(line, location: location)
        case .wkbHex:
            guard let bytes = WKB.bytes(fromHex: line) else {
                throw MeridianError(.badInput, "not hexadecimal WKB", at: location)
            }
            let geometry = try WKB.decode(bytes, location: location)
            if case .geometryCollection(let c)? = geometry, c.geometries.isEmpty { return nil }
            return geometry
        }
    }
}

/// Writes each feature's geometry as one line of WKT or hex WKB (``FeatureFormat/wkt``,
/// ``FeatureFormat/wkbHex``); properties are dropped.
final class GeometryLineWriter: FeatureWriter {
    let sink: OutputSink
    let options: WriteOptions
    let format: GeometryLine

    init(sink: OutputSink, options: WriteOptions, format: GeometryLine) {
        self.sink = sink
        self.options = options
        self.format = format
    }

    func begin(_ metadata: CollectionMetadata) throws {}

    func write(_ feature: Feature) throws {
        format.write(feature.geometry, to: sink, precision: options.precision)
        try sink.checkForErrors()
    }

    func finish(_ trailingMetadata: CollectionMetadata) throws {}
}

/// Reads one geometry per line of WKT or hex WKB as features without properties; blank lines are
/// skipped, and errors name the line and column.
final class GeometryLineReader: FeatureReader {
    let input: BufferedInput
    let format: GeometryLine
    var lineNumber = 0
    /// Each feature's checks (coordinates off the globe).
    let checks: FeatureChecks

    init(input: BufferedInput, format: GeometryLine, options: ReadOptions) {
        self.input = input
        self.format = format
        checks = FeatureChecks(options)
    }

    func readMetadata() throws -> CollectionMetadata { .init() }
    var trailingMetadata: CollectionMetadata { .init() }

    func next() throws -> Feature? {
        while var line = try input.nextLine() {
            lineNumber += 1
            if lineNumber == 1, line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
            let leading = line.prefix { $0 == 0x20 || $0 == 0x09 }.count
            guard leading < line.count else { continue }  // blank lines separate nothing
            let location = SourceLocation(file: input.name, line: lineNumber, column: leading + 1)
            var feature = Feature(geometry: try format.read(Array(line[leading...]), location: location))
            try checks.check(&feature, at: location)
            return feature
        }
        return nil
    }
}

extension FeatureFormat {
    /// Well-known text, one geometry per line.
    public static let wkt = FeatureFormat(
        id: "wkt", displayName: "WKT", extensions: ["wkt"], mediaType: "text/plain", roundsCoordinates: true,
        sniff: { bytes in
            let head = String(decoding: bytes.prefix(20), as: UTF8.self).uppercased()
            return WKT.Parser.types.contains { head.hasPrefix($0) } || head.hasPrefix("SRID=")
        },
        reader: { input, options in GeometryLineReader(input: input, format: .wkt, options: options) },
        writer: { sink, options in GeometryLineWriter(sink: sink, options: options, format: .wkt) }
    )

    /// Well-known binary as hexadecimal text, one geometry per line (as PostGIS prints it).
    public static let wkbHex = FeatureFormat(
        id: "wkb", displayName: "WKB (hex)", aliases: ["wkb-hex", "hexwkb"], extensions: ["wkb", "hexwkb"], mediaType: "text/plain",
        roundsCoordinates: true,
        sniff: { $0.starts(with: Array("0101000000".utf8)) || $0.starts(with: Array("0000000001".utf8)) },
        reader: { input, options in GeometryLineReader(input: input, format: .wkbHex, options: options) },
        writer: { sink, options in GeometryLineWriter(sink: sink, options: options, format: .wkbHex) }
    )
}
