import Foundation
import MeridianCore

/// What a BSB/KAP chart's compressed rows hold, read by Meridian before GDAL decodes them.
///
/// GDAL's BSB driver takes the header's `RA=width,height` as it stands: it keeps a buffer of
/// `width` bytes for every row it decodes, and when a row's runs give fewer pixels than the
/// width it goes on decoding the bytes after it (the next rows, the index table) until the
/// buffer is full. A header claiming a width of 2,000,000,000 over a 2,521-pixel chart made
/// GDAL take 2 GB and six minutes for ten rows. So each of the `height` rows is decoded here
/// (run lengths only, no pixels kept) and must give at least `width` pixels, and no side may
/// pass ``maximumSide``; GDAL itself checks the bits per pixel, the palette's indices and the
/// index table (which it drops when it does not fit, reading the rows in order as here).
struct BSBChartRows {
    /// The most pixels a chart's side may have: over 80 times the widest NOAA chart (12,948 of
    /// 19350_1), and a row buffer of one megabyte in GDAL. A single run can stand for any
    /// number of pixels, so the rows' bytes alone do not bound the width.
    static let maximumSide = 1 << 20

    /// Why a chart's rows cannot be what its header says.
    enum Problem: Error, Equatable {
        /// A side over ``maximumSide``.
        case sideTooLarge(width: Int, height: Int)
        /// No `0x1A 0x00` and bits-per-pixel byte after the text header.
        case noImageData
        /// The rows end (the file ends) before row `row` (counted from 1) is whole.
        case rowsEnd(row: Int)
        /// Row `row` (counted from 1) gives `pixels` pixels of the `width` the header claims.
        case shortRow(row: Int, pixels: Int, width: Int)
    }

    /// Checks the chart's bytes against the `width` and `height` its header claims.
    static func check(_ bytes: Data, width: Int, height: Int) -> Problem? {
        guard width > 0, height > 0, width <= maximumSide, height <= maximumSide else {
            return .sideTooLarge(width: width, height: height)
        }
        return bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Problem? in
            let data = raw.bindMemory(to: UInt8.self)
            guard let (start, bitsPerPixel) = imageData(data) else { return .noImageData }
            let rows = RowDecoder(data: data, countMask: (1 << (7 - bitsPerPixel)) - 1, width: width)
            // The rows in order, as GDAL reads them when the index table does not fit.
            var position = start
            for row in 1...height {
                switch rows.decode(row: row, at: position) {
                case .failure(let problem): return problem
                case .success(let decoded): position = decoded.end
                }
            }
            // The rows where the index table says, when it lies where GDAL takes it from:
            // its offset in the last four bytes, big-endian, `height` offsets before them.
            let count = data.count
            guard count >= 4 else { return nil }
            let table = (0..<4).reduce(0) { $0 << 8 | Int(data[count - 4 + $1]) }
            guard table > start, table + 4 * height <= count - 4 else { return nil }
            var previous = start
            for row in 1...height {
                let entry = table + 4 * (row - 1)
                let offset = (0..<4).reduce(0) { $0 << 8 | Int(data[entry + $1]) }
                // GDAL drops a table whose offsets go back or fall outside the rows, or lead to
                // a row of another number (it counts rows from 0 or from 1).
                guard offset >= previous, offset < table else { return nil }
                previous = offset
                switch rows.decode(row: row, at: offset) {
                case .success(let decoded) where decoded.number != row && decoded.number != row - 1: return nil
                case .success: continue
                case .failure(.shortRow(let row, let pixels, let width)):
                    // A short row read where GDAL takes it counts only if GDAL takes it there.
                    guard case .success(let number)? = rows.number(at: offset), number == row || number == row - 1 else { return nil }
                    return .shortRow(row: row, pixels: pixels, width: width)
                case .failure(let problem): return problem
                }
            }
            return nil
        }
    }

    /// Decodes one row's run lengths.
    private struct RowDecoder {
        let data: UnsafeBufferPointer<UInt8>
        /// The bits of a run's first byte that count pixels (below the colour's).
        let countMask: Int
        let width: Int

        /// The number a row starting at `start` gives itself, nil when the file ends first.
        func number(at start: Int) -> Result<Int, Problem>? {
            switch decode(row: Int.max, at: start, countingRuns: false) {
            case .success(let decoded): .success(decoded.number)
            case .failure: nil
            }
        }

        /// The row starting at `start`: the number it gives itself and where it ends, or why
        /// it cannot be row `row` of `width` pixels.
        func decode(row: Int, at start: Int, countingRuns: Bool = true) -> Result<(number: Int, end: Int), Problem> {
            var position = start
            /// The next byte, or nil at the end of the file.
            func next() -> Int? {
                guard position < data.count else { return nil }
                defer { position += 1 }
                return Int(data[position])
            }
            // The row's number: 7 bits a byte, the high bit saying more follow. Some files
            // put extra zeros before it, which GDAL skips.
            var byte: Int
            repeat { guard let b = next() else { return .failure(.rowsEnd(row: row)) }; byte = b } while byte == 0 && row > 1
            var number = byte & 0x7F
            while byte & 0x80 != 0 {
                guard let b = next() else { return .failure(.rowsEnd(row: row)) }
                byte = b
                number = min(Int(Int32.max), number * 128 + (byte & 0x7F))
            }
            guard countingRuns else { return .success((number, position)) }
            // Runs up to a zero byte: a colour and a count in the first byte, more count bits
            // in each byte with its high bit set; a run stands for count + 1 pixels.
            var pixels = 0
            while true {
                guard let first = next() else { return .failure(.rowsEnd(row: row)) }
                if first == 0 { break }
                var count = first & countMask
                byte = first
                while byte & 0x80 != 0 {
                    guard let b = next() else { return .failure(.rowsEnd(row: row)) }
                    byte = b
                    // Saturates at the width: a longer run fills the row all the same.
                    count = min(width, count * 128 + (byte & 0x7F))
                }
                pixels = min(width, pixels + count + 1)
            }
            return pixels < width ? .failure(.shortRow(row: row, pixels: pixels, width: width)) : .success((number, position))
        }
    }

    /// Where the compressed rows start and the bits a pixel's colour takes, found as GDAL does:
    /// after the first `0x1A` the bytes `0x1A 0x00` within 100 bytes, then a byte from 1 to 7
    /// (or its ASCII digit when junk was skipped, as some USGS charts have).
    private static func imageData(_ data: UnsafeBufferPointer<UInt8>) -> (start: Int, bitsPerPixel: Int)? {
        guard let firstEnd = data.firstIndex(of: 0x1A) else { return nil }
        var at = firstEnd
        while at + 2 < data.count, at - firstEnd < 100 {
            if data[at] == 0x1A && data[at + 1] == 0x00 {
                var bits = Int(data[at + 2])
                if at > firstEnd, (0x31...0x38).contains(bits) { bits -= 0x30 }
                guard (1...7).contains(bits) else { return nil }
                return (at + 3, bits)
            }
            at += 1
        }
        return nil
    }
}
