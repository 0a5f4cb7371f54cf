import CGDAL
import Foundation
import GDALSupport
import MeridianCore
import MeridianFormats
import MeridianTiles

/// The rasters a tiling run reads, from what a user names: files, folders of rasters (a chart
/// catalog as NOAA ships it, one folder per chart), and list files.
public enum TileInputs {
    /// A file inside a folder that was passed over: not a raster GDAL can tile.
    public struct Skipped: Sendable {
        /// The file's path.
        public var path: String
        /// Why it was passed over: the error opening it gave.
        public var reason: any MeridianFailure
    }

    /// The rasters opened, in the order given (a folder's files sorted by path), and the files of
    /// folders that were passed over.
    public struct Found: Sendable {
        /// Each raster once, in order.
        public var sources: [RasterSource]
        /// Files in folders that look like rasters but cannot be tiled (no georeferencing, say).
        public var skipped: [Skipped]
    }

    /// The paths a list file names, one a line, relative paths taken from the list's folder;
    /// blank lines and lines starting with `#` are skipped.
    /// - Throws: `MeridianError` (input unavailable) when the list cannot be read, or (bad input)
    ///   when it names no file or a line names a GDAL virtual file system (`/vsicurl/`, …: a
    ///   list names files), with the list's path and the line.
    public static func listed(in list: String) throws -> [String] {
        guard let data = FileManager.default.contents(atPath: list), let text = String(data: data, encoding: .utf8) else {
            throw MeridianError(.inputUnavailable, "cannot read the list of inputs", at: SourceLocation(file: list))
        }
        let folder = (list as NSString).deletingLastPathComponent
        var paths: [String] = []
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let entry = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !entry.isEmpty, !entry.hasPrefix("#") else { continue }
            guard !GDAL.namesVirtualFileSystem(entry) else {
                throw MeridianError(.badInput, "the list names a GDAL virtual file system path (\(entry)); it lists files", at: SourceLocation(file: list, line: index + 1))
            }
            paths.append(entry.hasPrefix("/") || folder.isEmpty ? entry : folder + "/" + entry)
        }
        guard !paths.isEmpty else {
            throw MeridianError(.badInput, "the list of inputs names no file", at: SourceLocation(file: list))
        }
        return paths
    }

    /// Opens every input with `options`: a file must be a raster (or GroundOverlay) that can be
    /// tiled, a folder gives every such raster in it and its subfolders (files GDAL does not
    /// know as rasters are passed over silently, those it knows but cannot tile are `skipped`).
    /// A file named twice is opened once.
    /// - Throws: the file's error for a named file that cannot be tiled; `MeridianError` (bad
    ///   input) when the inputs give no raster at all.
    public static func open(_ inputs: [String], options: RasterSourceOptions) throws -> Found {
        GDAL.setUp()
        var found = Found(sources: [], skipped: [])
        var seen: Set<String> = []
        func add(_ source: RasterSource) {
            if seen.insert(TilingRunIdentity.resolved(source.path)).inserted { found.sources.append(source) }
        }
        for input in inputs {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: input, isDirectory: &isFolder), isFolder.boolValue {
                let (paths, passedOver) = rasterFiles(in: input)
                found.skipped += passedOver
                for path in paths {
                    do {
                        add(try RasterSource(path: path, options: options))
                    } catch let failure as any MeridianFailure {
                        found.skipped.append(Skipped(path: path, reason: failure))
                    }
                }
            } else {
                add(try RasterSource(path: input, options: options))
            }
        }
        guard !found.sources.isEmpty else {
            throw MeridianError(.badInput, "no raster to tile in \(inputs.joined(separator: ", "))", at: SourceLocation(file: inputs.first ?? ""),
                                hint: "a folder's rasters are the files GDAL opens as rasters (GeoTIFF, BSB/KAP, …) and KML or KMZ GroundOverlays")
        }
        return found
    }

    /// The files under `folder` that GDAL identifies as rasters, and KML and KMZ files (which may
    /// hold GroundOverlays), sorted by path; hidden files and folders are left out, and so are
    /// tile pyramids (see ``isTilePyramid(_:)``). Symbolic links and what is not a regular file
    /// (a FIFO held GDAL's look at it for ever) are `skipped`, never read.
    static func rasterFiles(in folder: String) -> (files: [String], skipped: [Skipped]) {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return ([], []) }
        var files: [String] = [], skipped: [Skipped] = []
        while let relative = walker.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix(".") {
                walker.skipDescendants()
                continue
            }
            let path = (folder as NSString).appendingPathComponent(relative)
            // A pyramid an earlier run wrote into the catalog's folder (its tiles, its KML
            // super-overlay, an MBTiles file GDAL opens as a raster) would otherwise come back
            // as charts of the next run, quilted over the charts they were made from.
            if isTilePyramid(path) {
                walker.skipDescendants()
                continue
            }
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else { continue }
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                let link = (info.st_mode & S_IFMT) == S_IFLNK
                skipped.append(Skipped(path: path, reason: MeridianError(
                    .badInput, link ? "a symbolic link, which Meridian does not follow inside a folder of inputs" : "not a regular file",
                    at: SourceLocation(file: path), hint: link ? "name the file it points to as an input of its own" : nil)))
                continue
            }
            let suffix = (name as NSString).pathExtension.lowercased()
            // Overviews, masks and control points beside a raster: GDAL identifies them as
            // rasters of their own (a QGIS .points file is text GDAL's XYZ driver claims).
            if ["ovr", "msk", "points"].contains(suffix) || name.lowercased().hasSuffix(".aux.xml") { continue }
            if suffix == "kml" || suffix == "kmz" || GDALIdentifyDriverEx(path, UInt32(GDAL_OF_RASTER), nil, nil) != nil {
                files.append(path)
            }
        }
        return (files.sorted(), skipped.sorted { $0.path < $1.path })
    }

    /// Whether `path`, met inside a folder of inputs, is a tile pyramid rather than charts: an
    /// MBTiles or PMTiles file, or a folder holding a pyramid's `metadata.json`, a TMS
    /// `tilemapresource.xml` (gdal2tiles' too) or an interrupted run's state.
    static func isTilePyramid(_ path: String) -> Bool {
        if TilePyramids.isPyramid(path) { return true }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else { return false }
        return ["tilemapresource.xml", FolderTileSink.stateFile].contains { FileManager.default.fileExists(atPath: path + "/" + $0) }
    }
}
