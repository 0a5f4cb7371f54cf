import Foundation
import Testing

@Suite struct MapKitSourceTests {
    /// The generated source compiles against a stand-in MapKit module (MapKit is not on Linux)
    /// and, run, builds the overlays and annotations the features describe.
    @Test(.timeLimit(.minutes(3))) func compilesAndBuildsTheOverlays() throws {
        try withTemporaryFolder { folder in
            func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
            // A geodesic, a circle, the togeojson polygon-with-hole and point fixtures, together.
            #expect(try meridian(["geodesic", "--from", "34.05,-118.24", "--to", "35.68,139.69", "-o", path("geodesic.geojson")]).status == 0)
            #expect(try meridian(["circle", "--center", "37.33,-122.0", "--radius", "1000", "-o", path("circle.geojson")]).status == 0)
            var features: [String] = []
            for file in [path("geodesic.geojson"), path("circle.geojson"), fixture("kml/togeojson/polygon.kml"), fixture("kml/togeojson/point.kml")] {
                let seq = try meridian(["convert", file, "--to", "geojsonseq"])
                #expect(seq.status == 0, "\(seq.stderr)")
                features.append(seq.stdout)
            }
            let swift = try meridian(["convert", "--from", "geojsonseq", "--to", "swift", "-o", path("Overlays.swift")],
                                     stdin: Data(features.joined().utf8))
            #expect(swift.status == 0, "\(swift.stderr)")

            try FileManager.default.copyItem(atPath: fixture("swift/MapKit.swift"), toPath: path("MapKit.swift"))
            try """
                import MapKit
                for overlay in MeridianOverlays.overlays() {
                    switch overlay {
                    case let p as MKPolygon: print("MKPolygon", p.pointCount, p.interiorPolygons?.count ?? 0, p.title ?? "")
                    case let g as MKGeodesicPolyline: print("MKGeodesicPolyline", g.pointCount)
                    case let l as MKPolyline: print("MKPolyline", l.pointCount)
                    case let c as MKCircle: print("MKCircle", c.radius, c.coordinate.latitude)
                    default: print("other")
                    }
                }
                for annotation in MeridianOverlays.annotations() { print("MKPointAnnotation", annotation.title ?? "", annotation.coordinate.longitude) }
                """.write(toFile: path("main.swift"), atomically: true, encoding: .utf8)
            let module = try run("swiftc", ["-parse-as-library", "-emit-library", "-static", "-emit-module", "-module-name", "MapKit",
                                            "MapKit.swift", "-o", "libMapKit.a"], in: folder)
            #expect(module.status == 0, "\(module.stderr)")
            let app = try run("swiftc", ["Overlays.swift", "main.swift", "-I", ".", "-L", ".", "-lMapKit", "-o", "app"], in: folder)
            #expect(app.status == 0, "\(app.stderr)")
            let output = try run(path("app"), []).stdout.split(separator: "\n")
            #expect(output.contains("MKGeodesicPolyline 2"), "\(output)")      // from and to: MapKit draws the curve
            #expect(output.contains("MKCircle 1000.0 37.33"), "\(output)")
            #expect(output.contains { $0.hasPrefix("MKPolygon") && $0.hasSuffix(" 1 hollow box") } , "\(output)")
            #expect(output.contains { $0.hasPrefix("MKPointAnnotation") }, "\(output)")
        }
    }
}
