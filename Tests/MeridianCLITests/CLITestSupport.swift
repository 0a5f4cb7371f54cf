import Foundation
import Testing
// Fixtures and exit statuses, shared by every test target; re-exported for this target's files.
@_exported import MeridianTestSupport

/// The `meridian` binary that `swift test` built: $MERIDIAN_BINARY, else beside the test bundle,
/// else in .build/debug.
let meridianBinary: String = {
    if let path = ProcessInfo.processInfo.environment["MERIDIAN_BINARY"] { return path }
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("meridian").path
    if FileManager.default.isExecutableFile(atPath: beside) { return beside }
    return packageRoot.appendingPathComponent(".build/debug/meridian").path
}()

struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var stdoutData: Data
}

/// Runs `meridian` with arguments (and optional standard input) as a user would. Standard
/// streams go through files, so no pipe can fill up and block the process.
@discardableResult
func meridian(_ arguments: [String], stdin: Data? = nil, in directory: URL? = nil) throws -> RunResult {
    try run(meridianBinary, arguments, stdin: stdin, in: directory)
}

/// Runs any program (a path, or a name looked up on PATH through env) the same way.
@discardableResult
func run(_ program: String, _ arguments: [String], stdin: Data? = nil, in directory: URL? = nil) throws -> RunResult {
    try withTemporaryFolder { streams in
        let inURL = streams.appendingPathComponent("stdin"), outURL = streams.appendingPathComponent("stdout"),
            errURL = streams.appendingPathComponent("stderr")
        try (stdin ?? Data()).write(to: inURL)
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        if program.contains("/") {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [program] + arguments
        }
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = try FileHandle(forReadingFrom: inURL)
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
        process.waitUntilExit()
        let out = try Data(contentsOf: outURL)
        return RunResult(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                         stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self), stdoutData: out)
    }
}

func contents(of folder: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
}

/// Runs `meridian` with its standard output on a pseudo-terminal, as when a person runs it
/// without redirecting: util-linux's `script` (Debian's essential bsdutils) gives the command a
/// terminal and copies what reaches it to `stdout`; the command's stderr goes to a file. The
/// same wrapping first checks that a command run so sees a terminal (`test -t 1`), so a test
/// built on it cannot pass without one.
func meridianOnTerminal(_ arguments: [String]) throws -> RunResult {
    func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }
    let probe = try run("script", ["-qec", "test -t 1", "/dev/null"])
    try #require(probe.status == 0, "script gives no terminal: \(probe.stderr)")
    return try withTemporaryFolder { folder in
        let errors = folder.appendingPathComponent("stderr").path
        let command = ([meridianBinary] + arguments).map(quoted).joined(separator: " ") + " 2>" + quoted(errors)
        let terminal = try run("script", ["-qec", command, "/dev/null"])
        let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        return RunResult(status: terminal.status, stdout: terminal.stdout, stderr: stderr, stdoutData: terminal.stdoutData)
    }
}
