/// Writes indented XML into an `OutputSink`: elements, escaped text and attributes, CDATA,
/// and numbers in their shortest round-trip form. (Package-wide: MeridianPicture writes SVG with it.)
package final class XMLTextWriter {
    let sink: OutputSink
    private var open: [String] = []

    package init(sink: OutputSink) { self.sink = sink }

    func indent() {
        for _ in 0..<open.count { sink.write("  " as StaticString) }
    }

    /// `<name attributes>` on its own line; `close()` ends it.
    package func start(_ name: String, _ attributes: [(String, String)] = []) {
        indent()
        tag(name, attributes)
        sink.write(">\n" as StaticString)
        open.append(name)
    }

    /// Records an element whose start tag the caller wrote itself, so `close()` ends it.
    func opened(_ name: String) { open.append(name) }

    package func close() {
        let name = open.removeLast()
        indent()
        sink.write("</" as StaticString)
        sink.write(name)
        sink.write(">\n" as StaticString)
    }

    /// `<name>text</name>` on one line.
    package func element(_ name: String, _ text: String, _ attributes: [(String, String)] = []) {
        indent()
        tag(name, attributes)
        sink.write(byte: UInt8(ascii: ">"))
        escaped(text, inAttribute: false)
        endTag(name)
    }

    /// `<name/>`.
    package func empty(_ name: String, _ attributes: [(String, String)] = []) {
        indent()
        tag(name, attributes)
        sink.write("/>\n" as StaticString)
    }

    /// `<name><![CDATA[text]]></name>`; a `]]>` inside is split across two sections.
    func cdataElement(_ name: String, _ text: String) {
        indent()
        tag(name, [])
        sink.write("><![CDATA[" as StaticString)
        sink.write(text.replacing("]]>", with: "]]]]><![CDATA[>"))
        sink.write("]]>" as StaticString)
        endTag(name)
    }

    /// `<name>` + whatever `body` writes through `number`/`raw` + `</name>`, on one line.
    func inline(_ name: String, _ body: () -> Void) {
        indent()
        tag(name, [])
        sink.write(byte: UInt8(ascii: ">"))
        body()
        endTag(name)
    }

    func raw(_ text: StaticString) { sink.write(text) }

    /// The shortest text that reads back to the same double.
    func number(_ value: Double) {
        var out = sink
        value.write(to: &out)
    }

    private func tag(_ name: String, _ attributes: [(String, String)]) {
        sink.write(byte: UInt8(ascii: "<"))
        sink.write(name)
        for (key, value) in attributes {
            sink.write(byte: UInt8(ascii: " "))
            sink.write(key)
            sink.write("=\"" as StaticString)
            escaped(value, inAttribute: true)
            sink.write(byte: UInt8(ascii: "\""))
        }
    }

    private func endTag(_ name: String) {
        sink.write("</" as StaticString)
        sink.write(name)
        sink.write(">\n" as StaticString)
    }

    /// XML's five specials (quotes only inside attributes); control characters XML cannot hold
    /// are dropped.
    func escaped(_ text: String, inAttribute: Bool) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): sink.write("&amp;" as StaticString)
            case UInt8(ascii: "<"): sink.write("&lt;" as StaticString)
            case UInt8(ascii: ">"): sink.write("&gt;" as StaticString)
            case UInt8(ascii: "\"") where inAttribute: sink.write("&quot;" as StaticString)
            case 0x09, 0x0A, 0x0D: sink.write(byte: byte)
            case 0..<0x20: continue
            default: sink.write(byte: byte)
            }
        }
    }
}
