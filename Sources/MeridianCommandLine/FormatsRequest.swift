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
