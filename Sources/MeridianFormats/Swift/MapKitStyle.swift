import MeridianCore
import MeridianGeometry

/// What `--to swift` writes beyond the shapes: where overlays go, how annotations cluster and
/// rank, and whether the geometry is embedded as literals or read from a GeoJSON resource.
public struct MapKitSourceOptions: FormatWriteOptions {
    /// `MKOverlayLevel`: the level the generated `add(to:)` puts the overlays at.
    public enum OverlayLevel: String, CaseIterable, Sendable {
        /// Over roads, under their labels (`.aboveRoads`, MapKit's default).
        case aboveRoads = "above-roads"
        /// Over everything, labels included (`.aboveLabels`).
        case aboveLabels = "above-labels"

        var swiftName: String { self == .aboveRoads ? "aboveRoads" : "aboveLabels" }
    }

    /// How the geometry reaches the app.
    public enum GeometryForm: String, CaseIterable, Sendable {
        /// Literals up to ``MapKitSourceOptions/literalPositionLimit`` positions, a resource past it.
        case auto
        /// Coordinates as Swift literals in the source, whatever the size.
        case literals
        /// A GeoJSON file beside the source, read with `MKGeoJSONDecoder`.
        case resource
    }

    /// The name of the enum that holds the declarations (nil: the output file's name in
    /// UpperCamelCase, else `MeridianOverlays`), so several generated files can live in one app.
    public var typeName: String?
    /// The overlays' level in `add(to:)`.
    public var overlayLevel = OverlayLevel.aboveRoads
    /// The property whose value is each marker's `clusteringIdentifier`; nil clusters by the
    /// feature's `layer`, else its KML `folder`, else the generated type's name.
    public var clusterBy: String?
    /// The property giving each marker's `displayPriority` (a number from 0 to 1000, or
    /// `required`, `high`, `low`); nil leaves MapKit's `.required`.
    public var displayPriorityBy: String?
    /// Literals or a resource.
    public var geometry = GeometryForm.auto

    /// Past this many positions `auto` writes a resource. Measured with `swiftc -c` (debug, one
    /// frontend job): 10,000 positions are about 270 KB of literals and compile in 4 s, the
    /// loader in 2 s whatever the size; 50,000 (1.3 MB) take 53 s and 150,000 (4 MB) 121 s and
    /// 750 MB, though type-checking them takes only 1.9 s and 4.9 s (docs/convert.md, MapKit Swift).
    public static let literalPositionLimit = 10_000

    /// The defaults: overlays above roads, markers clustered per layer, geometry by size.
    public init() {}
}

/// How one feature is drawn in MapKit, from its simplestyle properties: what is absent stays
/// nil, so the generated code leaves MapKit's default for it.
struct MapKitStyle: Hashable {
    var stroke: RGB?
    var strokeOpacity: Double?
    var lineWidth: Double?
    var fill: RGB?
    var fillOpacity: Double?
    /// `marker-color`, else KML's IconStyle colour (`icon-color`).
    var markerTint: RGB?
    /// A short `marker-symbol` (a letter, a number, an emoji) is the marker's glyph text; a longer
    /// one is looked up as an SF Symbol name at run time.
    var glyphText: String?
    var glyphSymbol: String?
    var clusteringIdentifier: String?
    var displayPriority: Float?

    /// The most characters a `marker-symbol` written as glyph text has: MapKit's glyph shows a few.
    static let glyphTextLimit = 3

    init(_ properties: JSONObject, options: MapKitSourceOptions, defaultCluster: String) {
        func color(_ key: String) -> RGB? { properties[key]?.stringValue.flatMap(RGB.init(css:)) }
        func opacity(_ key: String) -> Double? { properties[key]?.doubleValue.map { min(max($0, 0), 1) } }
        stroke = color("stroke")
        strokeOpacity = opacity("stroke-opacity")
        lineWidth = properties["stroke-width"]?.doubleValue.map { max($0, 0) }
        fill = color("fill")
        fillOpacity = opacity("fill-opacity")
        markerTint = color("marker-color") ?? color("icon-color")
        if let symbol = properties["marker-symbol"]?.displayText, !symbol.isEmpty {
            if symbol.count <= Self.glyphTextLimit { glyphText = symbol } else { glyphSymbol = symbol }
        }
        if let key = options.clusterBy {
            clusteringIdentifier = properties[key]?.displayText
        } else {
            clusteringIdentifier = properties["layer"]?.displayText ?? properties["folder"]?.displayText ?? defaultCluster
        }
        if let key = options.displayPriorityBy { displayPriority = Self.displayPriority(properties[key]) }
    }

    /// `MKFeatureDisplayPriority`'s raw value: a number (or a number's text, as KML's
    /// ExtendedData holds it) clamped to 0…1000, or its three names.
    static func displayPriority(_ value: JSONValue?) -> Float? {
        if let number = value?.doubleValue ?? value?.stringValue.flatMap(Double.init) { return Float(min(max(number, 0), 1000)) }
        switch value?.stringValue?.lowercased() {
        case "required": return 1000
        case "high", "defaulthigh": return 750
        case "low", "defaultlow": return 250
        default: return nil
        }
    }

    /// `Style(…)` in the generated source, naming only what is set.
    var swiftExpression: String {
        var arguments: [String] = []
        func hex(_ rgb: RGB) -> String {
            let digits = rgb.css.dropFirst().uppercased()
            return "0x" + digits
        }
        if let stroke { arguments.append("stroke: \(hex(stroke))") }
        if let strokeOpacity { arguments.append("strokeOpacity: \(strokeOpacity)") }
        if let lineWidth { arguments.append("lineWidth: \(lineWidth)") }
        if let fill { arguments.append("fill: \(hex(fill))") }
        if let fillOpacity { arguments.append("fillOpacity: \(fillOpacity)") }
        if let markerTint { arguments.append("markerTint: \(hex(markerTint))") }
        if let glyphText { arguments.append("glyphText: \(MapKitSourceWriter.stringLiteral(glyphText))") }
        if let glyphSymbol { arguments.append("glyphSymbol: \(MapKitSourceWriter.stringLiteral(glyphSymbol))") }
        if let clusteringIdentifier { arguments.append("clusteringIdentifier: \(MapKitSourceWriter.stringLiteral(clusteringIdentifier))") }
        if let displayPriority { arguments.append("displayPriority: \(displayPriority)") }
        return "Style(\(arguments.joined(separator: ", ")))"
    }
}
