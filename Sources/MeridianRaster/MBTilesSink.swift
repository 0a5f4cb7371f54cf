import CSQLite
import Foundation
import MeridianFormats
import MeridianGeometry

/// An MBTiles 1.3 file (SQLite): tiles in TMS row order, a complete metadata table. The file is
/// built as `.NAME.meridian-partial` beside the output and renamed into place when finished;
/// each block's tiles go in one transaction with its completion mark, so `--resume` after an
/// interruption (kill -9 included) finds exactly the blocks that were stored. The partial file
/// also holds the run's identity (`meridian_run`), which a resumed run must match.
public final class MBTilesSink: TileSink, @unchecked Sendable {
    public let path: String
    let partialPath: String
    public let format: TileFormat
    public private(set) var completedBlocks: [MapTile: Int] = [:]
    private var db: OpaquePointer?
    private var insert: OpaquePointer?
    private var inTransaction = false
    private let lock = Lock()

    /// Opens the partial file for the run `identity`: a new one, or with `resume` an interrupted
    /// run's of the same identity (else a usage error, before anything is written).
    public init(path: String, format: TileFormat, resume: Bool, identity: TilingRunIdentity) throws {
        self.path = path
        self.format = format
        let folder = (path as NSString).deletingLastPathComponent, file = (path as NSString).lastPathComponent
        partialPath = (folder.isEmpty ? "" : folder + "/") + ".\(file).meridian-partial"
        let resuming = resume && access(partialPath, F_OK) == 0
        if resume && !resuming && access(path, F_OK) == 0 {
            try identity.checkResuming(nil, output: path)  // a finished file: nothing to resume
        }
        if !resuming {
            unlink(partialPath)
            unlink(partialPath + "-journal")
            // Created here rather than by SQLite, which makes databases 0644 whatever the umask:
            // open(2) gives the file what the user's umask allows, and SQLite keeps it.
            let fd = open(partialPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            guard fd >= 0 else {
                throw MeridianError(.cannotCreateOutput, "cannot create output: \(String(cString: strerror(errno)))", at: SourceLocation(file: path))
            }
            close(fd)
        }
        guard sqlite3_open_v2(partialPath, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, nil) == SQLITE_OK else {
            let reason = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw MeridianError(.cannotCreateOutput, "cannot create output: \(reason)", at: SourceLocation(file: path))
        }
        if resuming {
            var recorded: [String]? = nil
            try? query("SELECT name || ' ' || value FROM meridian_run ORDER BY rowid") {
                recorded = (recorded ?? []) + [String(cString: sqlite3_column_text($0, 0))]
            }
            try identity.checkResuming(recorded.map { TilingRunIdentity(lines: $0) }, output: path)
            try query("SELECT zoom_level, tile_column, tile_row, tiles FROM meridian_blocks") {
                let block = MapTile(zoom: Int(sqlite3_column_int($0, 0)), x: Int(sqlite3_column_int($0, 1)), y: Int(sqlite3_column_int($0, 2)))
                completedBlocks[block] = Int(sqlite3_column_int($0, 3))
            }
        } else {
            try execute("""
                BEGIN;
                CREATE TABLE metadata (name TEXT, value TEXT);
                CREATE UNIQUE INDEX name ON metadata (name);
                CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
                CREATE TABLE meridian_blocks (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tiles INTEGER);
                CREATE TABLE meridian_run (name TEXT, value TEXT);
                \(identity.fields.map { "INSERT INTO meridian_run VALUES (\(sqlQuoted($0.name)), \(sqlQuoted($0.value)));" }.joined(separator: "\n"))
                COMMIT;
                """)
        }
        try execute("PRAGMA synchronous = OFF")
        guard sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO tiles VALUES (?, ?, ?, ?)", -1, &insert, nil) == SQLITE_OK else {
            throw error("cannot prepare the tiles table")
        }
    }

    deinit {
        sqlite3_finalize(insert)
        sqlite3_close(db)
    }

