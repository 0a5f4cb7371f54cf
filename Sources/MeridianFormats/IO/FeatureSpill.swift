import MeridianGeometry

/// Features set aside on disk, for writers that must see them all before writing the first
/// (a CSV header, GPX's element order, a picture fitted to the data, typed OGR fields): kept as a
/// GeoJSON text sequence in a scratch file, so numbers come back bit for bit and memory stays
/// constant.
public final class FeatureSpill {
    private let scratch: ScratchFile
    private let writer: GeoJSONWriter
    private var closed = false
    private(set) var count = 0
    /// The scratch file's descriptor, for handing to a child process once `close()`d
    /// (`InheritedScratch`): the file has no name.
    public var descriptor: Int32 { scratch.descriptor }

    /// Starts an empty spill in a new scratch file without a name (in `$TMPDIR`, else /tmp), gone
    /// when the spill is released, however the process ends (SIGKILL too).
    /// - Parameter name: A word for the scratch file's name (`meridian-NAME-XXXXXX`).
    /// - Throws: `MeridianError` (`io`) when the scratch file cannot be created.
    public init(_ name: String) throws {
        scratch = try ScratchFile(unlinked: name)
        writer = GeoJSONWriter(sink: scratch.sink, options: WriteOptions(), sequence: true)
        try writer.begin(.init())
    }

    /// Sets `feature` aside after the others.
    /// - Parameter feature: The feature, kept bit for bit.
    /// - Throws: `MeridianError` (`io`) when the scratch file cannot be written (a full disk).
    public func append(_ feature: Feature) throws {
        try writer.write(feature)
        try scratch.sink.checkForErrors()
        count += 1
    }

    /// Ends the sequence and flushes it to disk; appending is over.
    public func close() throws {
        guard !closed else { return }
        closed = true
        try writer.finish(.init())
        try scratch.sink.flush()
    }

    /// Hands back every feature, in order (as often as asked).
    public func forEach(_ body: (Feature) throws -> Void) throws {
        try close()
        guard count > 0 else { return }
        let reader = GeoJSONReader(input: try scratch.readBack(), layout: .sequence)
        _ = try reader.readMetadata()
        while let feature = try reader.next() { try body(feature) }
    }
}
