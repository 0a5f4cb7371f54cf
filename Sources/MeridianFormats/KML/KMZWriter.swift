#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import MeridianGeometry
import ZIPFoundation

/// Writes KMZ: the KML writer's output, streamed to a temporary file, then deflated into a zip
/// as `doc.kml` and copied to the output. Memory stays constant; disk holds the KML once.
public final class KMZWriter: FeatureWriter {
    private let destination: OutputSink
    private let scratch: ScratchFile
    private let kml: KMLWriter

    public init(sink: OutputSink, options: WriteOptions = .init()) throws {
        destination = sink
        scratch = try ScratchFile("doc.kml")
        kml = KMLWriter(sink: scratch.sink, options: options)
    }

    public func begin(_ metadata: CollectionMetadata) throws { try kml.begin(metadata) }
    public func write(_ feature: Feature) throws { try kml.write(feature) }

    public func finish(_ trailingMetadata: CollectionMetadata) throws {
        try kml.finish(trailingMetadata)
        try scratch.sink.flush()
        let size = Int64(lseek(scratch.fd, 0, SEEK_END))
        let (zipFD, zipPath) = try TemporaryFiles.scratch("zip")
        close(zipFD)
        unlink(zipPath)  // ZIPFoundation creates the archive itself
        defer {
            unlink(zipPath)
            TemporaryFiles.shared.unregister(zipPath)
        }
        do {
            let archive = try Archive(url: URL(fileURLWithPath: zipPath), accessMode: .create)
            try archive.addEntry(with: "doc.kml", type: .file, uncompressedSize: size, compressionMethod: .deflate,
                                 bufferSize: 1 << 16) { position, count in
                var data = Data(count: count)
                let read = data.withUnsafeMutableBytes { pread(self.scratch.fd, $0.baseAddress, count, off_t(position)) }
                guard read == count else { throw MeridianError(.io, "cannot read back the KML written for the KMZ") }
                return data
            }
        } catch let error as MeridianError {
            throw error
        } catch {
            throw MeridianError(.io, "cannot write the KMZ archive: \(error)")
        }
        // Copy the archive into the output.
        let input = try BufferedInput.open(zipPath)
        try input.forEachChunk { chunk, _ in destination.write(UnsafeRawBufferPointer(chunk)) }
        try destination.checkForErrors()
    }

}
