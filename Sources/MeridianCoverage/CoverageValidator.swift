import MeridianCore
import MeridianFormats
import MeridianGeometry

/// Checks a routing-app coverage file against every rule of `CoverageRule`, reporting each
/// finding with its place in the file, and going on after errors where it can so one run
/// shows everything to fix.
public struct CoverageValidator: Sendable {
    /// Apple's limits and the thresholds of the warnings.
    public var maximumPolygons = 20
    /// Distinct points per polygon's outer ring above which `point-count` warns (Apple recommends 20).
    public var maximumPoints = 20
    /// Decimals per coordinate above which `precision` warns.
    public var maximumDecimals = 6
    /// Coverage of more than this share of the Earth's surface is "the whole world".
    public var maximumAreaShare = 0.1

    /// Creates a validator with Apple's limits; change the properties to check against others.
    public init() {}

    /// Validates a file (or standard input for nil / "-").
    public func validate(path: String?) throws -> CoverageReport {
        let path = path == "-" ? nil : path
        let input = try BufferedInput.open(path)
        let bytes = try input.readAll(maximum: 64 << 20)
        return validate(bytes: bytes, name: input.name, checkExtension: path != nil)
    }

    /// Validates a coverage file's bytes. Never throws: unreadable JSON is a `syntax` finding.
    /// - Parameters:
    ///   - bytes: The file's contents.
    ///   - name: The file's name, for the report and the extension check.
    ///   - checkExtension: Whether to report a name that does not end in `.geojson` (pass false
    ///     for standard input or a name made up by the caller).
    /// - Returns: The report, with every finding and the polygons as read.
    public func validate(bytes: [UInt8], name: String, checkExtension: Bool = true) -> CoverageReport {
        var issues: [CoverageIssue] = []
        if checkExtension, !name.lowercased().hasSuffix(".geojson") {
            issues.append(CoverageIssue(.extension, "the file is named \(name.split(separator: "/").last ?? ""); App Store Connect takes only .geojson files"))
        }
        var text = bytes
        if let comment = Self.stripComments(&text) {
            issues.append(CoverageIssue(.comments, "the file has a comment; JSON allows none", at: comment))
        }
        let document: LocatedJSON
        do {
            document = try LocatedJSON.parse(BufferedInput(bytes: text, name: name))
        } catch let error as MeridianError {
            let place = error.location.flatMap { location in
                location.line.map { LocatedJSON.Place(line: $0, column: location.column ?? 1) }
            }
            issues.append(CoverageIssue(.syntax, error.message, at: place))
            return CoverageReport(file: name, issues: issues)
        } catch {
            issues.append(CoverageIssue(.syntax, "\(error)"))
            return CoverageReport(file: name, issues: issues)
        }
        var check = Check(validator: self)
        check.document(document)
        return CoverageReport(file: name, issues: issues + check.issues, polygons: check.polygons)
    }

    /// Blanks out `//` and `/* */` comments (outside strings), keeping line breaks so places stay
    /// right; returns where the first one was.
    static func stripComments(_ bytes: inout [UInt8]) -> LocatedJSON.Place? {
        var first: LocatedJSON.Place?
        var i = 0, line = 1, lineStart = 0
        var inString = false
        while i < bytes.count {
            let c = bytes[i]
            if c == 0x0A { line += 1; lineStart = i + 1 }
            if inString {
                if c == UInt8(ascii: "\\") { i += 2; continue }
                if c == UInt8(ascii: "\"") { inString = false }
            } else if c == UInt8(ascii: "\"") {
                inString = true
            } else if c == UInt8(ascii: "/"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "/") || bytes[i + 1] == UInt8(ascii: "*") {
                if first == nil { first = LocatedJSON.Place(line: line, column: i - lineStart + 1) }
                let block = bytes[i + 1] == UInt8(ascii: "*")
                var j = i
                while j < bytes.count {
                    if block, j > i + 1, bytes[j - 1] == UInt8(ascii: "*"), bytes[j] == UInt8(ascii: "/") {
                        bytes[j] = 0x20
                        j += 1
                        break
                    }
                    if !block && bytes[j] == 0x0A { break }
                    if bytes[j] == 0x0A { line += 1; lineStart = j + 1 } else { bytes[j] = 0x20 }
                    j += 1
                }
                i = j
                continue
            }
            i += 1
        }
        return first
    }

    /// The checks of one document, collecting issues.
    struct Check {
        let validator: CoverageValidator
        var issues: [CoverageIssue] = []
        /// Every polygon's rings as read (nil for a position that is not one), for the preview.
        var polygons: [[[Position?]]] = []
        /// Rings as read, for the checks across polygons.
        var exteriors: [(polygon: Int, ring: [Position])] = []
        var positions: [Position] = []
        var firstPrecise: (LocatedJSON.Place, Int, Int, Int, String)?
        var preciseCount = 0
        var firstAltitude: (LocatedJSON.Place, Int, Int, Int)?
        var altitudeCount = 0

