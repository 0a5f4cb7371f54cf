import CExpat

/// The versions of the C libraries this module is linked against, for `meridian --version`
/// and bug reports.
public enum LibraryVersions {
    /// expat's version, e.g. "2.5.0".
    public static var expat: String {
        let v = XML_ExpatVersionInfo()
        return "\(v.major).\(v.minor).\(v.micro)"
    }
}
