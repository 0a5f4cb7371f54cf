import MeridianCore
import MeridianFormats

/// The exit statuses `meridian` and `meridian-gdal` end with (sysexits.h), named as
/// `MeridianError.Kind` names them, so a test says which one it expects.
public enum ExitStatus {
    public static let success: Int32 = 0
    /// A check said no: invalid coverage, a route not covered.
    public static let checkFailed: Int32 = 1
    public static let usage = MeridianError.Kind.usage.exitCode
    public static let badInput = MeridianError.Kind.badInput.exitCode
    public static let inputUnavailable = MeridianError.Kind.inputUnavailable.exitCode
    public static let cannotCreateOutput = MeridianError.Kind.cannotCreateOutput.exitCode
    public static let io = MeridianError.Kind.io.exitCode
    /// A helper (`meridian-gdal`, `meridian-draw`) cannot be found or run (EX_UNAVAILABLE).
    public static let helperUnavailable = MeridianError.Kind.unavailable.exitCode
}
