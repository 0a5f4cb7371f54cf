/// The part of the generated source that does not depend on the features: the style type, the
/// shape subclasses that carry it, `renderer(for:)`, `annotationView(for:in:)` and, for the
/// resource form, the loader. All of it is nested in the generated enum, so two generated files
/// never declare the same name. What touches views and the map view is `@MainActor`, as UIKit's
/// and AppKit's views are, so the source compiles in Swift 6 mode; the shapes are made anywhere.
enum MapKitSourceSupport {
    /// The declarations, indented for the enum's body.
    /// - Parameters:
    ///   - typeName: The enum's name (the marker views' reuse identifier starts with it).
    ///   - styles: `Style(…)` expressions, in the order the shapes index them.
    ///   - overlayLevel: The level `add(to:)` uses.
    ///   - resourceName: The GeoJSON resource's name without `.geojson`, for the resource form;
    ///     nil when the shapes are literals.
    static func source(typeName: String, styles: [String], overlayLevel: MapKitSourceOptions.OverlayLevel, resourceName: String?) -> String {
        var text = """
                /// The level `add(to:)` puts the overlays at.
                static let overlayLevel = MKOverlayLevel.\(overlayLevel.swiftName)

                /// How a feature is drawn: its simplestyle properties as MapKit takes them; nil leaves
                /// MapKit's default. Colours are 0xRRGGBB.
                struct Style: Sendable {
                    var stroke: UInt32? = nil
                    var strokeOpacity: Double? = nil
                    var lineWidth: Double? = nil
                    var fill: UInt32? = nil
                    var fillOpacity: Double? = nil
                    var markerTint: UInt32? = nil
                    /// A short `marker-symbol`, shown as the marker's glyph.
                    var glyphText: String? = nil
                    /// A longer `marker-symbol`, shown as the SF Symbol of that name when there is one.
                    var glyphSymbol: String? = nil
                    var clusteringIdentifier: String? = nil
                    var displayPriority: Float? = nil
                }

                /// Every feature's style, once each.
                static let styles: [Style] = [

            """
        for style in styles { text += "        \(style),\n" }
        text += """
                ]

                // MapKit's shapes, each carrying its feature's style for the renderer or marker view.
                final class Polyline: MKPolyline { var style = Style() }
                final class GeodesicPolyline: MKGeodesicPolyline { var style = Style() }
                final class Polygon: MKPolygon { var style = Style() }
                final class Circle: MKCircle { var style = Style() }
                final class MultiPolyline: MKMultiPolyline { var style = Style() }
                final class MultiPolygon: MKMultiPolygon { var style = Style() }
                final class Annotation: MKPointAnnotation { var style = Style() }

                /// The renderer for one of these overlays, styled as its feature asks; any other overlay
                /// gets a plain `MKOverlayRenderer`. For `mapView(_:rendererFor:)`.
                @MainActor static func renderer(for overlay: MKOverlay) -> MKOverlayRenderer {
                    switch overlay {
                    case let shape as Polyline: return styled(MKPolylineRenderer(polyline: shape), shape.style, fills: false)
                    case let shape as GeodesicPolyline: return styled(MKPolylineRenderer(polyline: shape), shape.style, fills: false)
                    case let shape as Polygon: return styled(MKPolygonRenderer(polygon: shape), shape.style, fills: true)
                    case let shape as Circle: return styled(MKCircleRenderer(circle: shape), shape.style, fills: true)
                    case let shape as MultiPolyline: return styled(MKMultiPolylineRenderer(multiPolyline: shape), shape.style, fills: false)
                    case let shape as MultiPolygon: return styled(MKMultiPolygonRenderer(multiPolygon: shape), shape.style, fills: true)
                    default: return MKOverlayRenderer(overlay: overlay)
                    }
                }

                /// The reuse identifier of these annotations' marker views.
                static let markerReuseIdentifier = "\(typeName).marker"

                /// A marker view for one of these annotations, reused from `mapView` when it has one,
                /// configured from its feature's style; nil for any other annotation (clusters, the
                /// user's location), which keeps MapKit's view. For `mapView(_:viewFor:)`.
                @MainActor static func annotationView(for annotation: MKAnnotation, in mapView: MKMapView) -> MKAnnotationView? {
                    guard let annotation = annotation as? Annotation else { return nil }
                    let view = mapView.dequeueReusableAnnotationView(withIdentifier: markerReuseIdentifier) as? MKMarkerAnnotationView
                        ?? MKMarkerAnnotationView(annotation: annotation, reuseIdentifier: markerReuseIdentifier)
                    view.annotation = annotation
                    // Every property is set, so a reused view keeps nothing of its last annotation.
                    let style = annotation.style
                    view.markerTintColor = style.markerTint.map { color($0) }
                    view.glyphText = style.glyphText
                    view.glyphImage = style.glyphSymbol.flatMap(symbolImage)
                    view.clusteringIdentifier = style.clusteringIdentifier
                    view.displayPriority = style.displayPriority.map { MKFeatureDisplayPriority(rawValue: $0) } ?? .required
                    return view
                }

                @MainActor private static func styled(_ renderer: MKOverlayPathRenderer, _ style: Style, fills: Bool) -> MKOverlayRenderer {
                    if let stroke = style.stroke { renderer.strokeColor = color(stroke) }
                    // An opacity without a colour applies to MapKit's default colour.
                    if let opacity = style.strokeOpacity { renderer.strokeColor = renderer.strokeColor?.withAlphaComponent(CGFloat(opacity)) }
                    if let width = style.lineWidth { renderer.lineWidth = CGFloat(width) }
                    if fills {
                        if let fill = style.fill { renderer.fillColor = color(fill) }
                        if let opacity = style.fillOpacity { renderer.fillColor = renderer.fillColor?.withAlphaComponent(CGFloat(opacity)) }
                    }
                    return renderer
                }

                #if canImport(UIKit)
                private static func color(_ rgb: UInt32) -> UIColor {
                    UIColor(red: CGFloat(rgb >> 16 & 0xFF) / 255, green: CGFloat(rgb >> 8 & 0xFF) / 255, blue: CGFloat(rgb & 0xFF) / 255, alpha: 1)
                }
                private static func symbolImage(_ name: String) -> UIImage? { UIImage(systemName: name) }
                #else
                private static func color(_ rgb: UInt32) -> NSColor {
                    NSColor(srgbRed: CGFloat(rgb >> 16 & 0xFF) / 255, green: CGFloat(rgb >> 8 & 0xFF) / 255, blue: CGFloat(rgb & 0xFF) / 255, alpha: 1)
                }
                private static func symbolImage(_ name: String) -> NSImage? { NSImage(systemSymbolName: name, accessibilityDescription: nil) }
                #endif

            """
        if let resourceName { text += loader(resourceName) }
        return text
    }

