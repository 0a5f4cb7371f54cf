import ArgumentParser

/// A picture's size typed as `WIDTHxHEIGHT` in points, each from 1 to 16384 (what cairo and
/// browsers draw without trouble).
public struct PictureSize: ArgumentValue, Sendable, CustomStringConvertible {
    /// The width in points (pixels for a PNG), 1 to 16384.
    public var width: Int
    /// The height in points (pixels for a PNG), 1 to 16384.
    public var height: Int

    static let sides = 1...16384
    /// `WxH`, for example `800x600`.
    public static let syntax = ArgumentSyntax(
        valueName: "WxH", example: "800x600",
        form: "WIDTHxHEIGHT (\(sides.lowerBound) to \(sides.upperBound) each)")

    /// A size, for an option's default value (not checked against the allowed range).
    /// - Parameters:
    ///   - width: The width in points.
    ///   - height: The height in points.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Parses `WIDTHxHEIGHT` (`x` in either case); nil when it is not two whole numbers from 1 to 16384.
    /// - Parameter argument: The text typed.
    public init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let width = parts[0], let height = parts[1], Self.sides.contains(width), Self.sides.contains(height) else {
            return nil
        }
        self.init(width: width, height: height)
    }

    /// As typed, for help's "(default: 800x600)".
    public var description: String { "\(width)x\(height)" }
    /// The default shown in help: `800x600`.
    public var defaultValueDescription: String { description }
}
