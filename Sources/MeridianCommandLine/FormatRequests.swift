/// `meridian-gdal formats`: `meridian formats`, parsed by `meridian`, run by the helper that
/// links GDAL (exec'd in `meridian`'s place, as `TileRequest` is), which lists GDAL's drivers
/// beside Meridian's own formats. It asks nothing: the request has no fields.
public struct FormatsRequest: HelperRequest {
    /// `formats`.
    public static let subcommand = "formats"

    /// The request to list the formats.
    public init() {}

    /// None: the listing takes no choices.
    public var fields: [(name: String, value: String?)] { [] }

    /// The request, from no fields.
    /// - Throws: `MeridianError` (`usage`) for any field given.
    public init(fields: HelperRequestFields) throws {
        try fields.requireAllTaken()
        self.init()
    }
}

/// `meridian-gdal ogr-driver`: the GDAL driver a format name on `meridian`'s command line means
/// (its short name, then its extensions, one line each), and the drivers that write an
/// extension (one a line), for `meridian`'s format look-ups and hints. `meridian` runs it as a
/// child whose standard error is its own, so an unknown name is reported in the user's words.
public struct OGRDriverRequest: HelperRequest {
    /// `ogr-driver`.
    public static let subcommand = "ogr-driver"
    /// The format name to look up (`--from`, `--to`); nil for none.
    public var name: String?
    /// The extension whose writing drivers are listed (an output's, without the dot); nil for none.
    public var fileExtension: String?

    /// A request to look up `name`, and to list the drivers that write `fileExtension`.
    /// - Parameters:
    ///   - name: A format name, or nil.
    ///   - fileExtension: An extension without the dot, or nil.
    public init(name: String? = nil, fileExtension: String? = nil) {
        (self.name, self.fileExtension) = (name, fileExtension)
    }

    /// The name and the extension, those given.
    public var fields: [(name: String, value: String?)] { [("name", name), ("extension", fileExtension)] }

    /// The request its fields carry.
    /// - Throws: `MeridianError` (`usage`) for an unknown field.
    public init(fields: HelperRequestFields) throws {
        var fields = fields
        self.init(name: fields.text("name"), fileExtension: fields.text("extension"))
        try fields.requireAllTaken()
    }
}
