import Foundation
#if os(Linux)
import CFileSync
#endif
import MeridianCore
import MeridianFormats
import MeridianGeometry
import Synchronization

/// Where tiles go. Writes may come from several threads at once. A tile set is built block by
/// block (a block: every tile under one tile of a middle zoom level); a sink remembers
/// completed blocks and the run they belong to (its `TilingRunIdentity`), so a resumed run after
/// an interruption redoes only what is missing, and only for the same run.
public protocol TileSink: AnyObject, Sendable {
    /// Blocks a previous, interrupted run of the same identity completed, with the number of
    /// tiles each stored (empty unless resuming).
    var completedBlocks: [MapTile: Int] { get }
    /// Where the state records `block` completed (a state file's line), for an error about it.
    func location(ofCompleted block: MapTile) -> SourceLocation
    /// An existing tile's bytes (for a resumed run), or nil.
    func existingTile(_ tile: MapTile) throws -> [UInt8]?
    /// Stores one encoded tile (atomically: a reader never sees part of it).
    func write(_ tile: MapTile, data: [UInt8]) throws
    /// Records that every tile of `block` is stored: `tiles` (empty ones are not), after making
    /// them durable, so that a power loss never leaves the record without its tiles.
    func markCompleted(block: MapTile, tiles: [MapTile]) throws
    /// Records that every tile of a zoom level is stored, as the block `mark` (the level's
    /// mark in a run made level by level): `tiles` of them (empty ones are not), after making
    /// them durable, so that a power loss never leaves the record without its tiles. A count,
    /// not a list: a level of a million tiles is recorded without holding their addresses, and
    /// a resumed run checks the count against the tiles the level holds
    /// (``storedTileCount(zoom:where:)``).
    func markCompleted(levelOf mark: MapTile, tiles: Int) throws
    /// The lowest and highest zoom levels that hold a tile (nil when none does), so the metadata
    /// can say what is there: a raster far smaller than a pixel leaves low zooms empty.
    func zoomsWithTiles() throws -> ClosedRange<Int>?
    /// How many tiles of level `zoom` the sink holds for which `counted` is true (a shard's own,
    /// say), each a valid tile: what a resumed run checks against the count its state records,
    /// since the state is a claim and the tiles are the truth (a level whose tiles were removed
    /// is made again; one holding tiles the run did not store is not this run's).
    func storedTileCount(zoom: Int, where counted: @Sendable (MapTile) -> Bool) throws -> Int
    /// Writes the metadata and makes the tile set whole.
    func finish(metadata: TileSetMetadata) throws
    /// Takes in the tiles shard `index` of a run split across machines wrote (`--finish`),
    /// after checking that its part is that shard's (`identity`) and holds only tiles for
    /// which `belongs` is true.
    /// - Returns: How many of the shard's tiles the sink holds now, so that the joining can say
    ///   what the joined tile set holds.
    @discardableResult
    func adoptShard(_ index: Int, of workspace: ShardWorkspace, identity: TilingRunIdentity, belongs: @Sendable (MapTile) -> Bool) throws -> Int
    /// Files whose presence proves that what this sink stored is still there, for the mark that
    /// records it done: a shard's (`sample`: a tile it wrote, if any) or a joined run's.
    func evidence(sample: MapTile?) -> [String]
    /// Removes what the sink wrote, its run state included, for a run that failed or was
    /// interrupted and cannot be resumed (image tiles drawn from vector data): no output is left.
    func discard()
}

/// Opening a tile sink by its output's path: the container the path names (`TileContainer(path:)`)
/// opens its sink for the purpose (`TileContainer.openSink(at:format:scheme:for:replacing:)`).
public enum TileSinks {
    /// The sink at `path` for `purpose`, in the container the path names: an MBTiles file
    /// (`.mbtiles`), a PMTiles archive (`.pmtiles`) or else a folder of `scheme` rows.
    /// With `replacing`, the finished MBTiles or PMTiles file replaces a regular file at `path`
    /// (a folder is never replaced).
    /// - Throws: The sink's errors: an existing output refused, one that cannot be made.
    public static func open(_ path: String, format: TileFormat, scheme: TileScheme = .xyz, for purpose: TileSinkPurpose,
                            replacing: Bool = false) throws -> TileSink {
        try TileContainer(path: path).openSink(at: path, format: format, scheme: scheme, for: purpose, replacing: replacing)
    }
}

