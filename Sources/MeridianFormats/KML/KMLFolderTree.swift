import MeridianGeometry

/// A KML document's Folders and features as a tree, the shape of togeojson's kmlWithFolders:
/// `{"type": "root", "children": [...]}` with `{"type": "folder", "meta": {...}, "children": [...]}`
/// nodes and Features in document order. Documents are transparent, as in togeojson.
/// The whole tree is held in memory: asked for with `--folders tree`, never by default.
public final class KMLFolderTree {
    final class Node {
        var meta = JSONObject()
        var children: [Child] = []
    }
    enum Child {
        case feature(Feature)
        case folder(Node)
    }

    /// The folder meta togeojson keeps: these direct children, as strings.
    static let metaKeys = ["name", "visibility", "open", "address", "description", "phoneNumber"]

    private let root = Node()
    private var stack: [(KMLDocumentBuilder.Container, Node)] = []
    private var current: Node { stack.last?.1 ?? root }

    func open(_ container: KMLDocumentBuilder.Container) {
        guard container.kind == "Folder" else { return }
        let node = Node()
        current.children.append(.folder(node))
        stack.append((container, node))
    }

    func close(_ container: KMLDocumentBuilder.Container) {
        guard container.kind == "Folder", let (open, node) = stack.last, open === container else { return }
        for element in container.meta where Self.metaKeys.contains(element.name) && node.meta[element.name] == nil {
            node.meta[element.name] = .string(element.textContent)
        }
        stack.removeLast()
    }

    func add(_ feature: Feature) {
        current.children.append(.feature(feature))
    }

    /// The number of Folder nodes.
    public var folderCount: Int {
        func count(_ node: Node) -> Int {
            node.children.reduce(0) { total, child in
                if case .folder(let inner) = child { return total + 1 + count(inner) }
                return total
            }
        }
        return count(root)
    }

    /// Writes the tree as JSON; `skipNullGeometry` leaves out features without geometry (folders stay).
    public func write(to sink: OutputSink, options: WriteOptions = .init(), skipNullGeometry: Bool = false) throws {
        let writer = GeoJSONWriter(sink: sink, options: options)
        let emitter = writer.emitter
        func write(_ node: Node, type: String) {
            emitter.openObject()
            emitter.member("type", .string(type))
            if type == "folder" { emitter.member("meta", .object(node.meta)) }
            emitter.key("children")
            emitter.openArray(linePerElement: true)
            for child in node.children {
                switch child {
                case .feature(let feature):
                    if !(skipNullGeometry && feature.geometry == nil) { writer.writeFeature(feature) }
                case .folder(let inner):
                    write(inner, type: "folder")
                }
            }
            emitter.closeArray()
            emitter.closeObject()
        }
        write(root, type: "root")
        sink.write(byte: 0x0A)
        try sink.checkForErrors()
    }
}
