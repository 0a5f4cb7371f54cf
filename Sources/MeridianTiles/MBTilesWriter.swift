import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry

/// An MBTiles 1.3 file (SQLite) being written by a run that can be interrupted and resumed:
/// tiles in TMS row order, a complete metadata table at the end. The file is built as
/// `.NAME.meridian-partial` beside the output and renamed into place by `finish`; each block's
/// tiles go in one transaction with its completion mark, so resuming after an interruption
/// (kill -9 included) finds exactly the blocks that were stored. The partial file also holds
/// the run's identity (table `meridian_run`), which a resumed run must match.
///
/// One caller at a time: a writer shared between threads needs its caller's lock (the tiler's
/// `MBTilesSink` holds one).
public final class MBTilesWriter {
    /// A run's identity as the partial file records it: one named value per setting.
    public typealias RunField = (name: String, value: String)

    /// Where the finished file goes (the partial file is written beside it until ``finish(metadata:keepingRun:)``).
    public let path: String
    let partialPath: String
    /// Blocks (tiles of a middle zoom level standing for every tile under them) an interrupted
    /// run completed, with the number of tiles each stored; empty for a new file.
    public private(set) var completedBlocks: [MapTile: Int] = [:]
    private let database: SQLiteDatabase
    private var insert: SQLiteStatement?
    private var lookup: SQLiteStatement?
    private var inTransaction = false
    /// The output's path, this run's until it is finished.
    private let claim: OutputClaim

