import MeridianCore
import MeridianGeometry

/// Writes JSON text into an `OutputSink`, compact or indented, with exact numbers.
///
/// Structure is written through `openObject`/`key`/`closeObject` (and the array twins), which
/// place commas, line breaks and indentation, so callers never handle separators themselves.
final class JSONEmitter {
    let sink: OutputSink
    let pretty: Bool
    /// One open object or array.
    private struct Frame {
        var hasElement = false
        /// Compact mode still puts each element on its own line (a collection's features).
        var linePerElement = false
    }
    @exclusivity(unchecked) private var frames: [Frame] = []
    /// Containers from this depth on are written on one line even when pretty (positions).
    @exclusivity(unchecked) private var inlineFromDepth = Int.max

    init(sink: OutputSink, pretty: Bool) {
        self.sink = sink
        self.pretty = pretty
    }

    var depth: Int { frames.count }

    // MARK: Structure

    func openObject() {
        beforeValue()
        sink.write(byte: UInt8(ascii: "{"))
        frames.append(Frame())
    }

    func closeObject() { close(UInt8(ascii: "}")) }

    /// Opens an array. `inline` keeps it (and everything in it) on one line in pretty mode;
    /// `linePerElement` puts each element on its own line in compact mode.
    func openArray(inline: Bool = false, linePerElement: Bool = false) {
        beforeValue()
        sink.write(byte: UInt8(ascii: "["))
        frames.append(Frame(linePerElement: linePerElement))
        if inline && inlineFromDepth == .max { inlineFromDepth = depth }
    }

    func closeArray() { close(UInt8(ascii: "]")) }

    /// Writes a member name; the member's value must follow.
    func key(_ name: String) {
        separator()
        writeString(name)
        if pretty {
            sink.write(": " as StaticString)
        } else {
            sink.write(byte: UInt8(ascii: ":"))
        }
        pendingValueAfterKey = true
    }

    /// Writes `"name": value` for a JSON value.
    func member(_ name: String, _ value: JSONValue) {
        key(name)
        self.value(value)
    }

    @exclusivity(unchecked) private var pendingValueAfterKey = false

    /// Called before every value: a value directly after `key` needs no separator.
    private func beforeValue() {
        if pendingValueAfterKey {
            pendingValueAfterKey = false
        } else if !frames.isEmpty {
            separator()
        }
    }

    /// A comma before all but the first element, then a line break and indentation when pretty.
    private func separator() {
        guard let frame = frames.last else { return }
        if frame.hasElement {
            sink.write(byte: UInt8(ascii: ","))
            if pretty && depth >= inlineFromDepth { sink.write(byte: UInt8(ascii: " ")) }
        }
        frames[frames.count - 1].hasElement = true
        if !pretty && frame.linePerElement { sink.write(byte: 0x0A) }
        newline(indent: depth)
    }

    private func close(_ bracket: UInt8) {
        let wasInline = depth >= inlineFromDepth
        let frame = frames.removeLast()
        if depth + 1 == inlineFromDepth { inlineFromDepth = .max }
        if frame.hasElement && !wasInline { newline(indent: depth) }
        if frame.hasElement && !pretty && frame.linePerElement { sink.write(byte: 0x0A) }
        sink.write(byte: bracket)
    }

    /// A line break and indentation in pretty mode, outside inline containers.
    func newline(indent: Int) {
        guard pretty, depth < inlineFromDepth else { return }
        sink.write(byte: 0x0A)
        for _ in 0..<indent { sink.write("  " as StaticString) }
    }

    // MARK: Values

    func value(_ value: JSONValue) {
        switch value {
        case .null: scalar("null")
        case .bool(let b): scalar(b ? "true" : "false")
        case .integer(let i):
            beforeValue()
            writeInteger(i)
        case .double(let d) where !d.isFinite:
            // JSON has no NaN or infinity (a GDAL field, a vector tile's value can hold one):
            // null, as JavaScript's JSON.stringify writes them, and never text no reader takes.
            scalar("null")
        case .double(let d):
            beforeValue()
            writeDouble(d)
        case .string(let s):
            beforeValue()
            writeString(s)
        case .array(let elements):
            // Arrays of numbers and strings stay on one line when indented.
            openArray(inline: elements.allSatisfy { $0.arrayValue == nil && $0.objectValue == nil })
            for element in elements { self.value(element) }
            closeArray()
        case .object(let members):
            openObject()
            for (name, member) in members { self.member(name, member) }
            closeObject()
        }
    }

