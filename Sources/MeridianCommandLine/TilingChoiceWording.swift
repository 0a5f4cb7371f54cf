import MeridianTilingRequest

// A tiling choice in the words of `meridian tile`'s options: the library refuses a choice a
// run cannot honour (`TilingChoice`); the command line says which option it was, and why.

extension TilingChoice {
    /// The option of `meridian tile` that makes the choice.
    public var optionName: String {
        switch self {
        case .tmsRows: "--tms"
        case .tileSize: "--tile-size"
        case .background: "--background"
        case .quilt: "--quilt"
        case .overzoom: "--overzoom"
        case .resampling: "--resampling"
        case .noData: "--nodata"
        case .bands: "--bands"
        case .excludedValues: "--excluded-values"
        case .kml: "--kml"
        case .controlPoints: "--gcp"
        case .controlPointMethod: "--gcp-method"
        case .collarKept: "--no-cutline"
        case .gdalWarperOnly: "--gdal-warp"
        case .stageTimes: "--profile"
        case .gdalCacheSize: "--gdal-cache-mb"
        case .layerNames: "--layer-name"
        case .maximumTileBytes: "--maximum-tile-bytes"
        case .maximumTileFeatures: "--maximum-tile-features"
        case .dropRate: "--drop-rate"
        case .baseZoom: "--base-zoom"
        case .overLimit(let strategy): OverLimitStrategy.optionNames.first { $0.strategy == strategy }?.name ?? "--drop-smallest-as-needed"
        case .extendedZooms: "--extend-zooms-if-still-dropping"
        case .clusterDistance: "--cluster-distance"
        case .accumulations: "--accumulate-attribute"
        case .tinyPolygonsLeftOut: "--no-tiny-polygon-reduction"
        case .includedAttributes: "--include"
        case .excludedAttributes: "--exclude"
        case .allAttributesExcluded: "--exclude-all"
        }
    }

    /// Why a run of another kind does nothing with the choice.
    public var whyNotApplying: String {
        switch self {
        case .tmsRows: "vector tiles are written in XYZ rows, as their web maps read them"
        case .tileSize, .background: "vector tiles have no pixels"
        case .quilt: "vector data is drawn in the order of the inputs"
        case .overzoom: "it limits how deep a chart shows"
        case .resampling: "only a raster's pixels are resampled"
        case .noData: "only a raster's pixels have values"
        case .bands: "only a raster has bands"
        case .excludedValues: "only a raster's pixels are averaged into lower zoom levels (vector data is drawn at each)"
        case .kml: "Google Earth lays image tiles on the globe, not vector tiles"
        case .controlPoints, .controlPointMethod: "only an image is georeferenced by control points"
        case .collarKept: "only a chart has a collar"
        case .gdalWarperOnly: "only a raster is warped"
        case .stageTimes: "it times a raster's stages"
        case .gdalCacheSize: "only a raster is read through GDAL's block cache"
        case .layerNames: "only vector data has layers"
        case .maximumTileBytes, .maximumTileFeatures, .dropRate, .baseZoom, .overLimit, .extendedZooms, .clusterDistance, .accumulations,
             .tinyPolygonsLeftOut, .includedAttributes, .excludedAttributes, .allAttributesExcluded:
            "it chooses which features and attributes go into vector tiles, and image tiles draw every feature"
        }
    }

    /// The refusal of the choice for a run of `kind`, as `meridian tile` words it.
    /// - Parameter kind: The kind of run that does nothing with the choice.
    /// - Returns: The message and the hint.
    public func refusal(for kind: TilingJobKind) -> (message: String, hint: String) {
        let kinds = TilingJobKind.allCases.filter(appliesTo.contains).map(\.name).joined(separator: " and ")
        return ("\(optionName) applies to \(kinds) only, and this run makes \(kind.name): \(whyNotApplying)", "run again without \(optionName)")
    }
}

extension OverLimitStrategy {
    /// Each strategy's option of `meridian tile` (tippecanoe's names), in the order they are listed.
    public static let optionNames: [(name: String, strategy: OverLimitStrategy)] = [
        ("--drop-smallest-as-needed", .dropSmallest), ("--drop-densest-as-needed", .dropDensest), ("--drop-fraction-as-needed", .dropFraction),
        ("--coalesce-smallest-as-needed", .coalesceSmallest), ("--coalesce-densest-as-needed", .coalesceDensest),
    ]
}