extension TileSinks {
    /// Writes a new tile set at `path`, which no run resumes (`tile-copy`, `tile-join`: a folder
    /// staged out of sight and renamed into place, an MBTiles file built beside its place whose
    /// partial file a signal removes, or a PMTiles archive; whatever the container, an existing
    /// output is refused, never replaced, and an empty folder counts as new): `body` stores the
    /// tiles in the sink and returns the metadata, which finishes it. On an error, or a signal
    /// (checked before each tile and before finishing), nothing is left at `path`. With
    /// `replacing`, an MBTiles or PMTiles file at `path` is replaced once the new one is finished.
    /// - Throws: What `body` and the sink throw.
    public static func writeNew(_ path: String, format: TileFormat, scheme: TileScheme = .xyz, replacing: Bool = false,
                                _ body: (_ store: (MapTile, [UInt8]) throws -> Void) throws -> TileSetMetadata) throws {
        try TemporaryFiles.stoppingInOrder {
            let sink = try open(path, format: format, scheme: scheme, for: .newSet, replacing: replacing)
            do {
                let metadata = try body { tile, bytes in
                    try TemporaryFiles.checkForStop()
                    try sink.write(tile, data: bytes)
                }
                try TemporaryFiles.checkForStop()
                try sink.finish(metadata: metadata)
            } catch {
                sink.discard()
                throw error
            }
        }
    }

    /// Copies the pyramid `source` into a new one at `path` (any container into any other),
    /// tile for tile with its metadata; vector tiles are gunzipped on the way and stored as the
    /// new container stores them.
    /// - Parameters:
    ///   - source: The pyramid to copy, open for reading.
    ///   - path: Where the copy goes: a new or empty folder, an `.mbtiles` file or a `.pmtiles` archive.
    ///   - zooms: Only these zoom levels (the metadata then states the levels copied).
    ///   - replacing: Whether an MBTiles or PMTiles file at `path` is replaced (a folder never is).
    /// - Returns: The number of tiles written (an address the source lists without a tile is not).
    /// - Throws: `MeridianError` (bad input) when `source` holds no tiles at `zooms`, (usage)
    ///   when `path` is the source itself, and the reader's and sink's errors.
    @discardableResult
    public static func copy(_ source: any TilePyramidReader, to path: String, zooms: ClosedRange<Int>? = nil, replacing: Bool = false) throws -> Int {
        try RunInputs.refuseInput(at: path, alsoInputs: [source.path])
        var metadata = try source.pyramidMetadata()
        let tiles = try source.tileAddresses(zooms: zooms)
        guard let lowest = tiles.map(\.zoom).min(), let highest = tiles.map(\.zoom).max() else {
            let which = zooms.map { " at zoom \($0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)")" } ?? ""
            throw MeridianError(.badInput, "the tile pyramid holds no tiles\(which)", at: SourceLocation(file: source.path))
        }
        if zooms != nil { metadata.zooms = lowest...highest }
        var written = 0
        try writeNew(path, format: metadata.format, replacing: replacing) { store in
            for tile in tiles {
                // An address without bytes holds no tile (a PMTiles archive cannot even store one).
                guard let bytes = try source.uncompressedTile(tile), !bytes.isEmpty else { continue }
                try store(tile, bytes)
                written += 1
            }
            return metadata
        }
        return written
    }
}

