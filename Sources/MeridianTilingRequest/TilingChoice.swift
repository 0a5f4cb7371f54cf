/// One choice of a ``TilingJobRequest`` that only some kinds of run can honour. A job refuses
/// a request that makes one its kind of run cannot (rather than ignore it), so that every
/// choice it accepts does what it says: ``notApplying(in:to:)`` finds it.
public enum TilingChoice: Sendable, Equatable {
    /// Rows counted TMS-style (``TileScheme/tms``).
    case tmsRows
    /// A tile size in pixels.
    case tileSize
    /// A colour under the data.
    case background
    /// A quilt rule.
    case quilt
    /// A limit on how deep a chart shows.
    case overzoom
    /// A resampling method.
    case resampling
    /// A nodata value.
    case noData
    /// The bands to tile.
    case bands
    /// Colours left out of the averages.
    case excludedValues
    /// A KML super-overlay.
    case kml
    /// Control points.
    case controlPoints
    /// A control point method.
    case controlPointMethod
    /// A chart's collar kept.
    case collarKept
    /// GDAL's warper for every tile.
    case gdalWarperOnly
    /// The stages' times.
    case stageTimes
    /// GDAL's block cache size.
    case gdalCacheSize
    /// Layer names.
    case layerNames
    /// A vector tile's most bytes.
    case maximumTileBytes
    /// A vector tile's most features.
    case maximumTileFeatures
    /// A rate of point thinning.
    case dropRate
    /// A base zoom for point thinning.
    case baseZoom
    /// How a tile over the limits is brought under them.
    case overLimit(OverLimitStrategy)
    /// Levels added while the deepest still drops features.
    case extendedZooms
    /// Point clusters.
    case clusterDistance
    /// Attributes combined over clusters.
    case accumulations
    /// Tiny polygons left out instead of added up.
    case tinyPolygonsLeftOut
    /// Attributes kept.
    case includedAttributes
    /// Attributes left out.
    case excludedAttributes
    /// Every attribute left out.
    case allAttributesExcluded

    /// The kinds of run that honour the choice.
    public var appliesTo: Set<TilingJobKind> {
        switch self {
        case .tmsRows, .tileSize, .background, .kml: [.rasters, .drawnVectors]
        case .quilt, .overzoom, .resampling, .noData, .bands, .excludedValues, .controlPoints, .controlPointMethod, .collarKept,
             .gdalWarperOnly, .stageTimes, .gdalCacheSize: [.rasters]
        case .layerNames: [.vectorTiles, .drawnVectors]
        case .maximumTileBytes, .maximumTileFeatures, .dropRate, .baseZoom, .overLimit, .extendedZooms, .clusterDistance, .accumulations,
             .tinyPolygonsLeftOut, .includedAttributes, .excludedAttributes, .allAttributesExcluded: [.vectorTiles]
        }
    }

    /// What the choice is, in words.
    public var name: String {
        switch self {
        case .tmsRows: "TMS rows"
        case .tileSize: "a tile size"
        case .background: "a background colour"
        case .quilt: "a quilt rule"
        case .overzoom: "an overzoom limit"
        case .resampling: "a resampling method"
        case .noData: "a nodata value"
        case .bands: "a choice of bands"
        case .excludedValues: "excluded values"
        case .kml: "a KML super-overlay"
        case .controlPoints: "control points"
        case .controlPointMethod: "a control point method"
        case .collarKept: "keeping a chart's collar"
        case .gdalWarperOnly: "GDAL's warper"
        case .stageTimes: "the stages' times"
        case .gdalCacheSize: "a GDAL block cache size"
        case .layerNames: "layer names"
        case .maximumTileBytes: "a limit of bytes per tile"
        case .maximumTileFeatures: "a limit of features per tile"
        case .dropRate: "a drop rate"
        case .baseZoom: "a base zoom"
        case .overLimit(let strategy): "the over-limit strategy \(strategy.rawValue)"
        case .extendedZooms: "extending zooms while features drop"
        case .clusterDistance: "point clusters"
        case .accumulations: "attributes accumulated over clusters"
        case .tinyPolygonsLeftOut: "leaving tiny polygons out"
        case .includedAttributes: "attributes to include"
        case .excludedAttributes: "attributes to exclude"
        case .allAttributesExcluded: "excluding every attribute"
        }
    }

    /// Every choice `request` makes that not every kind of run honours, in the order the job
    /// checks them.
    public static func made(in request: TilingJobRequest) -> [TilingChoice] {
        let raster = request.raster, source = raster.source, vector = request.vector
        let made: [(TilingChoice, Bool)] = [
            (.tmsRows, request.scheme == .tms), (.tileSize, request.tileSize != nil), (.background, request.background != nil),
            (.quilt, raster.quilt != nil), (.overzoom, raster.overzoom != nil), (.resampling, raster.resampling != nil),
            (.noData, source.noData != nil), (.bands, source.bands != nil), (.excludedValues, raster.excludedValues != nil), (.kml, request.kml),
            (.controlPoints, !source.controlPoints.isEmpty), (.controlPointMethod, source.controlPointMethod != nil), (.collarKept, !source.cutCollar),
            (.gdalWarperOnly, raster.measurement.gdalWarperOnly), (.stageTimes, raster.measurement.timesStages),
            (.gdalCacheSize, raster.measurement.gdalCacheMegabytes != nil), (.layerNames, !request.layerNames.isEmpty),
            (.maximumTileBytes, vector.maximumTileBytes != nil), (.maximumTileFeatures, vector.maximumTileFeatures != nil),
            (.dropRate, vector.dropRate != nil), (.baseZoom, vector.baseZoom != nil),
        ]
        let overLimit = vector.overLimit.map { [TilingChoice.overLimit($0)] } ?? []
        let rest: [(TilingChoice, Bool)] = [
            (.extendedZooms, vector.extendZoomsIfStillDropping), (.clusterDistance, vector.clusterDistance != nil),
            (.accumulations, !vector.accumulations.isEmpty), (.tinyPolygonsLeftOut, !vector.reducesTinyPolygons),
            (.includedAttributes, !vector.included.isEmpty), (.excludedAttributes, !vector.excluded.isEmpty),
            (.allAttributesExcluded, vector.excludesAll),
        ]
        return made.filter(\.1).map(\.0) + overLimit + rest.filter(\.1).map(\.0)
    }

    /// The first choice `request` makes that a run of `kind` cannot honour; nil when it honours them all.
    public static func notApplying(in request: TilingJobRequest, to kind: TilingJobKind) -> TilingChoice? {
        made(in: request).first { !$0.appliesTo.contains(kind) }
    }
}
