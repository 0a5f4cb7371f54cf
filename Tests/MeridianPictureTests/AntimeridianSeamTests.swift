import CCairo
import Foundation
import MeridianFormats
import MeridianGeometry
@testable import MeridianPicture
import Testing

/// A shape cut at ±180° (as Natural Earth cuts Fiji) is drawn as the shape whole: no line down
/// the antimeridian where its halves meet.
@Suite struct AntimeridianSeamTests {
    static let style = ##"{"fill":"#0000ff","fill-opacity":1}"##
    /// A square from 179°E to 179°W, one ring with continuous longitudes.
    static let ring = #"{"type":"Polygon","coordinates":[[[179,-1],[181,-1],[181,1],[179,1],[179,-1]]]}"#
    /// The same square as two parts cut at 180° (RFC 7946's way).
    static let cut = #"{"type":"MultiPolygon","coordinates":[[[[179,-1],[180,-1],[180,1],[179,1],[179,-1]]],"#
        + #"[[[-180,-1],[-179,-1],[-179,1],[-180,1],[-180,-1]]]]}"#

    /// The ARGB32 words of a PNG `meridian render` would write for `geometry`, and its width.
    func pixels(_ geometry: String) throws -> (words: [UInt32], width: Int, height: Int) {
        let feature = ##"{"type":"Feature","properties":"## + Self.style + ##","geometry":"## + geometry + "}"
        let png = try draw(feature, as: .png,
                           PictureOptions(width: 200, height: 100))
        let image = try TileDecoder.surface(png, name: "picture")
        defer { cairo_surface_destroy(image) }
        let width = Int(cairo_image_surface_get_width(image)), height = Int(cairo_image_surface_get_height(image))
        let stride = Int(cairo_image_surface_get_stride(image)), data = cairo_image_surface_get_data(image)!
        var words: [UInt32] = []
        for y in 0..<height {
            let row = UnsafeRawPointer(data + y * stride)
            for x in 0..<width { words.append(row.loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self)) }
        }
        return (words, width, height)
    }

    /// Inside the square (away from its outline), every pixel is the fill colour: along the
    /// seam column too, where the two halves meet. And the cut square's picture is the whole
    /// square's, pixel for pixel.
    @Test func theHalvesOfAShapeCutAt180ShowNoSeam() throws {
        let whole = try pixels(Self.ring), halves = try pixels(Self.cut)
        let blue: UInt32 = 0xFF00_00FF
        let (width, height) = (halves.width, halves.height)
        // The inside of the square: where the whole square's picture is the fill colour.
        let inside = whole.words.indices.filter { whole.words[$0] == blue }
        #expect(inside.count > width * height / 20, "the square is not drawn")
        let columns = Set(inside.map { $0 % width }), rows = Set(inside.map { $0 / width })
        var seam: [String] = []
        for y in rows.min()!...rows.max()! {
            for x in columns.min()!...columns.max()! where halves.words[y * width + x] != blue {
                seam.append("\(x),\(y): \(String(halves.words[y * width + x], radix: 16))")
            }
        }
        #expect(seam.count == 0, "\(seam.count) pixels inside the square are not the fill: \(seam.prefix(8))")
        let differing = zip(whole.words, halves.words).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) pixels differ")
    }

    /// The outline leaves out the edges along ±180° and joins the halves back into one closed
    /// line; a ring with no such edge is kept whole.
    @Test func theOutlineLeavesTheCutEdgesOut() {
        func ring(_ pairs: [(Double, Double)]) -> [Position] { pairs.map { Position(longitude: $0, latitude: $1) } }
        let west = ring([(179, -1), (180, -1), (180, 1), (179, 1), (179, -1)])
        let east = ring([(180, -1), (181, -1), (181, 1), (180, 1), (180, -1)])  // the eastern half, a turn on
        let outline = Outline.of([west, east])
        #expect(outline.count == 1 && outline[0].closed)
        let line = outline[0].points
        #expect(!zip(line, line.dropFirst()).contains { Outline.isCut($0, $1) })
        #expect(Set(line.map(\.longitude)) == [179, 180, 181] && line.count == 7)
        let whole = Outline.of([west])
        #expect(whole.count == 1 && !whole[0].closed && whole[0].points.count == 4)
        let plain = ring([(10, 0), (11, 0), (11, 1), (10, 0)])
        #expect(Outline.of([plain]).map(\.points) == [plain] && Outline.of([plain])[0].closed)
    }

    /// In SVG, the halves are one filled path, unstroked, and the outline one closed stroked
    /// path round both: nothing is stroked down the seam.
    @Test func theSVGStrokesOneOutlineRoundTheHalves() throws {
        let feature = ##"{"type":"Feature","properties":"## + Self.style + ##","geometry":"## + Self.cut + "}"
        let svg = String(decoding: try draw(feature, as: .svg, PictureOptions(width: 200, height: 100)), as: UTF8.self)
        let paths = svg.components(separatedBy: "<path ").dropFirst().map { $0.prefix { $0 != ">" } }
        let stroked = paths.filter { !$0.contains(#"stroke="none""#) }
        #expect(paths.count == 2 && stroked.count == 1, "\(paths)")
        #expect(stroked.first.map { $0.components(separatedBy: "Z").count == 2 && $0.contains(#"fill="none""#) } == true, "\(stroked)")
    }
}
