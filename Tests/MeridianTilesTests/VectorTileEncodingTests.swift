import Testing
@testable import MeridianTiles
import MeridianTestSupport

/// The layer encoder stores keys and values by their bytes in a table of its own, in reused
/// buffers: its tiles must be byte for byte those of the plain encoder it replaced (a
/// `Dictionary` per table, an array per feature), kept here as the reference, on random
/// layers whose keys and values repeat within and across features.
@Suite struct VectorTileEncodingTests {
    /// The plain encoder: each key and value looked up in a `Dictionary`, a message per feature.
    static func plainEncoded(_ layer: VectorTile.Layer) -> [UInt8] {
        var keys: [String] = [], keyIndex: [String: Int] = [:]
        var values: [VectorTile.Value] = [], valueIndex: [VectorTile.Value: Int] = [:]
        var features: [[UInt8]] = []
        for feature in layer.features {
            var tags: [UInt64] = []
            for (key, value) in feature.properties {
                let k = keyIndex[key] ?? { keys.append(key); keyIndex[key] = keys.count - 1; return keys.count - 1 }()
                let v = valueIndex[value] ?? { values.append(value); valueIndex[value] = values.count - 1; return values.count - 1 }()
                tags += [UInt64(k), UInt64(v)]
            }
            var message = ProtobufWriter()
            if let id = feature.id { message.varintField(1, id) }
            if !tags.isEmpty { message.packed(2, tags) }
            message.varintField(3, UInt64(feature.type.rawValue))
            message.packed(4, VectorTile.commands(feature.type, feature.parts))
            features.append(message.bytes)
        }
        var out = ProtobufWriter()
        out.varintField(15, 2)
        out.string(1, layer.name)
        for feature in features { out.message(2, feature) }
        for key in keys { out.string(3, key) }
        for value in values {
            var encoded = ProtobufWriter()
            switch value {
            case .string(let s): encoded.string(1, s)
            case .double(let d): encoded.fixed64(3, d.bitPattern)
            case .uint(let u): encoded.varintField(5, u)
            case .sint(let i): encoded.varintField(6, ProtobufWriter.zigzag(i))
            case .bool(let b): encoded.varintField(7, b ? 1 : 0)
            }
            out.message(4, encoded.bytes)
        }
        out.varintField(5, UInt64(layer.extent))
        return out.bytes
    }

    @Test func layersEncodeAsThePlainEncoderEncodesThem() throws {
        var random = SplitMix64(seed: 2026)
        // Keys and texts, short and long, ASCII and not (each in one normal form: the plain
        // encoder merged texts that are canonically equal, the table merges equal bytes).
        let texts = ["", "a", "name", "NAME_ZH", "Österreich", "中华人民共和国", "Россия", "a much longer text than fifteen bytes",
                     "ar", "name_ar", "مصر", "1", "0", "true"]
        let numbers: [VectorTile.Value] = [.double(1.5), .double(-2), .double(1e300), .uint(0), .uint(1), .uint(UInt64.max),
                                           .sint(-1), .sint(Int64.min), .bool(true), .bool(false)]
        for round in 0..<300 {
            var layer = VectorTile.Layer(name: texts[random.below(texts.count)], extent: [256, 4096][random.below(2)])
            let sameKeys = (0..<random.below(20)).map { _ in texts[random.below(texts.count)] }
            for _ in 0..<random.below(8) {
                let keys = random.below(3) == 0 ? (0..<random.below(20)).map { _ in texts[random.below(texts.count)] } : sameKeys
                let properties = keys.map { key -> (key: String, value: VectorTile.Value) in
                    (key, random.below(2) == 0 ? .string(texts[random.below(texts.count)]) : numbers[random.below(numbers.count)])
                }
                let type = [VectorTile.GeometryType.point, .lineString, .polygon][random.below(3)]
                let parts = (0..<random.below(3)).map { _ in
                    (0..<random.below(6)).map { _ in SIMD2<Int32>(Int32(random.below(9000)) - 500, Int32(random.below(9000)) - 500) }
                }
                layer.features.append(VectorTile.Feature(id: random.below(2) == 0 ? nil : UInt64(random.below(1000)),
                                                         type: type, parts: parts, properties: properties))
            }
            #expect(layer.encoded() == Self.plainEncoded(layer), "round \(round)")
        }
    }

    /// A tiler's features carry their properties as a block's reader encodes them once
    /// (``TileAttributes``: from the spill's bytes, texts never made `String`s): their layers must
    /// be byte for byte the plain encoder's of the same properties given as values, the
    /// properties must decode back to those values, and the bytes a tile may take for them
    /// (``TileAttributes/mostBytes``) must be the bound the tiler counts.
    @Test func propertiesEncodedOnceForEveryTileEncodeAsGivenOnes() throws {
        var random = SplitMix64(seed: 32)
        let texts = ["", "a", "name", "Österreich", "中华人民共和国", "مصر", "a much longer text than fifteen bytes", "1", "true"]
        let numbers: [VectorTile.Value] = [.double(1.5), .double(-0.0), .double(1e300), .uint(0), .uint(127), .uint(128), .uint(UInt64.max),
                                           .sint(-1), .sint(-64), .sint(-65), .sint(Int64.min), .bool(true), .bool(false)]
        for round in 0..<300 {
            var given = VectorTile.Layer(name: "l")
            var encoded = given
            let sameKeys = (0..<random.below(12)).map { _ in texts[random.below(texts.count)] }
            for _ in 0..<random.below(8) {
                let keys = random.below(3) == 0 ? (0..<random.below(12)).map { _ in texts[random.below(texts.count)] } : sameKeys
                let properties = keys.map { key -> (key: String, value: VectorTile.Value) in
                    (key, random.below(2) == 0 ? .string(texts[random.below(texts.count)]) : numbers[random.below(numbers.count)])
                }
                let id: UInt64? = random.below(2) == 0 ? nil : UInt64(random.below(1000))
                let parts = [[SIMD2<Int32>(Int32(random.below(4096)), Int32(random.below(4096)))]]
                given.features.append(VectorTile.Feature(id: id, type: .point, parts: parts, properties: properties))

                var record = RecordWriter()
                TileAttributes.write(id: id, properties: properties, to: &record)
                let attributes = record.bytes.withUnsafeBytes { bytes in
                    var reader = RecordReader(bytes)
                    return TileAttributes(&reader)
                }
                #expect(attributes.id == id)
                #expect(attributes.properties.decoded.map(\.key) == properties.map(\.key))
                #expect(attributes.properties.decoded.map(\.value) == properties.map(\.value))
                let mostBytes = properties.reduce(id == nil ? 0 : 10) { total, property in
                    let value = switch property.value {
                    case .string(let s): s.utf8.count + 5
                    case .double: 9
                    case .uint, .sint: 11
                    case .bool: 2
                    }
                    return total + property.key.utf8.count + 5 + value + VectorTiler.bytesPerPropertyBeyondItsText
                }
                #expect(attributes.mostBytes == mostBytes)
                encoded.features.append(VectorTile.Feature(id: id, type: .point, parts: parts, encodedProperties: attributes.properties))
            }
            #expect(encoded.encoded() == Self.plainEncoded(given), "round \(round)")
            #expect(encoded.encoded() == given.encoded(), "round \(round)")
            #expect(encoded == given, "round \(round)")
        }
    }
}
