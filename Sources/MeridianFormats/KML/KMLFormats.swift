extension FeatureFormat {
    /// KML 2.2 (with Google's gx extensions), read streaming on expat. Coordinates are always
    /// written exactly, so it takes no precision.
    public static let kml = FeatureFormat(
        id: "kml", displayName: "KML", extensions: ["kml"], mediaType: "application/vnd.google-earth.kml+xml",
        hasLayers: true, needsGeographicCoordinates: true, keepsPositionData: true,
        sniff: { bytes in
            // UTF-8 text starting with '<', or UTF-16 with a byte-order mark, naming KML early on.
            let isUTF16 = bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF])
            guard bytes.first == UInt8(ascii: "<") || isUTF16 else { return false }
            let ascii = String(decoding: bytes.prefix(2048).filter { $0 != 0 }, as: UTF8.self).lowercased()
            return ascii.contains("<kml") || ascii.contains("opengis.net/kml") || ascii.contains("earth.google.com/kml")
                || ascii.contains("<placemark") || ascii.contains("<document")
        },
        reader: { input, options in KMLReader(input: input, options: options.kml, readOptions: options) },
        writer: { sink, options in try KMLWriter(sink: sink, options: options) }
    )

    /// KMZ: a zip archive with a KML document inside.
    public static let kmz = FeatureFormat(
        id: "kmz", displayName: "KMZ", extensions: ["kmz"], mediaType: "application/vnd.google-earth.kmz",
        isBinary: true, hasLayers: true, needsGeographicCoordinates: true, keepsPositionData: true,
        sniff: { $0.starts(with: [0x50, 0x4B, 0x03, 0x04]) },
        reader: { input, options in try KMZReader(input: input, options: options) },
        writer: { sink, options in try KMZWriter(sink: sink, options: options) }
    )
}
