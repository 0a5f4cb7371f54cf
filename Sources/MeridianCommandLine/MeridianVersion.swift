/// The version of Meridian's tools: `meridian --version` and `meridian-gdal --version` print it.
public enum MeridianVersion {
    public static let current = "0.1.0"
}
