import ArgumentParser
import MeridianCore
import MeridianFormats
import MeridianGeometry

extension Commands {
    struct Simplify: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "simplify",
            abstract: "Simplify lines and polygons for a MapKit zoom scale or level.",
            discussion: """
                The tolerance is in screen points, turned into map points through the zoom scale, and \
                the work happens in map-point space, as MapKit draws. 'radial' is Apple's Breadcrumb \
                filter (a point is kept once it is --tolerance points from the last kept one); \
                'douglas-peucker' matches shapely's simplify(preserve_topology=False); 'visvalingam' \
                drops the smallest triangles. Polygons stay valid: where simplifying would make rings \
                cross or touch, or leave a hole or an island on the wrong side, input positions are \
                put back. Rings smaller than the tolerance are dropped, and so are features left with \
                nothing bigger (a country smaller than a pixel): both are counted on stderr. \
                --keep-small keeps every feature: its largest ring as a tiny polygon (three of its own \
                positions, a valid polygon), a line that would shrink to a point as two positions. With \
                --keep-topology, borders that neighbouring features share are simplified once and \
                stay shared (the input is read into memory for this).

                Example:
                  meridian simplify route.geojson --zoom-level 12 --method radial -o route-z12.geojson
                """
        )

        @OptionGroup var input: InputOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "The zoom scale: screen points per map point (MKZoomScale).") var zoomScale: Double?
        @Option(help: "The zoom level (20 + log2 of the zoom scale).") var zoomLevel: Double?
        @Option(help: "The tolerance in screen points.") var tolerance: Double = 5
        @Option(help: "radial, douglas-peucker or visvalingam.") var method: SimplifyMethod = .douglasPeucker
        @Flag(help: "Keep borders that neighbouring features share shared (reads the whole input into memory).")
        var keepTopology = false
        @Flag(help: "Keep every feature: one smaller than the tolerance keeps its largest ring as a tiny polygon (a line, two positions).")
        var keepSmall = false
        @OptionGroup var reporting: ReportingOptions

        func validate() throws {
            guard (zoomScale == nil) != (zoomLevel == nil) else { throw ValidationError("give --zoom-scale or --zoom-level") }
            try requireFinite([(zoomScale, "--zoom-scale"), (zoomLevel, "--zoom-level"), (tolerance, "--tolerance")])
            if let zoomScale, zoomScale <= 0 { throw ValidationError("--zoom-scale must be positive") }
            if let zoomLevel { try checkZoomLevel(zoomLevel, option: "--zoom-level") }
            if tolerance < 0 { throw ValidationError("--tolerance must not be negative") }
            try input.refuseFolderTree()
        }

        func run() throws {
            let scale = zoomScale ?? ZoomScale.scale(forLevel: zoomLevel!)
            var simplifier = GeometrySimplifier(tolerance: tolerance / scale, method: method, keepSmall: keepSmall)
            var featureCount = 0
            if keepTopology {
                try runPipeline(input: input, output: output, reporting: reporting) { source, destination, progress in
                    let list = try FeatureList(reading: source.reader, progress: progress.update)
                    featureCount = list.features.count
                    list.features = simplifier.simplifyKeepingTopology(list.features)
                    try copyFeatures(from: list, to: destination.writer)
                }
            } else {
                featureCount = try runGeometryPipeline(input: input, output: output, reporting: reporting) { simplifier.simplify($0) }.read
            }
            report(simplifier, of: featureCount)
        }

        /// What simplifying dropped, on stderr: whole features first (what users miss), then parts.
        func report(_ simplifier: GeometrySimplifier, of featureCount: Int) {
            let reporter = reporting.reporter
            let features = simplifier.droppedGeometries
            if features > 0 {
                reporter.report(Diagnostic(.note, "\(features) of \(featureCount) features \(features == 1 ? "was" : "were") dropped whole: "
                                               + "nothing of \(features == 1 ? "it" : "them") is bigger than the tolerance at this zoom",
                                           hint: "--keep-small keeps each as a tiny polygon (or a two-position line)"))
            }
            if !simplifier.droppedPositionData.isEmpty {
                reporter.report(.positionDataDropped(simplifier.droppedPositionData.sorted(), "cannot follow the changed positions", at: nil))
            }
            let parts = [(simplifier.droppedRings, "ring"), (simplifier.droppedLines, "line")].filter { $0.0 > 0 }
            if !parts.isEmpty {
                let text = listed(parts.map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")" }, conjunction: "and")
                let one = parts.count == 1 && parts[0].0 == 1
                reporter.report(Diagnostic(.note, "\(text) smaller than the tolerance \(one ? "was" : "were") dropped"))
            }
        }
    }
}

extension SimplifyMethod: ExpressibleByArgument {}
