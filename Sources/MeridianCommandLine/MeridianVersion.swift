/// The version of Meridian's tools: `meridian --version` and `meridian-gdal --version` print it.
public enum MeridianVersion {
    /// The version string, as `--version` prints it (semantic versioning).
    public static let current = "0.3.0"
}
