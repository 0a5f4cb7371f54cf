import MeridianCore
import MeridianGeometry
import OrderedCollections

// Hand-written rather than yaslab/CSV.swift or SwiftCSV: both read through Foundation streams
// or whole strings and report no line and column, and RFC 4180 is a few dozen lines on top of
// BufferedInput's lines.

/// Writes CSV (RFC 4180): a header, then a row per feature. Points-only data gets `longitude`,
/// `latitude` (and `altitude`) columns; anything else a `WKT` column (as ogr2ogr's
/// GEOMETRY=AS_WKT). Properties follow, one column per key seen in any feature.
///
/// Tracks (GPX's and KML's: a LineString or MultiLineString whose per-position arrays,
/// `coordinateProperties`, hold its times and other values) among points are written as their
/// points, as GDAL's GPX driver lays out `track_points`: a row per position, with its time
/// (`times` as a `time` column) and each other per-position value in a column of its own,
/// `track_fid`, `track_seg_id` and `track_seg_point_id` (the track among the tracks, the line
/// in it and the position in that, from 0), and the track's properties repeated. A point's
/// property of a per-position column's name (a waypoint's `time`) goes in that column. Data
/// with other shapes (a polygon, a line without per-position values) keeps a row per feature
/// and its `WKT`, the arrays one JSON cell.
///
/// The header must name every column before the first row, so rows are spilled as GeoJSON
/// text sequences to a scratch file and written out at `finish`: memory stays constant.
public final class CSVWriter: FeatureWriter {
    private let sink: OutputSink
    private let options: WriteOptions
    private let spill: FeatureSpill
    /// Formats a cell's number or WKT; one sink for every cell.
    private let cellText = OutputSink(collectingAs: "cell")
    private var columns = OrderedSet<String>()
    /// The per-position arrays' columns of the tracks, in order seen (`times` as `time`).
    private var positionColumns = OrderedSet<String>()
    /// Whether every geometry is a point or a track (which is written as its points).
    private var pointsOnly = true
    private var anyTrack = false
    /// Whether a feature that is not a track has a `coordinateProperties` property (a column then).
    private var positionDataOutsideTracks = false
    private var anyGeometry = false
    private var anyAltitude = false
    private var anyID = false

    /// The columns that number a track's points, as GDAL's GPX driver names them.
    static let trackPointColumns = ["track_fid", "track_seg_id", "track_seg_point_id"]

    /// A CSV writer into `sink`; rows wait in a scratch file until ``finish(_:)``.
    /// - Parameters:
    ///   - sink: Where the CSV goes.
    ///   - options: `precision` rounds coordinates and numbers; the rest does not apply.
    /// - Throws: `MeridianError` (`io`) when the scratch file cannot be created.
    public init(sink: OutputSink, options: WriteOptions = .init()) throws {
        self.sink = sink
        self.options = options
        spill = try FeatureSpill("csv-rows")
    }

    /// Does nothing: CSV has no place for the collection's members.
    public func begin(_ metadata: CollectionMetadata) throws {}

    /// Notes the feature's columns and sets it aside; nothing is written before ``finish(_:)``.
    /// - Throws: `MeridianError` (`io`) when the scratch file cannot be written.
    public func write(_ feature: Feature) throws {
        if let geometry = feature.geometry {
            anyGeometry = true
            if let arrays = Self.trackArrays(feature) {
                anyTrack = true
                for name in arrays { positionColumns.append(Self.positionColumn(name)) }
            } else {
                if case .point = geometry {} else { pointsOnly = false }
                if feature.properties?[PositionData.member] != nil { positionDataOutsideTracks = true }
            }
            if geometry.hasAltitude { anyAltitude = true }
        } else if feature.properties?[PositionData.member] != nil {
            positionDataOutsideTracks = true
        }
        if feature.id != nil { anyID = true }
        for key in (feature.properties ?? [:]).keys { columns.append(key) }
        try spill.append(feature)
    }

    /// The names of a track's per-position arrays that fit it, or nil when the feature is no
    /// track: not a LineString or MultiLineString, or without such arrays.
    static func trackArrays(_ feature: Feature) -> [String]? {
        switch feature.geometry {
        case .lineString?, .multiLineString?:
            let names = feature.positionRuns.arrays.map(\.name)
            return names.isEmpty ? nil : names
        default: return nil
        }
    }

    /// The column of a per-position array: `times` is each point's `time`, as GPX and GDAL name it.
    static func positionColumn(_ name: String) -> String { name == "times" ? "time" : name }

