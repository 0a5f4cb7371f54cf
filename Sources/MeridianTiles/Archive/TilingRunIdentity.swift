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
            (self.name, self.value) = (name, value)
        }
    }

    /// In a fixed order: the input's fields, then the settings.
    public private(set) var fields: [Field]

    /// An identity made of `fields`, as a sink recorded them.
    public init(fields: [Field]) {
        self.fields = fields
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
