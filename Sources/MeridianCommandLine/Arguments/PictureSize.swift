import ArgumentParser

/// A picture's size typed as `WIDTHxHEIGHT` in points, each from 1 to 16384 (what cairo and
/// browsers draw without trouble).
public struct PictureSize: ArgumentValue, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public static let sides = 1...16384
    public static let syntax = ArgumentSyntax(
        valueName: "WxH", example: "800x600",
        form: "WIDTHxHEIGHT (\(sides.lowerBound) to \(sides.upperBound) each)")

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let width = parts[0], let height = parts[1], Self.sides.contains(width), Self.sides.contains(height) else {
            return nil
        }
        self.init(width: width, height: height)
    }

    /// As typed, for help's "(default: 800x600)".
    public var description: String { "\(width)x\(height)" }
    public var defaultValueDescription: String { description }
}
