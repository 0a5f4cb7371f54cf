import Foundation
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
    public let tileType: PMTilesWriter.TileType?
    /// How each tile is compressed (gzip for vector tiles, as Meridian writes them).
    public let tileCompression: Compression
    /// The lowest and highest zoom levels the header states.
    public let zooms: ClosedRange<Int>
    /// The header's bounds, in degrees.
    public let bounds: BoundingBox
    /// The metadata, uncompressed: a JSON object (`name`, `vector_layers`, …).
    public let metadataJSON: String
    private let file: FileHandle
    private let internalCompression: Compression
    private let leavesOffset: UInt64, dataOffset: UInt64
    /// How many tiles the header says the directories address (0: not said).
    private let addressedTiles: UInt64
    private let root: [Entry]
    private var leaves: [UInt64: [Entry]] = [:]

    /// Opens the archive and reads its header, root directory and metadata.
    /// - Throws: `MeridianError` (input unavailable) when the file cannot be opened, (bad input)
    ///   when it is not a PMTiles 3 archive or its directories are compressed in a way Meridian
    ///   does not read.
    public init(path: String) throws {
        self.path = path
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw MeridianError(.inputUnavailable, "cannot open the PMTiles archive", at: SourceLocation(file: path))
        }
        self.file = file
        let header = try Self.read(file, at: 0, count: 127, path: path)
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
        let internalCompression = Compression(rawValue: header[97]) ?? .unknown
        self.internalCompression = internalCompression
        tileCompression = Compression(rawValue: header[98]) ?? .unknown
        tileType = PMTilesWriter.TileType(rawValue: header[99])
        zooms = Int(min(header[100], header[101]))...Int(max(header[100], header[101]))
        bounds = BoundingBox(west: degrees(102), south: degrees(106), east: degrees(110), north: degrees(114))
        addressedTiles = u64(72)
        leavesOffset = u64(40)
        dataOffset = u64(56)
        guard internalCompression == .gzip || internalCompression == .none || internalCompression == .unknown else {
            throw MeridianError(.badInput, "the PMTiles archive's directories are compressed with a method Meridian does not read (only gzip)",
                                at: SourceLocation(file: path))
        }
        func section(_ at: Int) throws -> [UInt8] {
            let offset = u64(at), length = u64(at + 8)
            guard length < 1 << 31 else { throw MeridianError(.badInput, "the PMTiles header is damaged", at: SourceLocation(file: path)) }
            let bytes = try Self.read(file, at: offset, count: Int(length), path: path)
            return internalCompression == .gzip ? try Self.inflated(bytes, path: path) : bytes
        }
        root = try Self.entries(section(8), path: path)
        metadataJSON = String(decoding: try section(24), as: UTF8.self)
    }

    deinit { try? file.close() }

    /// `count` bytes at `offset`, fewer only where the file ends.
    private static func read(_ file: FileHandle, at offset: UInt64, count: Int, path: String) throws -> [UInt8] {
        do {
            try file.seek(toOffset: offset)
            return Array(try file.read(upToCount: count) ?? Data())
        } catch {
            throw MeridianError(.io, "cannot read the PMTiles archive", at: SourceLocation(file: path))
        }
    }

    private static func inflated(_ bytes: [UInt8], path: String) throws -> [UInt8] {
        do {
            return try Gzip.decompress(bytes)
        } catch {
            throw MeridianError(.badInput, "the PMTiles archive is damaged (a directory or its metadata does not inflate)",
                                at: SourceLocation(file: path))
        }
    }

    /// A directory's entries from its (uncompressed) bytes: the count, then columns of
    /// delta-coded ids, run lengths, lengths and offsets (0: right after the previous entry).
    static func entries(_ bytes: [UInt8], path: String) throws -> [Entry] {
        let damaged = MeridianError(.badInput, "the PMTiles archive is damaged (a directory cannot be read)", at: SourceLocation(file: path))
        var reader = ProtobufReader(bytes[...])
        do {
            let count = try reader.varint()
            // Each entry takes at least four bytes: more entries than that is damage.
            guard count <= UInt64(bytes.count) else { throw damaged }
            var entries = [Entry](repeating: Entry(tileID: 0, offset: 0, length: 0, runLength: 0), count: Int(count))
            var id: UInt64 = 0
            for i in entries.indices {
                id &+= try reader.varint()
                entries[i].tileID = id
            }
            for i in entries.indices { entries[i].runLength = UInt32(truncatingIfNeeded: try reader.varint()) }
            for i in entries.indices {
                let length = try reader.varint()
                guard length < 1 << 31 else { throw damaged }
                entries[i].length = Int(length)
            }
            for i in entries.indices {
                let offset = try reader.varint()
                if offset == 0 {
                    guard i > 0 else { throw damaged }
                    entries[i].offset = entries[i - 1].offset + UInt64(entries[i - 1].length)
                } else {
                    entries[i].offset = offset - 1
                }
            }
            return entries
        } catch {
            throw damaged
        }
    }

    /// The leaf directory at `entry` (offset and length within the leaf directories' section).
    private func leaf(_ entry: Entry) throws -> [Entry] {
        if let cached = leaves[entry.offset] { return cached }
        var bytes = try Self.read(file, at: leavesOffset + entry.offset, count: entry.length, path: path)
        if internalCompression == .gzip { bytes = try Self.inflated(bytes, path: path) }
        let entries = try Self.entries(bytes, path: path)
        leaves[entry.offset] = entries
        return entries
    }

    /// One tile's bytes as the archive stores them (gzipped when ``tileCompression`` says so),
    /// or nil when the archive does not have it.
    public func tile(_ tile: MapTile) throws -> [UInt8]? {
        let id = PMTilesWriter.tileID(tile)
        var directory = root
        // Root, then at most a few levels of leaves (the specification allows any depth; a
        // loop in a damaged file ends here).
        for _ in 0..<8 {
            // The last entry whose id is at most `id`.
            var low = 0, high = directory.count
            while low < high {
                let middle = (low + high) / 2
                if directory[middle].tileID <= id { low = middle + 1 } else { high = middle }
            }
            guard low > 0 else { return nil }
            let entry = directory[low - 1]
            if entry.runLength == 0 {
                directory = try leaf(entry)
                continue
            }
            guard id < entry.tileID + UInt64(entry.runLength) else { return nil }
            return try Self.read(file, at: dataOffset + entry.offset, count: entry.length, path: path)
        }
        throw MeridianError(.badInput, "the PMTiles archive is damaged (its leaf directories nest too deep)", at: SourceLocation(file: path))
    }

    /// Every tile address the archive holds, in tile id order (runs expanded), optionally of the
    /// zoom levels `zooms` only.
    public func tileAddresses(zooms: ClosedRange<Int>? = nil) throws -> [MapTile] {
        var tiles: [MapTile] = [], addressed: UInt64 = 0
        func walk(_ directory: [Entry], depth: Int) throws {
            guard depth < 8 else {
                throw MeridianError(.badInput, "the PMTiles archive is damaged (its leaf directories nest too deep)", at: SourceLocation(file: path))
            }
            for entry in directory {
                if entry.runLength == 0 {
                    try walk(try leaf(entry), depth: depth + 1)
                    continue
                }
                // A damaged run could claim billions of tiles: no more than the header counts.
                let (end, overflow) = entry.tileID.addingReportingOverflow(UInt64(entry.runLength))
                addressed += UInt64(entry.runLength)
                guard !overflow, addressed <= (addressedTiles > 0 ? addressedTiles : 1 << 26) else {
                    throw MeridianError(.badInput, "the PMTiles archive is damaged (its directories address more tiles than its header counts)",
                                        at: SourceLocation(file: path))
                }
                for id in entry.tileID..<end {
                    guard let tile = Self.tile(id: id) else {
                        throw MeridianError(.badInput, "the PMTiles archive is damaged (a tile id past zoom 30)", at: SourceLocation(file: path))
                    }
                    if zooms?.contains(tile.zoom) ?? true { tiles.append(tile) }
                }
            }
        }
        try walk(root, depth: 0)
        return tiles
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
