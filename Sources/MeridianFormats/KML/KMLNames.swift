/// Element names as the KML reader sees them: KML's own namespace dropped, Google's extension
/// namespace written `gx:`, and case slips (`<placemark>`, `<LineString>` as `<linestring>`)
/// corrected to the spelling of the KML 2.2 schema.
enum KMLNames {
    static let kmlNamespaces: Set<String> = [
        "http://www.opengis.net/kml/2.2", "http://earth.google.com/kml/2.0", "http://earth.google.com/kml/2.1",
        "http://earth.google.com/kml/2.2", "http://www.google.com/kml/ext/2.2",
    ]
    static let extensionNamespace = "http://www.google.com/kml/ext/2.2"

    /// Every KML 2.2 and gx element name the reader acts on, so a wrongly cased name can be put
    /// right (with a warning).
    static let known: [String] = [
        "kml", "Document", "Folder", "Placemark", "NetworkLink", "GroundOverlay", "PhotoOverlay", "ScreenOverlay",
        "name", "description", "address", "phoneNumber", "Snippet", "visibility", "open", "styleUrl", "Style", "StyleMap",
        "Pair", "key", "LineStyle", "PolyStyle", "IconStyle", "LabelStyle", "BalloonStyle", "ListStyle", "color",
        "colorMode", "width", "fill", "outline", "scale", "heading", "hotSpot", "Icon", "href", "Link", "Url",
        "Point", "LineString", "LinearRing", "Polygon", "MultiGeometry", "Model", "Location", "longitude", "latitude",
        "altitude", "outerBoundaryIs", "innerBoundaryIs", "coordinates", "altitudeMode", "extrude", "tessellate",
        "ExtendedData", "Data", "value", "displayName", "SchemaData", "SimpleData", "Schema", "SimpleField",
        "TimeStamp", "TimeSpan", "when", "begin", "end", "LatLonBox", "north", "south", "east", "west", "rotation",
        "gx:Track", "gx:MultiTrack", "gx:coord", "gx:angles", "gx:SimpleArrayData", "gx:value", "gx:LatLonQuad",
        "gx:altitudeMode", "gx:interpolate", "drawOrder", "refreshMode", "viewRefreshMode",
    ]

    private static let byLowercase: [String: String] = Dictionary(
        known.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })

    /// The canonical name for a raw element name, given the prefixes bound so far; and whether
    /// the case had to be corrected.
    static func canonical(_ raw: String, prefixes: [String: String]) -> (name: String, correctedCase: Bool) {
        var name = raw
        if let colon = raw.firstIndex(of: ":") {
            let prefix = String(raw[..<colon])
            let local = String(raw[raw.index(after: colon)...])
            let namespace = prefixes[prefix]
            if namespace == extensionNamespace || (namespace == nil && prefix == "gx") {
                name = "gx:" + local
            } else if let namespace, kmlNamespaces.contains(namespace) || prefix == "kml" {
                name = local
            } else if namespace == nil && prefix == "kml" {
                name = local
            }
        }
        if let fixed = byLowercase[name.lowercased()], fixed != name {
            return (fixed, true)
        }
        return (name, false)
    }
}
