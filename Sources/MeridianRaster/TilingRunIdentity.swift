import Foundation
import MeridianCore
import MeridianFormats
import MeridianTiles

extension TilingRunIdentity {
    /// The identity of tiling `source` with `options` into a tile set whose own settings (a
    /// folder's row scheme) are `output`.
    public init(source: RasterSource, options: TilingOptions, zooms: ClosedRange<Int>, output: [(String, String)] = []) throws {
        try self.init(catalog: TileCatalog(sources: [source], tileSize: options.tileSize), options: options, zooms: zooms, output: output)
    }

    /// The identity of tiling `catalog` with `options` into a tile set whose own settings (a
    /// folder's row scheme) are `output`: every chart's file (so adding, removing, reordering or
    /// changing a chart is a different run), the quilt rule and every setting.
    public init(catalog: TileCatalog, options: TilingOptions, zooms: ClosedRange<Int>, output: [(String, String)] = []) throws {
        var fields: [Field] = []
        for (index, chart) in catalog.charts.enumerated() {
            let source = chart.source
            let suffix = index == 0 ? "" : "-\(index + 1)"
            fields += try Self.fileFields("input" + suffix, path: source.path)
            // A GroundOverlay's image beside the KML; one inside a KMZ (/vsizip/…) is the KMZ's.
            if source.openPath != source.path && !source.openPath.hasPrefix("/vsi") {
                fields += try Self.fileFields("image" + suffix, path: source.openPath)
            }
            if let points = source.controlPointFile { fields += try Self.fileFields("points" + suffix, path: points) }
        }
        let s = catalog.charts[0].source.options
        var settings: [(String, String)] = []
        if catalog.charts.count > 1 {
            settings += [("inputs", "\(catalog.charts.count)"), ("quilt", catalog.quilt.rawValue)]
        }
        if let overzoom = catalog.overzoom { settings.append(("overzoom", "\(overzoom)")) }
        settings += [
            ("zoom", "\(zooms.lowerBound)-\(zooms.upperBound)"),
            ("tile-size", "\(options.tileSize)"),
            ("tile-format", options.format.rawValue),
            ("resampling", options.resampling.rawValue),
            ("bands", catalog.charts.map { $0.source.colorBands.map(String.init).joined(separator: ",") }.joined(separator: ";")),
            ("nodata", s.noData.map { "\($0)" } ?? "file's"),
            ("gcp", s.controlPoints.map { "\($0.pixel),\($0.line),\($0.latitude),\($0.longitude)" }.joined(separator: " ")),
            ("gcp-method", s.warpMethod.rawValue),
            ("cutline", s.cutCollar ? "collar cut" : "none"),
            ("background", options.tileBackground?.css ?? "none"),
        ]
        // Only when given, so that the identity of a run without it is what it always was.
        if let excluded = options.excludedValues { settings.append(("excluded-values", excluded.identityText)) }
        self.init(fields: fields + (settings + output).map { Field(name: $0.0, value: $0.1) })
    }

    /// `path`, `size`, `modified` and `header` of a file, each named after `role`.
    static func fileFields(_ role: String, path: String) throws -> [Field] {
        let resolved = Self.resolved(path)
        var status = stat()
        guard stat(resolved, &status) == 0 else {
            throw MeridianError(.inputUnavailable, "cannot open input: \(String(cString: strerror(errno)))", at: SourceLocation(file: path))
        }
        let time = Platform.modificationTime(of: status)
        let modified = "\(time.seconds).\(String(format: "%09ld", time.nanoseconds))"
        return [
            Field(name: role, value: resolved),
            Field(name: "\(role)-size", value: "\(status.st_size)"),
            Field(name: "\(role)-modified", value: modified),
            Field(name: "\(role)-header", value: try headerHash(resolved)),
        ]
    }

    /// The absolute path with symbolic links resolved.
    static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    /// FNV-1a (64 bits) of the first 64 KiB, in hex: enough to tell two files apart, not a
    /// defence against someone crafting a collision (the size and time must match as well).
    static func headerHash(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw MeridianError(.inputUnavailable, "cannot open input: \(String(cString: strerror(errno)))", at: SourceLocation(file: path))
        }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 65536)
        let count = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in header.prefix(max(0, count)) {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }

}
