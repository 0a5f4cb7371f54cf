// Showing tiles made by `meridian tile` in MapKit (iOS 13+/macOS 10.15+).
//
//     meridian tile 19350_1.KAP ChartTiles/            # XYZ rows: MapKit's own order
//
// Put ChartTiles/ in the app bundle (a folder reference) or on a web server; MKTileOverlay's
// URL template takes {z}, {x} and {y} exactly as the folder is laid out. Tiles that are not
// there (outside the chart, or fully transparent, which Meridian does not write) simply do
// not draw. The zoom range and bounds are in ChartTiles/metadata.json (TileJSON).
import MapKit

final class ChartViewController: UIViewController, MKMapViewDelegate {
    let mapView = MKMapView()

    override func viewDidLoad() {
        super.viewDidLoad()
        mapView.frame = view.bounds
        mapView.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        mapView.delegate = self
        view.addSubview(mapView)

        // From the app bundle; for a server use "https://example.com/ChartTiles/{z}/{x}/{y}.png".
        let folder = Bundle.main.resourceURL!.appendingPathComponent("ChartTiles")
        let overlay = MKTileOverlay(urlTemplate: folder.absoluteString + "/{z}/{x}/{y}.png")
        overlay.minimumZ = 0             // metadata.json "minzoom"
        overlay.maximumZ = 17            // metadata.json "maxzoom"
        overlay.canReplaceMapContent = false   // the chart over Apple's map; true hides the map
        mapView.addOverlay(overlay, level: .aboveLabels)

        // metadata.json "bounds": west, south, east, north.
        let (west, south, east, north) = (-156.5245, 20.7253, -156.4501, 20.8147)
        let region = MKCoordinateRegion(
            center: CLLocationCoordinate2D(latitude: (south + north) / 2, longitude: (west + east) / 2),
            span: MKCoordinateSpan(latitudeDelta: north - south, longitudeDelta: east - west))
        mapView.setRegion(region, animated: false)
    }

    func mapView(_ mapView: MKMapView, rendererFor overlay: MKOverlay) -> MKOverlayRenderer {
        if let tiles = overlay as? MKTileOverlay { return MKTileOverlayRenderer(tileOverlay: tiles) }
        return MKOverlayRenderer(overlay: overlay)
    }
}
