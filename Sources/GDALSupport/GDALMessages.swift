import CGDAL
import MeridianCore

/// GDAL's own warnings while Meridian works, handed on as Meridian's warnings about `file`
/// (outside a capture, the quiet handler `GDAL.setUp` installs keeps them off standard error,
/// where GDAL prints `Warning 1: …` by default, in no form `meridian` knows). GDAL keeps a
/// stack of handlers per thread, so `capturing` changes nothing for other threads. Errors are
/// not repeated: Meridian's error messages quote GDAL's last error.
public final class GDALMessages {
    private let file: String
    private let diagnostics: DiagnosticHandler?
    private var reported = 0
    private var leftOut = 0
    /// While true, warnings are dropped: Meridian reports their effect itself (a renamed field).
    public var muted = false

    /// Warnings passed on before the rest are only counted (GDAL warns about each feature a
    /// Shapefile field is too narrow for).
    public static let limit = 20

    /// Creates a receiver for GDAL's warnings about one file.
    /// - Parameters:
    ///   - file: The file the warnings are about, as Meridian's warnings name it.
    ///   - diagnostics: Where the warnings go; nil drops them.
    public init(file: String, diagnostics: DiagnosticHandler?) {
        self.file = file
        self.diagnostics = diagnostics
    }

    /// Runs `body` with GDAL's messages on this thread coming here.
    public func capturing<T>(_ body: () throws -> T) rethrows -> T {
        CPLPushErrorHandlerEx({ severity, _, message in
            guard let context = CPLGetErrorHandlerUserData() else { return }
            Unmanaged<GDALMessages>.fromOpaque(context).takeUnretainedValue()
                .receive(severity, message.map { String(cString: $0) } ?? "")
        }, Unmanaged.passUnretained(self).toOpaque())
        defer { CPLPopErrorHandler() }
        return try body()
    }

    private func receive(_ severity: CPLErr, _ message: String) {
        guard severity == CE_Warning, !muted else { return }
        guard reported < Self.limit else {
            leftOut += 1
            return
        }
        reported += 1
        diagnostics?(Diagnostic(.warning, "GDAL: \(message)", at: SourceLocation(file: file)))
    }

    /// Says how many warnings were left out, if any; call once the work is done.
    public func finish() {
        guard leftOut > 0 else { return }
        diagnostics?(Diagnostic(.warning, "\(leftOut) more of GDAL's warnings left out", at: SourceLocation(file: file)))
        leftOut = 0
    }
}
