/// What is done when tiles are over `TileLimits` (MeridianTiles) (tippecanoe's `--drop-…-as-needed` and
/// `--coalesce-…-as-needed`): as tippecanoe does, for the whole zoom level. Each tile over the
/// limits finds how far down the strategy's order its features must go (a tenth of those left
/// more at a time) for it to fit; the level is then made again with the farthest of those for
/// every tile, so all its tiles are thinned alike. A tile that cannot be brought under the
/// limits by merging loses features in the same order instead, on its own: no tile is ever
/// written over the limits.
public enum OverLimitStrategy: String, Sendable, CaseIterable {
    /// Drop the smallest features first: the smallest polygons by area, the shortest lines,
    /// points last of all (they are drawn at any size). The default.
    case dropSmallest
    /// Drop the features closest to their neighbours first (in the tile's Z-order), so sparse areas keep theirs.
    case dropDensest
    /// Drop an evenly spread fraction of the features, whatever their size or place.
    case dropFraction
    /// Merge the smallest features into the feature of the same layer and kind before them
    /// (keeping that one's properties), so their area still shows.
    case coalesceSmallest
    /// Merge the features closest to their neighbours into the feature of the same layer and
    /// kind before them (keeping that one's properties).
    case coalesceDensest
}

/// How an attribute is combined over a cluster's members (tippecanoe's `--accumulate-attribute`).
public enum ClusterAccumulation: String, Sendable, CaseIterable {
    /// The sum of the numbers.
    case sum
    /// Their mean.
    case mean
    /// The largest.
    case max
    /// The smallest.
    case min
    /// The texts joined together.
    case concat
    /// The texts joined with commas.
    case comma
}
