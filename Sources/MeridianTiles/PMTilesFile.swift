import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry

/// A PMTiles version 3 archive opened for reading: its header (tile type, compression, zooms,
/// bounds), its metadata JSON, and any tile by its XYZ address, found through the root
/// directory and, when the archive has them, its leaf directories. Parts of the file are read
/// as they are needed, so an archive of any size opens at once.
///
/// Not for sharing between threads: leaf directories are cached as they are read.
public final class PMTilesFile {
    /// How the archive's tiles (or its directories and metadata) are compressed.
    public enum Compression: UInt8, Sendable {
        /// Not said (read as it is).
        case unknown = 0
        /// Stored as they are.
        case none = 1
        /// gzip.
        case gzip = 2
        /// Brotli (not read by Meridian).
        case brotli = 3
        /// Zstandard (not read by Meridian).
        case zstd = 4
    }

    /// One directory entry: a run of `runLength` tiles from `tileID` sharing one stored tile, or,
    /// with a run length of 0, a leaf directory holding the entries from `tileID` on.
    struct Entry: Equatable {
        var tileID: UInt64
        var offset: UInt64
        var length: Int
        var runLength: UInt32
    }

    /// The archive's path, as given and as messages name it.
    public let path: String
    /// What the tiles are.
    public let tileType: TileFormat?
    /// How each tile is compressed (gzip for vector tiles, as Meridian writes them).
    public let tileCompression: Compression
    /// The lowest and highest zoom levels the header states.
    public let zooms: ClosedRange<Int>
    /// The header's bounds, in degrees.
    public let bounds: BoundingBox
    /// The metadata, uncompressed: a JSON object (`name`, `vector_layers`, …).
    public let metadataJSON: String
    /// The header's center as stored (degrees and zoom level, unchecked: any byte and any
    /// number of ten-millionths of a degree).
    public let headerCenter: (longitude: Double, latitude: Double, zoom: Int)
    private let file: FileHandle
    private let internalCompression: Compression
    /// The leaf directories' and the tile data's sections, each within the file.
    private let leavesSection: Range<UInt64>, dataSection: Range<UInt64>
    /// The tile ids of the header's zoom levels: every entry's run lies within them.
    private let tileIDs: Range<UInt64>
    private let root: [Entry]
    private var leaves: [UInt64: [Entry]] = [:]
    /// ``tileExtent()`` once found: `pyramidMetadata()` and `statedCenter()` each ask for it.
    private var foundExtent: TileExtent??