    /// `load`, `overlays()`, `annotations()` and `add(to:)` reading the GeoJSON resource. Its
    /// name comes from the output's path, which may hold anything a file name can: a string
    /// literal and a comment line made of it (`"`, `\` or a line break would end them).
    private static func loader(_ resourceName: String) -> String {
        """
            /// The GeoJSON resource with the geometry (`\(MapKitSourceWriter.comment(resourceName)).geojson`, beside this file:
            /// add it to the app's target).
            static let resourceName = \(MapKitSourceWriter.stringLiteral(resourceName))

            /// Why the resource could not be read.
            enum LoadError: Error {
                case missingResource(String)
            }

            /// The overlays and annotations in the resource, read from `bundle`.
            static func load(from bundle: Bundle = .main) throws -> (overlays: [MKOverlay], annotations: [MKAnnotation]) {
                guard let url = bundle.url(forResource: resourceName, withExtension: "geojson") else {
                    throw LoadError.missingResource(resourceName + ".geojson")
                }
                return try load(contentsOf: url)
            }

            /// The overlays and annotations in the GeoJSON file at `url`, as Meridian wrote it: one
            /// shape per feature, with its `name`, `description`, `style` (an index into `styles`) and
            /// `geodesic` or `radius`.
            static func load(contentsOf url: URL) throws -> (overlays: [MKOverlay], annotations: [MKAnnotation]) {
                var overlays: [MKOverlay] = []
                var annotations: [MKAnnotation] = []
                for case let feature as MKGeoJSONFeature in try MKGeoJSONDecoder().decode(Data(contentsOf: url)) {
                    let properties = try feature.properties.flatMap { try JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
                    let style = (properties["style"] as? Int).flatMap { styles.indices.contains($0) ? styles[$0] : nil } ?? Style()
                    for geometry in feature.geometry {
                        // The decoder's shapes become this type's, which carry the style.
                        let shape: MKShape
                        switch geometry {
                        case let point as MKPointAnnotation:
                            if let radius = properties["radius"] as? Double {
                                let circle = Circle(center: point.coordinate, radius: radius)
                                circle.style = style
                                shape = circle
                            } else {
                                let annotation = Annotation()
                                annotation.coordinate = point.coordinate
                                annotation.style = style
                                shape = annotation
                            }
                        case let line as MKPolyline:
                            let c = coordinates(of: line)
                            if properties["geodesic"] as? Bool == true {
                                let geodesic = GeodesicPolyline(coordinates: c, count: c.count)
                                geodesic.style = style
                                shape = geodesic
                            } else {
                                let polyline = Polyline(coordinates: c, count: c.count)
                                polyline.style = style
                                shape = polyline
                            }
                        case let polygon as MKPolygon:
                            let c = coordinates(of: polygon)
                            let styledPolygon = Polygon(coordinates: c, count: c.count, interiorPolygons: polygon.interiorPolygons)
                            styledPolygon.style = style
                            shape = styledPolygon
                        case let lines as MKMultiPolyline:
                            let multiPolyline = MultiPolyline(lines.polylines)
                            multiPolyline.style = style
                            shape = multiPolyline
                        case let polygons as MKMultiPolygon:
                            let multiPolygon = MultiPolygon(polygons.polygons)
                            multiPolygon.style = style
                            shape = multiPolygon
                        default:
                            continue
                        }
                        shape.title = properties["name"] as? String
                        shape.subtitle = properties["description"] as? String
                        if let overlay = shape as? MKOverlay { overlays.append(overlay) } else if let annotation = shape as? MKAnnotation { annotations.append(annotation) }
                    }
                }
                return (overlays, annotations)
            }

            /// Every overlay in the resource.
            static func overlays() throws -> [MKOverlay] { try load().overlays }

            /// Every annotation in the resource.
            static func annotations() throws -> [MKAnnotation] { try load().annotations }

            /// Reads the resource once and adds every overlay (at `overlayLevel`) and annotation to
            /// `mapView`.
            @MainActor static func add(to mapView: MKMapView, from bundle: Bundle = .main) throws {
                let content = try load(from: bundle)
                mapView.addOverlays(content.overlays, level: overlayLevel)
                mapView.addAnnotations(content.annotations)
            }

            private static func coordinates(of shape: MKMultiPoint) -> [CLLocationCoordinate2D] {
                var coordinates = [CLLocationCoordinate2D](repeating: CLLocationCoordinate2D(), count: shape.pointCount)
                shape.getCoordinates(&coordinates, range: NSRange(location: 0, length: shape.pointCount))
                return coordinates
            }

        """
    }
}
