extension Substring {
    /// The text without any of `set`'s characters at either end.
    func trimmingCharacters(in set: String) -> Substring {
        var s = self
        while let first = s.first, set.contains(first) { s.removeFirst() }
        while let last = s.last, set.contains(last) { s.removeLast() }
        return s
    }
}

/// `text` as a shell word that reads back as `text`, on one line: as it is when it holds only
/// characters no shell treats specially; else in single quotes (a `'` as `'\''`); and when it
/// holds a line break or another control character, which single quotes would keep but would
/// break the line (a header comment, a note's command), in ANSI-C quotes, `$'…'` (bash, zsh,
/// ksh and POSIX.1-2024 `sh`), with `\n`, `\t`, `\r`, `\xHH` for the other control characters and
/// `\uHHHH` for the C1 controls and Unicode's line and paragraph separators.
public func shellQuoted(_ text: String) -> String {
    let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")
    if !text.isEmpty && text.allSatisfy(plain.contains) { return text }
    func breaksTheLine(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }
    guard text.unicodeScalars.contains(where: breaksTheLine) else {
        return "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
    func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
    var quoted = "$'"
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": quoted += "\\\\"
        case "'": quoted += "\\'"
        case "\n": quoted += "\\n"
        case "\t": quoted += "\\t"
        case "\r": quoted += "\\r"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F: quoted += "\\x" + hex(scalar.value, digits: 2)
        case _ where breaksTheLine(scalar): quoted += "\\u" + hex(scalar.value, digits: 4)
        default: quoted.unicodeScalars.append(scalar)
        }
    }
    return quoted + "'"
}

/// Items for a sentence: "PDS4, GML or Interlis 2".
public func listed(_ items: [String], conjunction: String = "or") -> String {
    items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " \(conjunction) " + items.last!
}
