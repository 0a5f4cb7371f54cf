import CExpat
import MeridianCore

/// What an `XMLEventParser` reports, in document order.
protocol XMLEventHandler: AnyObject {
    /// An element opens. `attributes` alternate name, value, …, ending with nil.
    func startElement(_ name: UnsafePointer<CChar>, attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>)
    func endElement(_ name: UnsafePointer<CChar>)
    /// Character data, in pieces of any size (expat splits text at buffer ends and entities).
    func characters(_ text: UnsafeBufferPointer<UInt8>)
    /// A CDATA section opens or closes (its text arrives through `characters`).
    func cdata(starts: Bool)
}

/// expat, set up for files from strangers, driven chunk by chunk from a `BufferedInput`.
///
/// - No external entity or DTD is ever read (no handler is installed for them, and parameter
///   entities are off), and any entity declaration stops the parse: KML needs none, and
///   declarations are how billion-laughs and quadratic-blowup attacks start.
/// - The encodings expat knows (UTF-8, UTF-16, ISO-8859-1, US-ASCII) plus Windows-1252,
///   which real KML declares and expat does not know, through an encoding handler.
/// - Errors carry expat's line and column (made 1-based). UTF-16 is checked by Meridian first
///   (UTF16Check), since expat's versions disagree on broken UTF-16.
final class XMLEventParser {
    // State touched on every element is marked @exclusivity(unchecked): one thread uses it, and the
    // run-time access checks cost about 5% of reading a large KML file.

    private let parser: OpaquePointer
    /// Owned by the parser, so it is borrowed on every callback; an unowned reference would be
    /// retained and released on each (atomic operations, a tenth of the reading thread). The
    /// handler must not own the parser in turn (it holds it `Unmanaged`, as its reader owns both).
    private let handler: any XMLEventHandler
    let name: String
    /// Set by a callback that must stop the parse; thrown after `XML_Parse` returns.
    @exclusivity(unchecked) private var callbackError: MeridianError?
    /// Bytes of text since the last tag: a text node larger than `BufferedInput.maximumTokenSize`
    /// is refused, as a JSON string is, before the readers' copies of it exhaust memory.
    @exclusivity(unchecked) private var textRun = 0
    /// How deep elements may nest: the readers build and free element trees recursively, so a
    /// document nested deeper than any real one is refused before it can exhaust the stack.
    private let maximumDepth: Int
    /// The depth of the element being started or ended (1 for the root).
    @exclusivity(unchecked) private(set) var depth = 0

    init(name: String, handler: any XMLEventHandler, maximumDepth: Int) {
        self.name = name
        self.handler = handler
        self.maximumDepth = maximumDepth
        var memory = ExpatMemory.suite
        parser = XML_ParserCreate_MM(nil, &memory, nil)
        let me = Unmanaged.passUnretained(self).toOpaque()
        XML_SetUserData(parser, me)
        XML_SetParamEntityParsing(parser, XML_PARAM_ENTITY_PARSING_NEVER)
        // The callbacks borrow the parser (`_withUnsafeGuaranteedRef`): it outlives the parse,
        // and taking a reference would be an atomic retain and release per event.
        XML_SetElementHandler(parser, { data, name, attributes in
            guard let data, let name, let attributes else { return }
            Unmanaged<XMLEventParser>.fromOpaque(data)._withUnsafeGuaranteedRef { me in
                me.textRun = 0
                me.depth += 1
                me.whole?.passed(Int(XML_GetCurrentByteIndex(me.parser)))
                guard me.depth <= me.maximumDepth else {
                    me.stop(MeridianError(.badInput, "elements nested more than \(me.maximumDepth) deep", at: me.location,
                                          hint: "real documents nest a few levels; this looks like a crafted file"))
                    return
                }
                me.handler.startElement(name, attributes: attributes)
            }
        }, { data, name in
            guard let data, let name else { return }
            Unmanaged<XMLEventParser>.fromOpaque(data)._withUnsafeGuaranteedRef { me in
                me.textRun = 0
                me.handler.endElement(name)
                me.depth -= 1
            }
        })
        XML_SetCharacterDataHandler(parser) { data, text, length in
            guard let data, let text, length > 0 else { return }
            Unmanaged<XMLEventParser>.fromOpaque(data)._withUnsafeGuaranteedRef { me in
                me.textRun += Int(length)
                guard me.textRun <= BufferedInput.maximumTokenSize else {
                    me.stop(MeridianError(.badInput, "a text node is larger than \(BufferedInput.maximumTokenSize >> 20) MiB", at: me.location))
                    return
                }
                let bytes = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
                me.handler.characters(UnsafeBufferPointer(start: bytes, count: Int(length)))
                // A large text node (a country's coordinates) is copied now: its pages can go.
                if let end = me.whole?.endOffset(of: bytes, length: Int(length)) { me.whole?.passed(end) }
            }
        }
        XML_SetCdataSectionHandler(parser, { data in
            guard let data else { return }
            Unmanaged<XMLEventParser>.fromOpaque(data)._withUnsafeGuaranteedRef { $0.handler.cdata(starts: true) }
        }, { data in
            guard let data else { return }
            Unmanaged<XMLEventParser>.fromOpaque(data)._withUnsafeGuaranteedRef { $0.handler.cdata(starts: false) }
        })
        XML_SetEntityDeclHandler(parser) { data, entityName, _, _, _, _, _, _, _ in
            guard let data else { return }
            let me = Unmanaged<XMLEventParser>.fromOpaque(data).takeUnretainedValue()
            let entity = entityName.map { String(cString: $0) } ?? "?"
            me.stop(MeridianError(.badInput, "the document declares the entity \"\(entity)\"; Meridian reads no entity declarations",
                                  at: me.location, hint: "KML needs no DTD or entities; entity declarations are how XML bombs work"))
        }
        XML_SetUnknownEncodingHandler(parser, { _, encodingName, info in
            // expat's contract: 1 when the encoding is filled in, 0 when it is unknown.
            guard let encodingName, let info else { return 0 }
            return XMLEncodings.fill(info, for: String(cString: encodingName)) ? 1 : 0
        }, nil)
    }

