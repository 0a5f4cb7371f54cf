import ArgumentParser
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
/// `finish`, `meridian-draw picture` draws them with the picture's options. The picture it
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
        let arguments = ["picture", "--to", kind.rawValue] + PictureHelperOptions.arguments(for: options.picture) + [spill.path]
        let (child, diagnostics) = try HelperExecutable.draw.start(arguments, for: "drawing \(kind.rawValue.uppercased()) pictures",
                                                                   standardOutput: .pipe)
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

/// `meridian-draw picture`'s options: a picture's `PictureOptions` as `HelperPictureWriter`
/// passes them (`arguments(for:)`), read back exactly (`options`). Not for people: the view is
/// in map points, as `PictureOptions` holds it.
public struct PictureHelperOptions: ParsableArguments {
    @Option var width: Int
    @Option var height: Int
    @Option var scale: Int
    @Option var heading: Double
    /// `x,y,width,height` in map points.
    @Option var view: String?
    @Option var basemap: String?

    /// Options to be filled in by swift-argument-parser.
    public init() {}

    /// The arguments that give `options`: each as `--name=value`, so a value starting with a
    /// dash (a heading of -30) is never taken for an option. Doubles are written in their
    /// shortest exact form, so the helper sees the very same numbers.
    static func arguments(for options: PictureOptions) -> [String] {
        var arguments = ["--width=\(options.width)", "--height=\(options.height)", "--scale=\(options.scale)", "--heading=\(options.heading)"]
        if let view = options.view {
            arguments.append("--view=\(view.minX),\(view.minY),\(view.size.width),\(view.size.height)")
        }
        if let basemap = options.basemap { arguments.append("--basemap=\(basemap)") }
        return arguments
    }

    /// Checks that `--view` holds four numbers.
    /// - Throws: A `ValidationError` otherwise.
    public func validate() throws {
        guard view == nil || viewRect != nil else { throw ValidationError("--view takes x,y,width,height in map points") }
    }

    private var viewRect: MapRect? {
        guard let parts = view?.split(separator: ",").compactMap({ Double($0) }), parts.count == 4 else { return nil }
        return MapRect(x: parts[0], y: parts[1], width: parts[2], height: parts[3])
    }

    /// The picture's options, exactly as the parent process had them.
    public var options: PictureOptions {
        PictureOptions(width: width, height: height, scale: scale, heading: heading, view: viewRect, basemap: basemap)
    }
}
