import CSQLite

/// What SQLite refused: its result code and its own message (`sqlite3_errmsg`). The tile stores
/// say what they were doing and turn it into a `MeridianError` of the right kind.
struct SQLiteError: Error, Sendable, Equatable {
    /// SQLite's result code (`SQLITE_CANTOPEN`, `SQLITE_FULL`, …).
    let code: Int32
    let message: String

    init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The last error of `database` (or, with no handle, SQLite's word for `code`).
    init(code: Int32, in database: OpaquePointer?) {
        self.init(code: code, message: database.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code)))
    }
}

/// An open SQLite database: statements are prepared from it and finalize themselves; the
/// connection closes when the last reference goes (each statement keeps one), or at `close()`
/// when the caller must know that everything reached the file.
final class SQLiteDatabase {
    enum Mode {
        case readOnly
        /// Read the file exactly as it is on disk: no lock taken, and no hot journal rolled back
        /// (which any other connection does on its first read, writing to the file). For looking
        /// at a file that must stay as it is, such as an interrupted run's before deciding to
        /// resume it; pages an unfinished transaction left may show.
        case untouched
        /// Read and write an existing file, safe to call from several threads (SQLite's
        /// serialized mode; a caller still orders its own transactions).
        case readWriteSerialized

        var flags: Int32 {
            switch self {
            case .readOnly: SQLITE_OPEN_READONLY
            case .untouched: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            case .readWriteSerialized: SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX
            }
        }
    }

    private var handle: OpaquePointer?
    /// Progress-handler calls since the running statement last returned a row (read-only modes).
    private let stepsSinceRow = UnsafeMutablePointer<Int>.allocate(capacity: 1)

    /// How many virtual machine instructions pass between calls of the progress handler.
    private static let progressInterval: Int32 = 10_000

    init(path: String, mode: Mode) throws(SQLiteError) {
        var handle: OpaquePointer?
        let name = mode == .untouched ? Self.immutableURI(path) : path
        stepsSinceRow.initialize(to: 0)
        let status = sqlite3_open_v2(name, &handle, mode.flags, nil)
        guard status == SQLITE_OK, let handle else {
            // On failure SQLite usually still returns a handle, which holds the reason and must be closed.
            let error = SQLiteError(code: status, in: handle)
            sqlite3_close(handle)
            throw error  // deinit frees `stepsSinceRow`
        }
        self.handle = handle
        // Every file may be a stranger's: no function of the schema runs (views, defaults and
        // generated columns call only innocuous ones), no extension loads, no string or blob
        // is larger than a tile may be.
        sqlite3_enable_load_extension(handle, 0)
        sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, Int32(max(TileInputLimits.storedTileBytes, TileInputLimits.metadataBytes) + (1 << 20)))
        try execute("PRAGMA trusted_schema = OFF")
        guard mode != .readWriteSerialized else { return }
        // A file opened to read gets no attached databases, and no query may work long
        // without returning a row (a view that recurses, a sort of a huge table into
        // $TMPDIR): the handler stops it.
        sqlite3_limit(handle, SQLITE_LIMIT_ATTACHED, 0)
        sqlite3_progress_handler(handle, Self.progressInterval, { context in
            let steps = context!.assumingMemoryBound(to: Int.self)
            steps.pointee += 1
            return steps.pointee > TileInputLimits.sqliteStepsPerRow / Int(SQLiteDatabase.progressInterval) ? 1 : 0
        }, stepsSinceRow)
    }

    /// Starts the count of steps a statement may take before its next row afresh.
    fileprivate func rowReturned() { stepsSinceRow.pointee = 0 }

    /// `file:PATH?immutable=1`, the path percent-encoded as SQLite's URIs want.
    static func immutableURI(_ path: String) -> String {
        let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-~".utf8)
        let encoded = path.utf8.map { plain.contains($0) ? String(UnicodeScalar($0)) : "%" + String($0, radix: 16, uppercase: true).leftPadded(to: 2) }
        return "file:" + encoded.joined() + "?immutable=1"
    }

    deinit {
        // close_v2: the connection ends once its last statement is finalized, whatever the order.
        sqlite3_close_v2(handle)
        stepsSinceRow.deallocate()
    }

    /// The open connection; use after `close()` is a programming error.
    private var connection: OpaquePointer {
        guard let handle else { preconditionFailure("SQLite database used after close()") }
        return handle
    }

    /// Runs SQL that returns no rows: one statement or several separated by semicolons.
    func execute(_ sql: String) throws(SQLiteError) {
        let status = sqlite3_exec(connection, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw SQLiteError(code: status, in: connection) }
    }

    /// Runs one statement that returns no rows, its `?` parameters bound to `values` in order:
    /// a value is never part of the SQL's text, so quotes or NULs in a name cannot end it.
    func execute(_ sql: String, binding values: [SQLiteValue]) throws(SQLiteError) {
        let statement = try prepare(sql)
        for (index, value) in values.enumerated() {
            let parameter = Int32(index + 1)
            switch value {
            case .integer(let number): try statement.bind(number, at: parameter)
            case .text(let text): try statement.bind(text: text, at: parameter)
            }
        }
        while try statement.step() {}
    }

    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else { throw SQLiteError(code: status, in: connection) }
        return SQLiteStatement(statement, database: self)
    }

    /// Every row `sql` returns, one call of `body` each.
    func forEachRow(_ sql: String, _ body: (SQLiteStatement) throws -> Void) throws {
        let statement = try prepare(sql)
        while try statement.step() { try body(statement) }
    }

    /// Closes the connection now, reporting a failure (a statement still open keeps it from
    /// closing). Nothing may use the database afterwards.
    func close() throws(SQLiteError) {
        let status = sqlite3_close(connection)
        guard status == SQLITE_OK else { throw SQLiteError(code: status, in: connection) }
        handle = nil
    }

    fileprivate func lastError(_ status: Int32) -> SQLiteError { SQLiteError(code: status, in: connection) }
}

