import MeridianCore

/// A file is already where a run's output (or a file written beside it) goes, and the run was
/// not asked to replace it: Meridian replaces nothing it did not make unless told to, as
/// tippecanoe and ogr2ogr do. Cannot-create-output (73); the file is left as it was.
///
/// Only a regular file may be replaced; a folder, a device or a symbolic link at an output's
/// path is refused by ``OutputClaim`` whatever the run was asked.
public struct ExistingOutput: MeridianFailure, Equatable {
    /// The file that is there.
    public let path: String
    /// The output it is written beside (a Shapefile's `.dbf` beside its `.shp`); nil when it is
    /// the output itself.
    public let companionOf: String?
    /// Whether it appeared while the run was writing (nothing was there when the run began).
    public let appearedDuringRun: Bool

    /// The error for the file at `path`: the output, or a file written beside `companionOf`.
    public init(path: String, companionOf: String? = nil, appearedDuringRun: Bool = false) {
        self.path = path
        self.companionOf = companionOf
        self.appearedDuringRun = appearedDuringRun
    }

    /// Cannot-create-output.
    public var kind: MeridianError.Kind { .cannotCreateOutput }
    /// The file that is there.
    public var location: SourceLocation? { SourceLocation(file: path) }
    /// What is there, and when it came.
    public var message: String {
        let what = companionOf == nil ? "the output" : "a file written beside the output"
        return appearedDuringRun ? "\(what) appeared while this run was writing it" : "\(what) exists"
    }
    /// What to do: this run replaces only when asked to.
    public var hint: String? {
        "Meridian replaces an existing file only when asked to: remove it or choose another path\(appearedDuringRun ? ", and run again" : "")"
    }
}
