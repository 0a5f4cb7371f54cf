import Foundation
import MeridianCore
import MeridianFormats
import MeridianGeometry
import MeridianPicture
import MeridianTestSupport
import Testing

/// The code of the MeridianPicture catalog's article (DrawingAPicture.md).
@Suite struct DocumentationExampleTests {
    @Test func drawingAPictureToAFile() throws {
        try withTemporaryFolderPath { folder in
            let lake = Feature(
                geometry: .polygon(Polygon([[Position(longitude: 8.53, latitude: 47.35), Position(longitude: 8.56, latitude: 47.35),
                                             Position(longitude: 8.56, latitude: 47.37), Position(longitude: 8.53, latitude: 47.35)]])),
                properties: ["name": .string("Lake"), "fill": .string("#0000ff"), "stroke-width": .integer(3)])
            let pier = Feature(geometry: .point(Point(Position(longitude: 8.5405, latitude: 47.3655))),
                               properties: ["name": .string("Pier"), "marker-color": .string("#d00000")])

            var picture = PictureOptions(width: 640, height: 480, scale: 2)
            let options = WriteOptions(formatOptions: picture)

            let target = try OutputTarget.open(folder + "/lake.png")
            try target.commit {
                let writer = try FeatureFormat.png.writer(for: target.sink, options: options)
                try copyFeatures(from: FeatureList([lake, pier]), to: writer)
            }

            let png = try #require(FileManager.default.contents(atPath: folder + "/lake.png")).map { $0 }
            #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            func word(_ at: Int) -> Int { png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
            #expect(word(16) == 1280 && word(20) == 960)

            let shown = MapRect(enclosing: [Position(longitude: 8.50, latitude: 47.34), Position(longitude: 8.60, latitude: 47.40)])
            picture.view = shown

            let viewport = Viewport(showing: shown, width: 640, height: 480)
            let centre = viewport.point(MapPoint(x: shown.midX, y: shown.midY))  // (320, 240)
            let style = OverlayStyle(lake.properties ?? [:])                     // fill #0000ff, stroke 3 points wide
            #expect(abs(centre.x - 320) < 1e-9 && abs(centre.y - 240) < 1e-9)
            #expect(style.fill == RGB(0, 0, 0xFF) && style.strokeWidth == 3)

            let svgTarget = try OutputTarget.open(folder + "/lake.svg")
            try svgTarget.commit {
                let writer = try FeatureFormat.svg.writer(for: svgTarget.sink, options: options)
                try copyFeatures(from: FeatureList([lake, pier]), to: writer)
            }
            let svg = try String(contentsOfFile: folder + "/lake.svg", encoding: .utf8)
            #expect(svg.contains(#"width="640" height="480""#) && svg.contains("<title>Lake</title>"))
        }
    }
}
