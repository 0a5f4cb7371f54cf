import MeridianCore

/// A small element tree, built by the KML and GPX readers for one Placemark, Style or Schema at a
/// time (never for a whole document), so memory stays bounded by the largest single feature.
///
/// The tree lives in a few flat arrays rather than an object per element: elements in document
/// order (so an element's descendants are the elements after it, up to `subtreeEnd`), every
/// attribute in one array, and all character data in one byte buffer (so an element's text with
/// its children's is one range of it). A Placemark of Natural Earth's countries has a few hundred
/// elements; as objects, each with its arrays, building and freeing them was a fifth of reading a
/// large KML file. Built on the reading thread, then read (never changed) on the converting one.
final class XMLTree {
    struct Node {
        /// The element's name with KML's own namespace dropped (`Placemark`) and Google's
        /// extension namespace written `gx:` (`gx:Track`), whatever prefixes the file used.
        let name: String
        /// Where the element starts, for messages.
        let line: Int
        /// The next sibling, the first and the last child (-1: none).
        var nextSibling: Int32 = -1
        var firstChild: Int32 = -1
        var lastChild: Int32 = -1
        /// Past the element's last descendant (its descendants are the elements between).
        var subtreeEnd: Int32 = 0
        /// Its attributes in `attributes`.
        let attributeStart: Int32, attributeEnd: Int32
        /// Its text with its descendants' in `text` (the end is set when it closes).
        let textStart: Int32
        var textEnd: Int32 = 0

        /// Whether the element is called `name`. Lengths first: searches compare a dozen names
        /// with every element of a tree, and unequal strings of unequal length are then told
        /// apart without the string comparison's general path.
        @inline(__always)
        func isNamed(_ name: String) -> Bool {
            self.name.utf8.count == name.utf8.count && self.name == name
        }
    }

    // State touched on every element is marked @exclusivity(unchecked): one thread at a time uses
    // a tree (the reading thread builds it, the converting thread then reads it), and the
    // run-time access checks cost about 5% of reading a large KML file.
    @exclusivity(unchecked) private(set) var nodes: [Node] = []
    @exclusivity(unchecked) private(set) var attributes: [(name: String, value: String)] = []
    @exclusivity(unchecked) private(set) var text: [UInt8] = []
    /// CDATA sections (KML marks HTML descriptions this way): whose, and where in `text`.
    @exclusivity(unchecked) private(set) var cdataSections: [(node: Int32, start: Int32, end: Int32)] = []
    /// The elements open while building, innermost last.
    @exclusivity(unchecked) private var open: [Int32] = []
    /// The next text of the innermost element starts a CDATA section.
    @exclusivity(unchecked) private var cdataStarts = false

    /// A tree whose root opens: `attributes` as expat passes them (name, value, …, nil).
    init(root name: String, attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>, line: Int) {
        open(name, attributes: attributes, line: line)
    }

    /// The root element.
    var root: XMLElement { XMLElement(tree: self, index: 0) }

    /// Whether the root has closed.
    var isComplete: Bool { open.isEmpty }

    /// An element opens inside the innermost open one.
    func open(_ name: String, attributes list: UnsafeMutablePointer<UnsafePointer<CChar>?>, line: Int) {
        let index = Int32(nodes.count)
        let attributeStart = Int32(attributes.count)
        for (name, value) in ExpatAttributes(list) { attributes.append((String(cString: name), String(cString: value))) }
        nodes.append(Node(name: name, line: line, attributeStart: attributeStart, attributeEnd: Int32(attributes.count),
                          textStart: Int32(text.count)))
        if let parent = open.last {
            let previous = nodes[Int(parent)].lastChild
            if previous >= 0 { nodes[Int(previous)].nextSibling = index } else { nodes[Int(parent)].firstChild = index }
            nodes[Int(parent)].lastChild = index
        }
        open.append(index)
    }

    /// The innermost open element closes.
    func close() {
        let index = Int(open.removeLast())
        nodes[index].subtreeEnd = Int32(nodes.count)
        nodes[index].textEnd = Int32(text.count)
    }

    /// Character data of the innermost open element.
    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let innermost = open.last else { return }
        if inCDATA && cdataStarts {
            // A section right after one of the same element continues it: text holding `]]>`
            // is written as two sections (`…]]]]><![CDATA[>…`), and read back whole.
            if let last = cdataSections.last, last.node == innermost, last.end == Int32(text.count) {} else {
                cdataSections.append((innermost, Int32(text.count), Int32(text.count)))
            }
            cdataStarts = false
        }
        text.append(contentsOf: bytes)
        if inCDATA { cdataSections[cdataSections.count - 1].end = Int32(text.count) }
    }

    /// Whether character data now belongs to a CDATA section.
    @exclusivity(unchecked) private var inCDATA = false

    /// A CDATA section opens or closes in the innermost open element (an empty one is not
    /// recorded: its section starts with its first text).
    func cdata(starts: Bool) {
        inCDATA = starts
        cdataStarts = starts
    }
}

/// An element of an `XMLTree`: a tree and a place in it.
struct XMLElement {
    let tree: XMLTree
    let index: Int

