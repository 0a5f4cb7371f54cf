#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small element tree, built by the KML reader for one Placemark, Style or Schema at a time
/// (never for a whole document), so memory stays bounded by the largest single feature.
final class XMLElement {
    // State touched on every element is marked @exclusivity(unchecked): one thread at a time uses
    // a tree (the reading thread builds it, the conversion thread then reads it), and the run-time
    // access checks cost about 5% of reading a large KML file.

    /// The element's name with KML's own namespace dropped (`Placemark`) and Google's extension
    /// namespace written `gx:` (`gx:Track`), whatever prefixes the file used.
    let name: String
    let attributes: XMLAttributes
    @exclusivity(unchecked) private(set) var children: [XMLElement] = []
    /// The element's own character data (not its children's), as bytes: coordinates stay bytes
    /// until they are parsed into numbers.
    @exclusivity(unchecked) var textBytes: [UInt8] = []
    /// The element's own CDATA sections, each whole, in order (empty ones are not recorded):
    /// KML marks HTML descriptions this way.
    @exclusivity(unchecked) var cdataSections: [[UInt8]] = []
    /// Where the element starts, for messages.
    let line: Int

    init(name: String, attributes: XMLAttributes, line: Int) {
        self.name = name
        self.attributes = attributes
        self.line = line
    }

    /// For each child, how much of `textBytes` came before it, so text and children interleave
    /// again in `textContent`.
    @exclusivity(unchecked) private var childTextOffsets: [Int] = []

    func append(_ child: XMLElement) {
        children.append(child)
        childTextOffsets.append(textBytes.count)
    }

    /// The first child called `name`.
    func child(_ name: String) -> XMLElement? { children.first { $0.name == name } }

    /// Every child called `name`.
    func children(_ name: String) -> [XMLElement] { children.filter { $0.name == name } }

    /// Every descendant called `name`, depth first, in document order.
    func descendants(_ name: String) -> [XMLElement] {
        var found: [XMLElement] = []
        func walk(_ element: XMLElement) {
            for child in element.children {
                if child.name == name { found.append(child) }
                walk(child)
            }
        }
        walk(self)
        return found
    }

    /// The first descendant called `name` (depth first, in document order). Feature conversion
    /// asks this a dozen times per Placemark, so the first call indexes the whole tree once.
    func descendant(_ name: String) -> XMLElement? {
        if firstDescendants == nil {
            var index: [String: XMLElement] = [:]
            func walk(_ element: XMLElement) {
                for child in element.children {
                    if index[child.name] == nil { index[child.name] = child }
                    walk(child)
                }
            }
            walk(self)
            firstDescendants = index
        }
        return firstDescendants?[name]
    }

    /// Built by `descendant(_:)`; valid because a tree is complete before anyone searches it.
    @exclusivity(unchecked) private var firstDescendants: [String: XMLElement]?

    /// The element's own text, as a string.
    var text: String { String(decoding: textBytes, as: UTF8.self) }

    /// All text inside the element, children's included, in document order (the DOM's
    /// `textContent`).
    var textContent: String {
        if children.isEmpty { return text }
        var bytes: [UInt8] = []
        appendTextContent(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private func appendTextContent(to bytes: inout [UInt8]) {
        var taken = 0
        for (child, offset) in zip(children, childTextOffsets) {
            bytes += textBytes[taken..<offset]
            taken = offset
            child.appendTextContent(to: &bytes)
        }
        bytes += textBytes[taken...]
    }

    /// The trimmed text of the child called `name`, nil when there is no such child.
    func childText(_ name: String) -> String? {
        child(name).map { $0.textContent.trimmingWhitespace() }
    }
}

/// An element's attributes, in document order.
///
/// An array of pairs searched in order rather than a dictionary: elements have none or a few
/// (KML's SimpleData has one), and the readers build one for every element, so hashing each name
/// and allocating a hash table cost more than the search ever does.
struct XMLAttributes {
    private var pairs: [(name: String, value: String)] = []

    /// No attributes.
    init() {}

    /// The attributes expat passes to a start-element handler: name, value, name, value, …, nil.
    init(expat list: UnsafeMutablePointer<UnsafePointer<CChar>?>) {
        var i = 0
        while let name = list[i], let value = list[i + 1] {
            pairs.append((String(cString: name), String(cString: value)))
            i += 2
        }
    }

    /// Whether expat's attribute list (name, value, …, nil) declares a namespace prefix
    /// (`xmlns:gx`), read from the bytes: an element's attributes rarely do.
    static func declaresPrefixes(_ list: UnsafeMutablePointer<UnsafePointer<CChar>?>) -> Bool {
        var i = 0
        while let name = list[i] {
            if strncmp(name, "xmlns:", 6) == 0 { return true }
            i += 2
        }
        return false
    }

    /// The value of the attribute called `name`, nil when the element has none (XML allows
    /// each name once, so the first is the only one).
    subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Every attribute, in document order.
    var all: [(name: String, value: String)] { pairs }
}

extension String {
    /// The string without leading and trailing spaces, tabs and line breaks (by UTF-8 bytes:
    /// hot in KML reading, where Character-by-Character trimming shows in profiles).
    func trimmingWhitespace() -> String {
        let bytes = utf8
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }),
              let last = bytes.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
