import MeridianGeometry

/// A GroundOverlay's image and where its corners lie on Earth, from the feature the KML reader
/// makes of it (`@geometry-type` "groundoverlay", the image in `icon`, a polygon ring). What
/// `meridian tile` georeferences a KML or KMZ overlay with.
public struct KMLGroundOverlay: Sendable {
    public var name: String?
    /// The image's `<Icon><href>` as written: a path relative to the document, or a URL.
    public var imageHref: String
    /// Where the image's corners lie: upper-left, upper-right, lower-right, lower-left.
    public var corners: [Position]

    /// The overlay a feature describes; nil for any other feature, or an overlay without an
    /// image or a place.
    public init?(_ feature: Feature) {
        guard let properties = feature.properties, properties["@geometry-type"]?.stringValue == "groundoverlay",
              let href = properties["icon"]?.stringValue, !href.isEmpty,
              case .polygon(let polygon)? = feature.geometry, let ring = polygon.exterior, ring.count >= 4 else { return nil }
        name = properties["name"]?.stringValue
        imageHref = href
        // The reader's rings (KMLContext.groundOverlay): a LatLonBox (which also sets the
        // feature's bbox) from its north-west corner clockwise, as togeojson draws it; a
        // gx:LatLonQuad as written, which KML orders from the image's lower-left corner
        // counter-clockwise.
        let four = Array(ring.prefix(4))
        corners = feature.bbox != nil ? four : [four[3], four[2], four[1], four[0]]
    }
}
