import CExpat
import MeridianCore

/// The versions of the C libraries this module is linked against, for `meridian --version`
/// and bug reports.
///
/// Meridian works with expat 2.5.0 and later (Debian 12's 2.5.0-1 in every revision): it reads
/// no DTD, entity or external resource, limits nesting and text itself, and checks UTF-16
/// itself, so broken input is reported the same way by every such expat. Security updates
/// still matter for the faults expat alone can see (the 2026 denial-of-service fixes in
/// Debian's 2.5.0-1+deb12u4 and later, which keep the version number 2.5.0), so the version
/// line also says whether the loaded expat has those updates' allocation limits.
public enum LibraryVersions {
    /// expat's version, e.g. "2.5.0".
    public static var expat: String {
        let v = XML_ExpatVersionInfo()
        return "\(v.major).\(v.minor).\(v.micro)"
    }

    /// Whether the loaded expat limits the memory a document may make it allocate (upstream
    /// 2.7.2, and Debian's 2.5.0-1+deb12u4 and later): the mark of a build with the 2026
    /// security fixes. Looked up at run time, since the version number does not tell.
    public static var expatLimitsAllocations: Bool {
        Platform.hasLoadedSymbol("XML_SetAllocTrackerMaximumAmplification")
    }

    /// `2.5.0 (with allocation limits)`, or a word to upgrade.
    public static var expatDescription: String {
        expatLimitsAllocations ? "\(expat), with allocation limits"
            : "\(expat), without the 2026 security updates: upgrade libexpat1 (Scripts/bootstrap does)"
    }
}
