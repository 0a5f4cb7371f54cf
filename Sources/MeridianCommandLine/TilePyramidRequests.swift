/// `meridian-gdal tile-copy`: `meridian tile-copy`, parsed by `meridian`, run by the helper
/// that links SQLite (exec'd in `meridian`'s place, as `TileRequest` is).
public struct TileCopyRequest: HelperRequest {
    /// `tile-copy`.
    public static let subcommand = "tile-copy"
    /// The pyramid to copy: a folder with `metadata.json`, an MBTiles file or a PMTiles archive.
    public var source: String
    /// Where the copy goes.
    public var destination: String
    /// The zoom levels to copy; nil copies every level.
    public var zooms: ClosedRange<Int>?
    /// Print no summary.
    public var quiet: Bool
    /// Whether an MBTiles or PMTiles file already at `destination` is replaced.
    public var replacing = false

    /// A request to copy `source` to `destination`.
    /// - Parameters:
    ///   - source: The pyramid to copy.
    ///   - destination: Where the copy goes.
    ///   - zooms: The levels to copy, or nil for all.
    ///   - quiet: Whether to print no summary.
    public init(source: String, destination: String, zooms: ClosedRange<Int>? = nil, quiet: Bool = false) {
        (self.source, self.destination, self.zooms, self.quiet) = (source, destination, zooms, quiet)
    }

    /// Source, destination, zooms (`MIN-MAX`) and quiet.
    public var fields: [(name: String, value: String?)] {
        [("source", source), ("destination", destination), ("zooms", zooms.map { "\($0.lowerBound)-\($0.upperBound)" }), ("quiet", quiet ? "yes" : nil),
         ("replace", replacing ? "yes" : nil)]
    }

    /// The request its fields carry.
    /// - Throws: `MeridianError` (`usage`) for a field missing or unknown, or zooms not `MIN-MAX`.
    public init(fields: HelperRequestFields) throws {
        var fields = fields
        let zooms = try fields.text("zooms").map { text in
            guard let zooms = ZoomRange(argument: text)?.levels else { throw TileRequest.malformed("zooms is not MIN-MAX: \(text)") }
            return zooms
        }
        self.init(source: try fields.required("source"), destination: try fields.required("destination"), zooms: zooms, quiet: try fields.flag("quiet"))
        replacing = try fields.flag("replace")
        try fields.requireAllTaken()
    }
}

/// `meridian-gdal tile-join`: `meridian tile-join`, parsed by `meridian`, run by the helper
/// that links SQLite (exec'd in `meridian`'s place, as `TileRequest` is).
public struct TileJoinRequest: HelperRequest {
    /// `tile-join`.
    public static let subcommand = "tile-join"
    /// The vector tile sets to join, in order.
    public var inputs: [String]
    /// The joined tile set.
    public var output: String
    /// A CSV table joined onto the features; nil for none.
    public var csv: String?
    /// The table's key column; nil: its first.
    public var csvKey: String?
    /// The only attributes kept (with ``excludesAll``, or alone); empty: see ``excluded``.
    public var included: [String] = []
    /// Attributes left out.
    public var excluded: [String] = []
    /// Whether every attribute but ``included`` is left out.
    public var excludesAll = false
    /// Whether joined tiles over tippecanoe's size limit are written too.
    public var noTileSizeLimit = false
    /// Print no summary.
    public var quiet = false
    /// Whether an MBTiles or PMTiles file already at `output` is replaced.
    public var replacing = false

    /// A request to join `inputs` into `output`, every other choice at its default.
    /// - Parameters:
    ///   - inputs: The vector tile sets.
    ///   - output: The joined tile set.
    public init(inputs: [String], output: String) {
        self.inputs = inputs
        self.output = output
    }

    /// Every field: inputs and the attribute lists as `name.0`, `name.1`, ….
    public var fields: [(name: String, value: String?)] {
        func listed(_ name: String, _ values: [String]) -> [(name: String, value: String?)] { values.enumerated().map { ("\(name).\($0.offset)", $0.element) } }
        return listed("input", inputs) + [("output", output), ("csv", csv), ("csv-key", csvKey)] + listed("include", included) + listed("exclude", excluded)
            + [("exclude-all", excludesAll ? "yes" : nil), ("no-tile-size-limit", noTileSizeLimit ? "yes" : nil), ("quiet", quiet ? "yes" : nil),
               ("replace", replacing ? "yes" : nil)]
    }

    /// The request its fields carry.
    /// - Throws: `MeridianError` (`usage`) for a field missing, unknown or not `yes` where a flag is.
    public init(fields: HelperRequestFields) throws {
        var fields = fields
        self.init(inputs: fields.list("input"), output: try fields.required("output"))
        (csv, csvKey, included, excluded) = (fields.text("csv"), fields.text("csv-key"), fields.list("include"), fields.list("exclude"))
        (excludesAll, noTileSizeLimit, quiet) = (try fields.flag("exclude-all"), try fields.flag("no-tile-size-limit"), try fields.flag("quiet"))
        replacing = try fields.flag("replace")
        try fields.requireAllTaken()
    }
}
