import MeridianCommandLine
import MeridianFormats
import MeridianGeometry
import MeridianTiles

// What `meridian info` says of a tile pyramid, for people and for scripts. Here rather than in
// MeridianCommandLine because `meridian` does not link MeridianTiles (an MBTiles file is
// SQLite): `meridian-gdal tile-info` prints it.

extension TilePyramidSummary {
    /// What the container is called.
    public var containerName: String {
        switch container {
        case .folder: "tile folder"
        case .mbtiles: "MBTiles"
        case .pmtiles: "PMTiles"
        }
    }

    /// The summary as one JSON object for scripts: `file`, `container` (`folder`, `mbtiles`,
    /// `pmtiles`), `scheme`, `format` (`mvt`, `png`, `jpeg`, `webp`), `name`, `description`,
    /// `tileSize`, `zooms` (the stated `[min, max]`), `tiles`, `tilesPerZoom` (`[{zoom, tiles}]`),
    /// `bounds` (`[west, south, east, north]`), `center` (`[longitude, latitude, zoom]`),
    /// `centerStated`, `vectorLayers` (`[{id, fields, minzoom, maxzoom, description}]`) and `bytes`.
    public var jsonValue: JSONValue {
        var object: JSONObject = [
            "file": .string(path),
            "container": .string(container == .folder ? "folder" : container == .mbtiles ? "mbtiles" : "pmtiles"),
            "scheme": .string(scheme.rawValue),
            "format": .string(metadata.format.rawValue),
            "name": .string(metadata.name),
            "description": .string(metadata.description),
            "tileSize": .integer(Int64(metadata.tileSize)),
            "zooms": .array([.integer(Int64(metadata.minZoom)), .integer(Int64(metadata.maxZoom))]),
            "tiles": .integer(Int64(tileCount)),
        ]
        object["tilesPerZoom"] = .array(tilesPerZoom.map { .object(["zoom": .integer(Int64($0.zoom)), "tiles": .integer(Int64($0.tiles))]) })
        let b = metadata.bounds
        object["bounds"] = .array([b.west, b.south, b.east, b.north].map(CoordinateText.json))
        object["center"] = .array([CoordinateText.json(center.longitude), CoordinateText.json(center.latitude), .integer(Int64(center.zoom))])
        object["centerStated"] = .bool(centerIsStated)
        object["vectorLayers"] = .array(vectorLayers.map { layer in
            var entry: JSONObject = ["id": .string(layer.id)]
            entry["fields"] = .object(JSONObject(layer.fields.map { ($0.name, JSONValue.string($0.kind)) }, uniquingKeysWith: { _, last in last }))
            entry["minzoom"] = layer.minZoom.map { .integer(Int64($0)) } ?? .null
            entry["maxzoom"] = layer.maxZoom.map { .integer(Int64($0)) } ?? .null
            if let description = layer.description { entry["description"] = .string(description) }
            return .object(entry)
        })
        object["bytes"] = .integer(Int64(bytes))
        return .object(object)
    }

    /// The summary as aligned `label: value` lines for people, as `meridian info` prints a
    /// file's, ending in a newline; counts are grouped by thousands.
    public var text: String {
        let count = SummaryReport.grouped
        var lines: [(String, String)] = [("file", "\(path) (\(containerName), \(metadata.format.displayName))")]
        if !metadata.name.isEmpty { lines.append(("name", metadata.name)) }
        if !metadata.description.isEmpty { lines.append(("description", metadata.description)) }
        lines.append(("scheme", scheme.rawValue))
        lines.append(("format", "\(metadata.format.rawValue) (\(metadata.format.mimeType))"))
        if metadata.format.isImage { lines.append(("tile size", "\(metadata.tileSize) pixels")) }
        lines.append(("zooms", metadata.minZoom == metadata.maxZoom ? "\(metadata.minZoom)" : "\(metadata.minZoom)-\(metadata.maxZoom)"))
        lines.append(("tiles", count(tileCount)))
        for level in tilesPerZoom { lines.append(("  zoom \(level.zoom)", count(level.tiles))) }
        lines.append(("bounds", CoordinateText.bounds(metadata.bounds)))
        lines.append(("center", "\(CoordinateText.text(center.longitude)), \(CoordinateText.text(center.latitude)), zoom \(center.zoom)\(centerIsStated ? "" : " (from the bounds)")"))
        if metadata.format == .mvt {
            lines.append(("layers", vectorLayers.isEmpty ? "none listed" : count(vectorLayers.count)))
            for layer in vectorLayers {
                var levels = ""
                if let low = layer.minZoom, let high = layer.maxZoom { levels = low == high ? " (zoom \(low))" : " (zooms \(low)-\(high))" }
                let fields = layer.fields.isEmpty ? "no fields" : "\(layer.fields.count): " + layer.fields.map { "\($0.name) (\($0.kind))" }.joined(separator: ", ")
                lines.append(("layer", "\(layer.id)\(levels): \(fields)"))
            }
        }
        lines.append(("size", "\(count(bytes)) bytes"))
        let width = lines.map(\.0.count).max()! + 2
        return lines.map { label, value in
            label + ":" + String(repeating: " ", count: max(1, width - label.count - 1)) + value
        }.joined(separator: "\n") + "\n"
    }
}
