import MeridianGeometry
import Testing

/// The example in MeridianGeometry.docc/GettingStarted.md, kept compiling and true.
@Suite struct DocumentationExampleTests {
    @Test func gettingStarted() throws {
        // Positions name their longitude and latitude, so the two orders cannot be mixed up.
        let ferryBuilding = Position(longitude: -122.3937, latitude: 37.7955)
        let coitTower = Position(longitude: -122.4058, latitude: 37.8024)
        let walk = LineString([
            ferryBuilding,
            Position(longitude: -122.39885, latitude: 37.79651),  // almost on the way to the next corner
            Position(longitude: -122.4040, latitude: 37.7975),
            coitTower,
        ])

        // A feature: a geometry with properties, as GeoJSON has them.
        let feature = Feature(geometry: .lineString(walk), properties: ["name": "Ferry Building to Coit Tower", "minutes": 25])
        let box = try #require(feature.geometry?.boundingBox)
        #expect(box.west == -122.4058 && box.east == -122.3937)
        #expect(box.south == 37.7955 && box.north == 37.8024)
        #expect(feature.properties?["minutes"] == .integer(25))

        // MapKit's projection: map points on a 2^28 square world, y growing south.
        let tower = MapPoint(coitTower)
        let ferry = MapPoint(ferryBuilding)
        #expect(tower.y < ferry.y)  // the tower is further north
        let metresPerMapPoint = MapWorld.metersPerMapPoint(atLatitude: coitTower.latitude)
        #expect(abs(metresPerMapPoint - 0.1177) < 0.001)

        // Zoom scales are screen points per map point: 1/16 at zoom level 16.
        let scale = ZoomScale.scale(forLevel: 16)
        #expect(scale == 1.0 / 16)
        #expect(ZoomScale.level(forScale: scale) == 16)

        // Simplify to what shows at zoom 16: 4 screen points are 64 map points (about 7.5 m).
        var simplifier = GeometrySimplifier(tolerance: 4 / scale, method: .douglasPeucker)
        let simplified = simplifier.simplify(.lineString(walk))
        guard case .lineString(let line)? = simplified else {
            Issue.record("expected a line, got \(String(describing: simplified))")
            return
        }
        #expect(line.coordinates == [walk.coordinates[0], walk.coordinates[2], walk.coordinates[3]])

        // Clip to the zoom-16 tile that holds the tower.
        let tile = MapTile(containing: tower, zoom: 16)
        #expect(tile.description == "16/10484/25324")
        let clipper = GeometryClipper(rect: RectClip(tile.mapRect), plane: .mapPoints)
        let clipped = try #require(clipper.clip(.lineString(walk)))
        let tileBox = tile.boundingBox
        clipped.forEachPosition { p in
            #expect(p.longitude >= tileBox.west - 1e-9 && p.longitude <= tileBox.east + 1e-9)
            #expect(p.latitude >= tileBox.south - 1e-9 && p.latitude <= tileBox.north + 1e-9)
        }
        // Vertices that were not cut keep their exact coordinates: the walk still ends at the tower.
        guard case .lineString(let piece) = clipped else {
            Issue.record("expected one piece of the line, got \(clipped)")
            return
        }
        #expect(piece.coordinates.last == coitTower)
    }
}
