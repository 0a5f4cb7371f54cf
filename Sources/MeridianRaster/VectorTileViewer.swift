import Foundation
import MeridianFormats
import MeridianGeometry
import MeridianTiles
import MeridianCore

/// An `index.html` in a finished folder of vector tiles that shows them on a MapLibre GL JS
/// map, offline: fill, line and circle layers for each of the pyramid's layers, drawn as
/// `meridian render` draws features (their simplestyle properties over its defaults), opened
/// on the pyramid's bounds. No symbol layer: text needs a glyph server.
///
/// A page opened from disk (`file://`) may not read other files (browsers refuse it
/// `fetch` and `XMLHttpRequest` there) but may run scripts beside it, so the page gets
/// `viewer/`: MapLibre's two files and each tile again as a script, `viewer/tiles/z/x/y.js`,
/// that hands the tile's bytes to the page. The pyramid's own files are not touched.
public enum VectorTileViewer {
    /// Where Meridian looks for MapLibre GL JS (`maplibre-gl.js` and `maplibre-gl.css`), first
    /// found first: `share/meridian/maplibre-gl` in the parent of the running executable's
    /// folder (`/usr/share/…` for `/usr/bin/meridian`) or in the one above it (a checkout's
    /// `.build/share/…` for `.build/<platform>/debug/meridian`, where Scripts/bootstrap puts
    /// them), then `/usr/share/meridian/maplibre-gl`.
    public static var mapLibreFolders: [String] {
        var folders: [String] = []
        if let executable = Platform.executablePath() {
            var folder = (executable as NSString).deletingLastPathComponent
            for _ in 0..<2 {
                folder = (folder as NSString).deletingLastPathComponent
                folders.append((folder as NSString).appendingPathComponent("share/meridian/maplibre-gl"))
            }
        }
        let system = "/usr/share/meridian/maplibre-gl"
        return folders.contains(system) ? folders : folders + [system]
    }

    /// MapLibre's two files, the page loads them from `viewer/`.
    static let mapLibreFiles = ["maplibre-gl.js", "maplibre-gl.css"]

    /// The first of `folders` that holds MapLibre GL JS.
    /// - Throws: `TileOutputError.mapLibreMissing(folder:searched:)` (unavailable) when none does,
    ///   naming `output`: found before tiling, so a run that cannot write its page does not start.
    public static func locateMapLibre(for output: String, in folders: [String] = mapLibreFolders) throws -> String {
        let manager = FileManager.default
        guard let found = folders.first(where: { folder in mapLibreFiles.allSatisfy { manager.fileExists(atPath: folder + "/" + $0) } }) else {
            throw TileOutputError.mapLibreMissing(folder: output, searched: folders)
        }
        return found
    }

    /// Writes `index.html` and `viewer/` into a finished folder of vector tiles, whose
    /// `metadata.json` gives the layers, bounds and zoom levels. `viewer/` is made out of sight
    /// (`.viewer.partial`) and renamed into place; `index.html` goes last.
    /// - Parameters:
    ///   - folder: The pyramid's folder (as MeridianTiles' `FolderTileSink` writes it).
    ///   - mapLibre: The folder holding `maplibre-gl.js` and `maplibre-gl.css` (``locateMapLibre(for:in:)``).
    /// - Returns: The number of tiles the page can show.
    /// - Throws: `MeridianError` (bad input) when the folder is not a vector pyramid; (cannot
    ///   create output) when `viewer` or `index.html` is there already, or a file cannot be
    ///   read or written.
    @discardableResult
    public static func write(folder: String, mapLibre: String) throws -> Int {
        let pyramid = try TileFolderReader(path: folder)
        let metadata = try pyramid.pyramidMetadata()
        guard metadata.format == .mvt else {
            throw MeridianError(.badInput, "not a folder of vector tiles: it holds \(metadata.format.fileExtension) tiles", at: SourceLocation(file: folder))
        }
        let target = folder + "/viewer", staging = folder + "/.viewer.partial", page = folder + "/index.html"
        for path in [target, staging, page] where LinkFreeReading.kind(of: path) != nil {
            throw MeridianError(.cannotCreateOutput, "the tile folder holds \((path as NSString).lastPathComponent) already: Meridian does not replace it",
                                at: SourceLocation(file: path), hint: "write the viewer into a new tile folder")
        }
        var tiles = 0
        // Stopped in order by a signal: the handler can remove files, not the staging folder.
        try TemporaryFiles.stoppingInOrder { do {
            tiles = try writeFiles(of: pyramid, mapLibre: mapLibre, into: TileFolderWriter(root: staging, inPlace: true))
            guard rename(staging, target) == 0 else {
                throw MeridianError(.cannotCreateOutput, "cannot move the viewer's files into place: \(String(cString: strerror(errno)))", at: SourceLocation(file: target))
            }
        } catch {
            // Only this run's staging folder: never followed if a link took its place.
            if LinkFreeReading.kind(of: staging) == .folder { try? FileManager.default.removeItem(atPath: staging) }
            throw error
        } }
        try OutputTarget.write(Array(html(metadata, layers: layerNames(metadata, in: folder)).utf8), to: page, durable: false)
        return tiles
    }