        mutating func add(_ issue: CoverageIssue) { issues.append(issue) }

        mutating func document(_ document: LocatedJSON) {
            guard let geometry = unwrap(document) else { return }
            if geometry["crs"] != nil {
                add(CoverageIssue(.crs, "the file has a crs member", at: geometry["crs"]!.place))
            }
            let type = geometry["type"]?.string
            var polygons: [LocatedJSON]
            switch type {
            case "MultiPolygon":
                guard let list = geometry["coordinates"]?.elements else {
                    add(CoverageIssue(.type, "a MultiPolygon needs a \"coordinates\" array", at: geometry.place))
                    return
                }
                polygons = list
            case "Polygon":
                add(CoverageIssue(.type, "the geometry is a Polygon; Apple requires a MultiPolygon, even for one polygon",
                                  at: geometry["type"]!.place))
                guard let coordinates = geometry["coordinates"] else { return }
                polygons = [coordinates]
            case let other?:
                if other.lowercased() == "multipolygon" {
                    add(CoverageIssue(.type, "the type is \"\(other)\"; it must be spelled exactly \"MultiPolygon\"", at: geometry["type"]!.place))
                    guard let list = geometry["coordinates"]?.elements else { return }
                    polygons = list
                } else {
                    add(CoverageIssue(.type, "the geometry is a \(other); Apple requires a MultiPolygon", at: geometry["type"]!.place))
                    return
                }
            case nil:
                add(CoverageIssue(.type, "the object has no \"type\"; it must be a MultiPolygon", at: geometry.place))
                return
            }
            if polygons.isEmpty || polygons.count > validator.maximumPolygons {
                add(CoverageIssue(.polygonCount, polygons.isEmpty
                    ? "the MultiPolygon has no polygons"
                    : "the MultiPolygon has \(polygons.count) polygons; Apple allows at most \(validator.maximumPolygons)",
                    at: geometry["coordinates"]?.place))
            }
            for (index, polygon) in polygons.enumerated() { self.polygon(polygon, index: index) }
            summarise()
            acrossPolygons()
            if let bbox = geometry["bbox"] { self.bbox(bbox) }
        }

        /// The geometry inside a Feature or a one-feature FeatureCollection (reported as a type
        /// error, then checked anyway); the document itself otherwise.
        mutating func unwrap(_ document: LocatedJSON) -> LocatedJSON? {
            guard document.members != nil else {
                add(CoverageIssue(.type, "the file is not a JSON object; it must be one MultiPolygon geometry", at: document.place))
                return nil
            }
            switch document["type"]?.string {
            case "Feature":
                add(CoverageIssue(.type, "the geometry is wrapped in a Feature; Apple requires a bare MultiPolygon",
                                  at: document["type"]!.place))
                return document["geometry"].flatMap { $0.members == nil ? nil : $0 }
            case "FeatureCollection":
                add(CoverageIssue(.type, "the geometry is wrapped in a FeatureCollection; Apple requires a bare MultiPolygon",
                                  at: document["type"]!.place))
                let features = document["features"]?.elements ?? []
                guard features.count == 1, let geometry = features[0]["geometry"], geometry.members != nil else { return nil }
                return geometry
            default:
                return document
            }
        }

        mutating func polygon(_ polygon: LocatedJSON, index p: Int) {
            polygons.append([])
            guard let rings = polygon.elements else {
                add(CoverageIssue(.position, "polygon \(p + 1) is not an array of rings", at: polygon.place, polygon: p))
                return
            }
            if rings.isEmpty {
                add(CoverageIssue(.ringLength, "polygon \(p + 1) has no ring", at: polygon.place, polygon: p))
                return
            }
            if rings.count > 1 {
                add(CoverageIssue(.holes, "polygon \(p + 1) has \(rings.count - 1) hole(s); coverage polygons cannot have holes",
                                  at: rings[1].place, polygon: p, ring: 1))
            }
            for (r, ring) in rings.enumerated() {
                if let positions = self.ring(ring, polygon: p, index: r), r == 0 { exteriors.append((p, positions)) }
            }
        }

