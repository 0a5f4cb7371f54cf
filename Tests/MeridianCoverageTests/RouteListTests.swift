import Foundation
import MeridianCore
import Testing
import MeridianFormats
import MeridianGeometry
@testable import MeridianCoverage

@Suite struct RouteListTests {
    func routes(_ text: String) throws -> [RouteEnds] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("routes-\(UUID()).csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try RouteList.read(path: path)
    }

    @Test func routesAreLatitudeFirstAndAHeaderIsSkipped() throws {
        let read = try routes("from_lat,from_lon,to_lat,to_lon\n-16.5,179.5,-16.5,-179.5\n\n\"37.3\", -121.8 ,37.5,-122.0,a note\n")
        #expect(read.map(\.from) == [Position(longitude: 179.5, latitude: -16.5), Position(longitude: -121.8, latitude: 37.3)])
        #expect(read.map(\.to) == [Position(longitude: -179.5, latitude: -16.5), Position(longitude: -122.0, latitude: 37.5)])
        #expect(read.map { $0.location?.line } == [2, 4])
        // Without a header, the first line is a route too.
        #expect(try routes("1,2,3,4\n").count == 1)
    }

    @Test func aRecordThatIsNotFourNumbersIsBadInputAtItsLine() throws {
        #expect {
            try routes("1,2,3,4\n5,6,seven,8\n")
        } throws: { error in
            guard let error = error as? MeridianError else { return false }
            return error.kind == .badInput && error.location?.line == 2 && error.message == "expected from_lat,from_lon,to_lat,to_lon"
        }
    }
}
