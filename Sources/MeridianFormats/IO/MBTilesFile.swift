import CSQLite
import MeridianGeometry

/// An MBTiles 1.3 file opened for reading: its metadata, its zoom levels and any tile by its
/// XYZ address (rows are stored TMS-style, counted from the bottom). A basemap under a picture
/// reads tiles one by one; checks and tests can take them all.
public final class MBTilesFile {
    public let path: String
    private let db: OpaquePointer
    private var lookup: OpaquePointer?
    public private(set) var metadata: [String: String] = [:]

    public init(path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else {
            sqlite3_close(db)
            throw MeridianError(.inputUnavailable, "cannot open the MBTiles file", at: SourceLocation(file: path))
        }
        self.db = db
        self.path = path
        guard (try? rows("SELECT name, value FROM metadata", { metadata[Self.text($0, 0)] = Self.text($0, 1) })) != nil else {
            sqlite3_close(db)
            throw MeridianError(.badInput, "not an MBTiles file: it has no metadata table", at: SourceLocation(file: path))
        }
    }

    deinit {
        sqlite3_finalize(lookup)
        sqlite3_close(db)
    }

    private static func text(_ statement: OpaquePointer, _ column: Int32) -> String {
        sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
    }

    private static func blob(_ statement: OpaquePointer, _ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        return sqlite3_column_blob(statement, column).map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
    }

    private func rows(_ sql: String, _ body: (OpaquePointer) throws -> Void) throws {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw MeridianError(.badInput, "cannot read the MBTiles file: \(String(cString: sqlite3_errmsg(db)))", at: SourceLocation(file: path))
        }
        defer { sqlite3_finalize(statement) }
        while sqlite3_step(statement) == SQLITE_ROW { try body(statement) }
    }

    /// The zoom levels that hold tiles, lowest first.
    public func zoomLevels() throws -> [Int] {
        var levels: [Int] = []
        try rows("SELECT DISTINCT zoom_level FROM tiles ORDER BY zoom_level") { levels.append(Int(sqlite3_column_int($0, 0))) }
        return levels
    }

    /// One tile's bytes, or nil when the file does not have it.
    public func tile(_ tile: MapTile) throws -> [UInt8]? {
        if lookup == nil {
            let sql = "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?"
            guard sqlite3_prepare_v2(db, sql, -1, &lookup, nil) == SQLITE_OK else {
                throw MeridianError(.badInput, "cannot read the MBTiles file's tiles", at: SourceLocation(file: path))
            }
        }
        sqlite3_reset(lookup)
        sqlite3_bind_int(lookup, 1, Int32(tile.zoom))
        sqlite3_bind_int(lookup, 2, Int32(tile.x))
        sqlite3_bind_int(lookup, 3, Int32(tile.tmsY))
        return sqlite3_step(lookup) == SQLITE_ROW ? Self.blob(lookup!, 0) : nil
    }

    /// Every tile by its XYZ address (for checks and tests: holds them all in memory).
    public func allTiles() throws -> [MapTile: [UInt8]] {
        var tiles: [MapTile: [UInt8]] = [:]
        try rows("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles") {
            tiles[MapTile(zoom: Int(sqlite3_column_int($0, 0)), x: Int(sqlite3_column_int($0, 1)), tmsY: Int(sqlite3_column_int($0, 2)))] = Self.blob($0, 3)
        }
        return tiles
    }
}