        /// Checks a ring; returns its positions when they are all valid.
        mutating func ring(_ ring: LocatedJSON, polygon p: Int, index r: Int) -> [Position]? {
            guard let elements = ring.elements else {
                add(CoverageIssue(.position, "ring \(r + 1) of polygon \(p + 1) is not an array of positions", at: ring.place, polygon: p, ring: r))
                polygons[p].append([])
                return nil
            }
            let read = elements.enumerated().map { i, element in self.position(element, polygon: p, ring: r, index: i) }
            polygons[p].append(read)
            let positions = read.compactMap { $0 }
            let valid = positions.count == read.count
            if elements.count < 4 {
                add(CoverageIssue(.ringLength, "the ring has \(elements.count) positions; a ring needs at least 4 (the last repeating the first)",
                                  at: ring.place, polygon: p, ring: r))
            }
            guard valid, let first = positions.first, let last = positions.last else { return nil }
            if first.longitude != last.longitude || first.latitude != last.latitude {
                add(CoverageIssue(.ringClosure, "the ring is not closed: it ends at \(last), not at its first position \(first)",
                                  at: elements.last!.place, polygon: p, ring: r, position: elements.count - 1))
            }
            let distinct = positions.count - (first == last ? 1 : 0)
            if r == 0 && distinct > validator.maximumPoints {
                add(CoverageIssue(.pointCount, "polygon \(p + 1) has \(distinct) points; Apple recommends at most \(validator.maximumPoints)",
                                  at: ring.place, polygon: p, ring: r))
            }
            for i in 1..<positions.count where positions[i].longitude == positions[i - 1].longitude && positions[i].latitude == positions[i - 1].latitude {
                add(CoverageIssue(.duplicatePoint, "position \(i + 1) repeats the one before it", at: elements[i].place, polygon: p, ring: r, position: i))
            }
            guard positions.count >= 4 else { return positions }
            if let crossing = Rings.antimeridianCrossing(positions) {
                add(CoverageIssue(.antimeridian, "the ring crosses the antimeridian (±180° longitude) at latitude \(Self.degrees(crossing.latitude))",
                                  at: ring.place, polygon: p, ring: r, point: crossing))
            }
            if r == 0 && Rings.signedArea(Rings.unwrapped(positions)) < 0 {
                add(CoverageIssue(.winding, "the outer ring runs clockwise; RFC 7946 asks for counter-clockwise", at: ring.place, polygon: p, ring: r))
            }
            let plane = Rings.unwrapped(positions)
            if let (a, b) = Rings.selfIntersection(plane), let meeting = Rings.meetingPoint(plane[a], plane[a + 1], plane[b], plane[b + 1]) {
                let crossing = Self.position(meeting)
                add(CoverageIssue(.selfIntersection, "the ring crosses itself at \(Self.degrees(crossing.longitude)), \(Self.degrees(crossing.latitude)) (longitude, latitude): edge \(a + 1) meets edge \(b + 1)",
                                  at: elements[a].place, polygon: p, ring: r, position: a, point: crossing))
            }
            return positions
        }

        mutating func position(_ element: LocatedJSON, polygon p: Int, ring r: Int, index i: Int) -> Position? {
            guard let values = element.elements else {
                add(CoverageIssue(.position, "position \(i + 1) is not an array of numbers", at: element.place, polygon: p, ring: r, position: i))
                return nil
            }
            guard (2...3).contains(values.count) else {
                add(CoverageIssue(.position, "position \(i + 1) has \(values.count) numbers; it needs longitude and latitude (and at most an altitude)",
                                  at: element.place, polygon: p, ring: r, position: i))
                return nil
            }
            var numbers: [Double] = []
            for value in values {
                guard case .number(let number, let text, let place) = value else {
                    let what = value.string.map { "the string \"\($0)\"" } ?? "something that is not a number"
                    add(CoverageIssue(.position, "position \(i + 1) holds \(what); coordinates must be numbers",
                                      at: value.place, polygon: p, ring: r, position: i))
                    return nil
                }
                guard number.isFinite else {
                    add(CoverageIssue(.position, "position \(i + 1) holds \(text); coordinates must be finite numbers",
                                      at: place, polygon: p, ring: r, position: i))
                    return nil
                }
                let decimals = Self.decimals(text)
                if decimals > validator.maximumDecimals {
                    preciseCount += 1
                    if firstPrecise == nil { firstPrecise = (place, p, r, i, text) }
                }
                numbers.append(number)
            }
            if !(-180...180).contains(numbers[0]) || !(-90...90).contains(numbers[1]) {
                let what = !(-180...180).contains(numbers[0]) ? "longitude \(values[0].numberText)" : "latitude \(values[1].numberText)"
                add(CoverageIssue(.position, "position \(i + 1) has \(what), out of range (longitude ±180, latitude ±90)",
                                  at: element.place, polygon: p, ring: r, position: i))
                return nil
            }
            if numbers.count == 3 {
                altitudeCount += 1
                if firstAltitude == nil { firstAltitude = (element.place, p, r, i) }
            }
            let position = Position(longitude: numbers[0], latitude: numbers[1], altitude: numbers.count == 3 ? numbers[2] : nil)
            positions.append(position)
            return position
        }

