import Testing
import MeridianGeometry
@testable import MeridianFormats

/// `<coordinates>` text: plain decimals take the one-pass reader, everything else the general
/// rules, and a tuple is what KML says it is whichever path its numbers took.
@Suite struct KMLCoordinatesTests {
    func parse(_ text: String) -> KMLCoordinates.Result {
        KMLCoordinates.parse(Array(text.utf8))
    }

    @Test func tuplesMixingPlainAndOtherNumbers() {
        let mixed = parse("1,2 3 4,5,6,7 x,1 +1,.5 1.,-.5 007,1 1e2,2E-1")
        #expect(mixed.positions.map { [$0.longitude, $0.latitude] } == [[1, 2], [4, 5], [1, 0.5], [1, -0.5], [100, 0.2]])
        #expect(mixed.positions[1].altitude == 6)
        #expect(mixed.skipped == 3)  // "3" alone, "x,1", "007,1" (a leading zero is not a number)
        let spaced = parse("0.0, 0.0, 0.0\n\t1.5 , -2.25 , 3e2 ,,")
        #expect(spaced.positions.count == 2 && spaced.positions[1].altitude == 300 && spaced.skipped == 0)
    }

    /// Tuples written the common way (`x,y` or `x,y,z` ended by white space) beside ones that
    /// only look so: a comma after the white space still continues the tuple.
    @Test func commonTuplesAndTheirLookalikes() {
        let result = parse("1,2 ,3 4,5\n,6 7,8,9 10,11 12,13,14,15 16,17,\t18 19,20,x 21,22")
        #expect(result.positions.map { [$0.longitude, $0.latitude] + ($0.altitude.map { [$0] } ?? []) }
                == [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11], [12, 13, 14], [16, 17, 18], [21, 22]])
        #expect(result.skipped == 1)  // "19,20,x"
    }

    @Test func longNumbersReadExactly() {
        // More than 19 digits, or a mantissa above 2^53: the general parser's correctly rounded value.
        let result = parse("12345678901234567890.5,9007199254740993 -0,-0.0")
        #expect(result.positions[0].longitude == 12345678901234567890.5)
        #expect(result.positions[0].latitude == 9007199254740992)
        #expect(result.positions[1].longitude.sign == .minus && result.positions[1].latitude.sign == .minus)
    }
}
