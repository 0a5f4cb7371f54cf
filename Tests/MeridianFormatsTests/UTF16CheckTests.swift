import Testing
@testable import MeridianFormats

/// Broken UTF-16 found by Meridian, the same with every expat, wherever chunks split it.
@Suite struct UTF16CheckTests {
    /// `text` as UTF-16 with a byte-order mark, `units` spliced in where `@` stands.
    func document(_ text: String, splice units: [UInt16], bigEndian: Bool = false, byteOrderMark: Bool = true) -> [UInt8] {
        var all: [UInt16] = byteOrderMark ? [0xFEFF] : []
        for scalar in text.utf16 { if scalar == UInt16(UInt8(ascii: "@")) { all += units } else { all.append(scalar) } }
        return all.flatMap { bigEndian ? [UInt8($0 >> 8), UInt8($0 & 0xFF)] : [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    /// The first problem found when `bytes` arrive in chunks of `size`.
    func check(_ bytes: [UInt8], chunkSize size: Int) -> UTF16Check.Problem? {
        var check = UTF16Check()
        var offset = 0
        repeat {
            let end = min(offset + size, bytes.count)
            let problem = bytes[offset..<end].withUnsafeBufferPointer { check.check($0, isFinal: end == bytes.count) }
            if let problem { return problem }
            offset = end
        } while offset < bytes.count
        return nil
    }

    @Test(arguments: [1, 2, 3, 7, 4096])
    func problemsAndTheirPlaces(chunkSize: Int) {
        let xml = "<?xml version=\"1.0\"?>\r\n<a>\n  <b>x@</b></a>\n"
        for bigEndian in [false, true] {
            let lone = check(document(xml, splice: [0xD800, 0x3C], bigEndian: bigEndian), chunkSize: chunkSize)
            #expect(lone?.message == "invalid UTF-16: a lone high surrogate 0xD800" && lone?.line == 3 && lone?.column == 7)
            let low = check(document(xml, splice: [0xDC00], bigEndian: bigEndian), chunkSize: chunkSize)
            #expect(low?.message == "invalid UTF-16: a lone low surrogate 0xDC00" && low?.line == 3 && low?.column == 7)
            #expect(check(document(xml, splice: [0xD83D, 0xDE00], bigEndian: bigEndian), chunkSize: chunkSize) == nil)  // 😀
            let cut = check(Array(document(xml, splice: [], bigEndian: bigEndian).dropLast()), chunkSize: chunkSize)
            #expect(cut?.message.contains("odd number of bytes") == true && cut?.line == 3)  // half of the last line break
            let end = check(document("<a>x</a>@", splice: [0xDBFF], bigEndian: bigEndian), chunkSize: chunkSize)
            #expect(end?.message == "invalid UTF-16: a lone high surrogate 0xDBFF" && end?.column == 9)
        }
        // Without a byte-order mark, by the '<' of the first unit.
        #expect(check(document(xml, splice: [0xDC00], byteOrderMark: false), chunkSize: chunkSize)?.line == 3)
    }

    @Test func otherEncodingsPassUntouched() {
        let utf8 = Array("<a>\u{FFFD} \u{00E9}</a>".utf8) + [0xED, 0xA0, 0x80]  // even CESU-8 surrogates: expat's to judge
        #expect(check(utf8, chunkSize: 5) == nil)
        #expect(check([0x3C], chunkSize: 1) == nil)
        #expect(check([], chunkSize: 1) == nil)
    }
}