    /// Opens the archive and reads its header, root directory and metadata.
    /// - Throws: `MeridianError` (input unavailable) when the file cannot be opened, (bad input)
    ///   when it is not a PMTiles 3 archive, it is damaged (a section or entry past its place,
    ///   entries out of order, a count more than its bytes can hold; see ``TileInputLimits``),
    ///   or its directories are compressed in a way Meridian does not read.
    public init(path: String) throws {
        self.path = path
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw MeridianError(.inputUnavailable, "cannot open the PMTiles archive", at: SourceLocation(file: path))
        }
        self.file = file
        let damaged = Self.damaged(path)
        let header = try Self.read(file, Self.section(0, 127), path: path)
        guard header.count == 127, Array(header[0..<7]) == Array("PMTiles".utf8) else {
            throw MeridianError(.badInput, "not a PMTiles archive", at: SourceLocation(file: path))
        }
        guard header[7] == 3 else {
            throw MeridianError(.badInput, "a PMTiles archive of version \(header[7]); Meridian reads version 3", at: SourceLocation(file: path))
        }
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(header[at + $1]) << UInt64(8 * $1) } }
        func degrees(_ at: Int) -> Double {
            Double(Int32(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(header[at + $1]) << UInt32(8 * $1) })) / 10_000_000
        }
        let fileSize: UInt64
        do { fileSize = try file.seekToEnd() } catch { throw MeridianError(.io, "cannot read the PMTiles archive", at: SourceLocation(file: path)) }
        /// The section whose offset and length the header holds at `at`: within the file.
        func section(_ at: Int, limit: Int? = nil) throws -> Range<UInt64> {
            guard let range = Self.section(u64(at), u64(at + 8)), range.upperBound <= fileSize,
                  limit.map({ range.count <= $0 }) ?? true else { throw damaged }
            return range
        }
        let internalCompression = Compression(rawValue: header[97]) ?? .unknown
        self.internalCompression = internalCompression
        tileCompression = Compression(rawValue: header[98]) ?? .unknown
        tileType = TileFormat(pmtilesTileType: header[99])
        let stated = try TileSetMetadata.statedZooms(minimum: Double(header[100]), maximum: Double(header[101]), in: path)
        zooms = stated ?? 0...0
        bounds = try TileSetMetadata.statedBounds([degrees(102), degrees(106), degrees(110), degrees(114)], in: path)
        headerCenter = (degrees(119), degrees(123), Int(header[118]))
        tileIDs = Self.firstID(zoom: zooms.lowerBound)..<Self.firstID(zoom: zooms.upperBound + 1)
        leavesSection = try section(40)
        dataSection = try section(56)
        guard internalCompression == .gzip || internalCompression == .none || internalCompression == .unknown else {
            throw MeridianError(.badInput, "the PMTiles archive's directories are compressed with a method Meridian does not read (only gzip)",
                                at: SourceLocation(file: path))
        }
        let rootBytes = try Self.inflated(try Self.read(file, try section(8, limit: TileInputLimits.directoryBytes), path: path),
                                          internalCompression, limit: TileInputLimits.directoryBytes, path: path)
        root = try Self.entries(rootBytes, path: path)
        try Self.check(root, within: tileIDs, leaves: leavesSection.count, data: dataSection.count, path: path)
        let metadata = try Self.read(file, try section(24, limit: TileInputLimits.metadataBytes), path: path)
        metadataJSON = String(decoding: try Self.inflated(metadata, internalCompression, limit: TileInputLimits.metadataBytes, path: path), as: UTF8.self)
    }

    deinit { try? file.close() }

    /// `offset..<offset + length`, nil when the sum overflows.
    private static func section(_ offset: UInt64, _ length: UInt64) -> Range<UInt64>? {
        let (end, overflow) = offset.addingReportingOverflow(length)
        return overflow ? nil : offset..<end
    }

    private static func damaged(_ path: String, _ what: String = "a directory cannot be read") -> MeridianError {
        MeridianError(.badInput, "the PMTiles archive is damaged (\(what))", at: SourceLocation(file: path))
    }

    /// The bytes of `range`, which the caller has checked lies within the file.
    private static func read(_ file: FileHandle, _ range: Range<UInt64>?, path: String) throws -> [UInt8] {
        guard let range else { throw damaged(path) }
        do {
            try file.seek(toOffset: range.lowerBound)
            return Array(try file.read(upToCount: Int(range.count)) ?? Data())
        } catch {
            throw MeridianError(.io, "cannot read the PMTiles archive", at: SourceLocation(file: path))
        }
    }

    /// A directory's or the metadata's bytes, inflated when the archive gzips them (to at most `limit` bytes).
    private static func inflated(_ bytes: [UInt8], _ compression: Compression, limit: Int, path: String) throws -> [UInt8] {
        guard compression == .gzip else { return bytes }
        do {
            return try Gzip.decompress(bytes, limit: limit)
        } catch {
            throw damaged(path, "a directory or its metadata does not inflate to at most \(limit >> 20) MiB")
        }
    }

    /// The first tile id of zoom level `zoom` (0-31): the count of the tiles of every level above it.
    static func firstID(zoom: Int) -> UInt64 { ((UInt64(1) << UInt64(2 * zoom)) - 1) / 3 }

    /// A directory's entries from its (uncompressed) bytes: the count, then columns of
    /// delta-coded ids, run lengths, lengths and offsets (0: right after the previous entry).
    /// Ids must rise, and no sum may overflow.
    static func entries(_ bytes: [UInt8], path: String) throws -> [Entry] {
        let damaged = Self.damaged(path)
        var reader = ProtobufReader(bytes[...])
        do {
            let count = try reader.varint()
            // Each entry takes at least four bytes (a varint of each column): a count past
            // what the bytes can hold is damage, found before anything is allocated for it.
            guard count <= UInt64(bytes.count / 4) else { throw damaged }
            var entries = [Entry](repeating: Entry(tileID: 0, offset: 0, length: 0, runLength: 0), count: Int(count))
            var id: UInt64 = 0
            for i in entries.indices {
                let delta = try reader.varint()
                guard i == 0 || delta > 0 else { throw damaged }
                let (next, overflow) = id.addingReportingOverflow(delta)
                guard !overflow else { throw damaged }
                id = next
                entries[i].tileID = id
            }
            for i in entries.indices {
                guard let run = UInt32(exactly: try reader.varint()) else { throw damaged }
                entries[i].runLength = run
            }
            for i in entries.indices {
                guard let length = Int(exactly: try reader.varint()), length <= max(TileInputLimits.storedTileBytes, TileInputLimits.directoryBytes) else {
                    throw damaged
                }
                entries[i].length = length
            }
            for i in entries.indices {
                let offset = try reader.varint()
                if offset == 0 {
                    guard i > 0, let follows = section(entries[i - 1].offset, UInt64(entries[i - 1].length)) else { throw damaged }
                    entries[i].offset = follows.upperBound
                } else {
                    entries[i].offset = offset - 1
                }
            }
            return entries
        } catch {
            throw damaged
        }
    }

    /// Refuses a directory whose entries are not where they must be: each tile id within
    /// `ids` (the header's zooms, or the part of them the leaf's pointer covers), each run
    /// ending before the next entry, each tile within the data section (`data` bytes) and each
    /// leaf within the leaf directories' (`leaves` bytes), none empty.
    private static func check(_ entries: [Entry], within ids: Range<UInt64>, leaves: Int, data: Int, path: String) throws {
        for (i, entry) in entries.enumerated() {
            let next = i + 1 < entries.count ? entries[i + 1].tileID : ids.upperBound
            let isLeaf = entry.runLength == 0
            // No overflow: the id lies within zoom 30's (below 2^62) when the sum is made.
            guard ids.contains(entry.tileID), entry.tileID + UInt64(entry.runLength) <= next,
                  entry.length > 0, entry.length <= (isLeaf ? TileInputLimits.directoryBytes : TileInputLimits.storedTileBytes),
                  let stored = section(entry.offset, UInt64(entry.length)), stored.upperBound <= UInt64(isLeaf ? leaves : data) else {
                throw damaged(path, "a directory entry lies outside the archive or its zoom levels")
            }
        }
    }

    /// The leaf directory at `entry` (offset and length within the leaf directories' section),
    /// whose entries must lie within the tile ids `ids`; kept for later lookups when `caching`.
    private func leaf(_ entry: Entry, ids: Range<UInt64>, caching: Bool = true) throws -> [Entry] {
        let entries: [Entry]
        if let cached = leaves[entry.offset] {
            entries = cached
        } else {
            let bytes = try Self.read(file, Self.section(leavesSection.lowerBound + entry.offset, UInt64(entry.length)), path: path)
            entries = try Self.entries(try Self.inflated(bytes, internalCompression, limit: TileInputLimits.directoryBytes, path: path), path: path)
            try Self.check(entries, within: tileIDs, leaves: leavesSection.count, data: dataSection.count, path: path)
            if caching { leaves[entry.offset] = entries }
        }
        // Entries are in order: the first and last lie within `ids` when all do.
        guard entries.first.map({ ids.contains($0.tileID) }) ?? true,
              entries.last.map({ ids.contains($0.tileID) && $0.tileID + UInt64($0.runLength) <= ids.upperBound }) ?? true else {
            throw Self.damaged(path, "a leaf directory holds tiles outside the part its pointer covers")
        }
        return entries
    }

    /// The tile ids entry `index` of `directory` covers: from its id to the next entry's (or `ids`' end).
    private static func covered(_ directory: [Entry], _ index: Int, within ids: Range<UInt64>) -> Range<UInt64> {
        directory[index].tileID..<(index + 1 < directory.count ? directory[index + 1].tileID : ids.upperBound)
    }

    /// One tile's bytes as the archive stores them (gzipped when ``tileCompression`` says so),
    /// or nil when the archive does not have it.
    public func tile(_ tile: MapTile) throws -> [UInt8]? {
        let id = PMTilesWriter.tileID(tile)
        guard tileIDs.contains(id) else { return nil }
        var directory = root, ids = tileIDs
        // Root, then at most a few levels of leaves (the specification allows any depth; a
        // loop in a damaged file ends here).
        for _ in 0..<TileInputLimits.directoryDepth {
            // The last entry whose id is at most `id`.
            var low = 0, high = directory.count
            while low < high {
                let middle = (low + high) / 2
                if directory[middle].tileID <= id { low = middle + 1 } else { high = middle }
            }
            guard low > 0 else { return nil }
            let entry = directory[low - 1]
            if entry.runLength == 0 {
                ids = Self.covered(directory, low - 1, within: ids)
                directory = try leaf(entry, ids: ids)
                continue
            }
            guard id < entry.tileID + UInt64(entry.runLength) else { return nil }
            return try Self.read(file, Self.section(dataSection.lowerBound + entry.offset, UInt64(entry.length)), path: path)
        }
        throw Self.damaged(path, "its leaf directories nest too deep")
    }

    /// Every tile address the archive holds, in tile id order (runs expanded), optionally of the
    /// zoom levels `zooms` only. Each leaf directory is read once (one pointed to twice is
    /// damage), and no more than ``TileInputLimits/tileAddresses`` addresses are given.
    public func tileAddresses(zooms: ClosedRange<Int>? = nil) throws -> [MapTile] {
        func first(_ zoom: Int) -> UInt64 { Self.firstID(zoom: min(31, max(0, zoom))) }
        let wanted = zooms.map { first($0.lowerBound)..<first(min($0.upperBound, 30) + 1) } ?? tileIDs
        var tiles: [MapTile] = []
        try forEachRun(within: wanted) { part in
            try TileInputLimits.checkAddressCount(tiles.count + part.count, in: path)
            for id in part {
                guard let tile = Self.tile(id: id) else { throw Self.damaged(path, "a tile id past zoom 30") }
                tiles.append(tile)
            }
        }
        return tiles
    }

    /// How many tiles each zoom level holds, counted from the directories' runs without
    /// listing them: as many as ``tileAddresses(zooms:)`` gives, within the same limit.
    /// - Throws: `MeridianError` (bad input) when the archive is damaged or holds more than
    ///   ``TileInputLimits/tileAddresses`` tiles.
    public func tileCounts() throws -> [Int: Int] {
        var counts: [Int: Int] = [:], total = 0
        try forEachRun(within: tileIDs) { part in
            total += part.count
            try TileInputLimits.checkAddressCount(total, in: path)
            // A run may go on from one level into the next.
            var low = part.lowerBound
            while low < part.upperBound {
                guard let zoom = (0...30).first(where: { Self.firstID(zoom: $0 + 1) > low }) else { throw Self.damaged(path, "a tile id past zoom 30") }
                let end = min(part.upperBound, Self.firstID(zoom: zoom + 1))
                counts[zoom, default: 0] += Int(end - low)
                low = end
            }
        }
        return counts
    }

    /// The levels the directories' runs hold tiles at, lowest first: a run holds every level
    /// from its first id's to its last's (ids are numbered level by level).
    /// - Throws: `MeridianError` (bad input) when the archive is damaged.
    func heldZoomLevels() throws -> [Int] {
        var levels = Set<Int>()
        try forEachRun(within: tileIDs) { run in
            guard let first = Self.tile(id: run.lowerBound), let last = Self.tile(id: run.upperBound - 1) else {
                throw Self.damaged(path, "a tile id past zoom 30")
            }
            levels.formUnion(first.zoom...last.zoom)
        }
        return levels.sorted()
    }

    /// What the directories' runs say: the levels holding tiles, and the extent of the deepest
    /// level's tiles (each id there turned into its tile, within ``TileInputLimits/tileAddresses``
    /// ids in all, as ``tileCounts()`` counts them); nil when the archive holds no tile. The
    /// header's zooms and bounds are only what it states.
    /// - Throws: `MeridianError` (bad input) when the archive is damaged or holds too many tiles.
    public func tileExtent() throws -> TileExtent? {
        if let foundExtent { return foundExtent }
        var total = 0, low: Int?, deepest = -1, columns = (Int.max, Int.min), rows = (Int.max, Int.min)
        try forEachRun(within: tileIDs) { run in
            total += run.count
            try TileInputLimits.checkAddressCount(total, in: path)
            guard let first = Self.tile(id: run.lowerBound), let last = Self.tile(id: run.upperBound - 1) else {
                throw Self.damaged(path, "a tile id past zoom 30")
            }
            if low == nil { low = first.zoom }
            if last.zoom > deepest { (deepest, columns, rows) = (last.zoom, (Int.max, Int.min), (Int.max, Int.min)) }
            // Runs come in id order, level by level: only the deepest level's ids are placed.
            for id in max(run.lowerBound, Self.firstID(zoom: deepest))..<run.upperBound {
                guard let tile = Self.tile(id: id) else { throw Self.damaged(path, "a tile id past zoom 30") }
                columns = (min(columns.0, tile.x), max(columns.1, tile.x))
                rows = (min(rows.0, tile.y), max(rows.1, tile.y))
            }
        }
        let extent = low.map { TileExtent(zooms: $0...deepest, columns: columns.0...columns.1, rows: rows.0...rows.1) }
        foundExtent = .some(extent)
        return extent
    }

    /// Walks the directories from the root, handing `body` each run of tile ids that stored
    /// tiles stand for, cut to the ids `wanted`, in id order. Each leaf directory is read once
    /// (one pointed to twice is damage) and they nest at most ``TileInputLimits/directoryDepth`` deep.
    private func forEachRun(within wanted: Range<UInt64>, _ body: (Range<UInt64>) throws -> Void) throws {
        var visited: Set<UInt64> = []
        func walk(_ directory: [Entry], ids: Range<UInt64>, depth: Int) throws {
            guard depth < TileInputLimits.directoryDepth else { throw Self.damaged(path, "its leaf directories nest too deep") }
            for (i, entry) in directory.enumerated() {
                let covered = Self.covered(directory, i, within: ids)
                guard covered.overlaps(wanted) else { continue }
                if entry.runLength == 0 {
                    guard visited.insert(entry.offset).inserted else { throw Self.damaged(path, "a leaf directory is pointed to twice") }
                    // Not cached: a walk reads each leaf once, and holds only the leaves above it.
                    try walk(try leaf(entry, ids: covered, caching: false), ids: covered, depth: depth + 1)
                    continue
                }
                // Only the part of the run in the ids asked for.
                let run = entry.tileID..<(entry.tileID + UInt64(entry.runLength))
                guard run.overlaps(wanted) else { continue }
                try body(run.clamped(to: wanted))
            }
        }
        try walk(root, ids: tileIDs, depth: 0)
    }

    /// The tile a PMTiles id stands for (the inverse of ``PMTilesWriter/tileID(_:)``); nil past zoom 30.
    static func tile(id: UInt64) -> MapTile? {
        var zoom = 0, first: UInt64 = 0
        while zoom <= 30 {
            let count = UInt64(1) << UInt64(2 * zoom)
            if id < first + count { break }
            first += count
            zoom += 1
        }
        guard zoom <= 30 else { return nil }
        // Walk down the Hilbert curve from the largest quadrant, undoing each rotation.
        let n = UInt64(1) << UInt64(zoom)
        var position = id - first, x: UInt64 = 0, y: UInt64 = 0, s: UInt64 = 1
        while s < n {
            let rx = 1 & (position / 2), ry = 1 & (position ^ rx)
            if ry == 0 {
                if rx == 1 { x = s - 1 - x; y = s - 1 - y }
                swap(&x, &y)
            }
            x += s * rx
            y += s * ry
            position /= 4
            s *= 2
        }
        return MapTile(zoom: zoom, x: Int(x), y: Int(y))
    }
}
