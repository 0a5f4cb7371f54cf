import Foundation
import MeridianCore
import MeridianFormats

/// What a tiling run is: the file it reads and every setting that changes its tiles. An
/// interrupted run records its identity in the output (`.meridian-tiling` in a folder, a table
/// of the partial MBTiles file); a resumed run continues only a run whose identity equals the
/// new one, so the tiles of two rasters or two settings never mix in one pyramid.
///
/// The input is known by its resolved path, size, modification time and a hash of its first
/// 64 KiB (where every raster format keeps its header); a GroundOverlay's image too.
public struct TilingRunIdentity: Equatable, Sendable {
    /// One setting of a run, or one fact about its input, as a name and a value.
    public struct Field: Equatable, Sendable {
        /// The field's name (`input`, `zoom`, `tile-format`, …), without spaces.
        public var name: String
        /// The field's value, as text.
        public var value: String

        /// The setting or fact `name` with its `value`.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// In a fixed order: the input's fields, then the settings.
    public private(set) var fields: [Field]

    /// An identity made of `fields`, as a sink recorded them.
    public init(fields: [Field]) {
        self.fields = fields
    }

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
            ("gcp-method", s.controlPointMethod.rawValue),
            ("cutline", s.cutCollar ? "collar cut" : "none"),
            ("background", options.tileBackground?.css ?? "none"),
        ]
        // Only when given, so that the identity of a run without it is what it always was.
        if let excluded = options.excludedValues { settings.append(("excluded-values", excluded.identityText)) }
        self.fields = fields + (settings + output).map { Field(name: $0.0, value: $0.1) }
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

    /// This identity with one more field (a shard's number, say).
    public func adding(_ name: String, _ value: String) -> TilingRunIdentity {
        TilingRunIdentity(fields: fields + [Field(name: name, value: value)])
    }

    /// One `NAME VALUE` line per field (values hold no newlines).
    public var lines: [String] {
        fields.map { "\($0.name) \($0.value.replacingOccurrences(of: "\n", with: " "))" }
    }

    /// The identity written as `lines`.
    public init(lines: [String]) {
        fields = lines.map { line in
            let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            return Field(name: String(parts[0]), value: parts.count > 1 ? String(parts[1]) : "")
        }
    }

    /// A field whose value differs between a recorded run and this one.
    public struct Difference: Equatable, Sendable, CustomStringConvertible {
        /// The name of the field that differs.
        public var name: String
        /// nil: the recorded run has no such field.
        public var recorded: String?
        /// nil: this run has no such field.
        public var current: String?

        /// `name: was A, now B`.
        public var description: String { "\(name): was \(recorded ?? "(not recorded)"), now \(current ?? "(none)")" }
    }

    /// What differs from `recorded`, field by field, in this identity's order of fields (then
    /// those only `recorded` has).
    public func differences(from recorded: TilingRunIdentity) -> [Difference] {
        let old = Dictionary(recorded.fields.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        let new = Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        let names = fields.map(\.name) + recorded.fields.map(\.name).filter { new[$0] == nil }
        return names.compactMap { name in
            old[name] == new[name] ? nil : Difference(name: name, recorded: old[name], current: new[name])
        }
    }

    /// Throws what resuming gives when the output at `path` holds another run (or, for a nil
    /// `recorded`, no run at all).
    public func checkResuming(_ recorded: TilingRunIdentity?, output path: String) throws {
        guard let recorded else { throw TileOutputError.nothingToResume(path: path) }
        let differences = differences(from: recorded)
        guard differences.isEmpty else { throw TileOutputError.resumeMismatch(path: path, differences: differences) }
    }
}
