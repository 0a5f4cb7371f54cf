import MeridianFormats
import MeridianCore

/// A tile pyramid read back as features holds several zoom levels, and none was chosen. The
/// library states the fact; the command line names its option.
public struct TilePyramidLevelError: MeridianFailure, Equatable {
    /// The pyramid.
    public var path: String
    /// The zoom levels it holds.
    public var levels: ClosedRange<Int>

    /// The error for the pyramid at `path`, holding `levels`.
    public init(path: String, levels: ClosedRange<Int>) {
        self.path = path
        self.levels = levels
    }

    /// A usage error: the caller must choose a level.
    public var kind: MeridianError.Kind { .usage }
    /// The pyramid.
    public var location: SourceLocation? { SourceLocation(file: path) }
    /// The levels it holds.
    public var message: String { "the tile pyramid has zoom levels \(levels.lowerBound)-\(levels.upperBound): choose the one to read" }
    /// None beyond the message.
    public var hint: String? { nil }
}