/// A folder of `z/x/y.ext` tiles (XYZ or TMS rows), with TileJSON `metadata.json` and, for TMS,
/// `tilemapresource.xml`. A tile goes into a folder the run made under its own name, and into
/// a folder it found (a resumed or shared run's) through a temporary file renamed into place
/// (`TileFolderWriter`): a run killed outright may leave a tile cut short only in a block its
/// state does not record, which a resumed run writes again. While a run is under way,
/// `.meridian-tiling` in the folder holds the run's identity (one
/// `NAME VALUE` line a field) and then a `block Z/X/Y TILES` line per completed block.
public final class FolderTileSink: TileSink, @unchecked Sendable {
    /// The tile folder.
    public let path: String
    /// How the folder counts rows (`y` in `z/x/y`).
    public let scheme: TileScheme
    /// The tiles' image format, which gives their file name extension.
    public let format: TileFormat
    /// Blocks an interrupted run completed, read from the state file when resuming, with their tile counts.
    public var completedBlocks: [MapTile: Int] { completedBlockLines.mapValues(\.tiles) }
    private var completedBlockLines: [MapTile: (tiles: Int, line: Int)] = [:]
    /// Writes the tile files (from every worker thread).
    private let files: TileFolderWriter
    /// The folder, this run's until it is finished (no lock for a shard: the shards share it).
    private let claim: OutputClaim
    private let statePath: String
    /// The state file's descriptor, written one whole line at a time.
    private let stateFile: Mutex<Int32>

    /// Where the tiles go: the folder, or the hidden folder beside it that a staged sink renames into place.
    private let root: String
    /// A staged sink's hidden folder (nil: tiles go straight into the folder).
    private let staging: String?
    /// Whether ``finish(metadata:)`` has made the tile set whole.
    private var finished = false

    /// The name of the file that holds an unfinished run's state.
    public static let stateFile = ".meridian-tiling"

    /// Whether `finish` writes the metadata (not for one shard of a run split across machines).
    private let writesMetadata: Bool
    /// Whether the folder is shared by the shards of a run split across machines.
    private let shared: Bool
    /// Whether this sink made the folder (it was not there before): ``discard()`` removes it then,
    /// and else only what is in it.
    private var madeFolder = false

    /// Opens `path` for the run `identity` (which names `scheme` too). The folder must be new or
    /// empty; with `resume` it may instead hold an interrupted run of the same identity, else the
    /// run stops with a usage error before anything is written.
    ///
    /// For a shard of a run split across machines, `sharedState` is the shard's own state file
    /// (in its ``ShardWorkspace``): the folder is shared with the other shards, so it may hold
    /// their tiles, and only that state says whether this shard ran before (with `resume`, it
    /// must be the same run's). `writesMetadata` false leaves the metadata to `--finish`.
    public init(path: String, scheme: TileScheme, format: TileFormat, resume: Bool, identity: TilingRunIdentity,
                sharedState: String? = nil, writesMetadata: Bool = true) throws {
        self.path = path
        self.scheme = scheme
        self.format = format
        self.writesMetadata = writesMetadata
        (root, staging) = (path, nil)
        shared = sharedState != nil
        statePath = sharedState ?? path + "/" + Self.stateFile
        files = TileFolderWriter(root: path)
        claim = try OutputClaim(path, container: .folder, continuing: resume || shared, locked: !shared,
                                notEmpty: TileOutputError.folderNotEmpty(path: path))
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        var resuming = false
        if let sharedState {
            try manager.createDirectory(atPath: path, withIntermediateDirectories: true)
            // An empty state is another attempt of this shard that has just created it and not
            // yet written the run into it (an engine's speculative retry): nothing to continue.
            if let bytes = try TilingStateFile.read(sharedState), !bytes.isEmpty {
                guard resume else { throw TileOutputError.shardStarted(path: sharedState) }
                resuming = true
                completedBlockLines = try TilingStateFile.completedBlocks(String(decoding: bytes, as: UTF8.self), identity: identity,
                                                                         output: sharedState, file: sharedState)
            }
        } else if manager.fileExists(atPath: path, isDirectory: &isFolder) {
            // The claim refused anything but a folder, and one that holds files unless resuming.
            let entries = (try? manager.contentsOfDirectory(atPath: path)) ?? []
            if !entries.isEmpty {
                guard let bytes = try TilingStateFile.read(statePath) else { throw TileOutputError.nothingToResume(path: path) }
                completedBlockLines = try TilingStateFile.completedBlocks(String(decoding: bytes, as: UTF8.self), identity: identity,
                                                                         output: path, file: statePath)
                Self.removeLeftovers(in: path)
                resuming = true
            }
        } else {
            do {
                try manager.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw MeridianError(.cannotCreateOutput, "cannot create the output folder", at: SourceLocation(file: path))
            }
            madeFolder = true
        }
        stateFile = Mutex(try TilingStateFile.openForAppending(statePath, keeping: resuming,
                                                               startingWith: resuming ? "" : identity.lines.map { $0 + "\n" }.joined()))
    }

