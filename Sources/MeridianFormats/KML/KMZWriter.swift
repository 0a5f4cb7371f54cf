import MeridianCore
import MeridianGeometry

/// Writes KMZ: the KML writer's output, streamed to a temporary file, then deflated into a zip
/// as `doc.kml` and copied to the output. Memory stays constant; disk holds the KML (twice:
/// the writer's parts, then the document) and the zip until the end.
public final class KMZWriter: FeatureWriter {
    private let destination: OutputSink
    private let scratch: ScratchFile
    private let kml: KMLWriter

    /// A KMZ writer into `sink`; the KML goes to a scratch file and is zipped at ``finish(_:)``.
    /// - Parameters:
    ///   - sink: Where the zip archive's bytes go.
    ///   - options: Passed to the KML writer inside.
    /// - Throws: `MeridianError` (`io`) when the scratch files cannot be created.
    public init(sink: OutputSink, options: WriteOptions = .init()) throws {
        destination = sink
        scratch = try ScratchFile(unlinked: "doc.kml")
        kml = try KMLWriter(sink: scratch.sink, options: options)
    }

    /// Starts the KML document inside, with the collection's `name`.
    public func begin(_ metadata: CollectionMetadata) throws { try kml.begin(metadata) }
    /// Writes the feature as a Placemark of the KML document inside.
    public func write(_ feature: Feature) throws { try kml.write(feature) }

    /// Finishes the KML, deflates it into a zip as `doc.kml`, and copies the archive to the output.
    /// - Throws: `MeridianError` (`io`) when a scratch file, the archive or the output fails.
    public func finish(_ trailingMetadata: CollectionMetadata) throws {
        try kml.finish(trailingMetadata)
        let document = try scratch.readBack()
        // minizip writes by path: the nameless scratch file's own where the system has one
        // (Linux), else a named one (removed on a signal, left by SIGKILL).
        let nameless = try ScratchFile(unlinked: "zip")
        let zip = nameless.pathInThisProcess == nil ? try ScratchFile("zip") : nameless
        let archive = try ZipArchiveWriter(path: zip.pathInThisProcess ?? zip.path)
        try archive.addEntry("doc.kml", size: UInt64(scratch.sink.bytesWritten)) { write in
            try document.forEachChunk { chunk, _ in try write(UnsafeRawBufferPointer(chunk)) }
        }
        try archive.close()
        try zip.copy(to: destination)
    }

}
