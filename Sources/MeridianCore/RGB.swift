/// A colour from `#rgb` or `#rrggbb` (simplestyle's forms) or one of CSS's basic colour names.
public struct RGB: Sendable, Hashable {
    /// The colour's channels, 0–255 each (sRGB, no alpha).
    public var red: UInt8, green: UInt8, blue: UInt8

    /// A colour from its red, green and blue channels, 0–255 each.
    public init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
        (self.red, self.green, self.blue) = (red, green, blue)
    }

    /// White (`#ffffff`), the background JPEG tiles get by default.
    public static let white = RGB(0xFF, 0xFF, 0xFF)

    /// CSS 2.1's seventeen colour names, with grey spelled either way.
    static let names: [String: RGB] = [
        "black": RGB(0, 0, 0), "silver": RGB(0xC0, 0xC0, 0xC0), "gray": RGB(0x80, 0x80, 0x80), "grey": RGB(0x80, 0x80, 0x80),
        "white": .white, "maroon": RGB(0x80, 0, 0), "red": RGB(0xFF, 0, 0), "purple": RGB(0x80, 0, 0x80),
        "fuchsia": RGB(0xFF, 0, 0xFF), "green": RGB(0, 0x80, 0), "lime": RGB(0, 0xFF, 0), "olive": RGB(0x80, 0x80, 0),
        "yellow": RGB(0xFF, 0xFF, 0), "navy": RGB(0, 0, 0x80), "blue": RGB(0, 0, 0xFF), "teal": RGB(0, 0x80, 0x80),
        "aqua": RGB(0, 0xFF, 0xFF), "orange": RGB(0xFF, 0xA5, 0),
    ]

    /// The colour that `text` names: `#rgb`, `#rrggbb` (case-insensitive), or a CSS 2.1 colour name
    /// such as `navy` or `grey`; surrounding whitespace is ignored.
    /// - Parameter text: A colour as simplestyle and CSS write it.
    /// - Returns: nil when `text` is none of those forms.
    public init?(css text: String) {
        var hex = Substring(text.trimmingWhitespace())
        if let named = Self.names[hex.lowercased()] {
            self = named
            return
        }
        guard hex.first == "#" else { return nil }
        hex = hex.dropFirst()
        if hex.count == 3 { hex = Substring(hex.flatMap { [$0, $0] }) }
        guard hex.count == 6, let value = UInt32(hex, radix: 16) else { return nil }
        self.init(UInt8(value >> 16), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF))
    }

    /// Whether red, green and blue are equal (a gray tile can take it without colour bands).
    public var isGray: Bool { red == green && green == blue }

    /// The colour as CSS's `#rrggbb`, in lowercase hex (what SVG output writes).
    public var css: String {
        let digits = Array("0123456789abcdef")
        return "#" + String([red, green, blue].flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }
}