    deinit { XML_ParserFree(parser) }

    /// The line the parser is on (1-based): cheaper than `location`, for every element.
    var line: Int {
        whole?.lines.line(at: Int(XML_GetCurrentByteIndex(parser))) ?? Int(XML_GetCurrentLineNumber(parser))
    }

    /// A document expat parses in one call (`parseAll`): its bytes, its lines as Meridian counts
    /// them (expat keeps no position in a one-call parse), and, when the bytes are the file
    /// mapped, how far its pages have been given back.
    private struct WholeDocument {
        let bytes: UnsafeBufferPointer<UInt8>
        var lines: LineCounter
        let mapped: Bool
        /// Bytes before this have been given back to the system.
        var released = 0
        /// How far the parse moves between two releases of the pages behind it.
        static let releaseStride = 1 << 20

        init(_ bytes: UnsafeBufferPointer<UInt8>, mapped: Bool) {
            self.bytes = bytes
            lines = LineCounter(bytes)
            self.mapped = mapped
        }

        /// Where text expat passes ends in the document; nil for text that is not in it (a
        /// character reference, a line break expat hands over on its own).
        func endOffset(of text: UnsafePointer<UInt8>, length: Int) -> Int? {
            guard let base = bytes.baseAddress, text >= base, text - base + length <= bytes.count else { return nil }
            return text - base + length
        }

        /// The parse has passed `offset`: its lines are counted up to there, and every
        /// `releaseStride` bytes the pages before it are given back (after the count, which would
        /// read them in again). Each release reaches `releaseStride * 4` back over the last one: a
        /// fault maps the pages around it, before it too (a whole large folio of the page cache),
        /// so pages just given back come in again as the parse goes on past them.
        mutating func passed(_ offset: Int) {
            _ = lines.line(at: offset)
            guard mapped, offset - released >= Self.releaseStride, let base = bytes.baseAddress else { return }
            ExpatMemory.releasePages(of: UnsafeMutableRawPointer(mutating: base), from: max(0, released - 4 * Self.releaseStride),
                                     before: offset)
            released = offset
        }
    }

    @exclusivity(unchecked) private var whole: WholeDocument?

    /// Where the parser is now (1-based line and column).
    var location: SourceLocation {
        SourceLocation(file: name, line: Int(XML_GetCurrentLineNumber(parser)),
                       column: Int(XML_GetCurrentColumnNumber(parser)) + 1)
    }

    /// Stops the parse from inside a callback; `parse` throws `error`.
    func stop(_ error: MeridianError) {
        if callbackError == nil { callbackError = error }
        XML_StopParser(parser, XML_FALSE)
    }

    @exclusivity(unchecked) private var bytesParsed = 0
    /// UTF-16 checked here rather than by expat, whose versions disagree (see UTF16Check).
    @exclusivity(unchecked) private var utf16 = UTF16Check()

    /// Feeds `input` to the parser chunk by chunk until `enough()` says so or the input ends;
    /// returns true once the whole input has been parsed.
    func feed(from input: BufferedInput, until enough: () -> Bool) throws -> Bool {
        while !enough() {
            // Read straight into expat's own buffer (XML_Parse would copy each chunk into it).
            guard let buffer = XML_GetBuffer(parser, Int32(input.chunkSize)) else {
                throw MeridianError(.io, "the XML parser cannot get memory for the next chunk", at: SourceLocation(file: name))
            }
            let count = try input.moveBytes(into: UnsafeMutableRawBufferPointer(start: buffer, count: input.chunkSize))
            let isFinal = count == 0
            try parse(UnsafeBufferPointer(start: buffer.assumingMemoryBound(to: UInt8.self), count: count), isFinal: isFinal)
            if isFinal { return true }
        }
        return false
    }

