import DequeModule
import MeridianCore
import MeridianGeometry

/// Reads GPX 1.0 and 1.1 streaming on expat, as togeojson's `gpx()` does: each waypoint is a
/// Point, each route a LineString, each track a LineString (one segment) or MultiLineString,
/// with `_gpxType` ("wpt", "rte", "trk"), the text fields (name, cmt, desc, src, sym, type,
/// time, number), the first link's href as `link`, elevations as altitudes, and point times as
/// `coordinateProperties.times` (an array per segment for a MultiLineString). What a track or
/// route point's `<extensions>` hold (Garmin's TrackPointExtension `hr`, `cad`, `atemp`, a
/// power meter's `power`, …) goes beside the times, an array per leaf element's local name,
/// null at points without it: a track's per-point data is the point of a track.
public final class GPXReader: FeatureReader {
    private let input: BufferedInput
    /// The parser owns the builder it reports to; the reader owns the parser.
    private let parser: XMLEventParser
    private let builder: GPXDocumentBuilder
    private var finished = false
    /// Always empty: GPX has nothing after its features that a collection member could hold.
    public private(set) var trailingMetadata = CollectionMetadata()

    /// A GPX reader over `input`; nothing is read until ``readMetadata()`` or ``next()``.
    /// - Parameter input: The GPX document.
    public init(input: BufferedInput) {
        self.input = input
        builder = GPXDocumentBuilder(file: input.name)
        parser = XMLEventParser(name: input.name, handler: builder, maximumDepth: 64)  // GPX nests five levels
        builder.parser = Unmanaged.passUnretained(parser)
    }

    /// Reads as far as the first feature and returns the `<metadata><name>` as the collection's
    /// `name`, if there is one.
    /// - Throws: `MeridianError` (`badInput`) for malformed XML, with the file, line and column.
    public func readMetadata() throws -> CollectionMetadata {
        try fill()
        var members = JSONObject()
        if let collectionName = builder.collectionName { members["name"] = .string(collectionName) }
        return CollectionMetadata(members: members)
    }

    /// The next waypoint, route or track as a feature, or nil at the end of the document.
    /// - Throws: `MeridianError` (`badInput`) for malformed XML, with the file, line and column.
    public func next() throws -> Feature? {
        try fill()
        return builder.queue.popFirst()
    }

    private func fill() throws {
        guard !finished else { return }
        finished = try parser.feed(from: input) { !builder.queue.isEmpty }
    }
}

/// Turns expat's events into GPX features: each wpt, rte and trk is built as a small element
/// tree and converted when it ends.
final class GPXDocumentBuilder: XMLEventHandler {
    let file: String
    /// The parser reporting to this builder (which it owns): for depth, lines and stopping.
    var parser: Unmanaged<XMLEventParser>!
    /// Features converted and not yet handed out.
    var queue = Deque<Feature>()
    /// `<metadata><name>` (GPX 1.1) once read.
    private(set) var collectionName: String?
    /// The wpt, rte or trk being read, until it ends.
    private var tree: XMLTree?
    private var inMetadata = false
    private var metadataNameText: [UInt8]?

    init(file: String) {
        self.file = file
    }

    /// The local name: GPX files use the default namespace, but some write a `gpx:` prefix.
    private static func localName(_ raw: UnsafePointer<CChar>) -> String {
        let name = String(cString: raw)
        if let colon = name.firstIndex(of: ":"), name.hasPrefix("gpx:") { return String(name[name.index(after: colon)...]) }
        return name
    }

    func startElement(_ rawName: UnsafePointer<CChar>, attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>) {
        let parser = parser.takeUnretainedValue()
        let depth = parser.depth
        let name = Self.localName(rawName)
        if depth == 1 && name != "gpx" {
            parser.stop(MeridianError(.badInput, "not GPX: the document's root is <\(name)>", at: parser.location))
            return
        }
        if let tree {
            tree.open(name, attributes: attributes, line: parser.line)
            return
        }
        if depth == 2 && name == "metadata" { inMetadata = true }
        if inMetadata && depth == 3 && name == "name" { metadataNameText = [] }
        guard depth == 2, ["wpt", "rte", "trk"].contains(name) else { return }
        tree = XMLTree(root: name, attributes: attributes, line: parser.line)
    }

    func endElement(_ rawName: UnsafePointer<CChar>) {
        let parser = parser.takeUnretainedValue()
        let depth = parser.depth
        guard let tree else {
            if inMetadata && depth == 3, let text = metadataNameText {
                collectionName = String(decoding: text, as: UTF8.self).trimmingWhitespace()
                metadataNameText = nil
            }
            if depth == 2 { inMetadata = false }
            // GPX 1.0 names the file with <name> right under <gpx>.
            return
        }
        tree.close()
        guard tree.isComplete else { return }
        self.tree = nil
        do {
            queue.append(try feature(from: tree.root))
        } catch let error as MeridianError {
            parser.stop(error)
        } catch {
            parser.stop(MeridianError(.badInput, "\(error)", at: parser.location))
        }
    }

