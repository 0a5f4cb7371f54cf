import MeridianGeometry

// Pictures are drawn outside this module (MeridianPicture links cairo; the command line has the
// `meridian-draw` helper draw them), so that reading and writing data never needs a drawing
// library. What every picture writer is told, and what the picture formats are called, lives
// here, in this module's folder of the picture formats, where the registry can name it.

/// What a picture (SVG or PNG) shows and how big it is.
public struct PictureOptions: FormatWriteOptions, Hashable {
    /// Size in points (CSS pixels); PNG multiplies by `scale`.
    public var width: Int
    /// Height in points (CSS pixels); PNG multiplies by `scale`.
    public var height: Int
    /// Pixels per point for PNG: 1, 2 or 3, as on Apple's screens.
    public var scale: Int
    /// Degrees clockwise from north that point up (MKMapCamera's heading).
    public var heading: Double
    /// The part of the world to show, in map points; nil fits the data.
    public var view: MapRect?
    /// A tile folder (z/x/y.png, .jpg or .webp; XYZ, or TMS as its metadata.json or a
    /// tilemapresource.xml says), an MBTiles file or a PMTiles archive drawn under the overlays
    /// (PNG pictures only).
    public var basemap: String?

    /// What a picture shows and how big it is; the defaults are 800 × 600 points at scale 1, north
    /// up, fitting the data, without a basemap.
    /// - Parameters:
    ///   - width: Width in points.
    ///   - height: Height in points.
    ///   - scale: Pixels per point for PNG: 1, 2 or 3.
    ///   - heading: Degrees clockwise from north that point up.
    ///   - view: The part of the world to show, in map points; nil fits the data.
    ///   - basemap: A tile folder, MBTiles file or PMTiles archive to draw under PNG pictures, or nil.
    public init(width: Int = 800, height: Int = 600, scale: Int = 1, heading: Double = 0, view: MapRect? = nil, basemap: String? = nil) {
        self.width = width
        self.height = height
        self.scale = scale
        self.heading = heading
        self.view = view
        self.basemap = basemap
    }

    /// 800 × 600 points at scale 1, north up, fitting the data, without a basemap.
    public init() { self.init(width: 800, height: 600) }
}

/// The picture formats by name: what they are called and their files' extensions, the same
/// wherever they are drawn.
public enum PictureKind: String, Sendable, CaseIterable {
    case svg, png

    /// The format, with `writer` drawing it.
    public func format(drawnBy writer: @escaping @Sendable (OutputSink, WriteOptions) throws -> any FeatureWriter) -> FeatureFormat {
        switch self {
        case .svg: FeatureFormat(id: "svg", displayName: "SVG", extensions: ["svg"], mediaType: "image/svg+xml", writeOptions: PictureOptions.self,
                                 needsGeographicCoordinates: true, writer: writer)
        case .png: FeatureFormat(id: "png", displayName: "PNG picture", extensions: ["png"], mediaType: "image/png", writeOptions: PictureOptions.self,
                                 isBinary: true, needsGeographicCoordinates: true, writer: writer)
        }
    }
}
