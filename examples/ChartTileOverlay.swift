// Showing tiles made by `meridian tile` in MapKit (iOS 13+/macOS 10.15+): a chart's tiles, and
// over them routes drawn into tiles with their simplestyle colours (as `meridian render` draws
// them; transparent where no route is).
//
//     meridian tile 19350_1.KAP ChartTiles/                                 # XYZ rows: MapKit's own order
//     meridian tile manele-bay-route.geojson RouteTiles/ --tile-format png --zoom 10-16   # features drawn into PNG tiles
//
// Put the folders in the app bundle (folder references) or on a web server; MKTileOverlay's
// URL template takes {z}, {x} and {y} exactly as a folder is laid out. Tiles that are not
// there (outside the chart or the routes, or fully transparent, which Meridian does not write)
// simply do not draw. The zoom range and bounds are in each folder's metadata.json (TileJSON).
import MapKit

final class ChartViewController: UIViewController, MKMapViewDelegate {
    let mapView = MKMapView()

    override func viewDidLoad() {
        super.viewDidLoad()
        mapView.frame = view.bounds
        mapView.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        mapView.delegate = self
        view.addSubview(mapView)

        // metadata.json "minzoom" and "maxzoom" of each folder.
        mapView.addOverlay(tiles("ChartTiles", zooms: 0...17), level: .aboveLabels)
        mapView.addOverlay(tiles("RouteTiles", zooms: 10...16), level: .aboveLabels)  // added last: drawn on top

        // metadata.json "bounds": west, south, east, north.
        let (west, south, east, north) = (-156.5245, 20.7253, -156.4501, 20.8147)
        let region = MKCoordinateRegion(
            center: CLLocationCoordinate2D(latitude: (south + north) / 2, longitude: (west + east) / 2),
            span: MKCoordinateSpan(latitudeDelta: north - south, longitudeDelta: east - west))
        mapView.setRegion(region, animated: false)
    }

    /// The tiles of a folder in the app bundle; for a server use "https://example.com/NAME/{z}/{x}/{y}.png".
    func tiles(_ name: String, zooms: ClosedRange<Int>) -> MKTileOverlay {
        let folder = Bundle.main.resourceURL!.appendingPathComponent(name)
        let overlay = MKTileOverlay(urlTemplate: folder.absoluteString + "/{z}/{x}/{y}.png")
        overlay.minimumZ = zooms.lowerBound
        overlay.maximumZ = zooms.upperBound
        overlay.tileSize = CGSize(width: 256, height: 256)  // --tile-size (256 unless given)
        overlay.canReplaceMapContent = false   // over Apple's map; true hides the map
        return overlay
    }

    func mapView(_ mapView: MKMapView, rendererFor overlay: MKOverlay) -> MKOverlayRenderer {
        if let tiles = overlay as? MKTileOverlay { return MKTileOverlayRenderer(tileOverlay: tiles) }
        return MKOverlayRenderer(overlay: overlay)
    }
}
