import MeridianCore
import MeridianFormats
import MeridianGeometry

/// A route to check against a coverage file: where it starts and ends, and where in its file it
/// was written.
public struct RouteEnds: Sendable, Hashable {
    /// Where the route starts.
    public var from: Position
    /// Where the route ends.
    public var to: Position
    /// The route's line in its file, for messages; nil for a route not read from a file.
    public var location: SourceLocation?

    /// Creates a route from its two ends (and, when it was read from a file, its place there).
    public init(from: Position, to: Position, location: SourceLocation? = nil) {
        self.from = from
        self.to = to
        self.location = location
    }
}

/// Routes in a CSV file, one a record: `from_lat,from_lon,to_lat,to_lon` (MapKit's order; more
/// columns are ignored). A first record that is not four numbers is a header, and skipped.
public enum RouteList {
    /// The routes in the file at `path`, read with the CSV reader the CSV format uses; a record
    /// that is not four numbers is bad input, at its line.
    public static func read(path: String) throws -> [RouteEnds] {
        let records = CSVRecords(input: try BufferedInput.open(path))
        var routes: [RouteEnds] = []
        var isFirst = true
        while let record = try records.next() {
            defer { isFirst = false }
            let numbers = record.fields.prefix(4).map(number)
            guard numbers.count == 4, let fromLatitude = numbers[0], let fromLongitude = numbers[1],
                  let toLatitude = numbers[2], let toLongitude = numbers[3] else {
                if isFirst { continue }  // a header
                throw MeridianError(.badInput, "expected from_lat,from_lon,to_lat,to_lon", at: record.location)
            }
            routes.append(RouteEnds(from: Position(longitude: fromLongitude, latitude: fromLatitude),
                                    to: Position(longitude: toLongitude, latitude: toLatitude), location: record.location))
        }
        return routes
    }

    /// A field's number, with spaces and tabs around it allowed.
    static func number(_ field: [UInt8]) -> Double? {
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let start = field.firstIndex(where: { !blank($0) }), let end = field.lastIndex(where: { !blank($0) }) else { return nil }
        return Double(String(decoding: field[start...end], as: UTF8.self))
    }
}
