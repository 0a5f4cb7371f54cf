extension String {
    /// The string without leading and trailing spaces, tabs and line breaks (by UTF-8 bytes:
    /// hot in KML reading, where Character-by-Character trimming shows in profiles).
    package func trimmingWhitespace() -> String {
        let bytes = utf8
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }),
              let last = bytes.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
