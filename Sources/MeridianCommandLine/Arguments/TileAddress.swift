import ArgumentParser
import MeridianGeometry

/// A map tile typed as `Z/X/Y`. Which way its rows count (XYZ from the top, TMS from the
/// bottom) is a flag beside it (`--tms`), so the address is kept as typed until
/// `tile(rowsFromBottom:)` makes it a `MapTile`; either way X and Y lie in 0 ..< 2^Z.
public struct TileAddress: ArgumentValue, Sendable {
    /// The tile the address names when its rows count from the top.
    private var rowsFromTop: MapTile

    /// `z/x/y`.
    public static let syntax = ArgumentSyntax(
        valueName: "z/x/y", example: "12/655/1583",
        form: "Z/X/Y with Z from \(MapTile.zoomLevels.lowerBound) to \(MapTile.zoomLevels.upperBound) and 0 <= X, Y < 2^Z")

    /// Parses `Z/X/Y`; nil when the zoom level or the column or row is out of range.
    /// - Parameter argument: The text typed.
    public init?(argument: String) {
        guard let tile = MapTile(address: argument) else { return nil }
        rowsFromTop = tile
    }

    /// The tile, its row counted from the top (XYZ) or, with `rowsFromBottom`, from the bottom (TMS).
    public func tile(rowsFromBottom: Bool = false) -> MapTile {
        rowsFromBottom ? MapTile(zoom: rowsFromTop.zoom, x: rowsFromTop.x, tmsY: rowsFromTop.y) : rowsFromTop
    }
}

/// Zoom levels typed as `MIN-MAX`, or one level, from 0 to `ZoomRange.maximum`.
public struct ZoomRange: ArgumentValue, Sendable {
    /// The zoom levels, from 0 to ``maximum``; one level is a range of one.
    public var levels: ClosedRange<Int>

    /// The deepest zoom level tiling reaches (MeridianRaster's TilePyramid.maximumZoom; about 1 cm
    /// per pixel), kept here too because `meridian` itself never links MeridianRaster.
    public static let maximum = 24

    /// `min-max`, or one level.
    public static let syntax = ArgumentSyntax(
        valueName: "min-max", example: "0-17",
        form: "MIN-MAX or one level, between 0 and \(maximum)")

    /// Parses `MIN-MAX` or one level; nil when a level is out of range or the minimum is above the maximum.
    /// - Parameter argument: The text typed.
    public init?(argument: String) {
        let parts = argument.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        switch parts.count {
        case 1: guard let z = parts[0], (0...Self.maximum).contains(z) else { return nil }; levels = z...z
        case 2: guard let a = parts[0], let b = parts[1], 0 <= a, a <= b, b <= Self.maximum else { return nil }; levels = a...b
        default: return nil
        }
    }
}

/// `meridian tile`'s zoom levels: `MIN-MAX`, one level, or `auto` (tippecanoe's `-zg`): the
/// levels the data calls for, as when none are given.
public struct TileZooms: ArgumentValue, Sendable {
    /// The levels asked for; nil for `auto`.
    public var levels: ClosedRange<Int>?

    /// `min-max`, one level, or `auto`.
    public static let syntax = ArgumentSyntax(
        valueName: "min-max|auto", example: "0-17",
        form: "MIN-MAX or one level, between 0 and \(ZoomRange.maximum), or auto")

    /// Parses `auto`, `MIN-MAX` or one level (as ``ZoomRange``); nil for anything else.
    /// - Parameter argument: The text typed.
    public init?(argument: String) {
        if argument == "auto" { levels = nil; return }
        guard let range = ZoomRange(argument: argument) else { return nil }
        levels = range.levels
    }
}
