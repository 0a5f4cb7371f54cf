/// The Z-order (Morton) curve: a tile's (or a point's) x and y bits interleaved, so that the
/// four quarters of any square are consecutive. The raster tiler orders a level's tiles by it,
/// and the vector tiler the points it clusters.
package enum MortonOrder {
    /// x's bits in the even places and y's in the odd.
    package static func code(x: UInt32, y: UInt32) -> UInt64 {
        func spread(_ value: UInt32) -> UInt64 {
            var v = UInt64(value)
            v = (v | (v << 16)) & 0x0000_FFFF_0000_FFFF
            v = (v | (v << 8)) & 0x00FF_00FF_00FF_00FF
            v = (v | (v << 4)) & 0x0F0F_0F0F_0F0F_0F0F
            v = (v | (v << 2)) & 0x3333_3333_3333_3333
            v = (v | (v << 1)) & 0x5555_5555_5555_5555
            return v
        }
        return spread(x) | (spread(y) << 1)
    }
}
