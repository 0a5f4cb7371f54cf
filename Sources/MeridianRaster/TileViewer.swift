import Foundation
import MeridianCore
import MeridianFormats
import MeridianTiles

/// An `index.html` beside the tiles that shows them on a Leaflet map, offline: Leaflet is
/// copied next to it from Debian's libjs-leaflet (no CDN, no base map). ``VectorTileViewer``
/// writes the MapLibre page of vector tiles with what is shared here: copying the map
/// library's files, the page's background, the flag a page raises once it has drawn.
public enum TileViewer {
    /// The colour under the tiles, in both pages.
    public static let background = "#dde4ea"

    /// The global a page sets to `true` once the map has drawn every tile it asked for and one
    /// more animation frame has passed: what a screenshot waits for (a fixed wait races the
    /// map's tile loading).
    public static let readyFlag = "meridianViewerReady"

    /// Where Debian's libjs-leaflet puts Leaflet.
    public static let leafletFolder = "/usr/share/javascript/leaflet"

    /// Writes `index.html` and a copy of Leaflet into a finished folder of tiles.
    /// - Parameters:
    ///   - folder: The tile folder (the one a `FolderTileSink` wrote).
    ///   - m: The tile set's metadata (``TilingSummary/metadata``): bounds, zoom levels, format.
    ///   - scheme: How the folder counts rows, so the map asks for the right tiles.
    ///   - leaflet: The folder holding `leaflet.js`, `leaflet.css` and `images/`.
    /// - Throws: `TileOutputError.leafletMissing(folder:leaflet:)` when Leaflet is not there; a `MeridianError` when the files cannot be written.
    public static func write(folder: String, metadata m: TileSetMetadata, scheme: TileScheme, leaflet: String = leafletFolder) throws {
        guard FileManager.default.fileExists(atPath: leaflet + "/leaflet.js") else {
            throw TileOutputError.leafletMissing(folder: folder, leaflet: leaflet)
        }
        // Written over file by file, never removed first: the folder may be a resumed run's.
        for path in [folder + "/leaflet", folder + "/leaflet/images", folder + "/index.html"] { try TileFolderWriter.refuseLink(at: path) }
        let images = (try? FileManager.default.contentsOfDirectory(atPath: leaflet + "/images")) ?? []
        try copyAssets(["leaflet.js", "leaflet.css"] + images.map { "images/" + $0 }, from: leaflet, into: TileFolderWriter(root: folder + "/leaflet"))
        try OutputTarget.write(Array(html(m, scheme: scheme).utf8), to: folder + "/index.html", durable: false)
    }

    /// Copies `files` (paths under `source`) into `target`'s root as new files: FileManager's
    /// copyItem would give them the 0644 of /usr/share, whatever the user's umask.
    /// - Throws: `MeridianError` (cannot create output) when one cannot be read or written.
    static func copyAssets(_ files: [String], from source: String, into target: TileFolderWriter) throws {
        for file in files {
            guard let bytes = FileManager.default.contents(atPath: source + "/" + file) else {
                throw MeridianError(.cannotCreateOutput, "cannot read \(source)/\(file)", at: SourceLocation(file: target.root))
            }
            try target.write(Array(bytes), to: target.root + "/" + file)
        }
    }

    /// The start of a viewer page, to its `</head>`: its title, the map library's stylesheet and
    /// script (copied beside the page), and the page's background.
    static func pageHead(title: String, stylesheet: String, script: String) -> String {
        """
        <!DOCTYPE html>
        <html>
        <head>
          <meta charset="utf-8">
          <title>\(xmlEscaped(title))</title>
          <meta name="viewport" content="width=device-width, initial-scale=1">
          <link rel="stylesheet" href="\(stylesheet)">
          <script src="\(script)"></script>
          <style>html, body, #map { height: 100%; margin: 0; background: \(background); }</style>
        </head>

        """
    }

    static func html(_ m: TileSetMetadata, scheme: TileScheme) -> String {
        let b = m.bounds
        return pageHead(title: m.name, stylesheet: "leaflet/leaflet.css", script: "leaflet/leaflet.js") + """
            <body>
              <div id="map"></div>
              <script>
                // Tiles made by Meridian (\(scheme.rawValue.uppercased()) rows); works offline from file://.
                var bounds = L.latLngBounds([\(b.south), \(b.west)], [\(b.north), \(b.east)]);
                var map = L.map('map', { minZoom: 0, maxZoom: \(m.maxZoom + 3) });
                var tiles = L.tileLayer('{z}/{x}/{y}.\(m.format.fileExtension)', {
                  tms: \(scheme == .tms), tileSize: \(m.tileSize), zoomOffset: \(m.tileSize == 512 ? -1 : 0),
                  minNativeZoom: \(m.minZoom), maxNativeZoom: \(m.maxZoom), minZoom: 0, maxZoom: \(m.maxZoom + 3),
                  bounds: bounds, attribution: \(scriptHTML(m.description))
                });
                // Raised once the tiles in view have loaded, an animation frame later.
                tiles.once('load', function () { requestAnimationFrame(function () { window.\(readyFlag) = true; }); });
                tiles.addTo(map);
                map.fitBounds(bounds);
              </script>
            </body>
            </html>

            """
    }
}

/// A JSON value's text for a page's `<script>`: `<` written `\u003c`, so no text (a name,
/// a description) can close the script element.
func scriptJSON(_ s: String) -> String { jsonString(s).replacingOccurrences(of: "<", with: "\\u003c") }

/// Plain text that the map library shows as HTML (Leaflet's and MapLibre's attribution, made
/// of the input files' names), as a string for a page's `<script>`: escaped for HTML first, so
/// that a name such as `<img onerror=…>.kap` is shown as it is, never run.
func scriptHTML(_ s: String) -> String { scriptJSON(xmlEscaped(s)) }
