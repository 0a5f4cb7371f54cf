import CSQLite
import MeridianCore

/// Rules for the SQLite connections GDAL opens to a file from elsewhere (a GeoPackage, a
/// SQLite/SpatiaLite file, an MBTiles raster), set as each opens (`sqlite3_auto_extension`): such
/// a file runs no query of its own choosing that never ends.
///
/// A GeoPackage's layer may be a view, and a view runs SQL the file chose: one that recurses
/// (`WITH r AS (… UNION ALL SELECT … FROM r)`) returns rows for ever, and a view joining a
/// table to itself 64 times returns 2^64 rows from a two-row table; `convert` of such a
/// 100 KB file ran until killed. So a connection to such a file runs no recursive query and,
/// opened to read, reads none of the file's views (Meridian's own MBTiles reader reads no
/// views either); SpatiaLite's own views, which GDAL reads to list layers, are left alone. The
/// query is refused when it is prepared, and GDAL reports it as an error. Other connections
/// (PROJ's database, an output GDAL writes) are left as they are.
public enum SQLiteConnectionRules {
    /// SpatiaLite's system views (its metadata, which GDAL reads), the only views read.
    static let systemViews: Set<String> = [
        "vector_layers", "vector_layers_auth", "vector_layers_statistics", "vector_layers_field_infos",
        "geom_cols_ref_sys", "spatial_ref_sys_all", "raster_coverages_ref_sys", "wms_getmap_ref_sys",
        "spatial_ref_sys_aux",
    ]

    /// The files the rules hold for, as given and resolved (SQLite names a connection's file
    /// by its full path).
    private static let files = Locked<Set<String>>([])

    /// Holds the connections GDAL opens to the file at `path` from now on to the rules.
    public static func apply(toFileAt path: String) {
        GDAL.setUp()
        var names = [path]
        if let resolved = realpath(path, nil) {
            names.append(String(cString: resolved))
            free(resolved)
        }
        files.withLock { $0.formUnion(names) }
    }

    /// The views of the SQLite database at `path` (SpatiaLite's own left out), read from its
    /// schema without running any; none when it is not an SQLite database.
    public static func views(inFileAt path: String) -> [String] {
        guard let file = fopen(path, "rb") else { return [] }
        var header = [UInt8](repeating: 0, count: 16)
        let count = fread(&header, 1, 16, file)
        fclose(file)
        guard count == 16, header.elementsEqual(Array("SQLite format 3".utf8) + [0]) else { return [] }
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { return [] }
        return names(ofViewsIn: db)
    }

    /// The views of the connection's main database, lowercased, SpatiaLite's own left out.
    private static func names(ofViewsIn db: OpaquePointer) -> [String] {
        var names: [String] = []
        var statement: OpaquePointer?
        if sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'view'", -1, &statement, nil) == SQLITE_OK {
            while sqlite3_step(statement) == SQLITE_ROW {
                if let text = sqlite3_column_text(statement, 0) { names.append(String(cString: text).lowercased()) }
            }
        }
        sqlite3_finalize(statement)
        return names.filter { !systemViews.contains($0) }
    }

    /// Installs the entry point every connection opened from now on in this process calls.
    static func install() {
        sqlite3_auto_extension(unsafeBitCast(entryPoint, to: (@convention(c) () -> Void).self))
    }

    /// The views a connection to an input may not read (its file's own), kept for the
    /// connection's life (a few per run, never freed: SQLite has no hook for a closing connection).
    final class Views {
        let names: Set<String>
        init(_ names: Set<String>) { self.names = names }
    }

    /// What SQLite calls as each connection opens (an extension's entry point).
    private static let entryPoint: @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, OpaquePointer?) -> Int32 = { db, _, _ in
        guard let db, let name = sqlite3_db_filename(db, "main"), files.withLock({ $0.contains(String(cString: name)) }) else {
            return SQLITE_OK
        }
        // A connection that writes (an output GDAL updates) fires triggers, which read tables as
        // views do: only recursion is refused there. One that reads refuses the file's views,
        // read by name or from inside another.
        let views = sqlite3_db_readonly(db, "main") == 1 ? Set(names(ofViewsIn: db)) : []
        let context = Unmanaged.passRetained(Views(views)).toOpaque()
        sqlite3_set_authorizer(db, { context, action, table, _, _, within in
            if action == SQLITE_RECURSIVE { return SQLITE_DENY }
            guard action == SQLITE_READ, let context else { return SQLITE_OK }
            let views = Unmanaged<Views>.fromOpaque(context).takeUnretainedValue().names
            guard !views.isEmpty else { return SQLITE_OK }
            if let table, views.contains(String(cString: table).lowercased()) { return SQLITE_DENY }
            if let within, views.contains(String(cString: within).lowercased()) { return SQLITE_DENY }
            return SQLITE_OK
        }, context)
        return SQLITE_OK
    }
}
