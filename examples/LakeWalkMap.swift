// A map that draws like its source, from Swift that `meridian convert` wrote (iOS 13+; on
// macOS use NSViewController and the same three calls):
//
//     meridian convert examples/data/lake-walk.kml -o LakeWalk.swift --cluster-by kind
//
// LakeWalk.swift declares `enum LakeWalk`: the walk as an MKPolyline stroked orange 4 points wide,
// the park as an MKPolygon outlined green over a translucent green fill, and the pier as a marker
// clustered with other piers, as the KML's styles say (examples/pictures/lake-walk.png is
// `meridian render` of the same file). Past 10,000 positions Meridian writes
// LakeWalk.geometry.geojson beside it instead (add it to the app target) and `add(to:)` throws.
import MapKit
import UIKit

final class LakeWalkViewController: UIViewController, MKMapViewDelegate {
    let mapView = MKMapView()

    override func viewDidLoad() {
        super.viewDidLoad()
        mapView.frame = view.bounds
        mapView.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        mapView.delegate = self
        view.addSubview(mapView)

        LakeWalk.add(to: mapView)  // overlays at LakeWalk.overlayLevel (--overlay-level), then the annotations
        let shown = mapView.overlays.reduce(MKMapRect.null) { $0.union($1.boundingMapRect) }
        mapView.setVisibleMapRect(shown, edgePadding: UIEdgeInsets(top: 40, left: 40, bottom: 40, right: 40), animated: false)
    }

    // Each generated type styles its own overlays and markers; with several, ask each in turn.
    func mapView(_ mapView: MKMapView, rendererFor overlay: MKOverlay) -> MKOverlayRenderer {
        LakeWalk.renderer(for: overlay)
    }

    func mapView(_ mapView: MKMapView, viewFor annotation: MKAnnotation) -> MKAnnotationView? {
        LakeWalk.annotationView(for: annotation, in: mapView)  // nil for clusters: MapKit draws those
    }
}
