import MeridianGeometry

/// A GroundOverlay: its image and where the image's corners lie on Earth, as the KML says it
/// (a LatLonBox turned by its rotation, or a gx:LatLonQuad). The KML reader makes one for each
/// GroundOverlay and hands it out beside the feature it becomes
/// (`KMLDocumentReader.groundOverlay`); `meridian tile` georeferences the image with it.
public struct KMLGroundOverlay: Sendable, Hashable {
    /// The GroundOverlay's `<name>`, if it has one.
    public var name: String?
    /// The image's `<Icon><href>` as written: a path relative to the document, or a URL.
    public var imageHref: String
    /// Where the image's corners lie: upper-left, upper-right, lower-right, lower-left.
    public var corners: [Position]

    init(name: String?, imageHref: String, corners: [Position]) {
        self.name = name
        self.imageHref = imageHref
        self.corners = corners
    }
}
