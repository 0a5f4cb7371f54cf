import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry

/// A tile pyramid being written into any of its containers, chosen by the path: an MBTiles
/// file (`.mbtiles`), a PMTiles archive (`.pmtiles`) or else a folder of `z/x/y.ext` tiles
/// (XYZ rows) with a TileJSON `metadata.json`. Vector tiles are given uncompressed and stored
/// gzipped in MBTiles and PMTiles (as their specifications store them) and as they are in a
/// folder (so a static web server or a `file://` page serves them).
///
/// Output is written out of sight and renamed into place by ``finish(_:)``: the folder's tiles
/// go into a hidden staging folder beside it (so the folder must be new or empty), the MBTiles
/// file and the PMTiles archive are built beside their place. A pyramid not finished (a failed
/// run, or one a signal stopped: MeridianFormats' `TemporaryFiles.stoppingInOrder(_:)`) is removed, staging
/// folder, partial file and journal: such a run cannot be resumed.
/// Whatever the container, the path is claimed first (MeridianFormats' `OutputClaim`): an existing output is
/// refused, never replaced, and one run at a time writes it.
public final class TilePyramidWriter {
    /// The folder or file.
    public let path: String
    /// What the tiles are.
    public let format: TileFormat
    private let mbtiles: MBTilesWriter?
    private let pmtiles: PMTilesWriter?
    /// Writes a folder's tiles into ``staging``.
    private let files: TileFolderWriter?
    /// Where a folder's tiles are written until ``finish(_:)`` renames it to ``path``.
    private let staging: String?
    private var finished = false
    private var uncommittedBytes = 0
    /// A folder's path, this run's until it is finished (the file writers claim their own).
    private let claim: OutputClaim?

    /// Whether `path` names an MBTiles file.
    public static func isMBTiles(_ path: String) -> Bool { path.lowercased().hasSuffix(".mbtiles") }
    /// Whether `path` names a PMTiles archive.
    public static func isPMTiles(_ path: String) -> Bool { path.lowercased().hasSuffix(".pmtiles") }

