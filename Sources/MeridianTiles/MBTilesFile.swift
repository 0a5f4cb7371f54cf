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
        do {
            try database.forEachRow("SELECT name, value FROM metadata") { metadata[$0.text(0)] = $0.text(1) }
        } catch {
            throw MeridianError(.badInput, "not an MBTiles file: it has no metadata table", at: SourceLocation(file: path))
        }
    }

    /// Runs a query over the file, with SQLite's refusal worded as an unreadable file.
    func rows(_ sql: String, _ body: (SQLiteStatement) throws -> Void) throws {
        do {
            try database.forEachRow(sql, body)
        } catch let error as SQLiteError {
            throw MeridianError(.badInput, "cannot read the MBTiles file: \(error.message)", at: SourceLocation(file: path))
        }
    }

    /// The zoom levels that hold tiles, lowest first.
    public func zoomLevels() throws -> [Int] {
        var levels: [Int] = []
        try rows("SELECT DISTINCT zoom_level FROM tiles ORDER BY zoom_level") { levels.append($0.int(0)) }
        return levels
    }

    /// One tile's bytes, or nil when the file does not have it.
    public func tile(_ tile: MapTile) throws -> [UInt8]? {
        do {
            let lookup = try self.lookup ?? database.prepare(MBTilesSchema.tileLookup)
            self.lookup = lookup
            return try MBTilesSchema.tile(tile, with: lookup)
        } catch {
            throw MeridianError(.badInput, "cannot read the MBTiles file's tiles", at: SourceLocation(file: path))
        }
    }

    /// Every tile by its XYZ address (for checks and tests: holds them all in memory).
    public func allTiles() throws -> [MapTile: [UInt8]] {
        var tiles: [MapTile: [UInt8]] = [:]
        try rows("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles") {
            tiles[MapTile(zoom: $0.int(0), x: $0.int(1), tmsY: $0.int(2))] = $0.blob(3)
        }
        return tiles
    }
}

/// What the MBTiles reader and writer share about the file's tables.
enum MBTilesSchema {
    /// One tile's bytes by zoom, column and TMS row (parameters 1, 2, 3).
    static let tileLookup = "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?"

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
