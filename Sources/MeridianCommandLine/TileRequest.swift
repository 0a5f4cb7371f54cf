import MeridianCore
import MeridianTilingRequest

/// `meridian-gdal tile`: `meridian tile`, parsed by `meridian`, run by the helper that links
/// GDAL. `meridian` replaces itself with the helper (exec), so the run keeps the user's
/// terminal, signals and exit code; the request carries the `TilingJobRequest` and what only
/// the command line knows (how to print, the user's own words for the note an interruption
/// prints). Every field travels as words `name=value` (lists as `name.0`, `name.1`, …).
public struct TileRequest: HelperRequest {
    /// `tile`.
    public static let subcommand = "tile"

    /// How a plan is printed.
    public enum PlanFormat: String, Sendable, CaseIterable {
        /// Lines of text.
        case text
        /// One JSON object.
        case json
    }

    /// The job: inputs, output and every choice.
    public var job: TilingJobRequest
    /// A file listing more raster inputs (one path a line, relative to its folder), read by the helper; nil for none.
    public var inputList: String?
    /// Whether the shard is the batch engine's (read from the environment, which exec keeps),
    /// rather than `job.shard`.
    public var shardFromEnvironment = false
    /// Print the plan in this form instead of tiling; nil tiles.
    public var plan: PlanFormat?
    /// Print no progress and no notes.
    public var quiet = false
    /// The user's arguments after `meridian tile`, for the command an interruption note prints.
    public var command: [String] = []

    /// A request to run `job`, every command-line choice at its default.
    /// - Parameter job: The tiling job's request.
    public init(job: TilingJobRequest) {
        self.job = job
    }

    /// Every field of the job, its choices and the command line's.
    public var fields: [(name: String, value: String?)] {
        let raster = job.raster, source = raster.source, vector = job.vector
        var fields: [(name: String, value: String?)] = Self.listed("input", job.inputs) + [
            ("input-list", inputList), ("output", job.output), ("tile-format", job.tileFormat?.rawValue),
            ("zooms", job.zooms.map { "\($0.lowerBound)-\($0.upperBound)" }), ("scheme", job.scheme.rawValue),
            ("tile-size", job.tileSize.map(String.init)), ("background", job.background.map { "\($0.red),\($0.green),\($0.blue)" }),
            ("jobs", job.jobs.map(String.init)), ("resume", Self.yes(job.resume)), ("replace", Self.yes(job.replacesExistingFile)), ("viewer", Self.yes(job.viewer)), ("kml", Self.yes(job.kml)),
            ("shard", job.shard?.description), ("shard-from-environment", Self.yes(shardFromEnvironment)), ("finish", Self.yes(job.finish)),
            ("shards", job.shardCount.map(String.init)),
            ("bands", source.bands.map { $0.map(String.init).joined(separator: ",") }), ("nodata", source.noData.map { "\($0)" }),
        ]
        fields += Self.listed("gcp", source.controlPoints.map { "\($0.pixel),\($0.line),\($0.latitude),\($0.longitude)" })
        fields += [
            ("gcp-method", source.controlPointMethod?.rawValue), ("no-cutline", Self.yes(!source.cutCollar)),
            ("quilt", raster.quilt?.rawValue), ("overzoom", raster.overzoom.map(String.init)), ("resampling", raster.resampling?.rawValue),
            ("gdal-warp", Self.yes(raster.measurement.gdalWarperOnly)), ("profile", Self.yes(raster.measurement.timesStages)),
            ("gdal-cache-mb", raster.measurement.gdalCacheMegabytes.map(String.init)),
            ("excluded-values", raster.excludedValues.map { $0.colours.map { "\($0.red),\($0.green),\($0.blue)" }.joined(separator: ";") }),
            ("excluded-values-threshold", raster.excludedValues.map { "\($0.thresholdPercent)" }),
        ]
        fields += Self.listed("layer-name", job.layerNames)
        fields += [
            ("maximum-tile-bytes", vector.maximumTileBytes.map(String.init)), ("maximum-tile-features", vector.maximumTileFeatures.map(String.init)),
            ("drop-rate", vector.dropRate.map { "\($0)" }), ("base-zoom", vector.baseZoom.map(String.init)), ("over-limit", vector.overLimit?.rawValue),
            ("extend-zooms", Self.yes(vector.extendZoomsIfStillDropping)), ("no-tiny-polygon-reduction", Self.yes(!vector.reducesTinyPolygons)),
            ("cluster-distance", vector.clusterDistance.map(String.init)), ("exclude-all", Self.yes(vector.excludesAll)),
        ]
        fields += Self.listed("accumulate", vector.accumulations.map { "\($0.name):\($0.how.rawValue)" })
        fields += Self.listed("include", vector.included) + Self.listed("exclude", vector.excluded)
        fields += [("plan", plan?.rawValue), ("quiet", Self.yes(quiet))]
        return fields + Self.listed("command", command)
    }

