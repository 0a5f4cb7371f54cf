import MeridianFormats
import MeridianGeometry

extension FormatRegistry {
    /// Meridian's own formats as the executables offer them: the library's standard formats,
    /// then SVG and PNG pictures, drawn by `meridian-draw` so that no other process loads cairo.
    public static let meridian = FormatRegistry.standard.adding(PictureKind.allCases.map { kind in
        kind.format { sink, options in try HelperPictureWriter(kind, sink: sink, options: options) }
    })
}

/// A picture drawn by `meridian-draw`: the features are set aside (`FeatureSpill`) and, at
/// `finish`, `meridian-draw picture` draws them as a `PictureRequest` asks. The picture it
/// prints is copied into the output sink as it comes, so the output is still written
/// atomically, or to standard output, like any other format's; the helper's warnings and
/// error come back as this process's (`HelperDiagnostics`).
final class HelperPictureWriter: FeatureWriter {
    private let kind: PictureKind
    private let sink: OutputSink
    private let options: WriteOptions
    private let spill: FeatureSpill

    init(_ kind: PictureKind, sink: OutputSink, options: WriteOptions) throws {
        self.kind = kind
        self.sink = sink
        self.options = options
        spill = try FeatureSpill("picture")
    }

    func begin(_ metadata: CollectionMetadata) throws {}

    func write(_ feature: Feature) throws { try spill.append(feature) }

    func finish(_ trailingMetadata: CollectionMetadata) throws {
        try spill.close()
        let request = PictureRequest(kind: kind, options: options.settings(PictureOptions.self), input: InheritedScratch.argument)
        let (child, diagnostics) = try HelperExecutable.draw.start(request.arguments, for: "drawing \(kind.rawValue.uppercased()) pictures",
                                                                   standardOutput: .pipe, inheriting: spill.descriptor)
        let picture = BufferedInput(fileDescriptor: child.standardOutput!, name: "meridian-draw", ownsDescriptor: false)
        do {
            try picture.forEachChunk { chunk, _ in sink.write(UnsafeRawBufferPointer(chunk)) }
        } catch {
            // The picture cannot be read to its end: the child, writing on, is stopped.
            child.terminate()
            try? diagnostics.finish(warnings: options.diagnostics)
            throw error
        }
        try diagnostics.finish(warnings: options.diagnostics)
        try sink.checkForErrors()
    }
}
