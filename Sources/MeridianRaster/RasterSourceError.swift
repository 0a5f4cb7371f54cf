import Foundation
import MeridianCore
import MeridianFormats

/// Why a raster cannot be tiled as asked (`RasterSource.init`), where the facts matter to
/// whoever asked: which band, how many control points.
public enum RasterSourceError: MeridianFailure, Equatable {
    /// Bands were chosen, but neither one (gray) nor three (red, green, blue) of them.
    case unsupportedBandCount(Int)
    /// A chosen band is not in the raster.
    case noSuchBand(band: Int, bandCount: Int, path: String)
    /// Control points were given, but fewer than the three a warp needs.
    case tooFewControlPoints(Int)
    /// Control points were given, more than the method takes (`ControlPointMethod.maximumPoints`).
    case tooManyControlPoints(Int, method: ControlPointMethod)
    /// The raster has neither a geotransform nor three control points, and none were given.
    case noGeoreferencing(path: String)

    /// Usage for bad options; bad input for a raster with no georeferencing.
    public var kind: MeridianError.Kind {
        switch self {
        case .unsupportedBandCount, .noSuchBand, .tooFewControlPoints, .tooManyControlPoints: .usage
        case .noGeoreferencing: .badInput
        }
    }

    /// The raster concerned, when the error is about the file.
    public var location: SourceLocation? {
        switch self {
        case .noSuchBand(_, _, let path), .noGeoreferencing(let path): SourceLocation(file: path)
        case .unsupportedBandCount, .tooFewControlPoints, .tooManyControlPoints: nil
        }
    }

    /// What is wrong, in a sentence for the user.
    public var message: String {
        switch self {
        case .unsupportedBandCount(let count): "one band (gray) or three (red, green, blue) can be tiled, not \(count)"
        case .noSuchBand(let band, let bandCount, _): "the raster has no band \(band) (it has \(bandCount))"
        case .tooFewControlPoints(let count): "at least three control points are needed, not \(count)"
        case .tooManyControlPoints(let count, let method): "the \(method.rawValue) method takes at most \(method.maximumPoints) control points, not \(count)"
        case .noGeoreferencing: "the raster has no georeferencing (no geotransform, fewer than three control points)"
        }
    }

    /// What the user can do about it, when there is advice.
    public var hint: String? {
        switch self {
        case .noGeoreferencing(let path): "give three or more control points (pixels of the image and where they lie on Earth), or save them beside it in \(ControlPointFile.sidecarPath(of: (path as NSString).lastPathComponent)) as QGIS's Georeferencer does"
        case .unsupportedBandCount, .noSuchBand, .tooFewControlPoints, .tooManyControlPoints: nil
        }
    }
}

/// What a user should know about how a raster is read, though nothing is wrong
/// (`RasterSource.notes`).
public enum RasterSourceNote: Sendable, Equatable, CustomStringConvertible {
    /// The raster has more than three colour bands; `tiled` are taken as red, green, blue.
    case firstThreeBandsTiled(bandCount: Int, tiled: [Int])
    /// Values wider than 8 bits (of GDAL's type `dataType`, "UInt16") are scaled from their
    /// minimum and maximum to 0-255.
    case scaledToBytes(dataType: String)

    /// The note as a sentence for the user.
    public var description: String {
        switch self {
        case .firstThreeBandsTiled(let bandCount, let tiled):
            "the raster has \(bandCount) bands; tiling bands \(tiled.map(String.init).joined(separator: ",")) as red, green, blue"
        case .scaledToBytes(let dataType): "the raster's \(dataType) values are scaled from their minimum and maximum to 0-255"
        }
    }
}
