import MeridianCore
import MeridianGeometry

extension Diagnostic {
    /// The warning for per-position arrays (`coordinateProperties`) removed rather than left
    /// on the wrong positions: `reason` says why (e.g. "do not have one value per position").
    public static func positionDataDropped(_ names: [String], _ reason: String, at location: SourceLocation?) -> Diagnostic {
        let list = names.map { "'\($0)'" }.joined(separator: ", ")
        return Diagnostic(.warning, "the per-position \(names.count == 1 ? "array" : "arrays") \(list) of coordinateProperties \(reason) and \(names.count == 1 ? "was" : "were") dropped",
                          at: location)
    }
}

extension Feature {
    /// Drops the per-position arrays that do not fit the geometry, warning through `diagnostics`
    /// at `location` (the feature's place in its file): readers call it on every feature.
    public mutating func dropMisalignedPositionData(at location: SourceLocation?, diagnostics: DiagnosticHandler?) {
        let dropped = removeMisalignedPositionData()
        guard !dropped.isEmpty else { return }
        diagnostics?(.positionDataDropped(dropped, "do not have one value per position", at: location))
    }

    /// Replaces the geometry with a transform's result (see MeridianGeometry's `Feature.replaceGeometry(with:)`),
    /// warning through `diagnostics` at `location` about arrays that could not follow.
    public mutating func replaceGeometry(with geometry: Geometry?, at location: SourceLocation?, diagnostics: DiagnosticHandler?) {
        let dropped = replaceGeometry(with: geometry)
        guard !dropped.isEmpty else { return }
        diagnostics?(.positionDataDropped(dropped, "cannot follow the changed positions", at: location))
    }
}