    /// Opens the partial file for the run `run`: a new one, or with `resume` an interrupted
    /// run's. `checkResuming` is given the interrupted run's identity (nil when the output holds
    /// no such run: a finished file, or a partial one without the table) and throws when it is
    /// not `run`'s, before anything is written. `replacing` lets the finished file replace a
    /// regular file at `path` (else one there is refused: `OutputClaim`).
    public init(path: String, resume: Bool, run: [RunField], replacing: Bool = false, checkResuming: ([RunField]?) throws -> Void) throws {
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent, file = (path as NSString).lastPathComponent
        partialPath = (folder.isEmpty ? "" : folder + "/") + ".\(file).meridian-partial"
        let resuming = resume && access(partialPath, F_OK) == 0
        if resume && !resuming && access(path, F_OK) == 0 {
            try checkResuming(nil)  // a finished file: nothing to resume
        }
        claim = try OutputClaim(path, container: .file, replacing: replacing)
        if resuming {
            // SQLite follows links: a link at the partial file's place would be resumed into its target.
            var status = stat()
            guard lstat(partialPath, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
                throw MeridianError(.badInput, "the interrupted run's file is not a regular file (a symbolic link?): Meridian does not resume into it",
                                    at: SourceLocation(file: partialPath), hint: "remove it, and tile again as a new run")
            }
            // The interrupted run's identity, read without touching the file: a refused resume
            // must leave it as it is, and opening it to write would roll back a hot journal.
            var recorded = Self.recordedRun(in: partialPath, mode: .untouched)
            if recorded == nil && access(partialPath + "-journal", F_OK) == 0 {
                // Killed while a commit was writing the file (the only time it changes, with
                // cache_spill off): the file reads only once its hot journal is rolled back. That
                // is done to a copy, so that a refused resume leaves the partial file as it was;
                // resuming proper rolls the file itself back, which restores its last block.
                recorded = try Self.recordedRunOfACopy(of: partialPath)
            }
            try checkResuming(recorded)
        } else {
            if access(partialPath, F_OK) == 0 {
                // What an interrupted run left (this run holds the lock, so it is no live run's).
                throw TileOutputError.interruptedRunLeftover(partial: partialPath)
            }
            unlink(partialPath + "-journal")
            // Created here rather than by SQLite, which makes databases 0644 whatever the umask:
            // open(2) gives the file what the user's umask allows, and SQLite keeps it.
            let fd = open(partialPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            guard fd >= 0 else {
                throw MeridianError(.cannotCreateOutput, "cannot create output: \(String(cString: strerror(errno)))", at: SourceLocation(file: path))
            }
            close(fd)
        }
        do {
            database = try SQLiteDatabase(path: partialPath, mode: .readWriteSerialized)
        } catch {
            throw MeridianError(.cannotCreateOutput, "cannot create output: \(error.message)", at: SourceLocation(file: path))
        }
        if resuming {
            try storing("cannot read the MBTiles file") {
                try database.forEachRow("SELECT zoom_level, tile_column, tile_row, tiles FROM meridian_blocks") {
                    completedBlocks[MapTile(zoom: $0.int(0), x: $0.int(1), y: $0.int(2))] = $0.int(3)
                }
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
                """)
            for field in run { try execute("INSERT INTO meridian_run VALUES (?, ?)", binding: [.text(field.name), .text(field.value)]) }
            try execute("COMMIT")
        }
        // The file changes only when a block commits, never in between (SQLite would otherwise
        // write pages of a block under way once its cache fills): an interrupted run's file then
        // reads as it stood after its last block, without its journal, so a refused resume can
        // look at it without touching it. A block's pages wait in memory meanwhile; callers that
        // write no blocks call commit() every few megabytes.
        // A block's commit is synced (journal, then file), so that a power loss never leaves a
        // block recorded without its tiles.
        try execute("PRAGMA synchronous = NORMAL; PRAGMA cache_spill = OFF")
        insert = try storing("cannot prepare the tiles table") { try database.prepare("INSERT OR REPLACE INTO tiles VALUES (?, ?, ?, ?)") }
    }

    /// Runs `body`, a refusal of SQLite becoming an I/O error that says what was being done.
    private func storing<T>(_ what: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw MeridianError(.io, "\(what): \(error.message)", at: SourceLocation(file: path))
        }
    }

    private func execute(_ sql: String) throws {
        try storing("cannot write the MBTiles file") { try database.execute(sql) }
    }

    /// Runs one statement with its values bound (never spelled into the SQL).
    private func execute(_ sql: String, binding values: [SQLiteValue]) throws {
        try storing("cannot write the MBTiles file") { try database.execute(sql, binding: values) }
    }

    private func begin() throws {
        if !inTransaction {
            try execute("BEGIN")
            inTransaction = true
        }
    }

    /// A tile stored earlier (by an interrupted run), or nil.
    public func existingTile(_ tile: MapTile) throws -> [UInt8]? {
        try storing("cannot read the MBTiles file") {
            let lookup = try self.lookup ?? database.prepare(MBTilesSchema.tileLookup())
            self.lookup = lookup
            return try MBTilesSchema.tile(tile, with: lookup)
        }
    }

    /// Stores one tile, in the transaction of the block under way.
    public func write(_ tile: MapTile, data: [UInt8]) throws {
        try begin()
        guard let insert else { preconditionFailure("MBTilesWriter written after finish") }
        try storing("cannot store tile \(tile)") {
            insert.reset()
            try insert.bind(tile.zoom, at: 1)
            try insert.bind(tile.x, at: 2)
            try insert.bind(tile.tmsY, at: 3)
            try insert.bind(data, at: 4)
            try insert.step()
        }
    }

    /// Commits the tiles written since the last commit (for callers that write no blocks, whose
    /// uncommitted tiles would otherwise all wait in memory).
    public func commit() throws {
        guard inTransaction else { return }
        try execute("COMMIT")
        inTransaction = false
    }

    /// The run a partial file records, or nil when it holds none (or cannot be read).
    private static func recordedRun(in file: String, mode: SQLiteDatabase.Mode) -> [RunField]? {
        var recorded: [RunField]?
        if let database = try? SQLiteDatabase(path: file, mode: mode) {
            try? database.forEachRow("SELECT name, value FROM meridian_run ORDER BY rowid") {
                recorded = (recorded ?? []) + [($0.text(0), $0.text(1))]
            }
        }
        return recorded
    }

    /// The run recorded in a copy of the partial file and its hot journal, made beside it:
    /// opening the copy rolls back the copy's journal, not the file's.
    private static func recordedRunOfACopy(of partialPath: String) throws -> [RunField]? {
        func failure() -> MeridianError {
            MeridianError(.io, "cannot copy the interrupted run's file to read it: \(String(cString: strerror(errno)))",
                          at: SourceLocation(file: partialPath))
        }
        // Each registered for the signal handler before it is made.
        guard let file = TemporaryFiles.create(partialPath + ".reading-XXXXXX", removedOnSignal: true) else { throw failure() }
        // SQLite finds a database's journal by its name: the copy's is the copy's name and "-journal".
        let journal = file.path + "-journal"
        TemporaryFiles.removeOnSignal(journal)
        let journalFD = open(journal, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        defer {
            for (fd, path) in [(file.fd, file.path), (journalFD, journal)] {
                if fd >= 0 {
                    close(fd)
                    unlink(path)
                }
                TemporaryFiles.forget(path)
            }
        }
        guard journalFD >= 0 else { throw failure() }
        for (source, target, name) in [(partialPath, file.fd, file.path), (partialPath + "-journal", journalFD, journal)] {
            let copy = OutputSink(fileDescriptor: target, name: name)
            try BufferedInput.open(source).forEachChunk { chunk, _ in copy.write(UnsafeRawBufferPointer(chunk)) }
            try copy.flush()
        }
        return recordedRun(in: file.path, mode: .readWriteSerialized)
    }

    /// Marks `block` complete with the `tiles` it stored, and commits the block's transaction.
    public func markCompleted(block: MapTile, tiles: Int) throws {
        try begin()
        try execute("INSERT INTO meridian_blocks VALUES (?, ?, ?, ?)", binding: [.integer(block.zoom), .integer(block.x), .integer(block.y), .integer(tiles)])
        try execute("COMMIT")
        inTransaction = false
    }

    /// Copies every tile of the MBTiles file at `other` into this one, in one transaction
    /// (`--finish` joining the shards of a run, each of which wrote a file of its own), after
    /// checking that it is the part it should be: a regular file whose `tiles`, `metadata` and
    /// `meridian_run` are tables, recording the run `run`, of tiles in `format`, every tile
    /// valid and one `belongs` takes.
    /// - Throws: `MeridianError` (input unavailable) when it cannot be read, (bad input) naming
    ///   it when it is not the part.
    /// - Returns: How many tiles were copied.
    @discardableResult
    public func copyTiles(from other: String, run: [RunField], format: String, belongs: (MapTile) -> Bool) throws -> Int {
        try Self.checkPartFile(other)
        try commit()
        try storing("cannot read a shard's tiles") { try database.execute("ATTACH DATABASE ? AS shard", binding: [.text(other)]) }
        defer { try? database.execute("DETACH DATABASE shard") }
        try storing("cannot read a shard's tiles") { try Self.checkPart(database, schema: "shard.", path: other, run: run, format: format, belongs: belongs) }
        var copied = 0
        try storing("cannot read a shard's tiles") { try database.forEachRow("SELECT count(*) FROM shard.tiles") { copied = $0.int(0) } }
        try begin()
        try execute("INSERT OR REPLACE INTO tiles SELECT zoom_level, tile_column, tile_row, tile_data FROM shard.tiles; COMMIT")
        inTransaction = false
        return copied
    }

    /// Hands every tile of the shard's part at `other` to `body`, its bytes as stored, once it
    /// has shown to be that shard's part as ``copyTiles(from:run:format:belongs:)`` checks it
    /// (for a container that joins parts without SQLite: a PMTiles archive).
    /// - Throws: as ``copyTiles(from:run:format:belongs:)``, and what `body` throws.
    public static func forEachTile(ofPart other: String, run: [RunField], format: String, belongs: (MapTile) -> Bool,
                                   _ body: (MapTile, [UInt8]) throws -> Void) throws {
        try checkPartFile(other)
        do {
            let database = try SQLiteDatabase(path: other, mode: .readOnly)
            try checkPart(database, schema: "", path: other, run: run, format: format, belongs: belongs)
            try database.forEachRow("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles") {
                try body(MapTile(zoom: $0.int(0), x: $0.int(1), tmsY: $0.int(2)), $0.blob(3))
            }
        } catch let error as SQLiteError {
            throw MeridianError(.io, "cannot read a shard's tiles: \(error.message)", at: SourceLocation(file: other))
        }
    }

    static func partRefused(_ other: String, _ why: String) -> MeridianError {
        MeridianError(.badInput, "not this run's part: \(why)", at: SourceLocation(file: other),
                      hint: "remove it and run its shard again; nothing was joined")
    }

    /// A shard's part must be a readable regular file with an MBTiles file's tables.
    static func checkPartFile(_ other: String) throws {
        var status = stat()
        guard lstat(other, &status) == 0, access(other, R_OK) == 0 else {
            throw MeridianError(.inputUnavailable, "cannot read a shard's tiles: \(String(cString: strerror(errno)))", at: SourceLocation(file: other))
        }
        try MBTilesFile.checkTables(of: other)
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw partRefused(other, "not a regular file") }
    }

    /// Checks the part's tables (in `schema`: `shard.` attached, or the connection's own):
    /// Meridian's, of the run `run`, of `format` tiles, each valid and one `belongs` takes.
    static func checkPart(_ database: SQLiteDatabase, schema: String, path other: String, run: [RunField], format: String,
                          belongs: (MapTile) -> Bool) throws {
        var kinds: [String: String] = [:]
        try database.forEachRow("SELECT name, type FROM \(schema)sqlite_master WHERE name IN ('tiles', 'metadata', 'meridian_run')") {
            kinds[$0.text(0)] = $0.text(1)
        }
        guard kinds == ["tiles": "table", "metadata": "table", "meridian_run": "table"] else {
            throw partRefused(other, "it holds no Meridian run's tiles")
        }
        var recorded: [RunField] = []
        try database.forEachRow("SELECT name, value FROM \(schema)meridian_run ORDER BY rowid") { recorded.append(($0.text(0), $0.text(1))) }
        guard recorded.map(\.name) == run.map(\.name), recorded.map(\.value) == run.map(\.value) else {
            throw partRefused(other, "it records another run (or another shard)")
        }
        var formats: [String] = []
        try database.forEachRow("SELECT value FROM \(schema)metadata WHERE name = 'format'") { formats.append($0.text(0)) }
        guard formats == [format] else { throw partRefused(other, "its tiles are \(formats.first.map { "'\($0.prefix(20))'" } ?? "of no stated format"), not \(format)") }
        try database.forEachRow("SELECT zoom_level, tile_column, tile_row FROM \(schema)tiles") { row in
            let zoom = row.int(0), x = row.int(1), tmsY = row.int(2)
            guard MapTile.zoomLevels.contains(zoom), (0..<(1 << zoom)).contains(tmsY),
                  case let tile = MapTile(zoom: zoom, x: x, tmsY: tmsY), tile.isValid, belongs(tile) else {
                throw partRefused(other, "it holds tile \(zoom)/\(x)/\(tmsY) (TMS row), which is not that shard's")
            }
        }
    }

    /// How many rows of level `zoom` address a valid tile that `counted` takes.
    public func storedTileCount(zoom: Int, where counted: (MapTile) -> Bool) throws -> Int {
        guard MapTile.zoomLevels.contains(zoom) else { return 0 }
        var count = 0
        try storing("cannot read the MBTiles file") {
            try database.forEachRow("SELECT tile_column, tile_row FROM tiles WHERE zoom_level = \(zoom)") { row in
                let x = row.int(0), tmsY = row.int(1)
                guard (0..<(1 << zoom)).contains(x), (0..<(1 << zoom)).contains(tmsY) else { return }
                if counted(MapTile(zoom: zoom, x: x, tmsY: tmsY)) { count += 1 }
            }
        }
        return count
    }

    /// The lowest and highest zoom levels that hold a tile (nil when none does).
    public func zoomsWithTiles() throws -> ClosedRange<Int>? {
        var range: ClosedRange<Int>?
        try storing("cannot read the MBTiles file") {
            try database.forEachRow("SELECT MIN(zoom_level), MAX(zoom_level) FROM tiles WHERE zoom_level IS NOT NULL") { row in
                guard !row.isNull(0) else { return }
                range = row.int(0)...row.int(1)
            }
        }
        return range
    }

    /// The files of an unfinished run: the partial file and its journal.
    var leftovers: [String] { [partialPath, partialPath + "-journal"] }

    /// Closes the partial file and removes it with its journal: the end of a run that failed
    /// or was interrupted and cannot be resumed.
    public func discard() {
        insert = nil
        lookup = nil
        try? database.close()
        leftovers.forEach { unlink($0) }
    }

    /// Writes the metadata, drops the run's own tables (but the run's identity, `keepingRun`,
    /// for a shard's part that `--finish` checks), closes the file and renames it into place.
    public func finish(metadata m: MBTilesMetadata, keepingRun: Bool = false) throws {
        try begin()
        for (name, value) in m.rows {
            try execute("INSERT OR REPLACE INTO metadata VALUES (?, ?)", binding: [.text(name), .text(value)])
        }
        try execute("DROP TABLE meridian_blocks; \(keepingRun ? "" : "DROP TABLE meridian_run; ")COMMIT")
        inTransaction = false
        insert = nil
        lookup = nil
        try storing("cannot close the MBTiles file") { try database.close() }
        try claim.refuseIfTaken()
        if rename(partialPath, path) != 0 {
            throw MeridianError(.cannotCreateOutput, "cannot move output into place: \(String(cString: strerror(errno)))", at: SourceLocation(file: path))
        }
        claim.release()
    }
}

/// The metadata table of an MBTiles 1.3 file Meridian writes (an overlay, version 1.3).
public struct MBTilesMetadata: Sendable {
    /// The tileset's name (`name`).
    public var name: String
    /// A sentence about the tileset (`description`).
    public var description: String
    /// The tiles' format as MBTiles names it: `png`, `jpg`, `webp`, or `pbf` (vector tiles, gzipped).
    public var format: String
    /// The area the tiles cover, in degrees (`bounds`, written west,south,east,north).
    public var bounds: BoundingBox
    /// The place to show first: a longitude, a latitude and a zoom level.
    public var center: (longitude: Double, latitude: Double, zoom: Int)
    /// The lowest zoom level with tiles (`minzoom`).
    public var minZoom: Int
    /// The highest zoom level with tiles (`maxzoom`).
    public var maxZoom: Int
    /// For vector tiles: the `json` row, whose `vector_layers` lists each layer's fields and zooms.
    public var json: String?

    /// Creates the metadata; `version` (1.3) and `type` (overlay) are always written as well.
    /// - Parameters:
    ///   - name: The tileset's name.
    ///   - description: A sentence about the tileset.
    ///   - format: The tiles' format: `png`, `jpg`, `webp`, or `pbf` for vector tiles.
    ///   - bounds: The area covered, in degrees.
    ///   - center: The place to show first: longitude, latitude (degrees) and zoom level.
    ///   - minZoom: The lowest zoom level with tiles.
    ///   - maxZoom: The highest zoom level with tiles.
    ///   - json: For vector tiles, the `json` row (`{"vector_layers": […]}`); nil for images.
    public init(name: String, description: String, format: String, bounds: BoundingBox,
                center: (longitude: Double, latitude: Double, zoom: Int), minZoom: Int, maxZoom: Int, json: String? = nil) {
        self.json = json
        self.name = name
        self.description = description
        self.format = format
        self.bounds = bounds
        self.center = center
        self.minZoom = minZoom
        self.maxZoom = maxZoom
    }

    /// The rows of the metadata table, in the order they are written.
    var rows: [(String, String)] {
        let b = bounds, c = center
        return [
            ("name", name), ("description", description), ("version", "1.3"), ("type", "overlay"), ("format", format),
            ("bounds", "\(b.west),\(b.south),\(b.east),\(b.north)"), ("center", "\(c.longitude),\(c.latitude),\(c.zoom)"),
            ("minzoom", "\(minZoom)"), ("maxzoom", "\(maxZoom)"),
        ] + (json.map { [("json", $0)] } ?? [])
    }
}