    /// The request its fields carry.
    /// - Throws: `MeridianError` (`usage`) for a field missing, unknown or whose value does not read.
    public init(fields: HelperRequestFields) throws {
        var fields = fields
        var job = TilingJobRequest(inputs: fields.list("input"), output: try fields.required("output"), jobs: try fields.integer("jobs"))
        let inputList = fields.text("input-list")
        job.tileFormat = try fields.choice("tile-format")
        job.zooms = try fields.text("zooms").map { text in
            guard let zooms = ZoomRange(argument: text)?.levels else { throw Self.malformed("zooms is not MIN-MAX: \(text)") }
            return zooms
        }
        job.scheme = try fields.choice("scheme") ?? .xyz
        job.tileSize = try fields.integer("tile-size")
        job.background = try fields.text("background").map { try Self.colour($0, "background") }
        (job.resume, job.viewer, job.kml) = (try fields.flag("resume"), try fields.flag("viewer"), try fields.flag("kml"))
        job.replacesExistingFile = try fields.flag("replace")
        job.shard = try fields.text("shard").map { text in
            guard let shard = TileShard(text) else { throw Self.malformed("shard is not K/N: \(text)") }
            return shard
        }
        let shardFromEnvironment = try fields.flag("shard-from-environment")
        (job.finish, job.shardCount) = (try fields.flag("finish"), try fields.integer("shards"))
        job.raster.source.bands = try fields.text("bands").map { text in
            try text.split(separator: ",", omittingEmptySubsequences: false).map { band in
                guard let value = Int(band) else { throw Self.malformed("bands is not a list of whole numbers: \(text)") }
                return value
            }
        }
        job.raster.source.noData = try fields.number("nodata")
        job.raster.source.controlPoints = try fields.list("gcp").map { text in
            let values = text.split(separator: ",", omittingEmptySubsequences: false).compactMap { Double($0) }.filter(\.isFinite)
            guard values.count == 4, text.split(separator: ",", omittingEmptySubsequences: false).count == 4 else {
                throw Self.malformed("gcp is not PIXEL,LINE,LAT,LON: \(text)")
            }
            return ControlPoint(pixel: values[0], line: values[1], latitude: values[2], longitude: values[3])
        }
        job.raster.source.controlPointMethod = try fields.choice("gcp-method")
        job.raster.source.cutCollar = !(try fields.flag("no-cutline"))
        (job.raster.quilt, job.raster.overzoom, job.raster.resampling) = (try fields.choice("quilt"), try fields.integer("overzoom"), try fields.choice("resampling"))
        job.raster.measurement.gdalWarperOnly = try fields.flag("gdal-warp")
        job.raster.measurement.timesStages = try fields.flag("profile")
        job.raster.measurement.gdalCacheMegabytes = try fields.integer("gdal-cache-mb")
        let threshold = try fields.number("excluded-values-threshold")
        job.raster.excludedValues = try fields.text("excluded-values").map { text in
            let colours = try text.split(separator: ";", omittingEmptySubsequences: false).map { try Self.colour(String($0), "excluded-values") }
            guard let excluded = ExcludedValues(colours: colours, thresholdPercent: threshold ?? ExcludedValues.defaultThresholdPercent) else {
                throw Self.malformed("excluded-values needs a colour and a threshold from 0 to 100")
            }
            return excluded
        }
        job.layerNames = fields.list("layer-name")
        job.vector.maximumTileBytes = try fields.integer("maximum-tile-bytes")
        job.vector.maximumTileFeatures = try fields.integer("maximum-tile-features")
        (job.vector.dropRate, job.vector.baseZoom, job.vector.overLimit) = (try fields.number("drop-rate"), try fields.integer("base-zoom"), try fields.choice("over-limit"))
        job.vector.extendZoomsIfStillDropping = try fields.flag("extend-zooms")
        job.vector.reducesTinyPolygons = !(try fields.flag("no-tiny-polygon-reduction"))
        job.vector.clusterDistance = try fields.integer("cluster-distance")
        job.vector.excludesAll = try fields.flag("exclude-all")
        job.vector.accumulations = try fields.list("accumulate").map { text in
            guard let colon = text.lastIndex(of: ":"), let how = ClusterAccumulation(rawValue: String(text[text.index(after: colon)...])) else {
                throw Self.malformed("accumulate is not NAME:HOW: \(text)")
            }
            return (String(text[..<colon]), how)
        }
        (job.vector.included, job.vector.excluded) = (fields.list("include"), fields.list("exclude"))
        self.init(job: job)
        (self.inputList, self.shardFromEnvironment) = (inputList, shardFromEnvironment)
        (plan, quiet, command) = (try fields.choice("plan"), try fields.flag("quiet"), fields.list("command"))
        try fields.requireAllTaken()
    }

