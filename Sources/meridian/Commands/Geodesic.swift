import ArgumentParser
import MeridianCore
import MeridianFormats
import MeridianGeometry

extension Commands {
    struct Geodesic: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "geodesic",
            abstract: "Great-circle lines, like MKGeodesicPolyline: between two points, or along any lines.",
            discussion: """
                With --from and --to, writes the great circle between them with a point about every \
                --spacing-km; with an input (standard input when there are neither --from and --to nor a \
                path), densifies its lines and polygon rings along great circles. \
                --antimeridian split cuts lines and polygons at ±180° (RFC 7946); continuous keeps \
                longitudes running past it, as MapKit draws.

                Examples:
                  meridian geodesic --from 33.9416,-118.4085 --to 40.6413,-73.7781 -o lax-jfk.geojson
                  meridian geodesic flights.geojson --spacing-km 10 -o flights-curved.geojson
                """
        )

        @Argument(help: ArgumentHelp("Lines to densify, in any readable format; '-' (or nothing, without --from and --to) reads standard input.",
                                     valueName: "input")) var input: String?
        @Option(parsing: .unconditional, help: ArgumentHelp("Where the line starts.", valueName: LatLon.syntax.valueName)) var from: LatLon?
        @Option(parsing: .unconditional, help: ArgumentHelp("Where the line ends.", valueName: LatLon.syntax.valueName)) var to: LatLon?
        @Option(help: "Kilometres between points.") var spacingKm: Double = 1
        @Option(help: "split: cut at ±180° (RFC 7946); continuous: longitudes run on (MapKit).") var antimeridian: Antimeridian.Style = .split
        @OptionGroup var output: OutputFileOptions
        @OptionGroup var reporting: ReportingOptions

        func validate() throws {
            if (from == nil) != (to == nil) { throw ValidationError("give --from and --to together, or lines to densify") }
            try requireFinite([(spacingKm, "--spacing-km")])
            if spacingKm <= 0 { throw ValidationError("--spacing-km must be positive") }
        }

        /// Streams: the great circle between --from and --to first, then each input feature
        /// densified as it is read and handed on, so memory stays flat however long the input
        /// (as `convert`'s does). An error part-way leaves no output: it is committed only at the end.
        func run() throws {
            try reporting.reporter.run {
                let spacing = spacingKm * 1000
                var ends: Feature?
                if let from, let to {
                    let line = GreatCircle.points(from: from.position, to: to.position, spacing: spacing)
                    let distance = GreatCircle.distance(from.position, to.position)
                    // `overlay`, `from` and `to` let `--to swift` declare an MKGeodesicPolyline.
                    ends = Feature(geometry: Antimeridian.line(line, style: antimeridian), properties: [
                        "overlay": .string("geodesic"), "from": Self.pair(from.position), "to": Self.pair(to.position),
                        "distance_m": .double((distance * 10).rounded() / 10), "points": .integer(Int64(line.count)),
                    ])
                }
                // Without --from and --to, lines to densify come from the path or standard input, as
                // every reading subcommand's do; recorded, so the output is never written over them.
                var source: FeatureInput?
                if input != nil || from == nil {
                    RunInputs.record(input)
                    source = try FeatureInput(path: input, options: ReadOptions(diagnostics: reporting.reporter.report,
                                                                                coordinates: try output.coordinateRule(format: nil)), registry: .commandLine)
                }
                let reporter = reporting.reporter, antimeridian = antimeridian
                let location = source.map { SourceLocation(file: $0.input.name) }
                let features = GeodesicFeatures(first: ends, densifying: source?.reader) { feature in
                    var feature = feature
                    feature.replaceGeometry(with: feature.geometry.map { GreatCircle.densify($0, spacing: spacing, antimeridian: antimeridian) },
                                            at: location, diagnostics: reporter.report)
                    feature.properties = feature.properties ?? [:]
                    feature.properties?["overlay"] = .string("geodesic")
                    feature.bbox = nil
                    return feature
                }
                let destination: FeatureOutput
                do {
                    destination = try output.open(protecting: source?.path, reporter: reporter)
                } catch let unchosen as UnchosenOutputFormat {
                    // Here --to is the end point: the extension alone names the format.
                    throw MeridianError(.usage, unchosen.message, hint: unchosen.hint(
                        choosing: "end -o with the extension of a format Meridian writes (\(FormatNames.writableExtensions)); `meridian convert --to` converts it further"))
                }
                try destination.commit { _ = try copyFeatures(from: features, to: destination.writer) }
            }
        }

        static func pair(_ p: Position) -> JSONValue { .array([.double(p.longitude), .double(p.latitude)]) }
    }
}

/// The features `geodesic` writes, read one at a time: the great circle between the ends
/// first (when there is one), then each input feature densified as it is read. The collection
/// is one of its own, without the input's members (its `name`, its `crs`).
final class GeodesicFeatures: FeatureReader {
    private var first: Feature?
    private let source: (any FeatureReader)?
    private let densify: (Feature) -> Feature

    /// The great circle `first`, then `source`'s features through `densify`.
    init(first: Feature?, densifying source: (any FeatureReader)?, _ densify: @escaping (Feature) -> Feature) {
        (self.first, self.source, self.densify) = (first, source, densify)
    }

    /// None: the output is a collection of its own.
    func readMetadata() throws -> CollectionMetadata { CollectionMetadata() }

    /// The great circle, then the next input feature densified; nil after the last.
    func next() throws -> Feature? {
        if let feature = first {
            first = nil
            return feature
        }
        return try source?.next().map(densify)
    }

    /// None, as `readMetadata()`.
    var trailingMetadata: CollectionMetadata { CollectionMetadata() }
}