    /// Writes the header, naming every column seen, then every row, with CRLF line breaks.
    /// - Throws: `MeridianError` (`io`) when the output or the scratch file fails.
    public func finish(_ trailingMetadata: CollectionMetadata) throws {
        let usePoints = anyGeometry && pointsOnly
        let idColumn = anyID && !columns.contains("id")
        // As points: each track's per-position columns and its points' numbers; its arrays are
        // no column of their own then (unless a feature that is no track has some).
        let positionColumns = usePoints ? positionColumns.elements : []
        let trackColumns = usePoints && anyTrack ? Self.trackPointColumns : []
        let taken = Set(positionColumns + trackColumns)
        let propertyColumns = columns.elements.filter {
            !taken.contains($0) && !(usePoints && $0 == PositionData.member && !positionDataOutsideTracks)
        }
        var header = usePoints ? ["longitude", "latitude"] + (anyAltitude ? ["altitude"] : []) : ["WKT"]
        if idColumn { header.insert("id", at: 0) }
        row(header + positionColumns + trackColumns + propertyColumns)
        var tracks = 0
        try spill.forEach { feature in
            let properties = feature.properties ?? [:]
            let id = idColumn ? [feature.id?.plainText ?? ""] : []
            let propertyCells = propertyColumns.map { properties[$0]?.unwrappingHTML.plainText() ?? "" }
            if usePoints, Self.trackArrays(feature) != nil {
                let (runs, arrays) = feature.positionRuns
                let values = Dictionary(arrays.map { (Self.positionColumn($0.name), $0.runs) }) { first, _ in first }
                for (segment, run) in runs.enumerated() {
                    for (index, position) in run.enumerated() {
                        let perPosition = positionColumns.map { column in
                            values[column].map { $0[segment][index].plainText() } ?? properties[column]?.plainText() ?? ""
                        }
                        row(id + coordinates(position) + perPosition + ["\(tracks)", "\(segment)", "\(index)"] + propertyCells)
                    }
                }
                tracks += 1
            } else if usePoints {
                let position: [String]
                if case .point(let p)? = feature.geometry { position = coordinates(p.coordinates) } else {
                    position = Array(repeating: "", count: anyAltitude ? 3 : 2)
                }
                let perPosition = positionColumns.map { properties[$0]?.unwrappingHTML.plainText() ?? "" }
                row(id + position + perPosition + trackColumns.map { _ in "" } + propertyCells)
            } else {
                let wkt = feature.geometry.map { geometry in
                    WKT.write(geometry, to: cellText, precision: options.precision)
                    return cellText.takeCollectedText()
                } ?? ""
                row(id + [wkt] + propertyCells)
            }
            try sink.checkForErrors()
        }
    }

    /// A position's `longitude`, `latitude` (and `altitude`) cells.
    private func coordinates(_ position: Position) -> [String] {
        [number(position.longitude), number(position.latitude)] + (anyAltitude ? [position.altitude.map(number) ?? ""] : [])
    }

    private func number(_ value: Double) -> String {
        cellText.writeCoordinate(value, precision: options.precision)
        return cellText.takeCollectedText()
    }

    /// One record, quoting the fields that need it (a comma, a quote, a line break, or
    /// spaces at either end).
    private func row(_ fields: [String]) {
        for (i, field) in fields.enumerated() {
            if i > 0 { sink.write(byte: UInt8(ascii: ",")) }
            let needsQuotes = field.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
                || field.first == " " || field.last == " "
            if needsQuotes {
                sink.write(byte: UInt8(ascii: "\""))
                for byte in field.utf8 {
                    sink.write(byte: byte)
                    if byte == UInt8(ascii: "\"") { sink.write(byte: byte) }  // a quote doubled
                }
                sink.write(byte: UInt8(ascii: "\""))
            } else {
                sink.write(field)
            }
        }
        sink.write("\r\n" as StaticString)  // RFC 4180's line break
    }
}

/// Reads CSV (RFC 4180, or separated by semicolons or tabs, told by the header): geometry from
/// a WKT (or hex WKB) column named WKT, geometry, the_geom or wkb_geometry, else from longitude
/// and latitude columns (lon/lng/long/x, lat/y, and alt/altitude/ele/elevation/z); every other
/// column becomes a property, typed when its text is a JSON number or true/false.
public final class CSVReader: FeatureReader {
    private let records: CSVRecords
    private let options: ReadOptions
    private var header: [String] = []
    private var geometryColumn: Int?
    private var xColumn: Int?, yColumn: Int?, zColumn: Int?
    private var started = false
    /// Each feature's checks (per-position arrays, coordinates off the globe).
    private let checks: FeatureChecks