    /// Writes `index.html` and `viewer/` into the folder of vector tiles a run is finishing,
    /// before the run writes its `metadata.json` and lets go of its resume state: a run whose
    /// page fails (or is stopped) can be resumed, and writes the page again. Each file is written
    /// whole over what an earlier attempt of the run left (never removed first, never through a
    /// link); `index.html` goes last.
    /// - Parameters:
    ///   - folder: The pyramid's folder, every tile in place.
    ///   - metadata: The tile set's metadata, as the run will write it.
    ///   - scheme: How the folder counts rows.
    ///   - mapLibre: The folder holding `maplibre-gl.js` and `maplibre-gl.css` (``locateMapLibre(for:in:)``).
    /// - Returns: The number of tiles the page can show.
    /// - Throws: `MeridianError` (cannot create output) when a file cannot be read or written,
    ///   or a symbolic link stands where one goes.
    @discardableResult
    public static func write(finishing folder: String, metadata: TileSetMetadata, scheme: TileScheme, mapLibre: String) throws -> Int {
        let page = folder + "/index.html"
        for path in [folder + "/viewer", folder + "/viewer/tiles", page] { try TileFolderWriter.refuseLink(at: path) }
        let pyramid = TileFolderReader(path: folder, metadata: metadata, scheme: scheme)
        let tiles = try writeFiles(of: pyramid, mapLibre: mapLibre, into: TileFolderWriter(root: folder + "/viewer"))
        try OutputTarget.write(Array(html(metadata, layers: layerNames(metadata, in: folder)).utf8), to: page, durable: false)
        return tiles
    }

    /// Writes MapLibre's files and each tile of `pyramid` as a script into `files`' root
    /// (`viewer/`, or its staging folder), stopping between tiles when a signal asks.
    /// - Returns: The number of tiles written.
    private static func writeFiles(of pyramid: TileFolderReader, mapLibre: String, into files: TileFolderWriter) throws -> Int {
        try TileViewer.copyAssets(mapLibreFiles, from: mapLibre, into: files)
        var tiles = 0
        for tile in try pyramid.tileAddresses(zooms: nil) {
            try TemporaryFiles.checkForStop()
            guard let bytes = try pyramid.uncompressedTile(tile) else { continue }
            let key = "\(tile.zoom)/\(tile.x)/\(tile.y)"
            try files.write(Array("meridianTile(\"\(key)\",\"\(Data(bytes).base64EncodedString())\");\n".utf8), to: "\(files.root)/tiles/\(key).js")
            tiles += 1
        }
        return tiles
    }

    /// The ids of `vector_layers`, in order.
    static func layerNames(_ metadata: TileSetMetadata, in folder: String) throws -> [String] {
        guard let text = metadata.vectorLayersJSON else { return [] }
        let json = try LocatedJSON.parse(BufferedInput(bytes: Array(text.utf8), name: folder + "/metadata.json"))
        return json.elements?.compactMap { $0["id"]?.string } ?? []
    }

