import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
import MeridianTiles

/// A KML super-overlay over a folder of image tiles, which Google Earth opens: `doc.kml` at the
/// folder's root and, beside each tile `z/x/y.png`, a `z/x/y.kml` holding a `<Region>` (the
/// tile's `LatLonAltBox` and a `Lod`), a `GroundOverlay` of the tile's image and a
/// `NetworkLink` to the KML of each child tile present, loaded when its region comes into view.
///
/// The regions' levels of detail are gdal2tiles' (its `-k`): a tile shows from half its size on
/// screen (`minLodPixels` 128 for 256-pixel tiles) to eight times it (`maxLodPixels` 2048),
/// where its children take over, and a tile with no children never gives way (-1). The tree is
/// made from the tiles the folder holds once the run is done (once shards are joined, and after
/// a resumed run, over the tiles kept from before), so every link resolves: `doc.kml` links
/// each tile whose parent is not in the folder (the lowest level's tiles, and any tile left
/// alone by a transparent parent). Each file is written atomically, `doc.kml` last, so the tree
/// is entered only once it is whole; a run writes them before it finishes its output (before its
/// resume state is removed), so one stopped while they are written is resumed to write them again.
///
/// Every tile KML file in the folder belongs to the tile set as it is: a tile's KML that an
/// earlier run wrote (before a resumed run, or one of other zoom levels) for a tile the folder
/// no longer holds is removed. Only files this overlay writes are: `Z/X/Y.kml` in the tree's
/// place, a regular file that begins as this overlay begins that tile's document; any other
/// file is left as it is.
public enum KMLSuperOverlay {
    /// The KML files written: the tiles' and `doc.kml`.
    public struct Written: Sendable, Equatable {
        /// KML files written beside the tiles, one a tile.
        public var tileFiles: Int
        /// Tiles linked from `doc.kml` (those whose parent the folder does not hold).
        public var roots: Int
        /// Tile KML files an earlier run wrote for tiles the folder no longer holds, removed.
        public var removedFiles = 0
    }

    /// Writes the super-overlay into a finished folder of tiles.
    /// - Parameters:
    ///   - folder: The tile folder (the one a `FolderTileSink` wrote).
    ///   - m: The tile set's metadata: its zoom levels, tile size, format and name.
    ///   - scheme: How the folder counts rows (TMS rows are turned to latitudes from the bottom).
    /// - Returns: What was written.
    /// - Throws: `MeridianError` (cannot create output) when a KML file cannot be written, or a
    ///   symbolic link stands where one goes.
    @discardableResult
    public static func write(folder: String, metadata m: TileSetMetadata, scheme: TileScheme) throws -> Written {
        let tiles = tilesPresent(in: folder, zooms: m.minZoom...m.maxZoom, fileExtension: m.format.fileExtension)
        var written = Written(tileFiles: 0, roots: 0)
        // First, so that no link of the new tree can lead to one of them.
        written.removedFiles = removeStaleTileDocuments(in: folder, keeping: tiles)
        for tile in tiles.sorted(by: { ($0.zoom, $0.x, $0.y) < ($1.zoom, $1.x, $1.y) }) {
            // (A tile's children and parent are the same tiles whether rows count from the top or the bottom.)
            let children = tile.children.filter(tiles.contains)
            let path = "\(folder)/\(tile.zoom)/\(tile.x)/\(tile.y).kml"
            try TileFolderWriter.refuseLink(at: path)
            try OutputTarget.write(Array(tileDocument(tile, scheme: scheme, children: children, metadata: m).utf8), to: path, durable: false)
            written.tileFiles += 1
        }
        let roots = tiles.filter { tile in
            tile.zoom == m.minZoom || !tiles.contains(MapTile(zoom: tile.zoom - 1, x: tile.x / 2, y: tile.y / 2))
        }.sorted(by: { ($0.zoom, $0.x, $0.y) < ($1.zoom, $1.x, $1.y) })
        written.roots = roots.count
        try TileFolderWriter.refuseLink(at: folder + "/doc.kml")
        try OutputTarget.write(Array(rootDocument(roots, scheme: scheme, metadata: m).utf8), to: folder + "/doc.kml", durable: false)
        return written
    }

    /// The tiles the folder holds at `zooms` (`z/x/y.EXT` regular files, numbered as the folder
    /// numbers them): symbolic links and names that are not numbers are not tiles.
    static func tilesPresent(in folder: String, zooms: ClosedRange<Int>, fileExtension: String) -> Set<MapTile> {
        var tiles = Set<MapTile>()
        let suffix = "." + fileExtension
        for zoom in zooms {
            let level = "\(folder)/\(zoom)"
            guard isFolder(level) else { continue }
            for column in entries(of: level) {
                guard let x = Int(column), x >= 0, x < 1 << zoom, isFolder(level + "/" + column) else { continue }
                for name in entries(of: level + "/" + column) where name.hasSuffix(suffix) {
                    guard let y = Int(name.dropLast(suffix.count)), y >= 0, y < 1 << zoom,
                          isRegularFile(level + "/" + column + "/" + name) else { continue }
                    tiles.insert(MapTile(zoom: zoom, x: x, y: y))
                }
            }
        }
        return tiles
    }

