import Foundation
import MeridianGeometry
import Testing
@testable import MeridianRaster
@testable import MeridianTiles
import MeridianTestSupport

/// `KMLSuperOverlay`: the tree of KML files over a folder of tiles, walked as Google Earth
/// walks it, from doc.kml through every link.
@Suite struct KMLSuperOverlayTests {
    /// The `<href>`s of a KML file.
    static func hrefs(_ text: String) -> [String] {
        text.components(separatedBy: "<href>").dropFirst().compactMap { $0.components(separatedBy: "</href>").first }
    }

    /// The number in `<name>…</name>` of the first such element after `marker` in `text`.
    static func degrees(_ name: String, after marker: String, in text: String) -> Double? {
        guard let start = text.range(of: marker) else { return nil }
        let rest = text[start.upperBound...]
        guard let open = rest.range(of: "<\(name)>"), let close = rest.range(of: "</\(name)>") else { return nil }
        return Double(rest[open.upperBound..<close.lowerBound])
    }

    /// Whether xmllint finds `path` well-formed XML (true when xmllint is not installed: the walk still checks the tree).
    static func wellFormed(_ path: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["xmllint", "--noout", "--nonet", path]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return true }
        process.waitUntilExit()
        return process.terminationStatus != 127 ? process.terminationStatus == 0 : true
    }

    /// For XYZ and TMS rows: every link from doc.kml down resolves to a file inside the folder,
    /// every tile is reached exactly once, each KML's boxes are its tile's (rows flipped for
    /// TMS), a tile without children never gives way (maxLodPixels -1), and the counts returned
    /// are the files written.
    @Test(arguments: [TileScheme.xyz, .tms])
    func everyLinkResolvesAndEveryTileIsReachedOnce(scheme: TileScheme) throws {
        try withTemporaryFolderPath { folder in
            let output = folder + "/tiles"
            let source = try RasterSource(path: fixture("raster/white-margin.tif"), options: RasterSourceOptions())
            let tiler = try Tiler(source: source, options: TilingOptions(zooms: 0...3, jobs: 1))
            let sink = try FolderTileSink(path: output, scheme: scheme, format: .png, resume: false, identity: tiler.identity())
            let summary = try tiler.run(into: sink)
            let written = try KMLSuperOverlay.write(folder: output, metadata: summary.metadata, scheme: scheme)
            let tiles = tileSet(output)
            #expect(tiles.count == 7)
            #expect(written == KMLSuperOverlay.Written(tileFiles: tiles.count, roots: 1))

            var reached: [String: Int] = [:]
            var queue = [output + "/doc.kml"]
            let root = URL(fileURLWithPath: output).standardizedFileURL.path
            while let file = queue.popLast() {
                #expect(Self.wellFormed(file), "\(file)")
                let text = try String(contentsOfFile: file, encoding: .utf8)
                let base = (file as NSString).deletingLastPathComponent
                for href in Self.hrefs(text) {
                    let target = URL(fileURLWithPath: base + "/" + href).standardizedFileURL.path
                    #expect(target.hasPrefix(root + "/"), "\(file): \(href) leaves the output")
                    #expect(FileManager.default.fileExists(atPath: target), "\(file): \(href) is not there")
                    if target.hasSuffix(".kml") { queue.append(target) }
                }
                guard file != output + "/doc.kml" else { continue }
                let name = String(file.dropFirst(output.count + 1).dropLast(4))   // z/x/y
                reached[name, default: 0] += 1
                let parts = name.split(separator: "/").map { Int($0)! }
                let tile = MapTile(zoom: parts[0], x: parts[1], y: scheme == .tms ? (1 << parts[0]) - 1 - parts[2] : parts[2])
                let box = tile.boundingBox
                #expect(abs((Self.degrees("north", after: "<LatLonBox>", in: text) ?? .nan) - box.north) < 1e-9, "\(name)")
                #expect(abs((Self.degrees("south", after: "<LatLonAltBox>", in: text) ?? .nan) - box.south) < 1e-9, "\(name)")
                #expect(abs((Self.degrees("west", after: "<LatLonBox>", in: text) ?? .nan) - box.west) < 1e-9, "\(name)")
                #expect(Self.hrefs(text).first == "\(parts[2]).png", "\(name)")
                let hasChildren = Self.hrefs(text).count > 1
                #expect(text.contains("<maxLodPixels>\(hasChildren ? 2048 : -1)</maxLodPixels>\n      </Lod>\n    </Region>\n    <GroundOverlay>"), "\(name)")
            }
            #expect(Set(reached.keys) == tiles)
            #expect(reached.values.allSatisfy { $0 == 1 })
        }
    }

    /// A tile whose parent the folder does not hold (transparent there) is linked from doc.kml,
    /// so nothing is left out of the tree; names that are not tiles and links are not tiles.
    @Test func orphanTilesAreLinkedFromTheRoot() throws {
        try withTemporaryFolderPath { folder in
            let manager = FileManager.default
            for tile in ["1/0/0", "2/0/0", "2/3/3"] {
                try manager.createDirectory(atPath: folder + "/" + (tile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data([0x89]).write(to: URL(fileURLWithPath: folder + "/\(tile).png"))
            }
            try Data().write(to: URL(fileURLWithPath: folder + "/2/0/notes.png"))
            try manager.createSymbolicLink(atPath: folder + "/2/0/1.png", withDestinationPath: folder + "/1/0/0.png")
            let metadata = TileSetMetadata(name: "t", format: .png, bounds: BoundingBox(west: -180, south: -85, east: 180, north: 85),
                                           minZoom: 1, maxZoom: 2, tileSize: 256, description: "d")
            let written = try KMLSuperOverlay.write(folder: folder, metadata: metadata, scheme: .xyz)
            #expect(written == KMLSuperOverlay.Written(tileFiles: 3, roots: 2))
            let doc = try String(contentsOfFile: folder + "/doc.kml", encoding: .utf8)
            #expect(Self.hrefs(doc) == ["1/0/0.kml", "2/3/3.kml"])
            #expect(Self.hrefs(try String(contentsOfFile: folder + "/1/0/0.kml", encoding: .utf8)) == ["0.png", "../../2/0/0.kml"])
            #expect(!manager.fileExists(atPath: folder + "/2/0/1.kml"))
        }
    }

    /// The tile KML files of an earlier tile set in the folder (zoom 0-3, now 0-2: its zoom-3
    /// tiles are gone) are removed, so that every KML file belongs to the tiles there; files
    /// the overlay did not write (another KML at a tile's place, a name that is no tile's, a
    /// symbolic link) are left as they are. (They stayed, linked from nothing.)
    @Test func tileKMLFilesOfTilesNoLongerThereAreRemoved() throws {
        try withTemporaryFolderPath { folder in
            let output = folder + "/tiles", manager = FileManager.default
            let source = try RasterSource(path: fixture("raster/white-margin.tif"), options: RasterSourceOptions())
            let tiler = try Tiler(source: source, options: TilingOptions(zooms: 0...3, jobs: 1))
            let sink = try FolderTileSink(path: output, scheme: .xyz, format: .png, resume: false, identity: tiler.identity())
            let summary = try tiler.run(into: sink)
            try KMLSuperOverlay.write(folder: output, metadata: summary.metadata, scheme: .xyz)
            let deepest = try manager.contentsOfDirectory(atPath: output + "/3").flatMap { column in
                try manager.contentsOfDirectory(atPath: "\(output)/3/\(column)").filter { $0.hasSuffix(".png") }.map { "3/\(column)/\($0.dropLast(4))" }
            }
            #expect(!deepest.isEmpty)
            for tile in deepest { try manager.removeItem(atPath: "\(output)/\(tile).png") }
            // Not the overlay's: a KML of the user's at a tile's place, a name no tile has, a link.
            let column = output + "/" + deepest[0].split(separator: "/").dropLast().joined(separator: "/")
            try Data("<kml/>".utf8).write(to: URL(fileURLWithPath: column + "/7.kml"))
            try Data("<kml/>".utf8).write(to: URL(fileURLWithPath: column + "/notes.kml"))
            try manager.createSymbolicLink(atPath: column + "/6.kml", withDestinationPath: output + "/\(deepest[0]).kml")

            var metadata = summary.metadata
            metadata.maxZoom = 2
            let written = try KMLSuperOverlay.write(folder: output, metadata: metadata, scheme: .xyz)
            #expect(written.removedFiles == deepest.count)
            for tile in deepest { #expect(!manager.fileExists(atPath: "\(output)/\(tile).kml"), "\(tile).kml") }
            #expect(manager.fileExists(atPath: column + "/7.kml") && manager.fileExists(atPath: column + "/notes.kml"))
            #expect((try? manager.destinationOfSymbolicLink(atPath: column + "/6.kml")) != nil)
            #expect(written.tileFiles == tileSet(output).filter { $0.hasPrefix("0/") || $0.hasPrefix("1/") || $0.hasPrefix("2/") }.count)
        }
    }
}
