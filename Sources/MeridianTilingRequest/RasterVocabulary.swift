import MeridianCore

/// Which chart shows where several overlap, at each zoom level (`meridian tile --quilt`).
///
/// A chart's *native zoom* is the zoom level gdal2tiles would tile it to: the deepest level
/// whose pixels are no finer than the chart's own. Every rule is an order of preference at a
/// zoom level: each output pixel comes from the first chart in that order with data there
/// (inside its cutline, not nodata, not transparent); where it has none, the next shows through.
public enum QuiltRule: String, Sendable, CaseIterable {
    /// As a chart plotter quilts: at each zoom the chart made for that scale comes first, the
    /// least detailed chart whose native zoom is at or above the level (it has all the detail the
    /// level can show, and no more crowded detail than it needs); then the more detailed charts,
    /// coarsest first; then charts too coarse for the level, most detailed first. Deeper than
    /// every chart's native zoom, the most detailed chart comes first.
    case scale
    /// The most detailed chart (deepest native zoom) first at every zoom level.
    case detail
    /// The inputs' order at every zoom level: the first input on top.
    case order
}

/// Resampling for base tiles (GDAL's warp kernels).
///
/// `gdal2tiles` is a value here rather than a separate sampling switch: it reproduces one
/// whole pipeline (gdal2tiles' 'average': a nearest-neighbour warp to GDAL's suggested grid, a
/// 4× nearest-neighbour read of a window snapped to that grid, 4 × 4 averages), so it cannot be
/// combined with another kernel, and as one value it also goes into the identity a resumed run must match (TilingRunIdentity).
public enum Resampling: String, Sendable, CaseIterable {
    /// The nearest source pixel.
    case near
    /// Bilinear interpolation.
    case bilinear
    /// Cubic convolution.
    case cubic
    /// Lanczos windowed sinc.
    case lanczos
    /// The mean of 4 × 4 samples (the default, as gdal2tiles' average).
    case average
    /// gdal2tiles' base-tile sampling, to match an existing gdal2tiles cache (see Gdal2TilesSampling.swift).
    case gdal2tiles
}

/// A control point typed by a person: an image pixel and line, and where it is on Earth.
public struct ControlPoint: Sendable, Equatable {
    /// The image column, in pixels from the left edge (fractions allowed).
    public var pixel: Double
    /// The image row, in pixels from the top edge (fractions allowed).
    public var line: Double
    /// The point's latitude in degrees (WGS 84).
    public var latitude: Double
    /// The point's longitude in degrees (WGS 84).
    public var longitude: Double

    /// A control point placing an image pixel on Earth.
    /// - Parameters:
    ///   - pixel: The image column, from the left.
    ///   - line: The image row, from the top.
    ///   - latitude: Where it lies on Earth: latitude in degrees.
    ///   - longitude: Where it lies on Earth: longitude in degrees.
    public init(pixel: Double, line: Double, latitude: Double, longitude: Double) {
        (self.pixel, self.line, self.latitude, self.longitude) = (pixel, line, latitude, longitude)
    }
}

/// How a raster georeferenced only by control points is warped.
public enum ControlPointMethod: String, Sendable, CaseIterable {
    /// A polynomial fitted to the points (order chosen from their number, as gdalwarp does).
    case polynomial
    /// A thin-plate spline through every point (exact at the points; for scanned maps that bend).
    case tps

    /// The most control points the method warps with. A thin-plate spline solves a system of
    /// one equation per point (cubic time: 5,000 points took over a minute); a polynomial is a
    /// least-squares fit, linear in the points, and this bounds the gdal_translate arguments too.
    public var maximumPoints: Int { self == .tps ? 1_000 : 10_000 }
}

/// What to take from the input and how to read it.
public struct RasterSourceOptions: Sendable, Equatable {
    /// 1-based bands to use as gray (one) or red, green, blue (three); nil chooses.
    public var bands: [Int]?
    /// A value that marks pixels with no data, over the file's own.
    public var noData: Double?
    /// Control points for an image with no georeferencing (three or more).
    public var controlPoints: [ControlPoint]
    /// How the control points (given, or the file's own) warp the image; nil: a polynomial.
    public var controlPointMethod: ControlPointMethod?
    /// Cut a BSB chart's collar away along its PLY outline.
    public var cutCollar: Bool