/// A value bound to a statement's parameter.
enum SQLiteValue {
    case integer(Int)
    case text(String)
}

/// A prepared statement: bind, step through the rows, read their columns, reset to run it
/// again; finalized when it goes away. Columns and parameters count as SQLite's do (columns from
/// 0, parameters from 1).
final class SQLiteStatement {
    private let handle: OpaquePointer
    /// Kept so that the connection outlives its statements.
    private let database: SQLiteDatabase

    fileprivate init(_ handle: OpaquePointer, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    /// Makes the statement ready to run again; its bindings stay until bound anew.
    func reset() { sqlite3_reset(handle) }

    func bind(_ value: Int, at parameter: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_int64(handle, parameter, sqlite3_int64(value)))
    }

    /// Binds a copy of `text`'s UTF-8 bytes, all of them (a NUL too), as text.
    func bind(text: String, at parameter: Int32) throws(SQLiteError) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let bytes = Array(text.utf8)
        guard bytes.count <= Int(Int32.max) else { throw SQLiteError(code: SQLITE_TOOBIG, in: nil) }
        try check(bytes.withUnsafeBytes { raw in
            // An empty text still needs a pointer, not NULL (which binds NULL).
            let start = raw.baseAddress?.assumingMemoryBound(to: CChar.self)
            return start.map { sqlite3_bind_text(handle, parameter, $0, Int32(raw.count), transient) }
                ?? sqlite3_bind_text(handle, parameter, "", 0, transient)
        })
    }

    /// Binds a copy of `bytes` (SQLITE_TRANSIENT), so the array may change afterwards.
    func bind(_ bytes: [UInt8], at parameter: Int32) throws(SQLiteError) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        try check(bytes.withUnsafeBytes { sqlite3_bind_blob(handle, parameter, $0.baseAddress, Int32($0.count), transient) })
    }

    /// Runs the statement to its next row: true when there is one to read, false when it is done.
    @discardableResult
    func step() throws(SQLiteError) -> Bool {
        database.rowReturned()
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let status: throw database.lastError(status)
        }
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }

    /// A text column, every byte SQLite holds (a NUL too); an empty string for NULL.
    func text(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }

    /// A blob column's bytes (empty for NULL or a zero-length blob).
    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        return sqlite3_column_blob(handle, column).map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
    }

    private func check(_ status: Int32) throws(SQLiteError) {
        guard status == SQLITE_OK else { throw database.lastError(status) }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
