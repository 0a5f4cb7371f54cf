import Foundation
import MeridianFormats
import MeridianGeometry

/// A PMTiles version 3 archive being written: the single-file tile pyramid web maps read
/// straight from object storage with HTTP range requests.
///
/// Tiles may come in any order; they are spilled to a scratch file and, at `finish`, laid out
/// by Hilbert tile id (clustered), identical tiles stored once (an ocean's thousand empty-blue
/// tiles are one blob) and consecutive ids with the same content written as one run-length
/// entry. Directories are gzipped; when the header and root directory would pass 16 KiB (the
/// size clients fetch first), the entries go into leaf directories that the root points to.
/// The archive is written to a temporary file and renamed into place.
public final class PMTilesWriter {
    /// The archive's path.
    public let path: String
    private let format: TileFormat
    private let tilesGzipped: Bool
    private let spill: ScratchFile
    private var spilled = 0
    private var entries: [(id: UInt64, offset: Int, length: Int, hash: UInt64)] = []
    /// The most the header and root directory may take (the specification's 16 KiB; smaller in tests).
    let rootLimit: Int
    /// The archive's path, this run's until it is finished.
    private let claim: OutputClaim

    /// A new archive at `path` of `format` tiles, gzipped (`tilesGzipped`) or as they are;
    /// `replacing` lets it replace a regular file at `path` (else one there is refused: `OutputClaim`).
    public convenience init(path: String, format: TileFormat, tilesGzipped: Bool, replacing: Bool = false) throws {
        try self.init(path: path, format: format, tilesGzipped: tilesGzipped, rootLimit: 16_384, replacing: replacing)
    }

    init(path: String, format: TileFormat, tilesGzipped: Bool, rootLimit: Int, replacing: Bool = false) throws {
        self.rootLimit = rootLimit
        self.path = path
        self.format = format
        self.tilesGzipped = tilesGzipped
        claim = try OutputClaim(path, container: .file, replacing: replacing)
        spill = try ScratchFile(unlinked: "pmtiles")
    }

    /// The tile's PMTiles id: the tiles of every lower zoom level, then its place on its level's Hilbert curve.
    public static func tileID(_ tile: MapTile) -> UInt64 {
        var id = ((UInt64(1) << UInt64(2 * tile.zoom)) - 1) / 3
        let n = UInt64(1) << UInt64(tile.zoom)
        var x = UInt64(tile.x), y = UInt64(tile.y), s = n / 2
        while s > 0 {
            let rx: UInt64 = x & s > 0 ? 1 : 0, ry: UInt64 = y & s > 0 ? 1 : 0
            id += s * s * ((3 * rx) ^ ry)
            // Rotate the quadrant so the curve continues.
            if ry == 0 {
                if rx == 1 { x = n - 1 - x; y = n - 1 - y }
                swap(&x, &y)
            }
            s /= 2
        }
        return id
    }

    /// Stores one tile (its bytes as the archive holds them: gzipped already if `tilesGzipped`).
    public func write(_ tile: MapTile, _ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { spill.sink.write($0) }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        entries.append((Self.tileID(tile), spilled, bytes.count, hash))
        spilled += bytes.count
    }

