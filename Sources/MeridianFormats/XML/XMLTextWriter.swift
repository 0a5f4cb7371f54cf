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

    /// `<name><![CDATA[text]]></name>`; a `]]>` inside is split across two sections, and what
    /// XML cannot hold is dropped (`xmlCharacters(_:)`).
    func cdataElement(_ name: String, _ text: String) {
        indent()
        tag(name, [])
        sink.write("><![CDATA[" as StaticString)
        sink.write(Self.xmlCharacters(text).replacing("]]>", with: "]]]]><![CDATA[>"))
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

    /// Writes `text` escaped as the static `escaped(_:inAttribute:)` escapes it.
    func escaped(_ text: String, inAttribute: Bool) {
        sink.write(Self.escaped(text, inAttribute: inAttribute))
    }

    /// `text` as XML character data or, `inAttribute`, as an attribute's value in double quotes:
    /// the one escaping of every XML and HTML text Meridian writes (KML, GPX, SVG, the viewer's
    /// page, a tile set's KML and `tilemapresource.xml`), so that no text a file or a user gave
    /// closes an element or makes the document malformed. `&`, `<` and `>` as entities (`"` too
    /// in an attribute); in an attribute tab, line feed and carriage return as character
    /// references (a parser reads them as spaces otherwise), and a carriage return in text (a
    /// parser reads it as a line feed); what XML 1.0 cannot hold at all dropped
    /// (`xmlCharacters(_:)`).
    package static func escaped(_ text: String, inAttribute: Bool) -> String {
        // Most text has nothing to escape: written as it is.
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0xEF }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where inAttribute: out += "&quot;"
            case "\t" where inAttribute: out += "&#9;"
            case "\n" where inAttribute: out += "&#10;"
            case "\r": out += "&#13;"
            case _ where !isXMLCharacter(scalar): continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `text` without what XML 1.0 cannot hold, even as a character reference: the C0 control
    /// characters other than tab, line feed and carriage return, and U+FFFE and U+FFFF (a
    /// parser refuses the document).
    package static func xmlCharacters(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0xEF }) else { return text }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: text.unicodeScalars.filter(isXMLCharacter))
        return String(out)
    }

    /// Whether XML 1.0's `Char` production takes `scalar` (Swift's scalars are never surrogates).
    static func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: true
        case 0..<0x20, 0xFFFE, 0xFFFF: false
        default: true
        }
    }
}
