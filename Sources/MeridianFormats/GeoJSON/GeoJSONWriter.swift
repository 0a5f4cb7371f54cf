import MeridianGeometry

/// Writes GeoJSON (RFC 7946) or GeoJSON text sequences (RFC 8142), streaming.
///
/// A FeatureCollection is written one feature per line (easy to grep and diff), or fully
/// indented with `pretty`. Coordinates are exact by default (shortest round-trip text) or
/// rounded to `precision` decimals. Collection members and foreign members are written back
/// where they were read.
public final class GeoJSONWriter: FeatureWriter {
    let emitter: JSONEmitter
    private let sink: OutputSink
    private let options: WriteOptions
    private let sequence: Bool
    private let recordSeparator: Bool
    private var count = 0

    /// A GeoJSON writer into `sink`; nothing is buffered beyond the sink's own buffer.
    /// - Parameters:
    ///   - sink: Where the GeoJSON goes.
    ///   - options: `precision` rounds coordinates; a collection's ``GeoJSONWriteOptions`` may
    ///     indent it, a sequence's ``GeoJSONSeqWriteOptions`` start each record with RS.
    ///   - sequence: write a text sequence (one Feature per record) instead of a collection.
    public init(sink: OutputSink, options: WriteOptions = .init(), sequence: Bool = false) {
        self.sink = sink
        self.options = options
        self.sequence = sequence
        // A text sequence keeps each record on one line.
        emitter = JSONEmitter(sink: sink, pretty: !sequence && options.settings(GeoJSONWriteOptions.self).pretty)
        recordSeparator = sequence && options.settings(GeoJSONSeqWriteOptions.self).recordSeparator
            ?? (options.outputPath?.lowercased().hasSuffix(".geojsons") ?? false)
    }

    /// Opens the FeatureCollection and writes the collection's members (`name`, `crs`, foreign
    /// members) before `features`; a text sequence writes nothing.
    public func begin(_ metadata: CollectionMetadata) throws {
        guard !sequence else { return }
        emitter.openObject()
        emitter.member("type", "FeatureCollection")
        for (name, value) in metadata.members { emitter.member(name, value) }
        emitter.key("features")
        emitter.openArray(linePerElement: true)
    }

    /// Writes one Feature: as the collection's next element, or as a record of a text sequence (on
    /// its own line, after an RS byte when its settings or its path ask for one).
    /// - Throws: `MeridianError` (`io`) for a write failure so far.
    public func write(_ feature: Feature) throws {
        if sequence {
            if recordSeparator { sink.write(byte: 0x1E) }
            writeFeature(feature)
            sink.write(byte: 0x0A)
        } else {
            writeFeature(feature)
        }
        count += 1
        try sink.checkForErrors()
    }

    /// Closes the `features` array, writes the members that came after the features, and ends the
    /// object with a newline; a text sequence writes nothing more.
    /// - Throws: `MeridianError` (`io`) for a write failure so far.
    public func finish(_ trailingMetadata: CollectionMetadata) throws {
        guard !sequence else { return }
        emitter.closeArray()
        for (name, value) in trailingMetadata.members { emitter.member(name, value) }
        emitter.closeObject()
        sink.write(byte: 0x0A)
        try sink.checkForErrors()
    }

    /// One Feature object, through the emitter (also used inside other structures, such as
    /// the KML folder tree).
    func writeFeature(_ feature: Feature) {
        emitter.openObject()
        emitter.member("type", "Feature")
        if let id = feature.id {
            switch id {
            case .string(let s): emitter.member("id", .string(s))
            case .integer(let i): emitter.member("id", .integer(i))
            case .double(let d): emitter.member("id", .double(d))
            }
        }
        if let bbox = feature.bbox {
            emitter.key("bbox")
            emitter.openArray(inline: true)
            for v in bbox.values { emitter.coordinate(v, precision: options.precision) }
            emitter.closeArray()
        }
        emitter.key("properties")
        if let properties = feature.properties {
            emitter.value(.object(properties))
        } else {
            emitter.scalar("null")
        }
        emitter.key("geometry")
        if let geometry = feature.geometry {
            writeGeometry(geometry)
        } else {
            emitter.scalar("null")
        }
        for (name, value) in feature.foreignMembers { emitter.member(name, value) }
        emitter.closeObject()
    }

    func writeGeometry(_ geometry: Geometry) {
        emitter.openObject()
        emitter.member("type", .string(geometry.type.rawValue))
        if case .geometryCollection(let collection) = geometry {
            emitter.key("geometries")
            emitter.openArray()
            for member in collection.geometries { writeGeometry(member) }
            emitter.closeArray()
        } else {
            emitter.key("coordinates")
            switch geometry {
            case .point(let p): writePosition(p.coordinates)
            case .lineString(let l): writePositions(l.coordinates)
            case .multiPoint(let m): writePositions(m.coordinates)
            case .polygon(let p): writeLists(p.rings)
            case .multiLineString(let m): writeLists(m.lines)
            case .multiPolygon(let m):
                emitter.openArray()
                for polygon in m.polygons { writeLists(polygon.rings) }
                emitter.closeArray()
            case .geometryCollection: break  // written above
            }
        }
        emitter.closeObject()
    }

    private func writeLists(_ lists: [[Position]]) {
        emitter.openArray()
        for list in lists { writePositions(list) }
        emitter.closeArray()
    }

    private func writePositions(_ positions: [Position]) {
        emitter.positions(positions, precision: options.precision)
    }

    private func writePosition(_ p: Position) {
        emitter.position(p, precision: options.precision)
    }
}

/// Writes one bare geometry as a GeoJSON document (a coverage file is one MultiPolygon, not a
/// FeatureCollection).
public func writeGeoJSONGeometry(_ geometry: Geometry, to sink: OutputSink, options: WriteOptions = .init()) throws {
    let writer = GeoJSONWriter(sink: sink, options: options)
    writer.writeGeometry(geometry)
    sink.write(byte: 0x0A)
    try sink.checkForErrors()
}
