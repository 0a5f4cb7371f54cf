import ArgumentParser
import MeridianCore
import MeridianFormats

/// An executable `meridian` hands work to, so that a large library loads only in the processes
/// that use it: `meridian-gdal` (GDAL, about 90 ms of start-up and 35 MB resident: tiles and
/// GDAL's vector formats) and `meridian-draw` (cairo and the image codecs: pictures). A helper
/// runs in place of `meridian` for a forwarded subcommand (`exec`), or as a child whose
/// warnings and error come back as JSON lines (`start`, `HelperDiagnostics`).
public struct HelperExecutable: Sendable {
    /// Its file name, looked for beside `meridian` and on PATH.
    public let name: String
    /// The variable that names its path instead.
    public let environmentVariable: String
    /// The library it exists for, named when it is missing.
    public let library: String

    /// `meridian-gdal`: tiling, and reading and writing GDAL's vector formats (`MERIDIAN_GDAL` overrides its path).
    public static let gdal = HelperExecutable(name: "meridian-gdal", environmentVariable: "MERIDIAN_GDAL", library: "GDAL")
    /// `meridian-draw`: SVG and PNG pictures (`MERIDIAN_DRAW` overrides its path).
    public static let draw = HelperExecutable(name: "meridian-draw", environmentVariable: "MERIDIAN_DRAW", library: "cairo")

    /// Exit code when a helper cannot be found or run (EX_UNAVAILABLE).
    public static let unavailable = MeridianError.Kind.unavailable.exitCode

    /// The helper's path: its environment variable, else beside the running executable, else on PATH.
    public func path() -> String? {
        if let env = getenv(environmentVariable).map({ String(cString: $0) }), !env.isEmpty {
            return access(env, X_OK) == 0 ? env : nil
        }
        if let exe = Platform.executablePath(), let slash = exe.lastIndex(of: "/") {
            let beside = String(exe[..<slash]) + "/" + name
            if access(beside, X_OK) == 0 { return beside }
        }
        for folder in (getenv("PATH").map { String(cString: $0) } ?? "").split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Why `what` cannot run, and where the helper was looked for.
    public func missing(_ what: String) -> MeridianError {
        MeridianError(.unavailable, "\(what) needs \(name), which was not found beside meridian, in $\(environmentVariable) or on PATH",
                      hint: "build it with `swift build --product \(name)` (it links \(library)) and keep it next to meridian")
    }

    /// Runs `HELPER SUBCOMMAND ARGS…` in place of this process (same arguments, standard
    /// streams and exit code); returns only on failure, after printing why, with the exit code to use.
    public func exec(_ subcommand: String, _ arguments: [String]) -> Int32 {
        guard let helper = path() else {
            let error = missing("'\(subcommand)'")
            Reporter().report(Diagnostic(.error, error.message, hint: error.hint))
            return Self.unavailable
        }
        let argv = [name, subcommand] + arguments
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) }
        cArgs.append(nil)
        execv(helper, &cArgs)
        Reporter.printError("meridian: error: cannot run \(helper): \(String(cString: strerror(errno)))")
        return Self.unavailable
    }

    /// The helper run as a child for `what` (named when it is missing), each of its output
    /// streams inherited or on a pipe (`ChildProcess`).
    public func run(_ arguments: [String], for what: String, standardOutput: ChildProcess.Stream = .inherited,
                    standardError: ChildProcess.Stream = .inherited, inheriting: Int32? = nil) throws -> ChildProcess {
        guard let helper = path() else { throw missing(what) }
        return try ChildProcess(path: helper, arguments: arguments, standardOutput: standardOutput, standardError: standardError,
                                inheriting: inheriting)
    }

    /// The helper run as a child that reports to this process (`Reporter.toParentProcess`): its
    /// diagnostics are collected as it runs, for `HelperDiagnostics.finish`. `inheriting`: a
    /// scratch file the child reads as `InheritedScratch`.
    public func start(_ arguments: [String], for what: String, standardOutput: ChildProcess.Stream = .inherited,
                      inheriting: Int32? = nil) throws -> (ChildProcess, HelperDiagnostics) {
        let child = try run(arguments, for: what, standardOutput: standardOutput, standardError: .pipe, inheriting: inheriting)
        return (child, try HelperDiagnostics(of: child, helper: name))
    }

    /// The lines the helper prints; its own error (already printed) becomes its exit code.
    public func output(_ arguments: [String], for what: String) throws -> [String] {
        let child = try run(arguments, for: what, standardOutput: .pipe)
        let output = everything(from: child.standardOutput!)
        switch child.wait() {
        case .exit(0): return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
        case .exit(let code): throw ExitCode(code)
        case let ended: throw MeridianError(.io, "\(name) \(arguments.first ?? "") stopped (\(ended.description))")
        }
    }
}

/// All a child writes on `descriptor` (one of its pipes), to its end; a pipe that fails to be
/// read ends there.
func everything(from descriptor: Int32) -> [UInt8] {
    var bytes: [UInt8] = []
    try? BufferedInput(fileDescriptor: descriptor, name: "pipe", ownsDescriptor: false).forEachChunk { chunk, _ in bytes += chunk }
    return bytes
}

/// What a helper run by `HelperExecutable.start` says on standard error: diagnostics as JSON
/// lines (`Reporter.toParentProcess`). Warnings go to this process's handler, so they are
/// printed (or silenced by `--quiet`) as Meridian's own; the child's error comes back as a
/// `MeridianError` with its exit code's kind; any other line (a crash) is copied to stderr.
/// The pipe is read on a thread of its own, so a child with much to say never blocks.
public final class HelperDiagnostics {
    private let child: ChildProcess
    /// The bytes the reading thread collects; read once it has been joined.
    private final class Collected: @unchecked Sendable {
        var bytes: [UInt8] = []
    }

    private let helper: String
    private let collected = Collected()
    private var reading: WorkerThread?

    init(of child: ChildProcess, helper: String) throws {
        self.child = child
        self.helper = helper
        let descriptor = child.standardError!, collected = collected
        do {
            reading = try WorkerThread { collected.bytes = everything(from: descriptor) }
        } catch {
            child.terminate()  // no one would read what it says
            throw error
        }
    }

    deinit {
        // A child given up on before `finish` (its reader dropped early) is stopped, so that the
        // reading thread ends before the pipe closes with the child.
        if let reading {
            child.terminate()
            child.wait()
            reading.join()
        }
    }

    /// Once the child has ended: reports its warnings, and throws its error if it failed.
    public func finish(warnings: DiagnosticHandler?) throws {
        let termination = child.wait()
        reading?.join()
        reading = nil
        var failure: Diagnostic?
        for line in String(decoding: collected.bytes, as: UTF8.self).split(separator: "\n") {
            guard let diagnostic = Diagnostic(jsonLine: String(line)) else {
                Reporter.printError(String(line))
                continue
            }
            if diagnostic.severity == .error { failure = diagnostic } else { warnings?(diagnostic) }
        }
        collected.bytes = []
        guard termination != .exit(0) else { return }
        guard let failure, case .exit(let status) = termination, let kind = MeridianError.Kind(exitCode: status) else {
            throw MeridianError(.io, "\(helper) \(child.arguments.first ?? "") stopped (\(termination.description))")
        }
        throw MeridianError(kind, failure.message, at: failure.location, hint: failure.hint)
    }
}