        /// A point of the longitude/latitude plane as a position, its longitude within ±180°.
        static func position(_ point: PlanePoint) -> Position {
            var longitude = point.x.truncatingRemainder(dividingBy: 360)
            if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
            return Position(longitude: longitude, latitude: point.y)
        }

        /// Degrees to 6 decimals, without trailing zeros, for messages.
        static func degrees(_ value: Double) -> String {
            // printf's %.6f, trailing zeros dropped: shortest text within 6 decimals, else rounded.
            let sink = OutputSink(collectingAs: "degrees")
            sink.writeCoordinate(value, precision: 6)
            var text = sink.collectedText()
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
            return text == "-0" ? "0" : text
        }

        /// Digits after the decimal point as written ("1.5e-7" counts its mantissa's).
        static func decimals(_ text: String) -> Int {
            guard let dot = text.firstIndex(of: ".") else { return 0 }
            return text[text.index(after: dot)...].prefix { $0.isNumber }.count
        }

        /// Warnings that would repeat for every coordinate are given once, with a count.
        mutating func summarise() {
            if let (place, p, r, i, text) = firstPrecise {
                add(CoverageIssue(.precision, "\(preciseCount) coordinate(s) have more than \(validator.maximumDecimals) decimals (first: \(text))",
                                  at: place, polygon: p, ring: r, position: i))
            }
            if let (place, p, r, i) = firstAltitude {
                add(CoverageIssue(.altitude, "\(altitudeCount) position(s) have an altitude", at: place, polygon: p, ring: r, position: i))
            }
        }

        mutating func acrossPolygons() {
            for a in 0..<exteriors.count {
                for b in (a + 1)..<exteriors.count {
                    guard let place = Self.overlap(exteriors[a].ring, exteriors[b].ring) else { continue }
                    add(CoverageIssue(.overlap, "polygons \(exteriors[a].polygon + 1) and \(exteriors[b].polygon + 1) overlap",
                                      polygon: exteriors[b].polygon, point: Self.position(place)))
                }
            }
            let earth = 510_065_621_724_000.0  // m², WGS 84 authalic sphere
            let area = exteriors.reduce(0) { $0 + Rings.sphericalArea($1.ring) }
            if area > earth * validator.maximumAreaShare {
                add(CoverageIssue(.area, "the polygons cover \(Int(area / earth * 100))% of the Earth; coverage should be as specific a region as possible"))
            }
        }

        /// Two outer rings overlap when their edges cross (not merely touch at shared corners or
        /// along shared edges) or a corner of one lies strictly inside the other; returns where:
        /// the first crossing, else such a corner (the first corner of identical rings).
        static func overlap(_ a: [Position], _ b: [Position]) -> PlanePoint? {
            let pa = Rings.unwrapped(a), pb = Rings.unwrapped(b)
            for i in 0..<(pa.count - 1) {
                for j in 0..<(pb.count - 1) where Rings.segmentsCross(pa[i], pa[i + 1], pb[j], pb[j + 1]) {
                    return Rings.meetingPoint(pa[i], pa[i + 1], pb[j], pb[j + 1])
                }
            }
            func strictlyInside(_ ring: [PlanePoint], _ points: [PlanePoint]) -> PlanePoint? {
                points.first { Rings.contains(ring, $0) && !Rings.onBoundary(ring, $0) }
            }
            return strictlyInside(pa, pb) ?? strictlyInside(pb, pa) ?? (Set(pa) == Set(pb) ? pa.first : nil)
        }

        mutating func bbox(_ bbox: LocatedJSON) {
            guard let numbers = bbox.elements?.compactMap(\.number), numbers.count == bbox.elements?.count,
                  numbers.count == 4 || numbers.count == 6 else {
                add(CoverageIssue(.bbox, "the bbox member is not an array of 4 (or 6) numbers", at: bbox.place))
                return
            }
            let box = BoundingBox(values: numbers)!
            let crosses = box.west > box.east
            let outside = positions.first { p in
                let inLongitude = crosses ? (p.longitude >= box.west || p.longitude <= box.east)
                                          : (box.west...box.east).contains(p.longitude)
                return !inLongitude || !(box.south...box.north).contains(p.latitude)
            }
            if let outside {
                add(CoverageIssue(.bbox, "the bbox does not contain the position \(outside)", at: bbox.place))
            }
        }
    }
}

extension LocatedJSON {
    /// A number's text as written, or a description of what is there instead.
    var numberText: String {
        if case .number(_, let text, _) = self { return text }
        return "?"
    }
}