    private var node: XMLTree.Node { tree.nodes[index] }

    /// The element's name (canonical, as `XMLTree.Node.name`).
    var name: String { node.name }

    /// Where the element starts, for messages.
    var line: Int { node.line }

    /// Its attributes, in document order.
    var attributes: XMLAttributes {
        let node = node
        return XMLAttributes(pairs: tree.attributes[Int(node.attributeStart)..<Int(node.attributeEnd)])
    }

    /// Its child elements, in document order.
    var children: [XMLElement] { children { _ in true } }

    /// The first child called `name`.
    func child(_ name: String) -> XMLElement? {
        var found: XMLElement?
        forEachChild { index, node in
            guard node.isNamed(name) else { return true }
            found = XMLElement(tree: tree, index: index)
            return false
        }
        return found
    }

    /// Every child called `name`.
    func children(_ name: String) -> [XMLElement] { children { $0.isNamed(name) } }

    /// The children whose nodes pass `test`, in document order.
    private func children(where test: (XMLTree.Node) -> Bool) -> [XMLElement] {
        var found: [XMLElement] = []
        forEachChild { index, node in
            if test(node) { found.append(XMLElement(tree: tree, index: index)) }
            return true
        }
        return found
    }

    /// Calls `body` with each child's place and node, in document order, until it returns false.
    private func forEachChild(_ body: (Int, XMLTree.Node) -> Bool) {
        var child = node.firstChild
        while child >= 0 {
            let childNode = tree.nodes[Int(child)]
            guard body(Int(child), childNode) else { return }
            child = childNode.nextSibling
        }
    }

    /// Every descendant called `name`, in document order.
    func descendants(_ name: String) -> [XMLElement] {
        var found: [XMLElement] = []
        for i in (index + 1)..<Int(node.subtreeEnd) where tree.nodes[i].isNamed(name) {
            found.append(XMLElement(tree: tree, index: i))
        }
        return found
    }

    /// The first descendant called `name`, in document order.
    func descendant(_ name: String) -> XMLElement? {
        for i in (index + 1)..<Int(node.subtreeEnd) where tree.nodes[i].isNamed(name) {
            return XMLElement(tree: tree, index: i)
        }
        return nil
    }

    /// Calls `body` with the element's own character data (its children's left out): the
    /// bytes in place for an element without children, as coordinates are.
    func withTextBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let node = node
        guard node.firstChild >= 0 else {
            return tree.text.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[Int(node.textStart)..<Int(node.textEnd)])) }
        }
        var own: [UInt8] = []
        var taken = Int(node.textStart)
        var child = node.firstChild
        while child >= 0 {
            let childNode = tree.nodes[Int(child)]
            own += tree.text[taken..<Int(childNode.textStart)]
            taken = Int(childNode.textEnd)
            child = childNode.nextSibling
        }
        own += tree.text[taken..<Int(node.textEnd)]
        return own.withUnsafeBufferPointer(body)
    }

    /// The element's own text (its children's left out), as a string.
    var text: String { withTextBytes { String(decoding: $0, as: UTF8.self) } }

    /// All text inside the element, children's included, in document order (the DOM's
    /// `textContent`).
    var textContent: String {
        let node = node
        return String(decoding: tree.text[Int(node.textStart)..<Int(node.textEnd)], as: UTF8.self)
    }

    /// The element's own CDATA sections, each whole, in order (empty ones are not recorded, and
    /// one that follows another with nothing between is part of it).
    var cdataSections: [ArraySlice<UInt8>] {
        tree.cdataSections.filter { $0.node == index }.map { tree.text[Int($0.start)..<Int($0.end)] }
    }

    /// The trimmed text of the child called `name`, nil when there is no such child.
    func childText(_ name: String) -> String? {
        child(name).map { $0.textContent.trimmingWhitespace() }
    }
}

/// The attributes expat passes to a start-element handler (name, value, name, value, …, nil),
/// as pairs of C strings, read in place.
struct ExpatAttributes: Sequence, IteratorProtocol {
    private let list: UnsafeMutablePointer<UnsafePointer<CChar>?>
    private var i = 0

    init(_ list: UnsafeMutablePointer<UnsafePointer<CChar>?>) { self.list = list }

    mutating func next() -> (name: UnsafePointer<CChar>, value: UnsafePointer<CChar>)? {
        guard let name = list[i], let value = list[i + 1] else { return nil }
        i += 2
        return (name, value)
    }

    /// The value of the attribute called `name`, nil when there is none.
    func value(of name: String) -> String? {
        first { strcmp($0.name, name) == 0 }.map { String(cString: $0.value) }
    }
}

/// An element's attributes, in document order.
///
/// Pairs searched in order rather than a dictionary: elements have none or a few (KML's
/// SimpleData has one), so hashing each name and allocating a hash table cost more than the
/// search ever does.
struct XMLAttributes {
    let pairs: ArraySlice<(name: String, value: String)>

    /// The value of the attribute called `name`, nil when the element has none (XML allows
    /// each name once, so the first is the only one).
    subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Every attribute, in document order.
    var all: ArraySlice<(name: String, value: String)> { pairs }
}
