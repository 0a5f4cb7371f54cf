/// A change `CoverageFixer` made to a coverage file, each keeping the area covered. The
/// executables word them; `CoverageFixer.Result.changes` lists the changes to the document
/// first, in the order made, then the repairs to rings, each once, in the order of the cases
/// below (the order `Comparable` gives).
public enum CoverageChange: Hashable, Sendable, Comparable {
    // Changes to the document, in the order they are made.
    /// Comments stripped; the first was at `firstLine`.
    case removedComments(firstLine: Int)
    case unwrappedFromFeature
    case unwrappedFromFeatureCollection
    /// A `type` of the wrong case ("multipolygon") spelled `MultiPolygon`.
    case spelledMultiPolygon
    case madePolygonMultiPolygon
    case removedCRS
    case removedBBox

    // Repairs to rings, said once however many rings they touched.
    case closedOpenRings
    case cutAtAntimeridian
    case droppedAltitudes
    case droppedRepeatedPositions
    case madeOuterRingsCounterClockwise
    case roundedCoordinates(decimals: Int)
}