    /// Opens `path` for a new pyramid of `format` tiles.
    /// - Throws: `MeridianError` (cannot create output) when the output exists (an empty folder
    ///   counts as new) or cannot be made, (usage) when it is an input of the run.
    public init(path: String, format: TileFormat) throws {
        self.path = path
        self.format = format
        if Self.isPMTiles(path) {
            (mbtiles, pmtiles, staging, claim, files) = (nil, try PMTilesWriter(path: path, format: format, tilesGzipped: format == .mvt), nil, nil, nil)
            return
        }
        pmtiles = nil
        if Self.isMBTiles(path) {
            let mbtiles = try MBTilesWriter(path: path, resume: false, run: [("kind", format.displayName)]) { _ in }
            (self.mbtiles, staging, claim, files) = (mbtiles, nil, nil, nil)
            // A signal that ends the process at once removes the partial file at least.
            for file in mbtiles.leftovers { TemporaryFiles.removeOnSignal(file) }
            return
        }
        mbtiles = nil
        claim = try OutputClaim(path, container: .folder)
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let staging = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).meridian-\(getpid())").path
        try? FileManager.default.removeItem(atPath: staging)  // a run of this process id that was killed
        do {
            try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        } catch {
            throw MeridianError(.cannotCreateOutput, "cannot create the output folder", at: SourceLocation(file: path))
        }
        self.staging = staging
        files = TileFolderWriter(root: staging, inPlace: true)
    }

    /// An unfinished folder goes with its writer: nothing of it was ever at `path`.
    deinit {
        if let staging, !finished { try? FileManager.default.removeItem(atPath: staging) }
        if let mbtiles {
            if !finished { mbtiles.discard() }
            for file in mbtiles.leftovers { TemporaryFiles.forget(file) }
        }
    }

    /// Stores one tile: its bytes uncompressed (gzipped here for MBTiles and PMTiles when they
    /// are vector tiles).
    public func write(_ tile: MapTile, _ bytes: [UInt8]) throws {
        try TemporaryFiles.checkForStop()
        let stored = format == .mvt && (mbtiles != nil || pmtiles != nil) ? try Gzip.compress(bytes) : bytes
        if let mbtiles {
            try mbtiles.write(tile, data: stored)
            // The MBTiles writer keeps uncommitted tiles in memory (a block's worth, for resumable
            // raster runs): commit every few megabytes, as this pyramid has no blocks.
            uncommittedBytes += stored.count
            if uncommittedBytes >= 8 << 20 {
                try mbtiles.commit()
                uncommittedBytes = 0
            }
        } else if let pmtiles {
            try pmtiles.write(tile, stored)
        } else {
            try files!.write(stored, to: "\(staging!)/\(tile.zoom)/\(tile.x)/\(tile.y).\(format.fileExtension)")
        }
    }

    /// Writes the metadata (TileJSON 3.0.0 in a folder, the metadata table with its `json` row
    /// in MBTiles, the metadata JSON in PMTiles) and finishes the pyramid.
    public func finish(_ metadata: TileSetMetadata) throws {
        try TemporaryFiles.checkForStop()
        let b = metadata.bounds, zooms = metadata.zooms
        let layers = format == .mvt ? metadata.vectorLayersJSON ?? "[]" : nil
        let statsJSON = format == .mvt ? metadata.tileStatsJSON : nil
        let stats = statsJSON.map { ",\"tilestats\":\($0)" } ?? ""
        if let mbtiles {
            try mbtiles.finish(metadata: MBTilesMetadata(
                name: metadata.name, description: metadata.description, format: format.fileExtension, bounds: b,
                center: ((b.west + b.east) / 2, (b.south + b.north) / 2, zooms.lowerBound),
                minZoom: zooms.lowerBound, maxZoom: zooms.upperBound, json: layers.map { "{\"vector_layers\":\($0)\(stats)}" }))
        } else if let pmtiles {
            let json = "{\"name\":\(JSONValue.string(metadata.name).jsonText),\"description\":\(JSONValue.string(metadata.description).jsonText),"
                + "\"type\":\"overlay\",\"format\":\"\(format.fileExtension)\"" + (layers.map { ",\"vector_layers\":\($0)" } ?? "") + stats + "}"
            try pmtiles.finish(metadataJSON: json, bounds: b, zooms: zooms)
        } else if let staging, let files {
            try files.write(Array(Self.tileJSON(metadata, vectorLayersJSON: layers, tileStatsJSON: statsJSON).utf8), to: staging + "/metadata.json")
            // rename(2) replaces an empty folder, and refuses anything else (a folder that has
            // filled meanwhile, a file): nothing that was there is removed.
            guard rename(staging, path) == 0 else {
                throw MeridianError(.cannotCreateOutput, "cannot move the finished tiles into place: \(String(cString: strerror(errno)))",
                                    at: SourceLocation(file: path), hint: "Meridian never replaces an existing output: remove it or choose another path")
            }
        }
        finished = true
        claim?.release()
    }

    /// TileJSON 3.0.0 for a folder of `z/x/y.ext` tiles; for vector tiles also the MBTiles-style
    /// `json` member that tippecanoe writes and GDAL's MVT driver reads for the layers' fields.
    /// `tilestats` (`tileStatsJSON`) goes beside `vector_layers`, in both places.
    package static func tileJSON(_ m: TileSetMetadata, vectorLayersJSON layers: String?, tileStatsJSON: String? = nil) -> String {
        let b = m.bounds, ext = m.format.fileExtension
        let vector = layers.map {
            """

              "vector_layers": \($0),\(tileStatsJSON.map { "\n  \"tilestats\": \($0)," } ?? "")
              "json": \(JSONValue.string("{\"vector_layers\":\($0)\(tileStatsJSON.map { ",\"tilestats\":\($0)" } ?? "")}").jsonText),
            """
        } ?? ""
        return """
            {
              "tilejson": "3.0.0",
              "name": \(JSONValue.string(m.name).jsonText),
              "description": \(JSONValue.string(m.description).jsonText),
              "scheme": "xyz",
              "tiles": ["{z}/{x}/{y}.\(ext)"],
              "format": "\(ext)",
              "minzoom": \(m.zooms.lowerBound),
              "maxzoom": \(m.zooms.upperBound),\(vector)
              "bounds": [\(b.west), \(b.south), \(b.east), \(b.north)],
              "center": [\((b.west + b.east) / 2), \((b.south + b.north) / 2), \(m.zooms.lowerBound)]
            }

            """
    }
}

extension TilePyramidWriter {
    /// Copies the pyramid `source` into a new one at `path` (any container into any other),
    /// tile for tile with its metadata; vector tiles are gunzipped on the way and stored as the
    /// new container stores them.
    /// - Parameters:
    ///   - source: The pyramid to copy, open for reading.
    ///   - path: Where the copy goes: a new or empty folder, an `.mbtiles` file or a `.pmtiles` archive.
    ///   - zooms: Only these zoom levels (the metadata then states the levels copied).
    /// - Returns: The number of tiles written (an address the source lists without a tile is not).
    /// - Throws: `MeridianError` (bad input) when `source` holds no tiles at `zooms`, (usage)
    ///   when `path` is the source itself, and the reader's and writer's errors.
    @discardableResult
    public static func copy(_ source: any TilePyramidReader, to path: String, zooms: ClosedRange<Int>? = nil) throws -> Int {
        try RunInputs.refuseInput(at: path, alsoInputs: [source.path])
        var metadata = try source.pyramidMetadata()
        let tiles = try source.tileAddresses(zooms: zooms)
        guard let lowest = tiles.map(\.zoom).min(), let highest = tiles.map(\.zoom).max() else {
            let which = zooms.map { " at zoom \($0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)")" } ?? ""
            throw MeridianError(.badInput, "the tile pyramid holds no tiles\(which)", at: SourceLocation(file: source.path))
        }
        if zooms != nil { metadata.zooms = lowest...highest }
        let writer = try TilePyramidWriter(path: path, format: metadata.format)
        var written = 0
        for tile in tiles {
            // An address without bytes holds no tile (a PMTiles archive cannot even store one).
            guard let bytes = try source.uncompressedTile(tile), !bytes.isEmpty else { continue }
            try writer.write(tile, bytes)
            written += 1
        }
        try writer.finish(metadata)
        return written
    }
}