    /// Regular files from this size on are parsed whole (`parseAll`); below it, whole or in
    /// chunks costs the same.
    static let wholeDocumentMinimum = ExpatMemory.pageBlockSize

    /// Parses all of `input`: a regular file of `wholeDocumentMinimum` bytes or more (up to a
    /// gigabyte, as expat's sizes are `int`) in one call, mapped into expat's buffer (see
    /// `ExpatMemory`), anything else chunk by chunk, UTF-16 too (its check goes chunk by chunk,
    /// as expat's parse does). A mapped file cut short by another program while it is parsed
    /// ends the process with SIGBUS, as with any reader that maps its input.
    func parseAll(from input: BufferedInput, wholeDocumentMinimum: Int = XMLEventParser.wholeDocumentMinimum) throws {
        guard let (descriptor, size) = input.unreadRegularFile, size > 0, size >= wholeDocumentMinimum, size <= 1 << 30,
              !UTF16Check.isUTF16(try input.peek(2)), let buffer = XML_GetBuffer(parser, Int32(size)) else {
            _ = try feed(from: input) { false }
            return
        }
        var count = size
        let mapped = ExpatMemory.mapFile(descriptor, size: size, into: buffer)
        if !mapped {
            // Not one of ExpatMemory's mapped blocks (a small document, or an expat that lays out
            // its buffer otherwise): the file is read into it.
            count = 0
            while count < size {
                let n = try input.moveBytes(into: UnsafeMutableRawBufferPointer(start: buffer + count, count: size - count))
                if n == 0 { break }
                count += n
            }
        }
        let bytes = UnsafeBufferPointer(UnsafeMutableRawBufferPointer(start: buffer, count: count).bindMemory(to: UInt8.self))
        whole = WholeDocument(bytes, mapped: mapped)
        try parse(bytes, isFinal: true)
    }

    /// Parses the chunk just read into expat's buffer (`XML_GetBuffer`); `isFinal` at the end.
    private func parse(_ chunk: UnsafeBufferPointer<UInt8>, isFinal: Bool) throws {
        if let problem = utf16.check(chunk, isFinal: isFinal) {
            throw MeridianError(.badInput, problem.message, at: SourceLocation(file: name, line: problem.line, column: problem.column),
                                hint: problem.hint)
        }
        bytesParsed += chunk.count
        let status = XML_ParseBuffer(parser, Int32(chunk.count), isFinal ? 1 : 0)
        if let callbackError { throw callbackError }
        guard status != XML_STATUS_ERROR else {
            let code = XML_GetErrorCode(parser)
            var message = String(cString: XML_ErrorString(code))
            var hint: String?
            switch code {
            case XML_ERROR_NO_ELEMENTS:
                message = bytesParsed == 0 ? "the input is empty" : "the input ends before the document is complete"
            case XML_ERROR_UNCLOSED_TOKEN, XML_ERROR_UNCLOSED_CDATA_SECTION:
                hint = "the file may be truncated"
            case XML_ERROR_UNKNOWN_ENCODING, XML_ERROR_INCORRECT_ENCODING:
                hint = "convert the file to UTF-8 with iconv first"
            case XML_ERROR_INVALID_TOKEN:
                hint = "not well-formed XML: a stray '<' or '&', or bytes not in the declared encoding"
            default: break
            }
            if code == XML_ERROR_NO_ELEMENTS || code == XML_ERROR_UNCLOSED_TOKEN, isFinal {
                hint = hint ?? "the file may be truncated"
            }
            throw MeridianError(.badInput, message, at: location, hint: hint)
        }
    }
}

/// Single-byte encodings expat does not know itself.
enum XMLEncodings {
    /// Windows-1252's code points for bytes 0x80–0x9F (the rest equal ISO-8859-1).
    static let windows1252High: [Int32] = [
        0x20AC, -1, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, -1, 0x017D, -1,
        -1, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, -1, 0x017E, 0x0178,
    ]

    static func fill(_ info: UnsafeMutablePointer<XML_Encoding>, for name: String) -> Bool {
        switch name.uppercased() {
        case "WINDOWS-1252", "CP1252", "X-CP1252":
            withUnsafeMutableBytes(of: &info.pointee.map) { raw in
                let map = raw.bindMemory(to: Int32.self)
                for byte in 0..<256 {
                    map[byte] = (0x80...0x9F).contains(byte) ? windows1252High[byte - 0x80] : Int32(byte)
                }
            }
            info.pointee.data = nil
            info.pointee.convert = nil
            info.pointee.release = nil
            return true
        default:
            return false
        }
    }
}