    /// Removes the tile KML files in `folder` (`Z/X/Y.kml` that this overlay wrote: see the
    /// type's rule) of tiles not in `tiles`, at any zoom level: how many.
    static func removeStaleTileDocuments(in folder: String, keeping tiles: Set<MapTile>) -> Int {
        var removed = 0
        for level in entries(of: folder) {
            guard let zoom = Int(level), MapTile.zoomLevels.contains(zoom), isFolder(folder + "/" + level) else { continue }
            for column in entries(of: folder + "/" + level) {
                guard let x = Int(column), x >= 0, x < 1 << zoom, isFolder("\(folder)/\(level)/\(column)") else { continue }
                for name in entries(of: "\(folder)/\(level)/\(column)") where name.hasSuffix(".kml") {
                    guard let y = Int(name.dropLast(4)), y >= 0, y < 1 << zoom else { continue }
                    let tile = MapTile(zoom: zoom, x: x, y: y), path = "\(folder)/\(level)/\(column)/\(name)"
                    guard !tiles.contains(tile), isTileDocument(at: path, of: tile), unlink(path) == 0 else { continue }
                    removed += 1
                }
            }
        }
        return removed
    }

    /// Whether the file at `path` is a regular file (not a link) that begins as this overlay
    /// begins `tile`'s document (numbered as the folder numbers it).
    static func isTileDocument(at path: String, of tile: MapTile) -> Bool {
        guard isRegularFile(path) else { return false }
        let start = Array((header + "    <name>\(tile.zoom)/\(tile.x)/\(tile.y).kml</name>\n").utf8)
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: start.count)
        let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, start.count, 0) }
        return got == start.count && bytes == start
    }

    private static func entries(of folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") }
    }

    /// Whether `path` is a folder itself, not a link to one.
    private static func isFolder(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }

    /// A tile numbered as the folder numbers it, as an XYZ tile (rows from the top).
    static func xyz(_ tile: MapTile, _ scheme: TileScheme) -> MapTile {
        scheme == .tms ? MapTile(zoom: tile.zoom, x: tile.x, y: tile.tmsY) : tile
    }

    /// `<north>…</west>` of a tile (numbered as the folder numbers it), in degrees.
    static func box(_ tile: MapTile, _ scheme: TileScheme, indent: String) -> String {
        let b = xyz(tile, scheme).boundingBox
        func degrees(_ value: Double) -> String { String(format: "%.14f", value) }
        return "\(indent)<north>\(degrees(b.north))</north>\n\(indent)<south>\(degrees(b.south))</south>\n"
            + "\(indent)<east>\(degrees(b.east))</east>\n\(indent)<west>\(degrees(b.west))</west>\n"
    }

    /// A `Region` of `tile`: its box, shown from `minLodPixels` to `maxLodPixels` on screen.
    static func region(_ tile: MapTile, _ scheme: TileScheme, minLodPixels: Int, maxLodPixels: Int, indent: String) -> String {
        "\(indent)<Region>\n\(indent)  <LatLonAltBox>\n" + box(tile, scheme, indent: indent + "    ") + "\(indent)  </LatLonAltBox>\n"
            + "\(indent)  <Lod>\n\(indent)    <minLodPixels>\(minLodPixels)</minLodPixels>\n"
            + "\(indent)    <maxLodPixels>\(maxLodPixels)</maxLodPixels>\n\(indent)  </Lod>\n\(indent)</Region>\n"
    }

    /// A `NetworkLink` to `tile`'s KML at `href`, loaded when its region is in view.
    static func networkLink(to tile: MapTile, _ scheme: TileScheme, href: String, minLodPixels: Int) -> String {
        "    <NetworkLink>\n      <name>\(tile.zoom)/\(tile.x)/\(tile.y).kml</name>\n"
            + region(tile, scheme, minLodPixels: minLodPixels, maxLodPixels: -1, indent: "      ")
            + "      <Link>\n        <href>\(href)</href>\n        <viewRefreshMode>onRegion</viewRefreshMode>\n      </Link>\n"
            + "    </NetworkLink>\n"
    }

    static let header = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<kml xmlns=\"http://www.opengis.net/kml/2.2\">\n  <Document>\n"
    static let footer = "  </Document>\n</kml>\n"

    /// `z/x/y.kml`: the tile's region and image, and links to its children present.
    static func tileDocument(_ tile: MapTile, scheme: TileScheme, children: [MapTile], metadata m: TileSetMetadata) -> String {
        let minLod = m.tileSize / 2
        var text = header + "    <name>\(tile.zoom)/\(tile.x)/\(tile.y).kml</name>\n"
        text += region(tile, scheme, minLodPixels: minLod, maxLodPixels: children.isEmpty ? -1 : m.tileSize * 8, indent: "    ")
        text += "    <GroundOverlay>\n      <drawOrder>\(tile.zoom)</drawOrder>\n"
            + "      <Icon>\n        <href>\(tile.y).\(m.format.fileExtension)</href>\n      </Icon>\n"
            + "      <LatLonBox>\n" + box(tile, scheme, indent: "        ") + "      </LatLonBox>\n    </GroundOverlay>\n"
        for child in children {
            text += networkLink(to: child, scheme, href: "../../\(child.zoom)/\(child.x)/\(child.y).kml", minLodPixels: minLod)
        }
        return text + footer
    }

    /// `doc.kml`: the tile set's name and description, and a link to each root tile's KML.
    static func rootDocument(_ roots: [MapTile], scheme: TileScheme, metadata m: TileSetMetadata) -> String {
        var text = header + "    <name>\(xmlEscaped(m.name))</name>\n    <description>\(xmlEscaped(m.description))</description>\n"
        // The tiles' documents stay out of Google Earth's list of places: one entry, the tile set.
        text += "    <styleUrl>#hideChildren</styleUrl>\n    <Style id=\"hideChildren\">\n      <ListStyle>\n"
            + "        <listItemType>checkHideChildren</listItemType>\n      </ListStyle>\n    </Style>\n"
        for root in roots {
            text += networkLink(to: root, scheme, href: "\(root.zoom)/\(root.x)/\(root.y).kml", minLodPixels: m.tileSize / 2)
        }
        return text + footer
    }
}
