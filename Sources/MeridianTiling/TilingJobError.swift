import MeridianCore

/// Why a ``TilingJob`` refuses its request, in the library's words (a command line words them
/// in terms of its options).
public enum TilingJobError: MeridianFailure, Equatable {
    /// Mapbox Vector Tiles were asked of an input that is not vector data.
    case notVectorData(String)
    /// The inputs mix rasters and vector data.
    case mixedInputs
    /// The layer names given are not one per input.
    case layerNameCount(given: Int, inputs: Int)
    /// Image tiles of vector data were asked of a job that has nothing to draw them with.
    case noDrawing
    /// A KML super-overlay was asked of a run that makes no folder of image tiles (Google Earth
    /// lays image files beside the KML files on the globe).
    case kmlNeedsFolderOfImages
    /// The request makes a choice that a run of this kind would do nothing with (a quilt rule
    /// for vector data, a tile size for vector tiles, …): refused rather than ignored.
    case choiceNotApplying(TilingChoice, TilingJobKind)

    /// Usage for the request's own mistakes; unavailable where drawing is missing.
    public var kind: MeridianError.Kind { self == .noDrawing ? .unavailable : .usage }
    /// None: the request as a whole is at fault.
    public var location: SourceLocation? { nil }

    /// What is wrong.
    public var message: String {
        switch self {
        case .notVectorData(let path): "vector tiles are made of vector data, and this is not: \(path)"
        case .mixedInputs: "the inputs mix rasters and vector data; tile each kind on its own"
        case .layerNameCount(let given, let inputs): "give a layer name once per input (\(inputs)), not \(given) times"
        case .noDrawing: "image tiles of vector data need a drawing (a TileDrawing), and this job has none"
        case .kmlNeedsFolderOfImages: "a KML super-overlay lies over a folder of image tiles, and this run makes none"
        case .choiceNotApplying(let choice, let kind):
            "\(choice.name) applies to \(TilingJobKind.allCases.filter(choice.appliesTo.contains).map(\.name).joined(separator: " and ")) only, and this run makes \(kind.name)"
        }
    }

    /// What to do.
    public var hint: String? {
        switch self {
        case .notVectorData: "tile rasters into image tiles, vector data into vector tiles"
        case .mixedInputs, .layerNameCount, .noDrawing: nil
        case .kmlNeedsFolderOfImages: "write PNG, JPEG or WebP tiles into a folder"
        case .choiceNotApplying(let choice, _): "make the request without \(choice.name)"
        }
    }
}