    /// Opens `path` for a new tile set written out of sight and renamed into place by
    /// ``finish(metadata:)``: the tiles go into a hidden folder beside it (`.NAME.meridian-PID`),
    /// written straight into place there, with no run state (such a tile set cannot be resumed).
    /// The folder must be new or empty (rename(2) replaces only an empty folder).
    /// - Throws: `MeridianError` (cannot create output) when the output exists or cannot be made,
    ///   (usage) when it is an input of the run.
    public init(staging path: String, scheme: TileScheme, format: TileFormat) throws {
        self.path = path
        self.scheme = scheme
        self.format = format
        writesMetadata = true
        shared = false
        claim = try OutputClaim(path, container: .folder)
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let staging = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).meridian-\(getpid())").path
        try? FileManager.default.removeItem(atPath: staging)  // a run of this process id that was killed
        do {
            try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        } catch {
            throw MeridianError(.cannotCreateOutput, "cannot create the output folder", at: SourceLocation(file: path))
        }
        (root, self.staging, statePath) = (staging, staging, "")
        stateFile = Mutex(-1)
        files = TileFolderWriter(root: staging, inPlace: true)
    }

    deinit {
        stateFile.withLock { if $0 >= 0 { close($0) } }
        // An unfinished staged folder goes with its sink: nothing of it was ever at `path`.
        if let staging, !finished { try? FileManager.default.removeItem(atPath: staging) }
    }

    /// Temporary files a killed run left behind (`.y.png.meridian-XXXXXX`).
    package static func removeLeftovers(in path: String) {
        guard let walker = FileManager.default.enumerator(atPath: path) else { return }
        for case let relative as String in walker {
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix("."), name.contains(".meridian-"), name != stateFile {
                unlink(path + "/" + relative)
            }
        }
    }

    private func append(_ line: String) throws {
        var line = line
        let written = stateFile.withLock { fd in line.withUTF8 { Platform.write(fd, $0.baseAddress, $0.count) } }
        guard written == line.utf8.count else {
            throw MeridianError(.io, "cannot write in the output folder: \(String(cString: strerror(errno)))", at: SourceLocation(file: path))
        }
    }

    /// Where a tile's file is: `path/z/x/y.ext` (in the hidden folder while a staged sink is
    /// unfinished), with `y` counted as ``scheme`` says.
    /// - Parameter tile: The tile, with XYZ rows.
    /// - Returns: The file's path (the file may not exist).
    public func tilePath(_ tile: MapTile) -> String {
        "\(root)/\(tile.zoom)/\(tile.x)/\(scheme == .xyz ? tile.y : tile.tmsY).\(format.fileExtension)"
    }

    /// The bytes of a tile's file, or nil when it has none.
    public func existingTile(_ tile: MapTile) throws -> [UInt8]? {
        FileManager.default.contents(atPath: tilePath(tile)).map { [UInt8]($0) }
    }

    /// Writes a tile's file, making its folders (as ``TileFolderWriter`` does: whole, unless a
    /// kill cuts short a tile of a block not yet recorded).
    public func write(_ tile: MapTile, data: [UInt8]) throws {
        try files.write(data, to: tilePath(tile))
    }

    /// Appends the block's line to the state file, so a resumed run keeps its tiles, once the
    /// tiles and their folders are on disk (tiles are written without an fsync each; the state
    /// line must not reach the disk before them): on Linux one syncfs of the folder's file
    /// system, elsewhere (or if it fails) an fsync of each tile, column and level folder.
    public func markCompleted(block: MapTile, tiles: [MapTile]) throws {
        guard staging == nil else { return }  // nothing to resume: the folder appears whole or not at all
        if !syncFileSystem() {
            let files = tiles.map(tilePath)
            let columns = Set(files.map { ($0 as NSString).deletingLastPathComponent })
            let levels = Set(columns.map { ($0 as NSString).deletingLastPathComponent })
            try Self.fsyncEach(files + columns.sorted() + levels.sorted() + [path])
        }
        try append("block \(block.zoom)/\(block.x)/\(block.y) \(tiles.count)\n")
    }

    /// Appends the level's line (`block` `mark` and its count of tiles) to the state file once
    /// the level's tiles and folders are on disk: on Linux one syncfs of the folder's file
    /// system, elsewhere (or if it fails) an fsync of every file in the level's folder (a
    /// shared folder's other shards' tiles too: no list of the level's tiles is kept), of its
    /// column folders, the level folder and the tile folder.
    public func markCompleted(levelOf mark: MapTile, tiles: Int) throws {
        guard staging == nil else { return }  // nothing to resume: the folder appears whole or not at all
        if !syncFileSystem() { try makeLevelDurable(zoom: mark.zoom) }
        try append("block \(mark.zoom)/\(mark.x)/\(mark.y) \(tiles)\n")
    }

    /// fsync(2)s every file in level `zoom`'s folder, each column folder, the level folder and
    /// the tile folder: what a level's record needs on disk where syncfs(2) is not there.
    /// Temporary files (hidden names: another shard's tile in flight among them) are not tiles
    /// and are passed over.
    /// - Throws: `MeridianError` (`io`) naming the first file that cannot be opened or synced.
    func makeLevelDurable(zoom: Int) throws {
        let level = "\(root)/\(zoom)", manager = FileManager.default
        // A level that got no tile has no folder: nothing of it to make durable.
        if let columns = try? manager.contentsOfDirectory(atPath: level) {
            for column in columns.sorted() where !column.hasPrefix(".") {
                let folder = level + "/" + column
                let names = ((try? manager.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") }
                try Self.fsyncEach(names.map { folder + "/" + $0 } + [folder])
            }
            try Self.fsyncEach([level])
        }
        try Self.fsyncEach([path])
    }

    /// Whether one syncfs(2) of the folder's file system made every tile and folder durable at
    /// once (Linux); false elsewhere or when it failed, and each file must be fsynced.
    private func syncFileSystem() -> Bool {
        #if os(Linux)
        let folder = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)
        guard folder >= 0 else { return false }
        defer { close(folder) }
        return syncfs(folder) == 0
        #else
        return false
        #endif
    }

    /// fsync(2)s each of `files` (tiles or folders), in order.
    /// - Throws: `MeridianError` (`io`) naming the first that cannot be opened or synced.
    private static func fsyncEach(_ files: [String]) throws {
        for file in files {
            let fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard fd >= 0, fsync(fd) == 0 else {
                let reason = String(cString: strerror(errno))
                if fd >= 0 { close(fd) }
                throw MeridianError(.io, "cannot make the tiles durable: \(reason)", at: SourceLocation(file: file))
            }
            close(fd)
        }
    }

    /// The state file and line that record `block` completed.
    public func location(ofCompleted block: MapTile) -> SourceLocation {
        SourceLocation(file: statePath, line: completedBlockLines[block]?.line)
    }

    /// A joined folder's metadata.json; for a shard, the tile `sample` (or the folder).
    public func evidence(sample: MapTile?) -> [String] {
        if writesMetadata { return [path + "/metadata.json"] }
        return [sample.map(tilePath) ?? path]
    }

    /// The zoom levels whose folders hold a tile (temporary files left by a killed run do not count).
    public func zoomsWithTiles() throws -> ClosedRange<Int>? {
        // A zoom folder is made just before its first tile is written; a killed run may leave
        // only a hidden temporary file in it, which does not count.
        let manager = FileManager.default
        func holdsTile(_ folder: String) -> Bool {
            ((try? manager.contentsOfDirectory(atPath: folder)) ?? []).contains { column in
                !column.hasPrefix(".") && ((try? manager.contentsOfDirectory(atPath: folder + "/" + column)) ?? []).contains { !$0.hasPrefix(".") }
            }
        }
        let zooms = MapTile.zoomLevels.filter { holdsTile("\(root)/\($0)") }
        guard let low = zooms.first, let high = zooms.last else { return nil }
        return low...high
    }

    /// The `z/x/y.ext` files of level `zoom` whose names are a valid tile of this folder's
    /// scheme and format, and that `counted` takes (hidden temporary files and other names are
    /// not tiles).
    public func storedTileCount(zoom: Int, where counted: @Sendable (MapTile) -> Bool) throws -> Int {
        guard MapTile.zoomLevels.contains(zoom) else { return 0 }
        let manager = FileManager.default, level = "\(root)/\(zoom)", suffix = "." + format.fileExtension
        var count = 0
        for column in (try? manager.contentsOfDirectory(atPath: level)) ?? [] {
            guard let x = Int(column), (0..<(1 << zoom)).contains(x) else { continue }
            for name in (try? manager.contentsOfDirectory(atPath: level + "/" + column)) ?? [] where name.hasSuffix(suffix) {
                guard let row = Int(name.dropLast(suffix.count)), (0..<(1 << zoom)).contains(row) else { continue }
                let tile = scheme == .xyz ? MapTile(zoom: zoom, x: x, y: row) : MapTile(zoom: zoom, x: x, tmsY: row)
                if counted(tile) { count += 1 }
            }
        }
        return count
    }

    /// Writes `metadata.json` (and `tilemapresource.xml` for TMS rows) and removes the state file: the folder is finished.
    /// (A shard's sink only removes its state.)
    public func finish(metadata: TileSetMetadata) throws {
        defer { claim.release() }
        guard writesMetadata else {
            unlink(statePath)
            return
        }
        // Joining shards: every shard has completed, so the temporary files in the folder are
        // what killed attempts left (while shards run, one's may be another's tile in flight).
        if shared { Self.removeLeftovers(in: path) }
        for file in ["metadata.json", "tilemapresource.xml"] { try TileFolderWriter.refuseLink(at: root + "/" + file) }
        try OutputTarget.write(Array(tileJSON(metadata).utf8), to: root + "/metadata.json", durable: false)
        if scheme == .tms {
            try OutputTarget.write(Array(tileMapResource(metadata).utf8), to: root + "/tilemapresource.xml", durable: false)
        }
        if let staging {
            try TemporaryFiles.checkForStop()
            // rename(2) replaces an empty folder, and refuses anything else (a folder that has
            // filled meanwhile, a file): nothing that was there is removed.
            guard rename(staging, path) == 0 else {
                throw MeridianError(.cannotCreateOutput, "cannot move the finished tiles into place: \(String(cString: strerror(errno)))",
                                    at: SourceLocation(file: path), hint: "Meridian never replaces an existing output: remove it or choose another path")
            }
        } else {
            unlink(statePath)
        }
        finished = true
    }

    /// Nothing to take in: the shards wrote their tiles into this folder; counts the shard's there.
    public func adoptShard(_ index: Int, of workspace: ShardWorkspace, identity: TilingRunIdentity, belongs: @Sendable (MapTile) -> Bool) throws -> Int {
        try MapTile.zoomLevels.reduce(0) { $0 + (try storedTileCount(zoom: $1, where: belongs)) }
    }

    /// Removes the folder if this sink made it, else everything in it (it was empty: a new run
    /// is refused a folder that is not). Not for a resumed or shared folder, which is left as it is.
    public func discard() {
        if let staging {
            try? FileManager.default.removeItem(atPath: staging)
            return claim.release()
        }
        guard !shared, completedBlocks.isEmpty else { return }
        stateFile.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
        if madeFolder {
            try? FileManager.default.removeItem(atPath: path)
        } else {
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                try? FileManager.default.removeItem(atPath: path + "/" + entry)
            }
        }
    }

    /// TileJSON 3.0.0 (for vector tiles, `vectorTileJSON`).
    func tileJSON(_ m: TileSetMetadata) -> String {
        if format == .mvt { return Self.vectorTileJSON(m) }
        let b = m.bounds, c = m.center
        return """
            {
              "tilejson": "3.0.0",
              "name": \(jsonString(m.name)),
              "description": \(jsonString(m.description)),
              "version": "1.0.0",
              "scheme": "\(scheme.rawValue)",
              "tiles": ["{z}/{x}/{y}.\(format.fileExtension)"],
              "minzoom": \(m.minZoom),
              "maxzoom": \(m.maxZoom),
              "bounds": [\(b.west), \(b.south), \(b.east), \(b.north)],
              "center": [\(c.longitude), \(c.latitude), \(c.zoom)],
              "format": "\(format.fileExtension)",
              "tileSize": \(m.tileSize)
            }

            """
    }

    /// TileJSON 3.0.0 of a folder of vector tiles (XYZ rows), with `vector_layers` (`[]` when
    /// the metadata has none) and `tilestats` when it has them, and the MBTiles-style `json`
    /// member that tippecanoe writes and GDAL's MVT driver reads for the layers' fields.
    static func vectorTileJSON(_ m: TileSetMetadata) -> String {
        let b = m.bounds, ext = m.format.fileExtension, layers = m.vectorLayersJSON ?? "[]"
        let stats = m.tileStatsJSON
        return """
            {
              "tilejson": "3.0.0",
              "name": \(jsonString(m.name)),
              "description": \(jsonString(m.description)),
              "scheme": "xyz",
              "tiles": ["{z}/{x}/{y}.\(ext)"],
              "format": "\(ext)",
              "minzoom": \(m.minZoom),
              "maxzoom": \(m.maxZoom),
              "vector_layers": \(layers),\(stats.map { "\n  \"tilestats\": \($0)," } ?? "")
              "json": \(jsonString("{\"vector_layers\":\(layers)\(stats.map { ",\"tilestats\":\($0)" } ?? "")}")),
              "bounds": [\(b.west), \(b.south), \(b.east), \(b.north)],
              "center": [\((b.west + b.east) / 2), \((b.south + b.north) / 2), \(m.minZoom)]
            }

            """
    }

    /// The TMS TileMap document gdal2tiles writes beside TMS tiles.
    func tileMapResource(_ m: TileSetMetadata) -> String {
        // Web Mercator's half width in metres (π · 6378137), and metres per pixel at each level, as MeridianRaster's `TilePyramid` has them.
        let originShift = Double.pi * 6_378_137
        let lower = MapPoint(Position(longitude: m.bounds.west, latitude: m.bounds.south))
        let upper = MapPoint(Position(longitude: m.bounds.east, latitude: m.bounds.north))
        func metres(_ p: MapPoint) -> (Double, Double) {
            (p.x / MapWorld.size * 2 * originShift - originShift,
             originShift - p.y / MapWorld.size * 2 * originShift)
        }
        let (minX, minY) = metres(lower), (maxX, maxY) = metres(upper)
        var sets = ""
        for z in m.minZoom...m.maxZoom {
            sets += "      <TileSet href=\"\(z)\" units-per-pixel=\"\(2 * originShift / Double(m.tileSize) / Double(1 << z))\" order=\"\(z)\"/>\n"
        }
        return """
            <?xml version="1.0" encoding="utf-8"?>
            <TileMap version="1.0.0" tilemapservice="http://tms.osgeo.org/1.0.0">
              <Title>\(xmlEscaped(m.name))</Title>
              <Abstract>\(xmlEscaped(m.description))</Abstract>
              <SRS>EPSG:3857</SRS>
              <BoundingBox minx="\(minX)" miny="\(minY)" maxx="\(maxX)" maxy="\(maxY)"/>
              <Origin x="\(-originShift)" y="\(-originShift)"/>
              <TileFormat width="\(m.tileSize)" height="\(m.tileSize)" mime-type="\(m.format.mimeType)" extension="\(m.format.fileExtension)"/>
              <TileSets profile="mercator">
            \(sets)  </TileSets>
            </TileMap>

            """
    }
}

/// A JSON string literal, as Meridian's JSON writer escapes it.
package func jsonString(_ s: String) -> String { JSONValue.string(s).jsonText }

/// Text for XML or HTML (a tile set's name in `tilemapresource.xml`, its KML, a viewer page's
/// title), as Meridian's XML writer escapes an attribute's value: it cannot close an element.
package func xmlEscaped(_ s: String) -> String { XMLTextWriter.escaped(s, inAttribute: true) }