    /// `yes` for true, nothing for false (a flag not set is not written).
    private static func yes(_ flag: Bool) -> String? { flag ? "yes" : nil }

    /// `name.0`, `name.1`, … for each of `values`.
    private static func listed(_ name: String, _ values: [String]) -> [(name: String, value: String?)] {
        values.enumerated().map { ("\(name).\($0.offset)", $0.element) }
    }

    /// `R,G,B` (each 0-255) read back.
    private static func colour(_ text: String, _ field: String) throws -> RGB {
        let values = text.split(separator: ",", omittingEmptySubsequences: false).compactMap { UInt8($0) }
        guard values.count == 3, text.split(separator: ",", omittingEmptySubsequences: false).count == 3 else {
            throw malformed("\(field) is not R,G,B: \(text)")
        }
        return RGB(values[0], values[1], values[2])
    }

    /// The error for a request that does not read: `meridian`'s mistake, not the user's.
    static func malformed(_ what: String) -> MeridianError {
        MeridianError(.usage, "\(subcommand) request: \(what)", hint: "\(subcommand) is run by meridian, not by people")
    }
}

extension HelperRequestFields {
    /// The list `name.0`, `name.1`, … (until one is missing), taken.
    mutating func list(_ name: String) -> [String] {
        var values: [String] = []
        while let value = text("\(name).\(values.count)") { values.append(value) }
        return values
    }

    /// The flag: true when given as `yes`.
    mutating func flag(_ name: String) throws -> Bool {
        guard let text = text(name) else { return false }
        guard text == "yes" else { throw TileRequest.malformed("\(name) is not yes: \(text)") }
        return true
    }

    /// One of `Choice`'s cases, by its raw value; nil when not given.
    mutating func choice<Choice: RawRepresentable & CaseIterable>(_ name: String) throws -> Choice? where Choice.RawValue == String {
        try text(name).map { text in
            guard let choice = Choice(rawValue: text) else {
                throw TileRequest.malformed("\(name) is not one of \(Choice.allCases.map(\.rawValue).joined(separator: ", ")): \(text)")
            }
            return choice
        }
    }
}
