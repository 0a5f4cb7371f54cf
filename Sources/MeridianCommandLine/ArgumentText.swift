extension Substring {
    /// The text without any of `set`'s characters at either end.
    func trimmingCharacters(in set: String) -> Substring {
        var s = self
        while let first = s.first, set.contains(first) { s.removeFirst() }
        while let last = s.last, set.contains(last) { s.removeLast() }
        return s
    }
}

/// `text` as a POSIX shell word: as it is when it holds only characters no shell treats
/// specially, else in single quotes.
public func shellQuoted(_ text: String) -> String {
    let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")
    if !text.isEmpty && text.allSatisfy(plain.contains) { return text }
    return "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
}

/// Items for a sentence: "PDS4, GML or Interlis 2".
public func listed(_ items: [String], conjunction: String = "or") -> String {
    items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " \(conjunction) " + items.last!
}
