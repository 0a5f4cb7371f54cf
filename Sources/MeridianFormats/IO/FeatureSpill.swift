import MeridianGeometry

/// Features set aside on disk, for writers that must see them all before writing the first
/// (a CSV header, GPX's element order, a picture fitted to the data, typed OGR fields): kept as a
/// GeoJSON text sequence in a scratch file, so numbers come back bit for bit and memory stays
/// constant.
public final class FeatureSpill {
    private let scratch: ScratchFile
    private let writer: GeoJSONWriter
    public private(set) var count = 0

    public init(_ name: String) throws {
        scratch = try ScratchFile(name)
        writer = GeoJSONWriter(sink: scratch.sink, options: WriteOptions(), sequence: true)
        try writer.begin(.init())
    }

    public func append(_ feature: Feature) throws {
        try writer.write(feature)
        try scratch.sink.checkForErrors()
        count += 1
    }

    /// Hands back every feature, in order.
    public func forEach(_ body: (Feature) throws -> Void) throws {
        try writer.finish(.init())
        guard count > 0 else { return }
        let reader = GeoJSONReader(input: try scratch.readBack(), layout: .sequence)
        _ = try reader.readMetadata()
        while let feature = try reader.next() { try body(feature) }
    }
}
