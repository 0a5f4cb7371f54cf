/// Which of a feature's attributes (properties) go into vector tiles, for `meridian tile` and
/// `meridian tile-join` alike (tippecanoe's and its tile-join's `-y`, `-x` and `-X`): all of them
/// (the default), only those named in ``included``, or none but the id (``excludesAll``), else
/// all but those named in ``excluded``.
///
/// As in tippecanoe, naming attributes to keep decides alone: ``excluded`` then changes
/// nothing (tippecanoe's `-y` leaves out every attribute it does not name, whatever `-x` says).
/// The command line refuses `--include` with `--exclude` (64) for that reason.
public struct AttributeFilter: Sendable, Equatable {
    /// When not nil, the only attributes kept (an empty set keeps none).
    public var included: Set<String>?
    /// Attributes left out, when ``included`` is nil and ``excludesAll`` false.
    public var excluded: Set<String>
    /// Whether every attribute not in ``included`` is left out (the feature keeps its geometry and id).
    public var excludesAll: Bool

    /// A filter keeping only `included` when given (`excludesAll` then changes nothing, as in
    /// tippecanoe), else none with `excludesAll`, else every attribute but `excluded`.
    /// - Parameters:
    ///   - included: The only attributes to keep; nil keeps every attribute.
    ///   - excluded: Attributes to leave out.
    ///   - excludesAll: Whether to leave out every attribute not in `included`.
    public init(included: Set<String>? = nil, excluded: Set<String> = [], excludesAll: Bool = false) {
        self.included = included
        self.excluded = excluded
        self.excludesAll = excludesAll
    }

    /// The filter the command-line options ask for: `--include` (`-y`) names, each once,
    /// `--exclude` (`-x`) names and `--exclude-all` (`-X`), as `tile` and `tile-join` take them.
    /// - Parameters:
    ///   - include: The names given with `--include`; none keeps every attribute not excluded.
    ///   - exclude: The names given with `--exclude`.
    ///   - excludeAll: Whether `--exclude-all` was given.
    public init(include: [String], exclude: [String], excludeAll: Bool) {
        self.init(included: include.isEmpty ? nil : Set(include), excluded: Set(exclude), excludesAll: excludeAll)
    }

    /// Keeps every attribute.
    public static let all = AttributeFilter()

    /// Whether an attribute named `key` goes into the tiles.
    /// - Parameter key: The attribute's name.
    /// - Returns: Whether it is kept.
    public func keeps(_ key: String) -> Bool {
        if let included { return included.contains(key) }
        return !excludesAll && !excluded.contains(key)
    }
}
