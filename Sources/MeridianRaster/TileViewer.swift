import Foundation
import MeridianCore
import MeridianFormats
import MeridianTiles

/// An `index.html` beside the tiles that shows them on a Leaflet map, offline: Leaflet is
/// copied next to it from Debian's libjs-leaflet (no CDN, no base map).
public enum TileViewer {
    /// Where Debian's libjs-leaflet puts Leaflet.
    public static let leafletFolder = "/usr/share/javascript/leaflet"

    /// Writes `index.html` and a copy of Leaflet into a finished folder of tiles.
    /// - Parameters:
    ///   - folder: The tile folder (the one a ``FolderTileSink`` wrote).
    ///   - m: The tile set's metadata (``TilingSummary/metadata``): bounds, zoom levels, format.
    ///   - scheme: How the folder counts rows, so the map asks for the right tiles.
    ///   - leaflet: The folder holding `leaflet.js`, `leaflet.css` and `images/`.
    /// - Throws: ``TileOutputError/leafletMissing(folder:leaflet:)`` when Leaflet is not there; a `MeridianError` when the files cannot be written.
    public static func write(folder: String, metadata m: TileSetMetadata, scheme: TileScheme, leaflet: String = leafletFolder) throws {
        let manager = FileManager.default
        guard manager.fileExists(atPath: leaflet + "/leaflet.js") else {
            throw TileOutputError.leafletMissing(folder: folder, leaflet: leaflet)
        }
        // Leaflet's files are copied as new files (FileManager.copyItem would give them the
        // 0644 of /usr/share, whatever the user's umask).
        let target = folder + "/leaflet"
        // Written over file by file, never removed first: the folder may be a resumed run's.
        for path in [target, target + "/images", folder + "/index.html"] { try TileFolderWriter.refuseLink(at: path) }
        do {
            try manager.createDirectory(atPath: target + "/images", withIntermediateDirectories: true)
            let images = (try? manager.contentsOfDirectory(atPath: leaflet + "/images")) ?? []
            for file in ["leaflet.js", "leaflet.css"] + images.map({ "images/" + $0 }) {
                guard let bytes = manager.contents(atPath: leaflet + "/" + file) else {
                    throw MeridianError(.cannotCreateOutput, "cannot read \(leaflet)/\(file)", at: SourceLocation(file: target))
                }
                try OutputTarget.write(Array(bytes), to: target + "/" + file, durable: false)
            }
        } catch let error as MeridianError {
            throw error
        } catch {
            throw MeridianError(.cannotCreateOutput, "cannot copy Leaflet: \(error.localizedDescription)", at: SourceLocation(file: target))
        }
        try OutputTarget.write(Array(html(m, scheme: scheme).utf8), to: folder + "/index.html", durable: false)
    }

    static func html(_ m: TileSetMetadata, scheme: TileScheme) -> String {
        let b = m.bounds
        return """
            <!DOCTYPE html>
            <html>
            <head>
              <meta charset="utf-8">
              <title>\(xmlEscaped(m.name))</title>
              <meta name="viewport" content="width=device-width, initial-scale=1">
              <link rel="stylesheet" href="leaflet/leaflet.css">
              <script src="leaflet/leaflet.js"></script>
              <style>html, body, #map { height: 100%; margin: 0; background: #dde4ea; }</style>
            </head>
            <body>
              <div id="map"></div>
              <script>
                // Tiles made by Meridian (\(scheme.rawValue.uppercased()) rows); works offline from file://.
                var bounds = L.latLngBounds([\(b.south), \(b.west)], [\(b.north), \(b.east)]);
                var map = L.map('map', { minZoom: 0, maxZoom: \(m.maxZoom + 3) });
                L.tileLayer('{z}/{x}/{y}.\(m.format.fileExtension)', {
                  tms: \(scheme == .tms), tileSize: \(m.tileSize), zoomOffset: \(m.tileSize == 512 ? -1 : 0),
                  minNativeZoom: \(m.minZoom), maxNativeZoom: \(m.maxZoom), minZoom: 0, maxZoom: \(m.maxZoom + 3),
                  bounds: bounds, attribution: \(jsonString(m.description))
                }).addTo(map);
                map.fitBounds(bounds);
              </script>
            </body>
            </html>

            """
    }
}
