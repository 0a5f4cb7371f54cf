import Foundation
import MeridianGeometry
import MeridianTiles

/// Web Mercator (EPSG:3857) tile math for a pyramid of square tiles, counted XYZ-style (rows from
/// the top, as `MapTile` counts them). The zoom range and each level's tile range are chosen as
/// gdal2tiles chooses them, so the same raster gives the same set of tiles.
public struct TilePyramid: Sendable, Equatable {
    /// Half the Web Mercator world's width, in metres (π · 6378137).
    public static let originShift = Double.pi * 6_378_137

    /// The deepest zoom level Meridian tiles to.
    public static let maximumZoom = 24

    /// Tile width and height in pixels.
    public var tileSize: Int

    /// A pyramid of square tiles.
    /// - Parameter tileSize: Tile width and height in pixels (256 or 512).
    public init(tileSize: Int = 256) {
        self.tileSize = tileSize
    }

    /// Metres per pixel at a zoom level (at the equator).
    public func resolution(zoom: Int) -> Double {
        2 * Self.originShift / Double(tileSize) / Double(1 << zoom)
    }

    /// The coarsest zoom level whose pixels are no larger than `pixelSize` metres, less one, as
    /// gdal2tiles' ZoomForPixelSize: the level "closest possible up on the resolution".
    public func zoom(forPixelSize pixelSize: Double) -> Int {
        for level in 0..<32 where pixelSize > resolution(zoom: level) {
            return max(0, level - 1)
        }
        return 31
    }

    /// A tile's bounds in EPSG:3857 metres: (minX, minY, maxX, maxY).
    public func bounds(_ tile: MapTile) -> (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        let size = 2 * Self.originShift / Double(1 << tile.zoom)
        let minX = Double(tile.x) * size - Self.originShift
        let maxY = Self.originShift - Double(tile.y) * size
        return (minX, maxY - size, minX + size, maxY)
    }

    /// The geotransform of a tile's pixels in EPSG:3857 (GDAL's six coefficients).
    public func geoTransform(_ tile: MapTile) -> [Double] {
        let b = bounds(tile)
        let pixel = (b.maxX - b.minX) / Double(tileSize)
        return [b.minX, pixel, 0, b.maxY, 0, -pixel]
    }

    /// The tiles at `zoom` that an EPSG:3857 extent touches, with gdal2tiles' rule (a pixel
    /// column ceil(p/size) − 1, so an edge on a tile boundary does not reach into the next tile).
    public func range(zoom: Int, extent: MercatorExtent) -> TileRange {
        let res = resolution(zoom: zoom)
        func column(_ metres: Double) -> Int {
            Int((((metres + Self.originShift) / res) / Double(tileSize)).rounded(.up)) - 1
        }
        let last = (1 << zoom) - 1
        let minX = max(0, column(extent.minX)), maxX = min(last, column(extent.maxX))
        // TMS rows from the south, then turned into XYZ rows.
        let minTMS = max(0, column(extent.minY)), maxTMS = min(last, column(extent.maxY))
        return TileRange(zoom: zoom, minX: minX, minY: last - maxTMS, maxX: maxX, maxY: last - minTMS)
    }

    /// gdal2tiles' default zoom range for a raster warped to EPSG:3857 with `pixelSize` metres
    /// per pixel and `width` × `height` pixels: the maximum zoom from the pixel size, the
    /// minimum where the whole raster fits in one tile.
    public func defaultZooms(pixelSize: Double, width: Int, height: Int) -> ClosedRange<Int> {
        let minZoom = zoom(forPixelSize: pixelSize * Double(max(width, height)) / Double(tileSize))
        let maxZoom = max(minZoom, zoom(forPixelSize: pixelSize))
        return min(minZoom, maxZoom)...maxZoom
    }
}

/// An extent in EPSG:3857 metres.
public struct MercatorExtent: Sendable, Equatable {
    /// The extent's edges in EPSG:3857 metres: west, south, east, north.
    public var minX, minY, maxX, maxY: Double
    /// An extent from its edges in EPSG:3857 metres (`minX` west, `minY` south).
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// The extent in degrees (west, south, east, north).
    public var boundingBox: BoundingBox {
        func lon(_ x: Double) -> Double { x / TilePyramid.originShift * 180 }
        func lat(_ y: Double) -> Double { 180 / .pi * (2 * atan(exp(y / TilePyramid.originShift * .pi)) - .pi / 2) }
        return BoundingBox(west: max(-180, lon(minX)), south: max(-MapWorld.maximumLatitude, lat(minY)),
                           east: min(180, lon(maxX)), north: min(MapWorld.maximumLatitude, lat(maxY)))
    }
}

/// A rectangle of tiles at one zoom level, XYZ rows, inclusive bounds.
public struct TileRange: Sendable, Equatable, Sequence, CustomStringConvertible {
    /// The zoom level of every tile in the range.
    public var zoom: Int
    /// The first and last columns (`x`) and rows (`y`, from the top), inclusive.
    public var minX, minY, maxX, maxY: Int

    /// A range of tiles from its inclusive bounds (XYZ rows, from the top).
    public init(zoom: Int, minX: Int, minY: Int, maxX: Int, maxY: Int) {
        self.zoom = zoom
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// Whether the range holds no tile.
    public var isEmpty: Bool { minX > maxX || minY > maxY }
    /// The number of tiles in the range.
    public var count: Int { isEmpty ? 0 : (maxX - minX + 1) * (maxY - minY + 1) }

    /// Whether `tile` is at this range's zoom level and within its columns and rows.
    public func contains(_ tile: MapTile) -> Bool {
        tile.zoom == zoom && minX <= tile.x && tile.x <= maxX && minY <= tile.y && tile.y <= maxY
    }

    /// A range with no tile at `zoom`.
    public static func empty(zoom: Int) -> TileRange { TileRange(zoom: zoom, minX: 0, minY: 0, maxX: -1, maxY: -1) }

    /// The part of this range under `tile` (a tile at a coarser or equal zoom).
    public func under(_ tile: MapTile) -> TileRange {
        let shift = zoom - tile.zoom
        let x0 = tile.x << shift, y0 = tile.y << shift, span = (1 << shift) - 1
        return TileRange(zoom: zoom, minX: Swift.max(minX, x0), minY: Swift.max(minY, y0), maxX: Swift.min(maxX, x0 + span), maxY: Swift.min(maxY, y0 + span))
    }

    /// Row by row, west to east.
    public func makeIterator() -> AnyIterator<MapTile> {
        var x = minX, y = minY
        return AnyIterator {
            guard !isEmpty, y <= maxY else { return nil }
            let tile = MapTile(zoom: zoom, x: x, y: y)
            x += 1
            if x > maxX { x = minX; y += 1 }
            return tile
        }
    }

    /// `zoom/minX-maxX/minY-maxY`, for messages.
    public var description: String { "\(zoom)/\(minX)-\(maxX)/\(minY)-\(maxY)" }
}

extension MapTile {
    /// The tile's place on the Z-order (Morton) curve of its level: x's and y's bits interleaved,
    /// so that the four tiles under one tile of the level above are consecutive.
    var mortonCode: UInt64 {
        MortonOrder.code(x: UInt32(truncatingIfNeeded: x), y: UInt32(truncatingIfNeeded: y))
    }
}