    func characters(_ text: UnsafeBufferPointer<UInt8>) {
        if let tree {
            tree.append(text)
        } else if metadataNameText != nil {
            metadataNameText!.append(contentsOf: text)
        }
    }

    func cdata(starts: Bool) {}

    // MARK: - Features

    private func location(_ element: XMLElement) -> SourceLocation {
        SourceLocation(file: file, line: element.line)
    }

    private func position(_ point: XMLElement) throws -> Position {
        func coordinate(_ key: String, _ range: ClosedRange<Double>) throws -> Double {
            guard let text = point.attributes[key] else {
                throw MeridianError(.badInput, "<\(point.name)> has no \(key) attribute", at: location(point))
            }
            guard let value = NumberText.parseLenient(Array(text.utf8)), range.contains(value) else {
                throw MeridianError(.badInput, "<\(point.name)>'s \(key)=\"\(text)\" is not a number from \(Int(range.lowerBound)) to \(Int(range.upperBound))",
                                    at: location(point))
            }
            return value
        }
        let elevation = point.childText("ele").flatMap { NumberText.parseLenient(Array($0.trimmingWhitespace().utf8)) }
        return Position(longitude: try coordinate("lon", -180...180), latitude: try coordinate("lat", -90...90), altitude: elevation)
    }

    /// The leaf elements under a point's `<extensions>` (however deep: Garmin nests them in a
    /// `gpxtpx:TrackPointExtension`), by local name, the first of a name, with their text as a
    /// number or boolean where it reads as one.
    private func extensionValues(_ point: XMLElement) -> [(String, JSONValue)] {
        guard let extensions = point.child("extensions") else { return [] }
        var values: [(String, JSONValue)] = []
        func visit(_ element: XMLElement) {
            let children = element.children
            guard children.isEmpty else { return children.forEach(visit) }
            let text = element.textContent.trimmingWhitespace()
            let name = element.name.split(separator: ":").last.map(String.init) ?? element.name
            guard !text.isEmpty, !name.isEmpty, !values.contains(where: { $0.0 == name }) else { return }
            values.append((name, JSONValue.inferred(fromText: Array(text.utf8))))
        }
        extensions.children.forEach(visit)
        return values
    }

    private func feature(from element: XMLElement) throws -> Feature {
        var properties = JSONObject()
        properties["_gpxType"] = .string(element.name)
        for key in ["name", "cmt", "desc", "src", "sym", "type", "time", "number"] {
            if let text = element.childText(key)?.trimmingWhitespace(), !text.isEmpty {
                properties[key] = key == "number" ? JSONValue.inferred(fromText: Array(text.utf8)) : .string(text)
            }
        }
        if let href = element.child("link")?.attributes["href"] { properties["link"] = .string(href) }

        func times(_ points: [XMLElement]) -> JSONValue? {
            let values = points.map { $0.childText("time")?.trimmingWhitespace() }
            guard values.contains(where: { $0 != nil }) else { return nil }
            return .array(values.map { $0.map(JSONValue.string) ?? .null })
        }
        /// The points' times and extension values, one array each, one value per point.
        func positionData(_ points: [XMLElement]) -> JSONObject {
            var data = JSONObject()
            if let times = times(points) { data["times"] = times }
            let extensions = points.map(extensionValues)
            var names: [String] = []
            for values in extensions { for (name, _) in values where name != "times" && !names.contains(name) { names.append(name) } }
            for name in names {
                data[name] = .array(extensions.map { values in values.first { $0.0 == name }?.1 ?? .null })
            }
            return data
        }
        let geometry: Geometry
        switch element.name {
        case "wpt":
            geometry = .point(Point(try position(element)))
        case "rte":
            let points = element.children("rtept")
            geometry = .lineString(LineString(try points.map(position)))
            let data = positionData(points)
            if !data.isEmpty { properties[PositionData.member] = .object(data) }
        default:
            let segments = element.children("trkseg").map { $0.children("trkpt") }.filter { !$0.isEmpty }
            let lines = try segments.map { try $0.map(position) }
            let segmentData = segments.map(positionData)
            if lines.count == 1 {
                geometry = .lineString(LineString(lines[0]))
                if !segmentData[0].isEmpty { properties[PositionData.member] = .object(segmentData[0]) }
            } else {
                geometry = .multiLineString(MultiLineString(lines))
                var names: [String] = []
                for data in segmentData { for name in data.keys where !names.contains(name) { names.append(name) } }
                if !names.isEmpty {
                    // A segment without an array has an unknown value at each position.
                    var data = JSONObject()
                    for name in names {
                        data[name] = .array(zip(segmentData, lines).map { $0[name] ?? PositionData.nulls(for: .lineString(LineString($1))) })
                    }
                    properties[PositionData.member] = .object(data)
                }
            }
        }
        return Feature(geometry: geometry, properties: properties)
    }
}