    private func error(_ what: String) -> MeridianError {
        MeridianError(.io, "\(what): \(String(cString: sqlite3_errmsg(db)))", at: SourceLocation(file: path))
    }

    private func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw error("cannot write the MBTiles file") }
    }

    private func query(_ sql: String, row: (OpaquePointer) -> Void) throws {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw error("cannot read the MBTiles file") }
        defer { sqlite3_finalize(statement) }
        while sqlite3_step(statement) == SQLITE_ROW { row(statement) }
    }

    private func begin() throws {
        if !inTransaction {
            try execute("BEGIN")
            inTransaction = true
        }
    }

    public func existingTile(_ tile: MapTile) throws -> [UInt8]? {
        try lock.locked {
            var result: [UInt8]?
            try query("SELECT tile_data FROM tiles WHERE zoom_level = \(tile.zoom) AND tile_column = \(tile.x) AND tile_row = \(tile.tmsY)") {
                let count = Int(sqlite3_column_bytes($0, 0))
                if let bytes = sqlite3_column_blob($0, 0) { result = Array(UnsafeRawBufferPointer(start: bytes, count: count)) } else { result = [] }
            }
            return result
        }
    }

    public func write(_ tile: MapTile, data: [UInt8]) throws {
        try lock.locked {
            try begin()
            sqlite3_reset(insert)
            sqlite3_bind_int(insert, 1, Int32(tile.zoom))
            sqlite3_bind_int(insert, 2, Int32(tile.x))
            sqlite3_bind_int(insert, 3, Int32(tile.tmsY))
            let status = data.withUnsafeBytes { sqlite3_bind_blob(insert, 4, $0.baseAddress, Int32($0.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self)) }
            guard status == SQLITE_OK, sqlite3_step(insert) == SQLITE_DONE else { throw error("cannot store tile \(tile)") }
        }
    }

    public func markCompleted(block: MapTile, tiles: Int) throws {
        try lock.locked {
            try begin()
            try execute("INSERT INTO meridian_blocks VALUES (\(block.zoom), \(block.x), \(block.y), \(tiles)); COMMIT")
            inTransaction = false
        }
    }

    public func zoomsWithTiles() throws -> ClosedRange<Int>? {
        try lock.locked {
            var range: ClosedRange<Int>?
            try query("SELECT MIN(zoom_level), MAX(zoom_level) FROM tiles WHERE zoom_level IS NOT NULL") { row in
                guard sqlite3_column_type(row, 0) != SQLITE_NULL else { return }
                range = Int(sqlite3_column_int(row, 0))...Int(sqlite3_column_int(row, 1))
            }
            return range
        }
    }

    public func finish(metadata m: TileSetMetadata) throws {
        let b = m.bounds, c = m.center
        let rows: [(String, String)] = [
            ("name", m.name), ("description", m.description), ("version", "1.3"), ("type", "overlay"),
            ("format", m.format == .jpeg ? "jpg" : m.format.rawValue),
            ("bounds", "\(b.west),\(b.south),\(b.east),\(b.north)"), ("center", "\(c.longitude),\(c.latitude),\(c.zoom)"),
            ("minzoom", "\(m.minZoom)"), ("maxzoom", "\(m.maxZoom)"),
        ]
        try lock.locked {
            try begin()
            for (name, value) in rows {
                try execute("INSERT OR REPLACE INTO metadata VALUES (\(sqlQuoted(name)), \(sqlQuoted(value)))")
            }
            try execute("DROP TABLE meridian_blocks; DROP TABLE meridian_run; COMMIT")
            inTransaction = false
            sqlite3_finalize(insert)
            insert = nil
            guard sqlite3_close(db) == SQLITE_OK else { throw error("cannot close the MBTiles file") }
            db = nil
            if rename(partialPath, path) != 0 {
                throw MeridianError(.cannotCreateOutput, "cannot move output into place: \(String(cString: strerror(errno)))", at: SourceLocation(file: path))
            }
        }
    }
}

func sqlQuoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "''") + "'" }
