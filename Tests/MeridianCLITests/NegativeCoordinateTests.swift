import Foundation
import MeridianCommandLine
import MeridianRaster
import Testing

/// Southern latitudes and western longitudes, typed as a user types them: a value that starts
/// with a minus sign is a value, positional or after an option, and a negative number where
/// none makes sense gets a range error in Meridian's words (not "Missing value").
@Suite struct NegativeCoordinateTests {
    @Test func positionalCoordinates() throws {
        let sydney = try meridian(["mapkit", "point", "-33.86,151.21", "--format", "json"])
        #expect(sydney.status == 0, "\(sydney.stderr)")
        #expect(sydney.stdout.contains("\"tile (xyz)\": \"12/3768/2457\""), "\(sydney.stdout)")
        // Options before or after, and a western longitude too.
        let lima = try meridian(["mapkit", "point", "--zoom-level", "3", "-12.05,-77.04"])
        #expect(lima.status == 0 && lima.stdout.contains("3/2/4"), "\(lima.stdout)\(lima.stderr)")
    }

    @Test func optionValues() throws {
        let circle = try meridian(["circle", "--center", "-33.86,-70.65", "--radius", "500"])
        #expect(circle.status == 0 && circle.stdout.contains("[-70.65,-33.86]"), "\(circle.stderr)")
        let box = try meridian(["coverage", "make", "--bbox", "-74.1,-34.0,-70.2,-32.9"])
        #expect(box.status == 0 && box.stdout.contains("-74.1"), "\(box.stderr)")
        let route = try meridian(["coverage", "test", fixture("coverage/real/alex-ross_recycle-ios__RoutingAppCoverage.geojson"), "--from", "-33.9,151.2", "--to", "-33.8,151.3"])
        #expect(route.status == ExitStatus.checkFailed, "\(route.stderr)")  // parsed, and not covered
        let geodesic = try meridian(["geodesic", "--from", "-33.95,151.18", "--to", "-37.01,174.79", "--spacing-km", "100"])
        #expect(geodesic.status == 0, "\(geodesic.stderr)")
        let turned = try meridian(["render", fixture("geojson/ne_10m_countries_sample.geojson"), "--to", "svg", "--heading", "-30"])
        #expect(turned.status == 0, "\(turned.stderr)")
    }

    @Test(arguments: [
        (["circle", "--center", "0,0", "--radius", "-5"], "--radius must be positive"),
        (["circle", "--center", "0,0", "--radius", "5", "--segments", "-4"], "--segments must be at least 3"),
        (["geodesic", "--from", "0,0", "--to", "1,1", "--spacing-km", "-1"], "--spacing-km must be positive"),
        (["mapkit", "point", "1,1", "--zoom-level", "-3"], "--zoom-level must be between 0 and 30"),
        (["mapkit", "zoom", "--level", "-3"], "--level must be between 0 and 30"),
        (["simplify", "--zoom-level", "-2"], "--zoom-level must be between 0 and 30"),
        (["simplify", "--zoom-level", "3", "--tolerance", "-1"], "--tolerance must not be negative"),
        (["convert", "--precision", "-1"], "--precision must be between 0 and 17"),
        (["render", "--size", "-3x4"], "--size takes WIDTHxHEIGHT"),
        (["tile", "in.tif", "out", "--jobs", "-2"], "--jobs must be at least 1"),
        (["tile", "in.tif", "out", "--zoom", "-1-3"], "--zoom takes MIN-MAX"),
    ])
    func negativeNumbersOutOfRange(_ arguments: [String], _ message: String) throws {
        let result = try meridian(arguments)
        #expect(result.status == ExitStatus.usage)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    /// `meridian` never links MeridianRaster, so ZoomRange keeps its own copy of how deep tiling goes.
    @Test func zoomRangesReachAsDeepAsTiling() {
        #expect(ZoomRange.maximum == TilePyramid.maximumZoom)
    }

    /// A box across the antimeridian (west > east) is one for `coverage make`, and refused where
    /// the box is drawn in one plane.
    @Test func boxesAcrossTheAntimeridian() throws {
        let made = try meridian(["coverage", "make", "--bbox", "170,-20,-170,-10"])
        // Two polygons, one each side of ±180°.
        #expect(made.status == 0 && made.stdout.contains("[180.0, -20.000004]") && made.stdout.contains("[-180.0, -20.000004]"), "\(made.stderr)")
        let clipped = try meridian(["clip", "--bbox", "170,-20,-170,-10"])
        #expect(clipped.status == ExitStatus.usage && clipped.stderr.contains("--bbox crosses the antimeridian"), "\(clipped.stderr)")
        let viewed = try meridian(["render", "--to", "svg", "--view", "170,-20,-170,-10"])
        #expect(viewed.status == ExitStatus.usage && viewed.stderr.contains("--view crosses the antimeridian"), "\(viewed.stderr)")
    }

    /// Every typed value has one error text, whichever option or positional it is given to.
    @Test(arguments: [
        (["mapkit", "tile", "3/9/1"], "<z/x/y> takes Z/X/Y with Z from 0 to 30"),
        (["clip", "--tile", "3/9/1"], "--tile takes Z/X/Y with Z from 0 to 30"),
        (["render", "--to", "svg", "--view-tile", "31/0/0"], "--view-tile takes Z/X/Y"),
        (["mapkit", "point", "-91,3"], "<lat,lon> takes LAT,LON in degrees"),
        (["circle", "--center", "95,0", "--radius", "3"], "--center takes LAT,LON in degrees"),
        (["clip", "--bbox", "1,2,3"], "--bbox takes west,south,east,north in degrees"),
        (["clip", "--map-rect", "0,0,-1,5"], "--map-rect takes x,y,width,height"),
    ])
    func typedValuesOutOfRange(_ arguments: [String], _ message: String) throws {
        let result = try meridian(arguments)
        #expect(result.status == ExitStatus.usage)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
