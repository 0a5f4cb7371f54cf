import CSQLite
import MeridianCore
import MeridianFormats
import MeridianGeometry

/// An MBTiles 1.3 file opened for reading: its metadata, its zoom levels and any tile by its
/// XYZ address (rows are stored TMS-style, counted from the bottom). A basemap under a picture
/// reads tiles one by one; checks and tests can take them all.
public final class MBTilesFile {
    /// The file's path, as given and as messages name it.
    public let path: String
    private let database: SQLiteDatabase
    /// Prepared at the first `tile(_:)`, then run again for each tile.
    private var lookup: SQLiteStatement?
    /// What queries read tiles from: the `tiles` table, or the join of `map` and `images` that
    /// a `tiles` view stands for in deduplicated files (never the file's own view).
    let tilesSource: String
    /// The `metadata` table's rows, read when the file is opened (`name`, `format`, `bounds`,
    /// `minzoom`, …, each value as stored text).
    public private(set) var metadata: [String: String] = [:]

    /// Opens an MBTiles file read-only and reads its metadata. Not for sharing between threads:
    /// tile lookups reuse one prepared statement.
    /// - Parameter path: The file's path.
    /// - Throws: `MeridianError` (input unavailable) when the file cannot be opened, or (bad input)
    ///   when it is not an MBTiles file (no `metadata` table).
    public init(path: String) throws {
        self.path = path
        do {
            database = try SQLiteDatabase(path: path, mode: .readOnly)
        } catch {
            throw MeridianError(.inputUnavailable, "cannot open the MBTiles file", at: SourceLocation(file: path))
        }
        tilesSource = try Self.tilesSource(in: database, path: path)
        var size = 0
        try Self.rows(of: database, "SELECT name, value FROM metadata", path: path) {
            let (name, value) = ($0.text(0), $0.text(1))
            size += name.utf8.count + value.utf8.count
            guard size <= TileInputLimits.metadataBytes else {
                throw MeridianError(.badInput, "the MBTiles file's metadata is larger than \(TileInputLimits.metadataBytes >> 20) MiB",
                                    at: SourceLocation(file: path))
            }
            metadata[name] = value
        }
    }

    /// Where the tiles are read from, after checking that the file's `metadata` and `tiles`
    /// are tables: a view runs SQL the file chose (one that recurses never returns), so none
    /// is read, except the well-known `tiles` view over the tables `map` and `images`, whose
    /// join Meridian writes itself.
    private static func tilesSource(in database: SQLiteDatabase, path: String) throws -> String {
        var kinds: [String: String] = [:]
        // A file that is no SQLite database at all has no metadata table either.
        try? database.forEachRow("SELECT name, type FROM sqlite_master WHERE name IN ('metadata', 'tiles', 'map', 'images')") {
            kinds[$0.text(0)] = $0.text(1)
        }
        for name in ["metadata", "tiles"] where kinds[name].map({ $0 != "table" && $0 != "view" }) ?? true {
            throw MeridianError(.badInput, "not an MBTiles file: it has no \(name) table", at: SourceLocation(file: path))
        }
        guard kinds["metadata"] == "table" else {
            throw MeridianError(.badInput, "the MBTiles file's metadata is a view, not a table: Meridian reads no views", at: SourceLocation(file: path))
        }
        if kinds["tiles"] == "table" { return "tiles" }
        guard kinds["map"] == "table", kinds["images"] == "table" else {
            throw MeridianError(.badInput, "the MBTiles file's tiles are a view, not a table (nor the usual view over the tables map and images): Meridian reads no views",
                                at: SourceLocation(file: path))
        }
        // tippecanoe's images are keyed by zoom level and id (its ids repeat across levels):
        // joined on the id alone, a tile would come once for each level its id is found at.
        var imageColumns: Set<String> = []
        try? database.forEachRow("PRAGMA table_info(images)") { imageColumns.insert($0.text(1)) }
        let sameZoom = imageColumns.contains("zoom_level") ? " AND images.zoom_level = map.zoom_level" : ""
        return """
            (SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column, map.tile_row AS tile_row, images.tile_data AS tile_data \
            FROM map JOIN images ON images.tile_id = map.tile_id\(sameZoom))
            """
    }