    /// A CSV reader over `input`; the header is read at the first ``readMetadata()`` or ``next()``.
    /// - Parameters:
    ///   - input: The CSV text.
    ///   - options: Kept for the registry's uniform signature; CSV has nothing to be told.
    public init(input: BufferedInput, options: ReadOptions = .init()) {
        checks = FeatureChecks(options)
        records = CSVRecords(input: input)
        self.options = options
    }

    /// Always empty: CSV has no collection members.
    public var trailingMetadata: CollectionMetadata { .init() }

    /// Reads the header and picks the geometry columns; CSV has no collection members, so the result
    /// is empty.
    /// - Throws: `MeridianError` (`badInput`) when the file is empty or not UTF-8.
    public func readMetadata() throws -> CollectionMetadata {
        guard !started else { return .init() }
        started = true
        guard let first = try records.next() else {
            throw MeridianError(.badInput, "the CSV file is empty", at: SourceLocation(file: records.name))
        }
        header = first.fields.map { String(decoding: $0, as: UTF8.self) }
        let lowered = header.map { $0.lowercased().trimmingWhitespace() }
        func column(_ names: [String]) -> Int? { names.lazy.compactMap { lowered.firstIndex(of: $0) }.first }
        geometryColumn = column(["wkt", "geometry", "the_geom", "wkb_geometry", "geom"])
        if geometryColumn == nil {
            xColumn = column(["longitude", "lon", "lng", "long", "x"])
            yColumn = column(["latitude", "lat", "y"])
            zColumn = column(["altitude", "alt", "elevation", "ele", "z"])
            if xColumn == nil || yColumn == nil { (xColumn, yColumn, zColumn) = (nil, nil, nil) }
        }
        return .init()
    }

    /// The next row as a feature, or nil at the end.
    /// - Throws: `MeridianError` (`badInput`) for a row with more fields than the header, or a
    ///   geometry cell that does not parse, with the row's line.
    public func next() throws -> Feature? {
        _ = try readMetadata()
        guard let record = try records.next() else { return nil }
        let cells = record.fields
        let location = record.location
        if cells.count > header.count {
            throw MeridianError(.badInput, "a row has \(cells.count) fields but the header names \(header.count)", at: location)
        }
        var geometry: Geometry?
        var properties = JSONObject()
        for (i, name) in header.enumerated() {
            let cell = i < cells.count ? cells[i] : []
            if i == geometryColumn {
                geometry = try parseGeometry(cell, location: location)
            } else if i == xColumn || i == yColumn || i == zColumn {
                continue
            } else {
                properties[name] = JSONValue.inferred(fromText: cell)
            }
        }
        if let xColumn, let yColumn {
            geometry = try point(cells, x: xColumn, y: yColumn, z: zColumn, location: location)
        }
        var feature = Feature(geometry: geometry, properties: properties)
        try checks.check(&feature, at: location)
        return feature
    }

    private func parseGeometry(_ cell: [UInt8], location: SourceLocation) throws -> Geometry? {
        let text = cell.drop { $0 == 0x20 }
        if text.isEmpty { return nil }
        if let bytes = WKB.bytes(fromHex: text), bytes.count >= 5 { return try WKB.decode(bytes, location: location) }
        return try WKT.parse(text, location: location)
    }

    private func point(_ cells: [[UInt8]], x: Int, y: Int, z: Int?, location: SourceLocation) throws -> Geometry? {
        func value(_ i: Int) throws -> Double? {
            let cell = i < cells.count ? cells[i].filter { $0 != 0x20 } : []
            if cell.isEmpty { return nil }
            guard let v = NumberText.parseLenient(cell) else {
                throw MeridianError(.badInput, "\(header[i]) is not a number: \"\(String(decoding: cell, as: UTF8.self))\"", at: location)
            }
            return v
        }
        guard let lon = try value(x), let lat = try value(y) else { return nil }
        return .point(Point(Position(longitude: lon, latitude: lat, altitude: try z.flatMap(value))))
    }
}

extension FeatureFormat {
    /// CSV: geometry as WKT or as longitude/latitude columns, properties as columns.
    public static let csv = FeatureFormat(
        id: "csv", displayName: "CSV", aliases: ["tsv"], extensions: ["csv", "tsv"], mediaType: "text/csv", roundsCoordinates: true, keepsPositionData: true,
        reader: { input, options in CSVReader(input: input, options: options) },
        writer: { sink, options in try CSVWriter(sink: sink, options: options) }
    )
}
