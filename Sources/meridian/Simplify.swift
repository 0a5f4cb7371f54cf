import ArgumentParser
import MeridianFormats
import MeridianGeometry

struct SimplifyCommand: ParsableCommand {
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
            put back. Rings smaller than the tolerance are dropped and counted on stderr. With \
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
    @OptionGroup var reporting: ReportingOptions

    func validate() throws {
        guard (zoomScale == nil) != (zoomLevel == nil) else { throw ValidationError("give --zoom-scale or --zoom-level") }
        if let zoomScale, zoomScale <= 0 { throw ValidationError("--zoom-scale must be positive") }
        if tolerance < 0 { throw ValidationError("--tolerance must not be negative") }
    }

    func run() throws {
        let scale = zoomScale ?? ZoomScale.scale(forLevel: zoomLevel!)
        var simplifier = GeometrySimplifier(tolerance: tolerance / scale, method: method)
        if keepTopology {
            try runPipeline(input: input, output: output, reporting: reporting) { source, destination, progress in
                let list = try FeatureList(reading: source.reader, progress: progress.update)
                list.features = simplifier.simplifyKeepingTopology(list.features)
                try copyFeatures(from: list, to: destination.writer)
            }
        } else {
            try runGeometryPipeline(input: input, output: output, reporting: reporting) { simplifier.simplify($0) }
        }
        if simplifier.droppedRings > 0 {
            reporting.reporter.report(Diagnostic(.note, "\(simplifier.droppedRings) ring(s) smaller than the tolerance were dropped"))
        }
    }
}

extension SimplifyMethod: ExpressibleByArgument {}
