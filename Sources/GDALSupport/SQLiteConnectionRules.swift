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
/// opened to read, reads no table through a view (Meridian's own MBTiles reader reads no
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

    /// Installs the entry point every connection opened from now on in this process calls.
    static func install() {
        sqlite3_auto_extension(unsafeBitCast(entryPoint, to: (@convention(c) () -> Void).self))
    }

    /// What SQLite calls as each connection opens (an extension's entry point).
    private static let entryPoint: @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, OpaquePointer?) -> Int32 = { db, _, _ in
        guard let db, let name = sqlite3_db_filename(db, "main"), files.withLock({ $0.contains(String(cString: name)) }) else {
            return SQLITE_OK
        }
        // The context tells the authorizer whether the connection reads only (1) or writes (2):
        // a write fires triggers, which read tables as views do.
        let readOnly = UnsafeMutableRawPointer(bitPattern: sqlite3_db_readonly(db, "main") == 1 ? 1 : 2)
        sqlite3_set_authorizer(db, { context, action, _, _, _, within in
            if action == SQLITE_RECURSIVE { return SQLITE_DENY }
            if action == SQLITE_READ, context == UnsafeMutableRawPointer(bitPattern: 1), let within,
               !systemViews.contains(String(cString: within).lowercased()) {
                return SQLITE_DENY
            }
            return SQLITE_OK
        }, readOnly)
        return SQLITE_OK
    }
}
