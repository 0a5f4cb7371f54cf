import ArgumentParser
import Foundation
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

    public static let gdal = HelperExecutable(name: "meridian-gdal", environmentVariable: "MERIDIAN_GDAL", library: "GDAL")
    public static let draw = HelperExecutable(name: "meridian-draw", environmentVariable: "MERIDIAN_DRAW", library: "cairo")

    /// Exit code when a helper cannot be found or run (EX_UNAVAILABLE).
    public static let unavailable: Int32 = 69

    /// The helper's path: its environment variable, else beside the running executable, else on PATH.
    public func path() -> String? {
        if let env = getenv(environmentVariable).map({ String(cString: $0) }), !env.isEmpty {
            return access(env, X_OK) == 0 ? env : nil
        }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 {
            let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let slash = exe.lastIndex(of: "/") {
                let beside = String(exe[..<slash]) + "/" + name
                if access(beside, X_OK) == 0 { return beside }
            }
        }
        for folder in (getenv("PATH").map { String(cString: $0) } ?? "").split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Why `what` cannot run, and where the helper was looked for.
    public func missing(_ what: String) -> MeridianError {
        MeridianError(.usage, "\(what) needs \(name), which was not found beside meridian, in $\(environmentVariable) or on PATH",
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

    /// The helper run as a child for `what` (named when it is missing), its standard output on
    /// `standardOutput` (nil: this process's) and its standard error on `standardError` (nil:
    /// this process's, for a child that words its own errors).
    public func run(_ arguments: [String], for what: String, standardOutput: Any? = nil, standardError: Pipe? = nil) throws -> Process {
        guard let helper = path() else { throw missing(what) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: helper)
        process.arguments = arguments
        if let standardOutput { process.standardOutput = standardOutput }
        if let standardError { process.standardError = standardError }
        try process.run()
        return process
    }

    /// The helper run as a child that reports to this process (`Reporter.toParentProcess`): its
    /// diagnostics are collected as it runs, for `HelperDiagnostics.finish`.
    public func start(_ arguments: [String], for what: String, standardOutput: Any? = nil) throws -> (Process, HelperDiagnostics) {
        let errors = Pipe()
        let process = try run(arguments, for: what, standardOutput: standardOutput, standardError: errors)
        return (process, HelperDiagnostics(errors, helper: name))
    }

    /// The lines the helper prints; its own error (already printed) becomes its exit code.
    public func output(_ arguments: [String], for what: String) throws -> [String] {
        let pipe = Pipe()
        let process = try run(arguments, for: what, standardOutput: pipe)
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if process.terminationStatus != 0 { throw ExitCode(process.terminationStatus) }
        return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

/// What a helper run by `HelperExecutable.start` says on standard error: diagnostics as JSON
/// lines (`Reporter.toParentProcess`). Warnings go to this process's handler, so they are
/// printed (or silenced by `--quiet`) as Meridian's own; the child's error comes back as a
/// `MeridianError` with its exit code's kind; any other line (a crash) is copied to stderr.
/// The pipe is read on a thread of its own, so a child with much to say never blocks.
public final class HelperDiagnostics: @unchecked Sendable {
    private let pipe: Pipe
    private let helper: String
    private let done = DispatchGroup()
    /// Written by the reading thread before `done` is left; read after `done.wait()`.
    private var text = Data()

    init(_ pipe: Pipe, helper: String) {
        self.pipe = pipe
        self.helper = helper
        done.enter()
        DispatchQueue.global().async { [self] in
            text = pipe.fileHandleForReading.readDataToEndOfFile()
            done.leave()
        }
    }

    /// Once the child has ended: reports its warnings, and throws its error if it failed.
    public func finish(_ process: Process, warnings: DiagnosticHandler?) throws {
        process.waitUntilExit()
        done.wait()
        var failure: Diagnostic?
        for line in String(decoding: text, as: UTF8.self).split(separator: "\n") {
            guard let diagnostic = Diagnostic(jsonLine: String(line)) else {
                Reporter.printError(String(line))
                continue
            }
            if diagnostic.severity == .error { failure = diagnostic } else { warnings?(diagnostic) }
        }
        text = Data()
        let status = process.terminationStatus
        guard process.terminationReason != .exit || status != 0 else { return }
        guard let failure, process.terminationReason == .exit, let kind = MeridianError.Kind(exitCode: status) else {
            throw MeridianError(.io, "\(helper) \(process.arguments?.first ?? "") stopped (\(process.terminationReason == .exit ? "exit" : "signal") \(status))")
        }
        throw MeridianError(kind, failure.message, at: failure.location, hint: failure.hint)
    }
}
