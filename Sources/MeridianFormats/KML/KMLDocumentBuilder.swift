import MeridianCore
import MeridianGeometry

/// Turns expat's events into KML objects, one at a time: each Placemark, GroundOverlay or
/// NetworkLink is built as a small element tree and converted to a feature as soon as it ends;
/// shared Styles, StyleMaps and Schemas are kept (they are small and referenced by id);
/// Documents and Folders are tracked as a stack of containers with their names.
final class KMLDocumentBuilder: XMLEventHandler {
    // State touched on every element is marked @exclusivity(unchecked): one thread uses it, and the
    // run-time access checks cost about 5% of reading a large KML file.

    /// A Document or Folder that is open.
    final class Container {
        let kind: String
        let id: String?
        /// Direct children that describe it: name, description, visibility, ExtendedData, …
        var meta: [XMLElement] = []
        init(kind: String, id: String?) {
            self.kind = kind
            self.id = id
        }
        var name: String? { meta.first { $0.name == "name" }?.textContent.trimmingWhitespace() }
    }

    /// Elements captured whole as small trees when they end.
    static let capturedRoots: Set<String> = [
        "Placemark", "GroundOverlay", "NetworkLink", "PhotoOverlay", "ScreenOverlay", "Style", "StyleMap", "Schema",
        "gx:CascadingStyle",
    ]
    /// How deep elements may nest (XMLEventParser refuses deeper documents).
    static let maximumDepth = 256

    static let containers: Set<String> = ["Document", "Folder"]
    static let features: Set<String> = ["Placemark", "GroundOverlay", "NetworkLink", "PhotoOverlay", "ScreenOverlay"]

    /// The parser feeding this builder, for line numbers. The parser owns the builder (and the
    /// reader the parser), so this reference is neither strong nor checked: a weak one gave the
    /// parser a side table and every retain of it the slow path, and an unowned one is still
    /// retained and released at each use, once per element.
    var parser: Unmanaged<XMLEventParser>?
    let context: KMLContext
    /// Called for each feature element as it ends, with the containers it sits in.
    var onFeature: ((XMLElement, [Container]) -> Void)?
    /// Called when a container opens and closes (the folder tree listens).
    var onContainerStart: ((Container) -> Void)?
    var onContainerEnd: ((Container) -> Void)?

    @exclusivity(unchecked) private(set) var containerStack: [Container] = []
    /// Folders opened so far.
    @exclusivity(unchecked) private(set) var folderCount = 0
    /// The tree being built (a feature, a shared style, a member of a Document or Folder), held
    /// with one retain taken when its root opens and given back when it ends (or in `deinit`),
    /// so each event borrows it without a retain and release of its own.
    @exclusivity(unchecked) private var building: Unmanaged<XMLTree>?
    /// Prefix → namespace URI, from every xmlns:prefix seen (KML files rarely rebind prefixes).
    @exclusivity(unchecked) private var prefixes: [String: String] = [:]
    @exclusivity(unchecked) private var canonicalNames: [String: String] = [:]
    private var warnedAboutCase = false
    /// The first Document's own members (its name becomes the collection's name).
    private(set) var documentName: String?

    init(context: KMLContext) {
        self.context = context
    }

    deinit { building?.release() }  // a reader dropped inside a tree

    private var line: Int { parser?._withUnsafeGuaranteedRef { $0.line } ?? 0 }

    /// The raw and canonical name of the element looked up last: KML repeats a sibling many
    /// times over (a Placemark's SimpleData, a MultiGeometry's Polygons), and comparing the bytes
    /// with the last name is cheaper than making a String of them and hashing it.
    /// (`lastRawName` keeps its storage from one name to the next; nil `lastName`: none yet.)
    @exclusivity(unchecked) private var lastRawName: [UInt8] = []
    @exclusivity(unchecked) private var lastName: String?

    private func canonicalName(_ raw: UnsafePointer<CChar>) -> String {
        let length = strlen(raw)
        if let lastName, length > 0, lastRawName.count == length,
           lastRawName.withUnsafeBytes({ memcmp($0.baseAddress!, raw, length) == 0 }) {
            return lastName
        }
        let name = canonicalName(String(cString: raw))
        lastRawName.removeAll(keepingCapacity: true)
        raw.withMemoryRebound(to: UInt8.self, capacity: length) {
            lastRawName.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
        }
        lastName = name
        return name
    }

    private func canonicalName(_ rawName: String) -> String {
        if let known = canonicalNames[rawName] { return known }
        let (name, corrected) = KMLNames.canonical(rawName, prefixes: prefixes)
        if corrected && !warnedAboutCase {
            warnedAboutCase = true
            context.warn("element <\(rawName)> read as <\(name)> (KML names are case-sensitive)", line: line)
        }
        canonicalNames[rawName] = name
        return name
    }

    func startElement(_ rawName: UnsafePointer<CChar>, attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>) {
        var declaresPrefixes = false
        for (name, value) in ExpatAttributes(attributes) where strncmp(name, "xmlns:", 6) == 0 {
            prefixes[String(cString: name + 6)] = String(cString: value)
            declaresPrefixes = true
        }
        if declaresPrefixes {
            canonicalNames.removeAll()
            lastName = nil
        }
        let name = canonicalName(rawName)

        if let building {
            let line = line
            building._withUnsafeGuaranteedRef { $0.open(name, attributes: attributes, line: line) }
            return
        }
        if Self.containers.contains(name) {
            let container = Container(kind: name, id: ExpatAttributes(attributes).value(of: "id"))
            if name == "Folder" { folderCount += 1 }
            containerStack.append(container)
            onContainerStart?(container)
            return
        }
        if Self.capturedRoots.contains(name) || !containerStack.isEmpty {
            // A feature or shared style, or a member of a Document or Folder (its name, …).
            building = .passRetained(XMLTree(root: name, attributes: attributes, line: line))
        }
        // Anything else outside containers (the <kml> root, NetworkLinkControl) is passed over.
    }

    func endElement(_ rawName: UnsafePointer<CChar>) {
        guard let building else {
            if let container = containerStack.last, Self.containers.contains(canonicalName(rawName)) {
                containerStack.removeLast()
                onContainerEnd?(container)
            }
            return
        }
        let complete = building._withUnsafeGuaranteedRef { tree in
            tree.close()
            return tree.isComplete
        }
        guard complete else { return }  // still inside a captured tree
        self.building = nil
        let element = building.takeRetainedValue().root
        switch element.name {
        case "Style", "StyleMap", "Schema", "gx:CascadingStyle":
            context.definitions.register(element)
            if let container = containerStack.last, element.name != "Schema" { container.meta.append(element) }
        case _ where Self.features.contains(element.name):
            onFeature?(element, containerStack)
        default:
            if let container = containerStack.last {
                container.meta.append(element)
                if element.name == "name", documentName == nil, container.kind == "Document", containerStack.count == 1 {
                    documentName = container.name
                }
            }
        }
    }

    func characters(_ text: UnsafeBufferPointer<UInt8>) {
        building?._withUnsafeGuaranteedRef { $0.append(text) }
    }

    func cdata(starts: Bool) {
        building?._withUnsafeGuaranteedRef { $0.cdata(starts: starts) }
    }
}