    /// Runs a query over the file, with SQLite's refusal worded as an unreadable file.
    func rows(_ sql: String, _ body: (SQLiteStatement) throws -> Void) throws {
        try Self.rows(of: database, sql, path: path, body)
    }

    private static func rows(of database: SQLiteDatabase, _ sql: String, path: String, _ body: (SQLiteStatement) throws -> Void) throws {
        do {
            try database.forEachRow(sql, body)
        } catch let error as SQLiteError {
            throw Self.unreadable(error, path: path)
        }
    }

    /// SQLite's refusal as bad input naming the file (a query stopped for taking too long says so).
    private static func unreadable(_ error: any Error, path: String) -> MeridianError {
        guard let error = error as? SQLiteError else {
            return error as? MeridianError ?? MeridianError(.badInput, "cannot read the MBTiles file", at: SourceLocation(file: path))
        }
        if error.code == SQLITE_TOOBIG {
            return MeridianError(.badInput, "cannot read the MBTiles file: a tile or value is larger than \(TileInputLimits.storedTileBytes >> 20) MiB",
                                 at: SourceLocation(file: path))
        }
        if error.code == SQLITE_INTERRUPT {
            return MeridianError(.badInput, "cannot read the MBTiles file: a query ran past \(TileInputLimits.sqliteStepsPerRow) SQLite steps without a row",
                                 at: SourceLocation(file: path))
        }
        return MeridianError(.badInput, "cannot read the MBTiles file: \(error.message)", at: SourceLocation(file: path))
    }

    /// Refuses an MBTiles file at `path` whose `tiles` or `metadata` is not what Meridian reads
    /// (a view that could run forever, say), before another database attaches it.
    /// - Throws: `MeridianError` (input unavailable) when it cannot be opened, (bad input) when refused.
    public static func checkTables(of path: String) throws {
        _ = try MBTilesFile(path: path)
    }

    /// The zoom levels that hold tiles, lowest first (of those Meridian addresses, 0-30: rows
    /// at other levels are no tiles of a map).
    public func zoomLevels() throws -> [Int] {
        var levels: [Int] = []
        try rows("SELECT DISTINCT zoom_level FROM \(tilesSource) WHERE zoom_level BETWEEN \(MapTile.zoomLevels.lowerBound) AND \(MapTile.zoomLevels.upperBound) ORDER BY zoom_level") {
            levels.append($0.int(0))
        }
        return levels
    }

    /// One tile's bytes, or nil when the file does not have it.
    public func tile(_ tile: MapTile) throws -> [UInt8]? {
        do {
            let lookup = try self.lookup ?? database.prepare(MBTilesSchema.tileLookup(from: tilesSource))
            self.lookup = lookup
            return try MBTilesSchema.tile(tile, with: lookup)
        } catch {
            throw Self.unreadable(error, path: path)
        }
    }

    /// Every tile by its XYZ address (for checks and tests: holds them all in memory).
    public func allTiles() throws -> [MapTile: [UInt8]] {
        var tiles: [MapTile: [UInt8]] = [:]
        try rows("SELECT zoom_level, tile_column, tile_row, tile_data FROM \(tilesSource)") {
            tiles[MapTile(zoom: $0.int(0), x: $0.int(1), tmsY: $0.int(2))] = $0.blob(3)
        }
        return tiles
    }
}

/// What the MBTiles reader and writer share about the file's tables.
enum MBTilesSchema {
    /// One tile's bytes by zoom, column and TMS row (parameters 1, 2, 3), from the table (or
    /// subquery) `source`.
    static func tileLookup(from source: String = "tiles") -> String {
        "SELECT tile_data FROM \(source) WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?"
    }

    /// Runs `tileLookup` for `tile`: its bytes, or nil when the file does not have it. The
    /// statement is reset at once, so it holds no read lock on the table (a writer dropping its
    /// own tables at the end would find it locked).
    static func tile(_ tile: MapTile, with lookup: SQLiteStatement) throws(SQLiteError) -> [UInt8]? {
        defer { lookup.reset() }
        try lookup.bind(tile.zoom, at: 1)
        try lookup.bind(tile.x, at: 2)
        try lookup.bind(tile.tmsY, at: 3)
        return try lookup.step() ? lookup.blob(0) : nil
    }
}