    /// Lays out and writes the archive: header, root directory, `metadataJSON` (gzipped), leaf
    /// directories, tile data; then renames it into place.
    /// - Throws: `MeridianError` (bad input) when `zooms` or `bounds` are not what a tile set
    ///   can state (the header holds zooms 0-30 and degrees).
    public func finish(metadataJSON: String, bounds: BoundingBox, zooms: ClosedRange<Int>) throws {
        _ = try TileSetMetadata.statedZooms(minimum: Double(zooms.lowerBound), maximum: Double(zooms.upperBound), in: path)
        _ = try TileSetMetadata.statedBounds([bounds.west, bounds.south, bounds.east, bounds.north], in: path)
        try spill.sink.flush()
        entries.sort { $0.id < $1.id }
        let firstWithSameBytes = try firstEntriesWithSameBytes()
        // The data section in id order, each distinct content once.
        let data = try ScratchFile(unlinked: "pmtiles-data")
        var directory: [(id: UInt64, offset: Int, length: Int, run: Int)] = []
        var dataLength = 0, contents = 0
        for index in entries.indices {
            // Laying out a large pyramid reads every tile back: a signal stops it here too (a
            // stop request was ignored until the archive was written).
            try TemporaryFiles.checkForStop()
            let entry = entries[index], offset: Int
            if firstWithSameBytes[index] == index {
                let bytes = try spill.read(at: entry.offset, count: entry.length)
                bytes.withUnsafeBytes { data.sink.write($0) }
                offset = dataLength
                dataLength += entry.length
                contents += 1
            } else {
                // The first with these bytes came before, and now holds where they lie in the data.
                offset = entries[firstWithSameBytes[index]].offset
            }
            entries[index].offset = offset
            if let last = directory.last, last.offset == offset, last.length == entry.length, last.id + UInt64(last.run) == entry.id {
                directory[directory.count - 1].run += 1
            } else {
                directory.append((entry.id, offset, entry.length, 1))
            }
        }
        try data.sink.flush()

        let metadata = try Gzip.compress(Array(metadataJSON.utf8))
        // The root directory alone if it fits in the first 16 KiB with the header; else leaves
        // of growing size until the root of pointers to them does.
        var root = try Self.serialize(directory)
        var leaves: [UInt8] = []
        var leafSize = max(16, min(4096, directory.count / 64))
        while 127 + root.count > rootLimit {
            leaves = []
            var pointers: [(id: UInt64, offset: Int, length: Int, run: Int)] = []
            for start in stride(from: 0, to: directory.count, by: leafSize) {
                let leaf = try Self.serialize(Array(directory[start..<min(directory.count, start + leafSize)]))
                pointers.append((directory[start].id, leaves.count, leaf.count, 0))
                leaves += leaf
            }
            root = try Self.serialize(pointers)
            leafSize *= 2
        }

        var header = Array("PMTiles".utf8) + [3]
        func u64(_ v: Int) { withUnsafeBytes(of: UInt64(v).littleEndian) { header += $0 } }
        func i32(_ v: Double) { withUnsafeBytes(of: Int32((v * 10_000_000).rounded()).littleEndian) { header += $0 } }
        let rootOffset = 127, metadataOffset = rootOffset + root.count, leavesOffset = metadataOffset + metadata.count
        let dataOffset = leavesOffset + leaves.count
        u64(rootOffset); u64(root.count); u64(metadataOffset); u64(metadata.count); u64(leavesOffset); u64(leaves.count)
        u64(dataOffset); u64(dataLength)
        u64(entries.count); u64(directory.count); u64(contents)
        header += [1, 2, tilesGzipped ? 2 : 1, format.pmtilesTileType, UInt8(zooms.lowerBound), UInt8(zooms.upperBound)]
        i32(bounds.west); i32(bounds.south); i32(bounds.east); i32(bounds.north)
        header.append(UInt8(zooms.lowerBound))
        i32((bounds.west + bounds.east) / 2); i32((bounds.south + bounds.north) / 2)
        precondition(header.count == 127)

        try TemporaryFiles.checkForStop()
        try claim.refuseIfTaken()
        let target = try OutputTarget.open(claimed: path)
        try target.commit(durable: false) {
            for part in [header, root, metadata, leaves] { part.withUnsafeBytes { target.sink.write($0) } }
            try data.copy(to: target.sink)
        }
        claim.release()
    }

    /// Per entry (sorted by id), the index of the first entry with the same bytes: its own
    /// when none before it has them. Found by sorting the entries' indices by hash and length and
    /// comparing bytes only within a run of equal ones, in 16 bytes an entry: a dictionary of
    /// every distinct content took about 100 (180 MB for the 1.8 million tiles of a million points).
    private func firstEntriesWithSameBytes() throws -> [Int] {
        var first = Array(entries.indices)
        var order = Array(entries.indices)
        order.sort { (entries[$0].hash, entries[$0].length, $0) < (entries[$1].hash, entries[$1].length, $1) }
        var start = 0
        while start < order.count {
            let hash = entries[order[start]].hash, length = entries[order[start]].length
            var end = start + 1
            while end < order.count && entries[order[end]].hash == hash && entries[order[end]].length == length { end += 1 }
            if end - start > 1 {
                // In index order: the first of each content stands for the rest.
                var distinct: [(index: Int, bytes: [UInt8])] = []
                for index in order[start..<end] {
                    try TemporaryFiles.checkForStop()
                    let bytes = try spill.read(at: entries[index].offset, count: length)
                    if let same = distinct.first(where: { $0.bytes == bytes }) { first[index] = same.index } else { distinct.append((index, bytes)) }
                }
            }
            start = end
        }
        return first
    }

    /// A directory as the specification serializes it: the entry count, then columns of
    /// delta-coded ids, run lengths, lengths and offsets (0 for "right after the previous"),
    /// all varints, gzipped.
    static func serialize(_ entries: [(id: UInt64, offset: Int, length: Int, run: Int)]) throws -> [UInt8] {
        var out = ProtobufWriter()
        out.varint(UInt64(entries.count))
        var previous: UInt64 = 0
        for entry in entries {
            out.varint(entry.id - previous)
            previous = entry.id
        }
        for entry in entries { out.varint(UInt64(entry.run)) }
        for entry in entries { out.varint(UInt64(entry.length)) }
        for (i, entry) in entries.enumerated() {
            let follows = i > 0 && entry.offset == entries[i - 1].offset + entries[i - 1].length
            out.varint(follows ? 0 : UInt64(entry.offset) + 1)
        }
        return try Gzip.compress(out.bytes)
    }
}