    /// The page: a style of fill, line and circle layers per source layer, simplestyle
    /// properties read by expressions with `meridian render`'s defaults (`OverlayStyle`).
    static func html(_ m: TileSetMetadata, layers: [String]) -> String {
        let b = m.bounds, zooms = m.zooms
        let names = "[" + layers.map(scriptJSON).joined(separator: ", ") + "]"
        return TileViewer.pageHead(title: m.name, stylesheet: "viewer/maplibre-gl.css", script: "viewer/maplibre-gl.js") + """
            <body>
              <div id="map"></div>
              <script>
                // Vector tiles made by Meridian; works offline from file://. A page opened from disk
                // may not read files, but it may run scripts: each tile is viewer/tiles/z/x/y.js,
                // which calls meridianTile with the tile's bytes (base64).
                var waiting = {};
                window.meridianTile = function (key, base64) {
                  var text = atob(base64), bytes = new Uint8Array(text.length);
                  for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
                  (waiting[key] || []).forEach(function (done) { done(bytes.buffer.slice(0)); });
                  delete waiting[key];
                };
                maplibregl.addProtocol('meridian', function (request) {
                  var key = request.url.replace('meridian://', '');
                  return new Promise(function (resolve) {
                    (waiting[key] = waiting[key] || []).push(function (data) { resolve({ data: data }); });
                    var script = document.createElement('script');
                    // A tile the pyramid does not have (no feature there) is an empty one.
                    script.onload = script.onerror = function () {
                      script.remove();
                      if (waiting[key]) { waiting[key].forEach(function (done) { done(new ArrayBuffer(0)); }); delete waiting[key]; }
                    };
                    script.src = 'viewer/tiles/' + key + '.js';
                    document.head.appendChild(script);
                  });
                });

                // Drawn as `meridian render` draws features: simplestyle properties over its defaults.
                function number(key, fallback, low, high) {
                  return ['min', high, ['max', low, ['to-number', ['coalesce', ['get', key], fallback], fallback]]];
                }
                function kinds(names) { return ['match', ['geometry-type'], names, true, false]; }
                var layers = [{ id: 'background', type: 'background', paint: { 'background-color': '\(TileViewer.background)' } }];
                \(names).forEach(function (name, index) {
                  var common = { source: 'pyramid', 'source-layer': name };
                  layers.push(Object.assign({ id: index + '-fill', type: 'fill', filter: kinds(['Polygon', 'MultiPolygon']), paint: {
                    'fill-color': ['to-color', ['get', 'fill'], '#555555'], 'fill-opacity': number('fill-opacity', 0.6, 0, 1) } }, common));
                  layers.push(Object.assign({ id: index + '-line', type: 'line', filter: kinds(['LineString', 'MultiLineString', 'Polygon', 'MultiPolygon']),
                    layout: { 'line-join': 'round', 'line-cap': 'round' }, paint: {
                    'line-color': ['to-color', ['get', 'stroke'], '#555555'], 'line-opacity': number('stroke-opacity', 1, 0, 1),
                    'line-width': number('stroke-width', 2, 0, 1000) } }, common));
                  layers.push(Object.assign({ id: index + '-circle', type: 'circle', filter: kinds(['Point', 'MultiPoint']), paint: {
                    'circle-color': ['to-color', ['get', 'marker-color'], '#7e7e7e'],
                    'circle-radius': ['match', ['get', 'marker-size'], 'small', 4, 'large', 9, 6],
                    'circle-stroke-color': '#ffffff', 'circle-stroke-width': 1 } }, common));
                });

                var bounds = [[\(b.west), \(b.south)], [\(b.east), \(b.north)]];
                var map = new maplibregl.Map({
                  container: 'map',
                  style: { version: 8, layers: layers, sources: { pyramid: {
                    type: 'vector', tiles: ['meridian://{z}/{x}/{y}'], minzoom: \(zooms.lowerBound), maxzoom: \(zooms.upperBound),
                    bounds: [\(b.west), \(b.south), \(b.east), \(b.north)], attribution: \(scriptHTML(m.description)) } } },
                  center: [\((b.west + b.east) / 2), \((b.south + b.north) / 2)], zoom: \(zooms.lowerBound),
                  bounds: bounds, fitBoundsOptions: { padding: 20, maxZoom: \(zooms.upperBound) },
                  maxZoom: \(min(zooms.upperBound + 4, 24)), attributionControl: { compact: true },
                  // The drawing kept after each frame, so a screenshot of the page shows it.
                  canvasContextAttributes: { preserveDrawingBuffer: true }
                });
                map.addControl(new maplibregl.NavigationControl());
                // Raised once every tile in view is drawn, an animation frame later.
                map.once('idle', function () { requestAnimationFrame(function () { window.\(TileViewer.readyFlag) = true; }); });
              </script>
            </body>
            </html>

            """
    }
}
