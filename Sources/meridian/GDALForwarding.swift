import ArgumentParser
import MeridianFormats
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// GDAL-backed subcommands run in `meridian-gdal`, so that libgdal (about 90 ms of start-up
/// and 35 MB resident, measured) never loads for the others. `meridian tile ARGS…` replaces
/// itself (execv, git-style) with `meridian-gdal tile ARGS…`: same arguments, same standard
/// streams, same exit code, and `meridian tile --help` prints the real help.
enum GDALForwarding {
    /// The subcommands `meridian-gdal` hosts.
    static let subcommands: Set<String> = ["tile", "formats"]

    /// Exit code when `meridian-gdal` cannot be found or run (EX_UNAVAILABLE).
    static let unavailable: Int32 = 69

    /// `meridian-gdal`: $MERIDIAN_GDAL, else beside the running executable, else on PATH.
    static func helperPath() -> String? {
        if let env = getenv("MERIDIAN_GDAL").map({ String(cString: $0) }), !env.isEmpty {
            return access(env, X_OK) == 0 ? env : nil
        }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 {
            let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let slash = exe.lastIndex(of: "/") {
                let beside = String(exe[..<slash]) + "/meridian-gdal"
                if access(beside, X_OK) == 0 { return beside }
            }
        }
        for folder in (getenv("PATH").map { String(cString: $0) } ?? "").split(separator: ":") {
            let candidate = "\(folder)/meridian-gdal"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Why `what` cannot run, and where `meridian-gdal` was looked for.
    static func helperMissing(_ what: String) -> MeridianError {
        MeridianError(.usage, "\(what) needs meridian-gdal, which was not found beside meridian, in $MERIDIAN_GDAL or on PATH",
                      hint: "build it with `swift build --product meridian-gdal` (it links GDAL) and keep it next to meridian")
    }

    /// Runs `meridian-gdal SUBCOMMAND ARGS…` in place of this process; returns only on failure,
    /// after printing why, with the exit code to use.
    static func exec(_ subcommand: String, _ arguments: [String]) -> Int32 {
        guard let helper = helperPath() else {
            let error = helperMissing("'\(subcommand)'")
            Reporter().report(Diagnostic(.error, error.message, hint: error.hint))
            return unavailable
        }
        let argv = ["meridian-gdal", subcommand] + arguments
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) }
        cArgs.append(nil)
        execv(helper, &cArgs)
        Reporter.printError("meridian: error: cannot run \(helper): \(String(cString: strerror(errno)))")
        return unavailable
    }

    /// Called before argument parsing: forwards `meridian tile …` whole, `--help` included.
    static func forwardIfNeeded(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) {
        guard let first = arguments.first, subcommands.contains(first) else { return }
        exit(exec(first, Array(arguments.dropFirst())))
    }
}

extension Meridian {
    /// The entry point: GDAL-backed subcommands go to `meridian-gdal` before parsing (which
    /// does the same itself); the others are parsed with negative numbers taken as values,
    /// and a mistyped word gets a suggestion.
    static func main() {
        GDALForwarding.forwardIfNeeded()
        mainSuggestingCorrections(NegativeNumbers.protect(Array(CommandLine.arguments.dropFirst()), for: Meridian.self))
    }
}

/// A subcommand listed in `meridian --help` whose work happens in `meridian-gdal`: the
/// arguments are handed over whole (`forwardIfNeeded` does it before parsing; `run` is the
/// same path for completeness).
protocol ForwardedToGDAL: ParsableCommand {
    var arguments: [String] { get }
}

extension ForwardedToGDAL {
    func run() throws {
        throw ExitCode(GDALForwarding.exec(Self.configuration.commandName ?? "", arguments))
    }
}
