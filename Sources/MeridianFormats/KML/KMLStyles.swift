import MeridianGeometry

/// KML styles as simplestyle-spec properties, with placemark/togeojson v7's names and values.
enum KMLStyles {
    /// The simplestyle properties of a Style element, or of a Placemark's inline style: the first
    /// PolyStyle, LineStyle, LabelStyle and IconStyle inside `element`, merged in that order, so a
    /// LineStyle colour's opacity wins over PolyStyle `<outline>0</outline>` (as in togeojson).
    static func properties(of element: XMLElement) -> JSONObject {
        var out = JSONObject()
        if let poly = element.descendant("PolyStyle") {
            if let color = poly.child("color") { addColor(color.textContent, prefix: "fill", to: &out) }
            if poly.child("fill")?.textContent == "0" { out["fill-opacity"] = .integer(0) }
            if poly.child("outline")?.textContent == "0" { out["stroke-opacity"] = .integer(0) }
        }
        if let line = element.descendant("LineStyle") {
            if let color = line.child("color") { addColor(color.textContent, prefix: "stroke", to: &out) }
            if let width = line.child("width").flatMap({ JSNumber.parseFloat($0.textContent) }) {
                out["stroke-width"] = JSNumber.value(width)
            }
        }
        if let label = element.descendant("LabelStyle") {
            if let color = label.child("color") { addColor(color.textContent, prefix: "label", to: &out) }
            if let scale = label.child("scale").flatMap({ JSNumber.parseFloat($0.textContent) }) {
                out["label-scale"] = JSNumber.value(scale)
            }
        }
        if let icon = element.descendant("IconStyle") {
            if let color = icon.child("color") { addColor(color.textContent, prefix: "icon", to: &out) }
            if let scale = icon.child("scale").flatMap({ JSNumber.parseFloat($0.textContent) }) {
                out["icon-scale"] = JSNumber.value(scale)
            }
            if let heading = icon.child("heading").flatMap({ JSNumber.parseFloat($0.textContent) }) {
                out["icon-heading"] = JSNumber.value(heading)
            }
            if let hotSpot = icon.child("hotSpot"),
               let x = hotSpot.attributes["x"].flatMap(JSNumber.parseFloat),
               let y = hotSpot.attributes["y"].flatMap(JSNumber.parseFloat) {
                out["icon-offset"] = .array([JSNumber.value(x), JSNumber.value(y)])
                out["icon-offset-units"] = .array([.string(hotSpot.attributes["xunits"] ?? ""),
                                                   .string(hotSpot.attributes["yunits"] ?? "")])
            }
            if let href = icon.child("Icon")?.child("href")?.textContent, !href.isEmpty {
                out["icon"] = .string(href)
            }
        }
        return out
    }

    /// KML colours are `aabbggrr`: becomes `#rrggbb` plus an opacity (alpha / 255, unrounded).
    /// Six- and three-digit colours (not KML, but written by some tools) are kept as they are.
    static func addColor(_ raw: String, prefix: String, to out: inout JSONObject) {
        var value = Substring(raw)
        if value.hasPrefix("#") { value = value.dropFirst() }
        let key = prefix == "stroke" || prefix == "fill" ? prefix : prefix + "-color"
        switch value.count {
        case 6, 3:
            out[key] = .string("#" + value)
        case 8:
            let digits = Array(value)
            guard let alpha = Int(String(digits[0...1]), radix: 16) else { return }
            out[prefix + "-opacity"] = JSNumber.value(Double(alpha) / 255)
            out[key] = .string("#" + String(digits[6...7]) + String(digits[4...5]) + String(digits[2...3]))
        default:
            return
        }
    }

    /// The reverse, for the KML writer: `#rrggbb` and an opacity to `aabbggrr`.
    static func kmlColor(_ css: String, opacity: Double?) -> String? {
        var hex = Substring(css)
        if hex.hasPrefix("#") { hex = hex.dropFirst() }
        if hex.count == 3 { hex = Substring(hex.map { "\($0)\($0)" }.joined()) }
        guard hex.count == 6, hex.allSatisfy(\.isHexDigit) else { return nil }
        let alpha = Int(((opacity ?? 1).clamped(to: 0...1) * 255).rounded())
        let a = String(alpha, radix: 16)
        let chars = Array(hex.lowercased())
        return (a.count == 1 ? "0" + a : a) + String(chars[4...5]) + String(chars[2...3]) + String(chars[0...1])
    }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}

/// JavaScript's number conversions, which togeojson's output depends on.
enum JSNumber {
    /// `parseFloat`: leading white space skipped, then the longest decimal prefix; nil for NaN.
    static func parseFloat(_ text: String) -> Double? {
        // Native strings are contiguous UTF-8: read in place, without a copy per value.
        if let value = text.utf8.withContiguousStorageIfAvailable(parseFloat) { return value }
        return Array(text.utf8).withUnsafeBufferPointer(parseFloat)
    }

    private static func parseFloat(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
        let start = i
        if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
        var digits = 0
        while i < bytes.count, (bytes[i] &- 0x30) < 10 { i += 1; digits += 1 }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < bytes.count, (bytes[i] &- 0x30) < 10 { i += 1; digits += 1 }
        }
        guard digits > 0 else { return nil }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            var j = i + 1
            if j < bytes.count, bytes[j] == UInt8(ascii: "+") || bytes[j] == UInt8(ascii: "-") { j += 1 }
            let exponentStart = j
            while j < bytes.count, (bytes[j] &- 0x30) < 10 { j += 1 }
            if j > exponentStart { i = j }
        }
        return KMLCoordinates.number(UnsafeBufferPointer(rebasing: bytes[start..<i]))
    }

    /// A number as JSON should carry it: integral values as integers (JavaScript prints `1`,
    /// not `1.0`), others as doubles.
    static func value(_ d: Double) -> JSONValue {
        if d == d.rounded(), abs(d) < 1e15, !(d == 0 && d.sign == .minus) { return .integer(Int64(d)) }
        return .double(d)
    }
}
