import MeridianGeometry

/// How `info` prints coordinates, in its text and its JSON alike, for features' bounds and a
/// tile pyramid's bounds and center: rounded to 7 decimals (about 1 cm on the ground), the
/// precision PMTiles headers and most tile metadata keep. Before, a feature file's bounds came
/// with 15 or more digits (the doubles' shortest text) and a pyramid's with 7, in one program.
public enum CoordinateText {
    /// The decimals a coordinate keeps.
    public static let decimals = 7

    /// `value` rounded to ``decimals`` places (half away from zero; -0 prints as 0).
    public static func rounded(_ value: Double) -> Double {
        guard value.isFinite else { return value }
        let scale = 10_000_000.0
        return (value * scale).rounded() / scale + 0.0
    }

    /// `value` rounded, as text (`-5.3583868`, `47.262801`, `180.0`).
    public static func text(_ value: Double) -> String {
        "\(rounded(value))"
    }

    /// `W west, S south, E east, N north` (then `, altitude LOW … HIGH` when the box has altitudes).
    public static func bounds(_ box: BoundingBox) -> String {
        var text = "W \(Self.text(box.west)), S \(Self.text(box.south)), E \(Self.text(box.east)), N \(Self.text(box.north))"
        if let low = box.minAltitude, let high = box.maxAltitude { text += ", altitude \(Self.text(low)) … \(Self.text(high))" }
        return text
    }

    /// `value` rounded, as a JSON number.
    public static func json(_ value: Double) -> JSONValue {
        .double(rounded(value))
    }
}