    func scalar(_ text: StaticString) {
        beforeValue()
        sink.write(text)
    }

    func string(_ s: String) {
        beforeValue()
        writeString(s)
    }

    /// A coordinate: the shortest text that reads back to the same double (integral values
    /// keep their ".0", as ogr2ogr and Python write them); or rounded to `precision` decimals.
    func coordinate(_ d: Double, precision: Int?) {
        beforeValue()
        writeCoordinate(d, precision: precision)
    }

    /// Writes a position as an array of two or three numbers (on one line when pretty).
    func position(_ p: Position, precision: Int?) {
        openArray(inline: true)
        coordinate(p.longitude, precision: precision)
        coordinate(p.latitude, precision: precision)
        if let altitude = p.altitude { coordinate(altitude, precision: precision) }
        closeArray()
    }

    /// Writes a list of positions as an array of arrays. In compact mode the bytes go straight
    /// out (`[[x,y],[x,y,z]]`: positions are almost all of a file, and a frame opened and closed
    /// for each one was a fifth of the writing); pretty mode goes element by element.
    func positions(_ list: [Position], precision: Int?) {
        openArray()
        if pretty {
            for p in list { position(p, precision: precision) }
        } else if precision == nil {
            for (i, p) in list.enumerated() { sink.writeShortestPosition(p, first: i == 0) }
        } else {
            for (i, p) in list.enumerated() {
                sink.write(i == 0 ? "[" as StaticString : ",[" as StaticString)
                sink.writeCoordinate(p.longitude, precision: precision)
                sink.write(byte: UInt8(ascii: ","))
                sink.writeCoordinate(p.latitude, precision: precision)
                if let altitude = p.altitude {
                    sink.write(byte: UInt8(ascii: ","))
                    sink.writeCoordinate(altitude, precision: precision)
                }
                sink.write(byte: UInt8(ascii: "]"))
            }
        }
        closeArray()
    }

    // MARK: Scalars

    /// A JSON string, escaping only what JSON requires (quotes, backslashes, control characters).
    func writeString(_ string: String) {
        var string = string
        string.withUTF8 { bytes in
            sink.write(byte: UInt8(ascii: "\""))
            var runStart = 0
            for i in 0..<bytes.count {
                let c = bytes[i]
                guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") else { continue }
                sink.write(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[runStart..<i]))
                runStart = i + 1
                switch c {
                case UInt8(ascii: "\""): sink.write("\\\"" as StaticString)
                case UInt8(ascii: "\\"): sink.write("\\\\" as StaticString)
                case 0x0A: sink.write("\\n" as StaticString)
                case 0x0D: sink.write("\\r" as StaticString)
                case 0x09: sink.write("\\t" as StaticString)
                case 0x08: sink.write("\\b" as StaticString)
                case 0x0C: sink.write("\\f" as StaticString)
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    sink.write("\\u00" as StaticString)
                    sink.write(byte: hex[Int(c >> 4)])
                    sink.write(byte: hex[Int(c & 0xF)])
                }
            }
            sink.write(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[runStart...]))
            sink.write(byte: UInt8(ascii: "\""))
        }
    }

    func writeInteger(_ value: Int64) {
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var n = 20
            repeat {
                n -= 1
                digits[n] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 { sink.write(byte: UInt8(ascii: "-")) }
            sink.write(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(digits)[n...]))
        }
    }

    /// A double in Swift's shortest round-trip form (`1.0`, `1e-07`, `-0.0`): valid JSON, and
    /// the `.0` keeps an integral double a double for the next reader.
    func writeDouble(_ value: Double) { sink.writeShortest(value) }

    private func writeCoordinate(_ value: Double, precision: Int?) { sink.writeCoordinate(value, precision: precision) }
}