    /// Reading options; the defaults read the raster as it is.
    /// - Parameters:
    ///   - bands: 1-based bands: one (gray) or three (red, green, blue); nil chooses from the raster.
    ///   - noData: A pixel value meaning no data (transparent), over the file's own.
    ///   - controlPoints: Three or more points that georeference a plain image (replacing its own georeferencing); empty for none.
    ///   - controlPointMethod: How control points warp the image; nil: a polynomial.
    ///   - cutCollar: Whether a BSB chart's collar is cut away along its outline.
    public init(bands: [Int]? = nil, noData: Double? = nil, controlPoints: [ControlPoint] = [],
                controlPointMethod: ControlPointMethod? = nil, cutCollar: Bool = true) {
        (self.bands, self.noData, self.controlPoints) = (bands, noData, controlPoints)
        (self.controlPointMethod, self.cutCollar) = (controlPointMethod, cutCollar)
    }
}

/// Colours left out of the averaging of pixels, as GDAL's `--excluded-values` and
/// `--excluded-values-pct-threshold` (gdal2tiles and `gdal raster tile`, GDAL 3.11.1) leave them
/// out: a pixel of an excluded colour does not contribute to the mean of the pixels under a
/// coarser one, so a scan's white margin does not wash into the chart's edge as it is averaged
/// down; but it is still a valid pixel (unlike nodata, it is not transparent and does not thin
/// the coarser pixel's alpha), and where at least `thresholdPercent` of the pixels under a
/// coarser one are excluded, that pixel takes the excluded colour most of them have (the first
/// given on a tie). The shares are weighted by alpha, as the averages are.
///
/// Applied wherever Meridian averages: the `average` kernel of base tiles (its k × k samples of
/// the source; where GDAL's warper makes a base tile instead, 4 × 4 nearest-neighbour samples
/// under the same rule, GDAL 3.6's `average` having none) and the 2 × 2 averaging that makes
/// every lower zoom level. Interpolating kernels
/// (`bilinear`, `cubic`, `lanczos`) and `near` take base tiles' pixels as they are, as GDAL does
/// (it applies excluded values to `average` only); their lower levels are averaged with the rule.
public struct ExcludedValues: Sendable, Hashable {
    /// The excluded colours, red, green and blue each (a gray level g is (g, g, g)).
    public let colours: [RGB]
    /// The share of the pixels under a coarser one, in percent (0 to 100), at and above which it
    /// takes an excluded colour instead of the mean of the others. GDAL's default is 50.
    public let thresholdPercent: Double

    /// GDAL's default share, in percent.
    public static let defaultThresholdPercent = 50.0

    /// Colours to exclude, and the share that makes a pixel excluded.
    /// - Parameters:
    ///   - colours: At least one colour.
    ///   - thresholdPercent: From 0 to 100.
    /// - Returns: nil when there is no colour or the share is out of range.
    public init?(colours: [RGB], thresholdPercent: Double = defaultThresholdPercent) {
        guard !colours.isEmpty, (0...100).contains(thresholdPercent) else { return nil }
        self.colours = colours
        self.thresholdPercent = thresholdPercent
    }

    /// The colours of GDAL's syntax, `R,G,B` tuples separated by `;` or written
    /// `(R1,G1,B1),(R2,G2,B2)`, each value an integer from 0 to 255; a tuple of one value is a
    /// gray level. nil when the text is not that.
    public static func colours(parsing text: String) -> [RGB]? {
        let trimmed = text.filter { !$0.isWhitespace }
        let tuples: [Substring]
        if trimmed.hasPrefix("(") {
            guard trimmed.hasSuffix(")") else { return nil }
            tuples = trimmed.dropFirst().dropLast().split(separator: "),(", omittingEmptySubsequences: false).map { Substring($0) }
        } else {
            tuples = trimmed.split(separator: ";", omittingEmptySubsequences: false)
        }
        var colours: [RGB] = []
        for tuple in tuples {
            let values = tuple.split(separator: ",", omittingEmptySubsequences: false).map { UInt8($0) }
            guard values.allSatisfy({ $0 != nil }) else { return nil }
            switch values.count {
            case 1: colours.append(RGB(values[0]!, values[0]!, values[0]!))
            case 3: colours.append(RGB(values[0]!, values[1]!, values[2]!))
            default: return nil
            }
        }
        return colours.isEmpty ? nil : colours
    }
}

/// Switches for measuring the tiler (`meridian tile`'s hidden options), none of which changes
/// a tile.
public struct TilingMeasurement: Sendable, Equatable {
    /// Warps every base tile with GDAL's warper, never Meridian's own kernels, to compare them.
    public var gdalWarperOnly = false
    /// Sums the wall time of each stage over the threads (`TilingSummary.stageSeconds`).
    public var timesStages = false
    /// The size of GDAL's block cache, set when the run starts (it is the whole process's);
    /// nil leaves it as it is (`GDAL.defaultBlockCacheMegabytes` unless set otherwise).
    public var gdalCacheMegabytes: Int?

    /// No measurement: tiles as users get them.
    public init() {}
}
